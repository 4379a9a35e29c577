//! Property-style tests of the engine's JSON fast paths against a full serde_json
//! parse, on generated inputs (a fixed-seed PRNG, so every failure reproduces):
//!
//! - `message::parse_text` / `parse_slice` (the scan of a message's top-level keys)
//!   against `message::parse(serde_json::from_slice(..))`: the same verdict, fields,
//!   arguments and bodies, and the same forwarded message once `seq`, `request_seq`
//!   and `command` are spliced in; malformed texts get the same error text.
//! - `Engine::handle_json_to_json` (the scan of hot inputs and the output writer)
//!   against serde's `Input` parse and `serde_json::to_string` of the outputs.
//!
//! The generator writes JSON the way no single encoder does: random whitespace, escaped
//! and raw unicode, surrogate pairs and lone surrogates, numbers in every form,
//! nested objects with their own `seq`, duplicate and escaped keys.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use dapper_core::boundary::IoBuffers;
use dapper_core::dap::json::scan_object;
use dapper_core::dap::message::{parse, parse_slice, Incoming, TextError};
use dapper_core::dap::surrogates::replace_lone_surrogates;
use dapper_core::{Engine, EngineOptions, Input, LogLevel, Output, Platform};
use serde_json::{json, Value};

mod common;
use common::Rng;

const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "7",
    "-12",
    "1.5",
    "-0.25",
    "1e3",
    "2E-2",
    "1.0",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "123456789012345678901234567890",
    "1e400",
    "-1e400",
    "0.000000000000000000000000000001",
];

/// Pieces of string content: plain, escaped, unicode (raw and escaped), surrogates.
const STRING_PIECES: &[&str] = &[
    "a",
    "seq",
    "threads",
    " ",
    "\\\"",
    "\\\\",
    "\\/",
    "\\n",
    "\\t",
    "\\b\\f\\r",
    "\\u0041",
    "\\u00e9",
    "é",
    "€",
    "😀",
    "\\ud83d\\ude00",
    "\\uD83D\\uDE00",
    "\\ud800",
    "\\udc00",
    "\\u12",
    "\\x",
    "\u{1}",
    "\t",
    // Long plain runs, which the scan passes over eight bytes at a time.
    "a plain run of text longer than a word or two",
    "/home/user/project/package/module.py",
];

const KEYS: &[&str] = &[
    "seq",
    "type",
    "command",
    "request_seq",
    "success",
    "message",
    "event",
    "body",
    "arguments",
    "x",
    "se\\u0071",
];

fn whitespace(rng: &mut Rng) -> &'static str {
    ["", "", "", " ", "\n", "\t", " \r\n "][rng.below(7)]
}

fn string(rng: &mut Rng) -> String {
    let mut text = String::from("\"");
    for _ in 0..rng.below(6) {
        // Invalid pieces (lone surrogates, bad escapes, raw control characters) are
        // rare, so that most messages are valid and reach the interesting paths.
        let piece = rng.pick(STRING_PIECES);
        let invalid = matches!(
            piece,
            "\\ud800" | "\\udc00" | "\\u12" | "\\x" | "\u{1}" | "\t"
        );
        if !invalid || rng.chance(5) {
            text.push_str(piece);
        }
    }
    text.push('"');
    text
}

fn value(rng: &mut Rng, depth: usize) -> String {
    let kind = if depth > 3 {
        rng.below(4)
    } else {
        rng.below(7)
    };
    match kind {
        0 => rng.pick(&["null", "true", "false"]).to_string(),
        1 => rng.pick(NUMBERS).to_string(),
        2 | 3 => string(rng),
        4 | 5 => object(rng, depth + 1, &[]),
        _ => {
            let items: Vec<String> = (0..rng.below(4)).map(|_| value(rng, depth + 1)).collect();
            let gap = whitespace(rng);
            format!(
                "[{gap}{}{gap}]",
                items.join(&format!("{gap},{}", whitespace(rng)))
            )
        }
    }
}

