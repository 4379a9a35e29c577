//! The words for an unusable interpreter are written once (`dapper_core::messages`);
//! VS Code's copy (extension/src/host/messages.ts) and the troubleshooting table of
//! docs/troubleshooting.md are generated from them. These tests fail when either is
//! stale; `BLESS=1 cargo test -p dapper-core --test messages` rewrites them.

use std::path::PathBuf;

const TABLE_START: &str =
    "<!-- interpreter-messages:start (generated from core/src/messages.rs) -->\n";
const TABLE_END: &str = "<!-- interpreter-messages:end -->";

fn repository_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name)
}

fn read(name: &str) -> String {
    std::fs::read_to_string(repository_path(name))
        .unwrap_or_else(|error| panic!("cannot read {name}: {error}"))
}

fn blessing() -> bool {
    std::env::var_os("BLESS").is_some_and(|value| value == "1")
}

#[test]
fn the_typescript_copy_is_generated() {
    let file = "extension/src/host/messages.ts";
    let generated = dapper_core::messages::typescript();
    if blessing() {
        std::fs::write(repository_path(file), &generated).expect("write messages.ts");
        return;
    }
    assert!(
        read(file) == generated,
        "{file} differs from core/src/messages.rs; run `BLESS=1 cargo test -p dapper-core --test messages`"
    );
}

#[test]
fn the_troubleshooting_table_is_generated() {
    let file = "docs/troubleshooting.md";
    let text = read(file);
    let start = text
        .find(TABLE_START)
        .unwrap_or_else(|| panic!("{file} lacks the marker {TABLE_START:?}"))
        + TABLE_START.len();
    let end = start
        + text[start..]
            .find(TABLE_END)
            .unwrap_or_else(|| panic!("{file} lacks the marker {TABLE_END:?}"));
    let generated = dapper_core::messages::troubleshooting_markdown();
    if blessing() {
        let written = format!("{}{generated}{}", &text[..start], &text[end..]);
        std::fs::write(repository_path(file), written).expect("write troubleshooting.md");
        return;
    }
    assert!(
        text[start..end] == generated,
        "{file}'s interpreter table differs from core/src/messages.rs; run `BLESS=1 cargo test -p dapper-core --test messages`"
    );
}
