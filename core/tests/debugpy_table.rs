//! The data-driven test of the debugpy translation: core/tests/debugpy/options.json lists
//! cases (an option given over its request's base configuration, and what it becomes,
//! the notes, or the refusal); each goes through `translate` and then Dapper's own
//! validation, as a launch or attach does. Every option of `OPTIONS` must have a case,
//! and docs/debugpy.md's table must be the generated one (`BLESS=1` rewrites it).

use dapper_core::dap::error::DapError;
use dapper_core::debugpy::{options_markdown, translate, typescript, OPTIONS};
use dapper_core::{normalised_configuration, Platform};
use serde_json::{Map, Value};
use std::path::PathBuf;

const TABLE_START: &str =
    "<!-- debugpy-options:start (generated from core/src/config/debugpy.rs) -->\n";
const TABLE_END: &str = "<!-- debugpy-options:end -->";

fn repository_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name)
}

fn cases() -> Value {
    let text = std::fs::read_to_string(repository_path("core/tests/debugpy/options.json"))
        .expect("core/tests/debugpy/options.json is readable");
    serde_json::from_str(&text).expect("core/tests/debugpy/options.json is JSON")
}

/// The configuration a case gives: its request's base with the case's keys over it
/// (null takes a base key out).
fn given(table: &Value, case: &Value) -> (String, Value) {
    let request = case["request"]
        .as_str()
        .expect("a case names its request")
        .to_string();
    let mut arguments = table["base"][&request]
        .as_object()
        .cloned()
        .unwrap_or_default();
    for (key, value) in case["given"].as_object().expect("a case has 'given'") {
        if value.is_null() {
            arguments.remove(key);
        } else {
            arguments.insert(key.clone(), value.clone());
        }
    }
    (request, Value::Object(arguments))
}

/// What Dapper makes of the translated arguments: its normalised configuration.
fn validated(request: &str, arguments: &Value) -> Result<Map<String, Value>, DapError> {
    normalised_configuration(request, arguments, Platform::Linux)
}

#[test]
fn every_debugpy_option_becomes_what_the_table_says() {
    let table = cases();
    let mut failures = Vec::new();
    for case in table["cases"].as_array().expect("'cases' is a list") {
        let (request, arguments) = given(&table, case);
        let result = translate(&arguments, &request).and_then(|translation| {
            Ok((
                validated(&request, &translation.arguments)?,
                translation.notes,
            ))
        });
        match (result, case.get("refused").and_then(Value::as_str)) {
            (Err(error), Some(expected)) if error.message == expected => {}
            (Err(error), expected) => failures.push(format!(
                "{}\n  refused: {}\n  expected: {}",
                case["given"],
                error.message,
                expected.unwrap_or("no refusal")
            )),
            (Ok(_), Some(expected)) => failures.push(format!(
                "{}\n  accepted\n  expected the refusal: {expected}",
                case["given"]
            )),
            (Ok((normalised, notes)), None) => {
                for (key, expected) in case["becomes"].as_object().into_iter().flatten() {
                    let got = normalised.get(key).cloned().unwrap_or(Value::Null);
                    if got != *expected {
                        failures.push(format!(
                            "{}\n  '{key}' became {got}\n  expected {expected}",
                            case["given"]
                        ));
                    }
                }
                let wanted: Vec<&str> = case
                    .get("notes")
                    .and_then(Value::as_array)
                    .map(|notes| notes.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let exact = case.get("notes").is_some();
                for part in &wanted {
                    if !notes.iter().any(|note| note.contains(part)) {
                        failures.push(format!(
                            "{}\n  no note says {part:?}; notes: {notes:?}",
                            case["given"]
                        ));
                    }
                }
                if exact && notes.len() != wanted.len() {
                    failures.push(format!(
                        "{}\n  notes {notes:?}, expected {wanted:?}",
                        case["given"]
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_debugpy_option_has_a_case() {
    let table = cases();
    let given: Vec<String> = table["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|case| case["given"].as_object().into_iter().flatten())
        .filter(|(_, value)| !value.is_null())
        .map(|(key, _)| key.clone())
        .collect();
    let base_keys = ["type", "request", "program", "connect"];
    let missing: Vec<&str> = OPTIONS
        .iter()
        .map(|option| option.name)
        .filter(|name| !given.iter().any(|key| key == name) && !base_keys.contains(name))
        .collect();
    assert!(
        missing.is_empty(),
        "debugpy options without a case in core/tests/debugpy/options.json: {missing:?}"
    );
}

#[test]
fn the_docs_table_is_generated() {
    let path = repository_path("docs/debugpy.md");
    let text = std::fs::read_to_string(&path).expect("docs/debugpy.md is readable");
    let start = text
        .find(TABLE_START)
        .expect("docs/debugpy.md has the table's start marker")
        + TABLE_START.len();
    let end = start
        + text[start..]
            .find(TABLE_END)
            .expect("docs/debugpy.md has the table's end marker");
    let generated = options_markdown();
    if text[start..end] == generated {
        return;
    }
    if std::env::var_os("BLESS").is_some_and(|value| value == "1") {
        let written = format!("{}{generated}{}", &text[..start], &text[end..]);
        std::fs::write(&path, written).expect("docs/debugpy.md is writable");
        return;
    }
    panic!("docs/debugpy.md's option table differs from core/src/config/debugpy.rs; run `BLESS=1 cargo test -p dapper-core --test debugpy_table` to rewrite it.");
}

#[test]
fn the_typescript_copy_is_generated() {
    let path = repository_path("extension/src/host/debugpy.ts");
    let generated = typescript();
    if std::env::var_os("BLESS").is_some_and(|value| value == "1") {
        std::fs::write(&path, &generated).expect("extension/src/host/debugpy.ts is writable");
        return;
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        written == generated,
        "extension/src/host/debugpy.ts differs from core/src/config/debugpy.rs; run `BLESS=1 cargo test -p dapper-core --test debugpy_table`"
    );
}