/// An object with some random members and the given ones, in random order.
fn object(rng: &mut Rng, depth: usize, fixed: &[(String, String)]) -> String {
    let mut members: Vec<(String, String)> = fixed.to_vec();
    for _ in 0..rng.below(4) {
        let key = format!("\"{}\"", rng.pick(KEYS));
        members.push((key, value(rng, depth)));
    }
    for index in (1..members.len()).rev() {
        members.swap(index, rng.below(index + 1));
    }
    let parts: Vec<String> = members
        .iter()
        .map(|(key, value)| {
            format!(
                "{}{key}{}:{}{value}{}",
                whitespace(rng),
                whitespace(rng),
                whitespace(rng),
                whitespace(rng)
            )
        })
        .collect();
    format!("{{{}{}}}", parts.join(","), whitespace(rng))
}

/// A DAP-ish message: mostly well-formed envelopes, sometimes with wrong types.
fn message(rng: &mut Rng) -> String {
    let kind = rng.pick(&["request", "response", "event", "event", "reply"]);
    let mut fixed = vec![("\"type\"".to_string(), format!("\"{kind}\""))];
    let integer = |rng: &mut Rng| -> String {
        if rng.chance(80) {
            rng.below(100_000).to_string()
        } else {
            value(rng, 3)
        }
    };
    let text = |rng: &mut Rng, plain: &str| -> String {
        if rng.chance(80) {
            format!("\"{plain}\"")
        } else {
            value(rng, 3)
        }
    };
    if rng.chance(90) {
        fixed.push(("\"seq\"".to_string(), integer(rng)));
    }
    match kind {
        "request" => {
            if rng.chance(90) {
                fixed.push(("\"command\"".to_string(), text(rng, "stackTrace")));
            }
            if rng.chance(70) {
                fixed.push(("\"arguments\"".to_string(), object(rng, 1, &[])));
            }
        }
        "response" => {
            if rng.chance(90) {
                fixed.push(("\"request_seq\"".to_string(), integer(rng)));
            }
            fixed.push((
                "\"success\"".to_string(),
                rng.pick(&["true", "false", "1"]).to_string(),
            ));
            fixed.push(("\"command\"".to_string(), text(rng, "variables")));
            if rng.chance(30) {
                fixed.push(("\"message\"".to_string(), string(rng)));
            }
            fixed.push(("\"body\"".to_string(), object(rng, 1, &[])));
        }
        _ => {
            if rng.chance(90) {
                fixed.push(("\"event\"".to_string(), text(rng, "output")));
            }
            fixed.push(("\"body\"".to_string(), value(rng, 1)));
        }
    }
    let body = object(rng, 0, &fixed);
    format!("{}{body}{}", whitespace(rng), whitespace(rng))
}

/// Random damage: a byte replaced, removed or inserted, or the text cut short.
fn damage(rng: &mut Rng, text: &str) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..=rng.below(2) {
        if bytes.is_empty() {
            break;
        }
        let at = rng.below(bytes.len());
        let junk = b"\"{}[],: \\0-.eEtx\xff\x01"[rng.below(18)];
        match rng.below(4) {
            0 => bytes[at] = junk,
            1 => {
                bytes.remove(at);
            }
            2 => bytes.insert(at, junk),
            _ => bytes.truncate(at),
        }
    }
    bytes
}

/// The verdict of the full parse, as the engine reached it before the scan existed.
/// The reference: serde_json's verdict, except that a text it refuses only for lone
/// surrogate escapes is read with those replaced by U+FFFD (dap::surrogates).
fn full_parse(bytes: &[u8]) -> Result<Incoming, TextError> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => parse(value).map_err(TextError::Envelope),
        Err(error) => {
            let repaired = std::str::from_utf8(bytes)
                .ok()
                .and_then(replace_lone_surrogates);
            match repaired.map(|text| serde_json::from_str::<Value>(&text)) {
                Some(Ok(value)) => parse(value).map_err(TextError::Envelope),
                _ => Err(TextError::NotJson(error.to_string())),
            }
        }
    }
}

