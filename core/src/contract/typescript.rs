//! extension/src/host/contract.ts, the TypeScript copy of this contract, is generated
//! from the types above by `ts-rs` (a dev-dependency: the derives exist only in test
//! builds, so the engine and its .wasm carry nothing of it). The test fails when the
//! file differs from what the types give. It reads the file at compile time
//! (`include_str!`) and writes nothing: the engine's crate does no IO, its tests
//! included. With `BLESS=1` it prints what the file should be between two marker lines,
//! which `node scripts/contract.mjs` writes to the file.

use super::*;
use ts_rs::{Config, TS};

/// The file, relative to the repository's root, and its text when the crate was compiled.
const FILE: &str = "extension/src/host/contract.ts";
const WRITTEN: &str = include_str!("../../../extension/src/host/contract.ts");
/// The lines around the generated text that `BLESS=1` prints (scripts/contract.mjs).
const BEGIN: &str = "----- BEGIN contract.ts -----";
const END: &str = "----- END contract.ts -----";

const HEADER: &str = "\
// GENERATED from core/src/contract.rs and core/src/contract/ids.rs by ts-rs
// (core/src/contract/typescript.rs): do not edit. `node scripts/contract.mjs` rewrites it
// after the Rust types change; the engine's tests fail while it is stale.
//
// The JSON contract between the Rust engine and the host, as docs/engine-io.md describes
// it. Byte payloads (`Bytes`) are base64; the host's own forms, with raw bytes, are in
// protocol.ts.

/** A DAP message (request, response or event), as JSON; the host never looks inside one. */
export type DapMessage = { [key: string]: unknown };
";

/// Every declaration of the file: docs, then `export type …`, in the order given.
fn declarations(cfg: &Config) -> Vec<String> {
    fn one<T: TS + ?Sized>(cfg: &Config) -> String {
        let mut text = T::docs().unwrap_or_default();
        text.push_str("export ");
        text.push_str(&one_member_a_line(&inline_field_docs(&T::decl(cfg))));
        text
    }
    vec![
        one::<ClientId>(cfg),
        one::<ConnectionId>(cfg),
        one::<ListenerId>(cfg),
        one::<ProcessId>(cfg),
        one::<TimerId>(cfg),
        one::<FactRequestId>(cfg),
        one::<ConnectRequestId>(cfg),
        one::<InjectionId>(cfg),
        one::<Bytes>(cfg),
        one::<Platform>(cfg),
        one::<EngineOptions>(cfg),
        one::<Framing>(cfg),
        one::<Stream>(cfg),
        one::<Address>(cfg),
        one::<ClientTransport>(cfg),
        one::<ListenerPurpose>(cfg),
        one::<Transport>(cfg),
        one::<FactQuery>(cfg),
        one::<FactAnswer>(cfg),
        one::<Input>(cfg),
        one::<ReadSource>(cfg),
        one::<KillTarget>(cfg),
        one::<Signal>(cfg),
        one::<LogLevel>(cfg),
        one::<Output>(cfg),
    ]
}

/// The whole file.
pub fn generated() -> String {
    // Numbers in JSON are JavaScript numbers (the engine's u64s are milliseconds and
    // exit codes), not bigints.
    let cfg = Config::new().with_large_int("number");
    let mut text = String::from(HEADER);
    for declaration in declarations(&cfg) {
        text.push('\n');
        text.push_str(&declaration);
        text.push('\n');
    }
    text
}

/// Field docs as one-line comments before the field (`/** … */ name: T`); ts-rs writes
/// them over several lines from the start of a line, in the middle of an object.
fn inline_field_docs(declaration: &str) -> String {
    let mut text = String::new();
    let mut rest = declaration;
    while let Some(start) = rest.find("\n/**\n") {
        let Some(length) = rest[start..].find("\n */\n") else {
            break;
        };
        let lines = &rest[start + "\n/**\n".len()..start + length];
        text.push_str(rest[..start].trim_end());
        text.push_str(" /** ");
        let words: Vec<&str> = lines
            .lines()
            .map(|line| line.trim_start().trim_start_matches('*').trim())
            .collect();
        text.push_str(&words.join(" "));
        text.push_str(" */ ");
        rest = &rest[start + length + "\n */\n".len()..];
    }
    text.push_str(rest);
    text
}

/// A union's members one a line (`type X =\n  | A\n  | B;`); ts-rs writes each
/// declaration on one line, and an `Input` or `Output` on one line is unreadable.
fn one_member_a_line(declaration: &str) -> String {
    let Some((head, body)) = declaration.split_once(" = ") else {
        return declaration.to_string();
    };
    let body = body.strip_suffix(';').unwrap_or(body);
    let mut members = Vec::new();
    let (mut depth, mut start, mut in_string) = (0i32, 0, false);
    for (index, character) in body.char_indices() {
        match character {
            '"' => in_string = !in_string,
            '{' | '[' | '(' | '<' if !in_string => depth += 1,
            '}' | ']' | ')' | '>' if !in_string => depth -= 1,
            '|' if !in_string && depth == 0 => {
                members.push(body[start..index].trim());
                start = index + 1;
            }
            _ => {}
        }
    }
    members.push(body[start..].trim());
    if members.len() < 2 {
        return declaration.to_string();
    }
    let mut text = format!("{head} =");
    for member in members {
        text.push_str("\n  | ");
        text.push_str(member);
    }
    text.push(';');
    text
}

#[test]
fn the_typescript_contract_is_generated_from_these_types() {
    let expected = generated();
    if std::env::var_os("BLESS").is_some_and(|value| value == "1") {
        println!("{BEGIN}\n{expected}{END}");
        return;
    }
    assert!(
        WRITTEN == expected,
        "{FILE} differs from what core/src/contract.rs gives; run `node scripts/contract.mjs` \
         to regenerate it"
    );
}