/// What is sent on when the engine forwards a message: seq and, for responses, the
/// client's request_seq and command, as `Value` (the text must be valid JSON).
fn forwarded(incoming: &Incoming) -> Value {
    let stamped = match incoming {
        Incoming::Request(request) => request.raw.clone().forwarded(Vec::new()).stamp(41),
        Incoming::Response(response) => response
            .raw
            .clone()
            .forwarded(vec![
                ("request_seq", json!(7)),
                ("command", json!("a \"quoted\" command")),
            ])
            .stamp(42),
        Incoming::Event(event) => event.raw.clone().forwarded(Vec::new()).stamp(43),
    };
    serde_json::from_str(stamped.as_str())
        .unwrap_or_else(|error| panic!("forwarded text is not JSON ({error}): {stamped:?}"))
}

/// Equality of values, except that a fraction may differ in its last bit: the fast
/// path passes a number on as the text it arrived as, while the full path re-rendered
/// serde_json's (not always exact) reading of it.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            x == y || (x - y).abs() <= 1e-15 * x.abs().max(y.abs())
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, x)| y.get(key).is_some_and(|y| same_value(x, y)))
        }
        _ => a == b,
    }
}

fn check_message(bytes: &[u8]) {
    let shown = String::from_utf8_lossy(bytes);
    let fast = parse_slice(bytes);
    let full = full_parse(bytes);
    // Incoming's equality compares arguments, bodies and raw messages as values.
    assert_eq!(fast, full, "{shown}");
    if let (Ok(fast), Ok(full)) = (&fast, &full) {
        let (fast, full) = (forwarded(fast), forwarded(full));
        assert!(same_value(&fast, &full), "{shown}\n{fast}\n{full}");
    }
}

#[test]
fn the_scan_reads_messages_as_the_full_parse_does() {
    let mut rng = Rng(11);
    let (mut accepted, mut scanned) = (0, 0);
    for _ in 0..20_000 {
        let text = message(&mut rng);
        if full_parse(text.as_bytes()).is_ok() {
            accepted += 1;
        }
        if scan_object(&text).is_some() {
            scanned += 1;
        }
        check_message(text.as_bytes());
    }
    // Guards against a generator that only makes broken messages, or only messages
    // the scan leaves to serde_json (then the fast path would go untested).
    eprintln!("{accepted} usable messages, {scanned} on the fast path");
    assert!(
        accepted > 6_000,
        "only {accepted} generated messages were usable"
    );
    assert!(
        scanned > 5_000,
        "only {scanned} generated messages took the fast path"
    );
}

#[test]
fn damaged_messages_get_the_same_verdict_and_error() {
    let mut rng = Rng(12);
    for _ in 0..20_000 {
        let text = message(&mut rng);
        check_message(&damage(&mut rng, &text));
    }
}

fn engine() -> Engine {
    Engine::new(EngineOptions {
        python_package_dir: "/ext/python".into(),
        platform: Platform::Linux,
        randomness: "00".repeat(32),
        adapter_version: "test".into(),
        working_directory: String::new(),
    })
    .expect("the options are valid")
}

/// The engine as it handled JSON before the fast paths: serde's `Input`, serde's output.
fn handle_by_serde(engine: &mut Engine, text: &str) -> Value {
    let outputs = match serde_json::from_str::<Input>(text) {
        Ok(input) => engine.handle(input),
        Err(error) => vec![Output::Log {
            level: LogLevel::Error,
            message: format!("Ignored an input the engine could not parse: {error}"),
        }],
    };
    serde_json::from_str(&serde_json::to_string(&outputs).expect("outputs serialise"))
        .expect("serde writes JSON")
}

/// A hot input (or a near miss) with random formatting.
fn input(rng: &mut Rng) -> String {
    let id = |rng: &mut Rng| -> String {
        if rng.chance(85) {
            rng.pick(&["1", "2"]).to_string()
        } else {
            rng.pick(NUMBERS).to_string()
        }
    };
    let data = |rng: &mut Rng| -> String {
        let framed = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
        match rng.below(5) {
            0 => format!("\"{}\"", BASE64.encode(framed(&message(rng)).as_bytes())),
            1 => {
                let text = message(rng);
                format!("\"{}\"", BASE64.encode(damage(rng, &text)))
            }
            2 => string(rng),
            3 => "\"Q29u\\u0064\"".to_string(),
            _ => value(rng, 2),
        }
    };
    let kind = rng.pick(&[
        "clientMessage",
        "clientMessage",
        "clientBytes",
        "connectionBytes",
        "processOutput",
        "clientOpened",
    ]);
    let mut fixed = vec![("\"type\"".to_string(), format!("\"{kind}\""))];
    match kind {
        "clientMessage" => {
            fixed.push(("\"client\"".to_string(), id(rng)));
            fixed.push(("\"message\"".to_string(), message(rng)));
        }
        "clientBytes" | "connectionBytes" => {
            let key = if kind == "clientBytes" {
                "\"client\""
            } else {
                "\"conn\""
            };
            fixed.push((key.to_string(), id(rng)));
            fixed.push(("\"data\"".to_string(), data(rng)));
        }
        "processOutput" => {
            fixed.push(("\"process\"".to_string(), id(rng)));
            fixed.push((
                "\"stream\"".to_string(),
                rng.pick(&["\"stdout\"", "\"stderr\"", "\"stdin\""])
                    .to_string(),
            ));
            fixed.push(("\"data\"".to_string(), data(rng)));
        }
        _ => {
            fixed.push(("\"client\"".to_string(), id(rng)));
            fixed.push((
                "\"framing\"".to_string(),
                rng.pick(&["\"messages\"", "\"contentLength\""]).to_string(),
            ));
        }
    }
    object(rng, 0, &fixed)
}

#[test]
fn hot_inputs_and_outputs_match_serde() {
    let mut rng = Rng(13);
    let mut fast = engine();
    let mut reference = engine();
    for text in [
        r#"{"type":"clientOpened","client":1,"framing":"messages"}"#,
        r#"{"type":"clientOpened","client":2,"framing":"contentLength"}"#,
    ] {
        fast.handle_json(text);
        reference.handle_json(text);
    }
    for _ in 0..5_000 {
        let text = input(&mut rng);
        let expected = handle_by_serde(&mut reference, &text);
        let actual: Value = serde_json::from_str(&fast.handle_json_to_json(&text))
            .unwrap_or_else(|error| panic!("the engine wrote bad JSON ({error}) for {text}"));
        assert_eq!(actual, expected, "{text}");
    }
}

/// The buffered path's outputs in the JSON form: each `dataRange` of a `writeToClient`
/// replaced by the base64 `data` of those bytes. Counts the ranges in `ranges`.
fn with_data(json: &str, bytes: &[u8], ranges: &mut usize) -> Value {
    let mut outputs: Value = serde_json::from_str(json).expect("the outputs are JSON");
    for output in outputs.as_array_mut().expect("an array of outputs") {
        let Some(range) = output.as_object_mut().and_then(|o| o.remove("dataRange")) else {
            continue;
        };
        assert_eq!(output["type"], "writeToClient", "{output}");
        let [start, end] = [&range[0], &range[1]].map(|at| at.as_u64().expect("offsets") as usize);
        output["data"] = json!(BASE64.encode(&bytes[start..end]));
        *ranges += 1;
    }
    outputs
}

/// The shim's buffered fast path (`IoBuffers`, the host writing into and reading from
/// the engine's memory) answers as `handle_utf8_to_json`, whatever its buffers held
/// before (JSON alone, bytes beside it, text that is not UTF-8, a message large enough
/// that the buffers are given back afterwards), but for the bytes of `writeToClient`,
/// which it leaves raw beside the JSON.
#[test]
fn the_buffered_path_answers_as_the_direct_one() {
    let mut rng = Rng(14);
    let (mut buffered, mut direct) = (engine(), engine());
    let mut buffers = IoBuffers::default();
    let mut ranges = 0;
    for text in [
        r#"{"type":"clientOpened","client":1,"framing":"messages"}"#,
        r#"{"type":"clientOpened","client":2,"framing":"contentLength"}"#,
    ] {
        buffered.handle_json(text);
        direct.handle_json(text);
    }
    for round in 0..4_000 {
        let framed = |body: &[u8]| {
            let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
            bytes.extend_from_slice(body);
            bytes
        };
        let (json, data): (Vec<u8>, Option<Vec<u8>>) = match rng.below(5) {
            _ if round == 100 => {
                let huge = format!(
                    r#"{{"type":"clientMessage","client":1,"message":{{"seq":1,"type":"event","event":"x","body":"{}"}}}}"#,
                    "a".repeat(3 << 20)
                );
                (huge.into_bytes(), None)
            }
            0 => (input(&mut rng).into_bytes(), None),
            1 => {
                let text = input(&mut rng);
                (damage(&mut rng, &text), None)
            }
            // Unreadable messages are reported only at first (client.rs), so requests,
            // which are always answered, keep the client's writes coming.
            2 if rng.below(2) == 0 => (
                br#"{"type":"clientBytes","client":2}"#.to_vec(),
                Some(framed(
                    format!(
                        r#"{{"seq":{},"type":"request","command":"threads"}}"#,
                        rng.below(1000)
                    )
                    .as_bytes(),
                )),
            ),
            2 => (
                br#"{"type":"clientBytes","client":2}"#.to_vec(),
                Some(framed(message(&mut rng).as_bytes())),
            ),
            3 => {
                let text = message(&mut rng);
                let damaged = damage(&mut rng, &text);
                (
                    br#"{"type":"clientBytes","client":2}"#.to_vec(),
                    Some(framed(&damaged)),
                )
            }
            _ => (
                br#"{"type":"timerFired","timer":1}"#.to_vec(),
                Some(b"bytes beside an input that takes none".to_vec()),
            ),
        };
        let expected = direct.handle_utf8_to_json(&json, data.clone());
        let length = json.len() + data.as_ref().map_or(0, Vec::len);
        // The host may ask for more room than it then uses.
        let slot = buffers.input(length + rng.below(3));
        slot[..json.len()].copy_from_slice(&json);
        if let Some(data) = &data {
            slot[json.len()..length].copy_from_slice(data);
        }
        let actual = buffers
            .handle(&mut buffered, json.len(), data.as_ref().map(Vec::len))
            .to_string();
        assert_eq!(actual, buffers.output());
        let expected: Value = serde_json::from_str(&expected).expect("the outputs are JSON");
        let actual = with_data(&actual, buffers.output_bytes(), &mut ranges);
        assert_eq!(actual, expected, "{}", String::from_utf8_lossy(&json));
    }
    // Guards against a run where no client got bytes (the ranges would go untested).
    assert!(ranges > 100, "only {ranges} writeToClient outputs");
    // Lengths beyond the buffer are the host's bug: a log, never a panic.
    buffers.input(4);
    for (json, data) in [(5, None), (3, Some(2)), (usize::MAX, Some(usize::MAX))] {
        let refused: Value = serde_json::from_str(buffers.handle(&mut buffered, json, data))
            .expect("a refusal is JSON");
        assert_eq!(refused[0]["type"], "log", "{refused}");
        assert_eq!(refused[0]["level"], "error", "{refused}");
    }
}
