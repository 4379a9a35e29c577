//! Transcript tests: each file in tests/transcripts/ is a recorded session (see
//! tests/README.md). One helper, `check`, replays a file through a fresh engine and
//! compares the outputs; `BLESS=1 cargo test` rewrites the expectations instead.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use dapper_core::dap::capabilities::capabilities;
use dapper_core::ipc::frame::{self, FrameDecoder, FrameKind};
use dapper_core::{Engine, EngineOptions, Input, Output};
use serde_json::{Map, Value};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The fixed randomness that makes tokens, and so transcripts, reproducible: 32 tokens
/// (the first is 3b7f04c3…, the token the transcripts' debuggees say hello with).
const RANDOMNESS: &str = concat!(
    "3b7f04c3719303f8d77736f7777678907988cf5cd48bf5d232781b048fdac775fda95d2dd0e8097864c5cd33582687e06871c20d6d5d73fd31b1623fbffe4f42",
    "e905032a1b46c39b5bfd2be2dd28920dab3665e762dfcfa7064c316569fbdb4fc6ada512e59df5684f841449443ab7ca5fb6057aaef7401ffb6a927dc23c9685",
    "d7407d50d18ce9c784eae05a460fbdbbe48972e854848efa9958f1b9ee062498160a2e7523f458e0d0fb7771662de06f28e9e80ab81ea5aca81ce0411f3952e6",
    "f614efd0a096e6008c84c5db1e112012124f8e25e2ec751f0477333404451616cc393a47361e7a62229388519424f30ca8ad5db46a5663e41bd56495b26776d4",
    "3a3ef6478c5d6e24daa88f94f35118468490964bb11cf8bb7e0e109813e7032ca1b7ddb032924a9fe0c49e29b363b4e6fe655679c1d55f68b0b4ae3fff376529",
    "f63495bb877010c4938a41c7cd0fe46dfb58c9347e1308e0746739a3b6a0cc81bd6df57e8bb60e549fef70924480940660e46d46c43054b0337b689453c9833d",
    "e94f6a37a99bf85bf3308fcef24de14f8cfb42937ee4c5f8060715ca62ec2afd1297d6edc4418dbdaf9d49e741ef98e4bf9f9df053d7b0725edb3bca68d0b466",
    "d2dd94f54ff1df2aea1e854c4b6ab9efa72e18212d32f69e63668c0123fae953f538cf3804a52e212b52eed4acd2ed311db5d53174961333cd06650c988c91da",
);

/// The token a session log's `<random:N>` placeholder stands for here: the Nth of
/// `RANDOMNESS`, and past its 32 a made-up one (any distinct hex does: the engine only
/// takes tokens in order, and a log names every token it gave by its placeholder).
fn token(index: usize) -> String {
    RANDOMNESS
        .get(32 * index..32 * (index + 1))
        .map_or_else(|| format!("{index:032x}"), str::to_string)
}

/// Puts the tokens back where a session log (docs/session-logs.md) has `<random:N>`
/// placeholders, in bytes: JSON text, and the Latin-1 reading of base64 bytes.
fn restore_bytes(bytes: &[u8]) -> Vec<u8> {
    const OPEN: &[u8] = b"<random:";
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(at) = rest.windows(OPEN.len()).position(|window| window == OPEN) {
        let digits = rest[at + OPEN.len()..]
            .iter()
            .take_while(|byte| byte.is_ascii_digit())
            .count();
        let end = at + OPEN.len() + digits;
        let number = std::str::from_utf8(&rest[at + OPEN.len()..end])
            .ok()
            .and_then(|digits| digits.parse::<usize>().ok());
        match (number, rest.get(end)) {
            (Some(number), Some(b'>')) => {
                out.extend_from_slice(&rest[..at]);
                out.extend_from_slice(token(number).as_bytes());
                rest = &rest[end + 1..];
            }
            _ => {
                out.extend_from_slice(&rest[..at + 1]);
                rest = &rest[at + 1..];
            }
        }
    }
    out.extend_from_slice(rest);
    out
}

fn restore(text: &str) -> String {
    String::from_utf8_lossy(&restore_bytes(text.as_bytes())).into_owned()
}

fn default_options() -> Value {
    serde_json::json!({
        "pythonPackageDir": "/ext/python",
        "platform": "linux",
        "randomness": RANDOMNESS,
        "adapterVersion": "0.1.0",
    })
}

/// Turns the readable transcript spelling of byte fields into the wire's `data`.
fn input_from_transcript(mut value: Value) -> Result<Input, String> {
    if let Some(object) = value.as_object_mut() {
        let mut bytes: Option<Vec<u8>> = None;
        if let Some(text) = object.remove("text") {
            let text = text.as_str().ok_or("\"text\" must be a string")?;
            bytes = Some(text.as_bytes().to_vec());
        }
        if let Some(message) = object.remove("frame") {
            bytes = Some(frame::encode(
                FrameKind::FromDebuggee,
                message.to_string().as_bytes(),
            ));
        }
        if let Some(messages) = object.remove("frames") {
            let messages = messages.as_array().ok_or("\"frames\" must be an array")?;
            let joined = messages
                .iter()
                .flat_map(|message| {
                    frame::encode(FrameKind::FromDebuggee, message.to_string().as_bytes())
                })
                .collect();
            bytes = Some(joined);
        }
        if let Some(Value::String(data)) = object.get("data") {
            let decoded = BASE64.decode(data).map_err(|error| error.to_string())?;
            bytes = Some(restore_bytes(&decoded));
        }
        if let Some(bytes) = bytes {
            object.insert("data".to_string(), Value::String(BASE64.encode(&bytes)));
        }
    }
    serde_json::from_value(value).map_err(|error| error.to_string())
}

/// Decodes bytes sent to a debuggee when they are exactly one DP frame holding JSON.
fn single_frame(bytes: &[u8]) -> Option<Value> {
    let mut decoder = FrameDecoder::default();
    decoder.push(bytes);
    let frame = decoder.next_frame().ok()??;
    if decoder.next_frame() != Ok(None) || frame.kind != FrameKind::ToDebuggee {
        return None;
    }
    let whole = frame::encode(frame.kind, &frame.payload);
    if whole != bytes {
        return None;
    }
    serde_json::from_slice(&frame.payload).ok()
}

/// Replaces a `data` (base64) or `text` byte field of an output with its readable
/// form: `frame` for one DP frame sent to a debuggee, else `text` when it is UTF-8.
/// Expected lines go through the same function, so a host trace log (which writes
/// UTF-8 bytes as `text`) compares equal to the engine's outputs.
fn make_readable(value: &mut Value) -> Option<()> {
    let object = value.as_object_mut()?;
    let bytes = match (object.get("data"), object.get("text")) {
        (Some(Value::String(data)), _) => restore_bytes(&BASE64.decode(data).ok()?),
        (None, Some(Value::String(text))) => text.as_bytes().to_vec(),
        _ => return Some(()),
    };
    object.remove("data");
    object.remove("text");
    let is_send = object.get("type") == Some(&Value::String("send".to_string()));
    if let Some(message) = is_send.then(|| single_frame(&bytes)).flatten() {
        object.insert("frame".to_string(), message);
    } else {
        match String::from_utf8(bytes) {
            Ok(text) => object.insert("text".to_string(), Value::String(text)),
            Err(error) => object.insert(
                "data".to_string(),
                Value::String(BASE64.encode(error.as_bytes())),
            ),
        };
    }
    Some(())
}

/// What an `initialize` response's body is shortened to when it is exactly the
/// capabilities in tests/transcripts/capabilities.json, so that a new capability
/// changes that one file rather than every transcript that initializes.
const CAPABILITIES_SHORTHAND: &str = "<capabilities>";

/// The advertised capabilities, as tests/transcripts/capabilities.json records them.
struct Capabilities {
    body: Value,
    /// The body as the engine writes it inside a message (compact JSON).
    text: String,
}

impl Capabilities {
    fn path() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts/capabilities.json")
    }

    /// Reads the recorded capabilities; blessing first records the engine's own.
    fn load(bless: bool) -> Result<Capabilities, String> {
        if bless {
            let pretty =
                serde_json::to_string_pretty(&capabilities()).map_err(|error| error.to_string())?;
            std::fs::write(Self::path(), pretty + "\n").map_err(|error| error.to_string())?;
        }
        let source = std::fs::read_to_string(Self::path()).map_err(|error| error.to_string())?;
        let body: Value = serde_json::from_str(&source).map_err(|error| error.to_string())?;
        let text = body.to_string();
        Ok(Capabilities { body, text })
    }

    /// Shortens the capabilities body of an `initialize` response to the shorthand:
    /// in a message (`"body": "<capabilities>"`) and in a Content-Length framed text,
    /// whose header then reads `Content-Length: <length>`.
    fn abbreviate(&self, value: &mut Value) {
        let Some(object) = value.as_object_mut() else {
            return;
        };
        if let Some(Value::Object(message)) = object.get_mut("message") {
            let is_initialize = message.get("command") == Some(&Value::from("initialize"))
                && message.get("type") == Some(&Value::from("response"));
            if is_initialize && message.get("body") == Some(&self.body) {
                message.insert("body".to_string(), Value::from(CAPABILITIES_SHORTHAND));
            }
        }
        if let Some(Value::String(text)) = object.get_mut("text") {
            if let Some(short) = self.abbreviate_framed(text) {
                *text = short;
            }
        }
    }

    fn abbreviate_framed(&self, text: &str) -> Option<String> {
        let rest = text.strip_prefix("Content-Length: ")?;
        let (length, body) = rest.split_once("\r\n\r\n")?;
        if length.parse::<usize>().ok()? != body.len() {
            return None;
        }
        let message: Value = serde_json::from_str(body).ok()?;
        let is_initialize = message.get("command") == Some(&Value::from("initialize"))
            && message.get("body") == Some(&self.body);
        let full = format!("\"body\":{}", self.text);
        if !is_initialize || body.matches(&full).count() != 1 {
            return None;
        }
        let short = format!("\"body\":\"{CAPABILITIES_SHORTHAND}\"");
        Some(format!(
            "Content-Length: <length>\r\n\r\n{}",
            body.replace(&full, &short)
        ))
    }
}

/// Whether a value is a debug or trace log, which transcripts leave out: they are
/// chatter, and leaving them out lets the engine's debug logging change freely.
fn is_quiet_log(value: &Value) -> bool {
    value.get("type") == Some(&Value::String("log".to_string()))
        && matches!(
            value.get("level").and_then(Value::as_str),
            Some("debug" | "trace")
        )
}

/// Renders an output for comparison, or `None` for the logs transcripts leave out.
fn render_output(output: &Output, capabilities: &Capabilities) -> Option<String> {
    let mut value = serde_json::to_value(output).ok()?;
    if is_quiet_log(&value) {
        return None;
    }
    make_readable(&mut value);
    capabilities.abbreviate(&mut value);
    Some(value.to_string())
}

/// The canonical form of an expected line (key order and byte spelling do not
/// matter), or `None` for a quiet log.
fn canonical(line: &str, capabilities: &Capabilities) -> Result<Option<String>, String> {
    let mut value: Value = serde_json::from_str(&restore(line))
        .map_err(|error| format!("bad JSON in < {line}: {error}"))?;
    if is_quiet_log(&value) {
        return Ok(None);
    }
    make_readable(&mut value);
    capabilities.abbreviate(&mut value);
    Ok(Some(value.to_string()))
}

enum Line {
    /// Comments, blank lines and option lines: kept verbatim.
    Verbatim(String),
    Input {
        text: String,
        expected: Vec<String>,
    },
}

/// Replays one transcript. Returns the failures as text, or rewrites the file when
/// blessing.
fn check(path: &Path, bless: bool, capabilities: &Capabilities) -> Result<(), String> {
    let source = std::fs::read_to_string(path).map_err(|error| error.to_string())?;
    let mut lines: Vec<Line> = Vec::new();
    let mut options = default_options();
    for (number, raw) in source.lines().enumerate() {
        let number = number + 1;
        if let Some(expected) = raw.strip_prefix("< ") {
            match lines.last_mut() {
                Some(Line::Input { expected: list, .. }) => list.push(expected.to_string()),
                _ => {
                    return Err(format!(
                        "line {number}: an expected output must follow an input"
                    ))
                }
            }
        } else if let Some(input) = raw.strip_prefix("> ") {
            lines.push(Line::Input {
                text: input.to_string(),
                expected: Vec::new(),
            });
        } else if let Some(overrides) = raw.strip_prefix("! ") {
            let overrides: Map<String, Value> = serde_json::from_str(&restore(overrides))
                .map_err(|error| format!("line {number}: {error}"))?;
            if lines.iter().any(|line| matches!(line, Line::Input { .. })) {
                return Err(format!(
                    "line {number}: engine options must come before the first input"
                ));
            }
            if let Some(object) = options.as_object_mut() {
                object.extend(overrides);
            }
            lines.push(Line::Verbatim(raw.to_string()));
        } else if raw.starts_with("@ ") {
            // A clock line of an older host log: the engine reads no clock, so it
            // means nothing and blessing drops it.
        } else if raw.is_empty() || raw.starts_with('#') {
            lines.push(Line::Verbatim(raw.to_string()));
        } else {
            return Err(format!(
                "line {number}: not a comment, '! options', '> input' or '< output': {raw:?}"
            ));
        }
    }
    if !lines.iter().any(|line| matches!(line, Line::Input { .. })) {
        return Err("the transcript has no input".to_string());
    }
    let options: EngineOptions =
        serde_json::from_value(options).map_err(|error| error.to_string())?;
    let mut engine = Engine::new(options)?;
    let mut failures = String::new();
    let mut blessed = String::new();
    for line in &lines {
        match line {
            Line::Verbatim(text) => {
                blessed.push_str(text);
                blessed.push('\n');
            }
            Line::Input { text, expected } => {
                let value: Value = serde_json::from_str(&restore(text))
                    .map_err(|error| format!("input {text}: {error}"))?;
                let input = input_from_transcript(value)
                    .map_err(|error| format!("input {text}: {error}"))?;
                let actual: Vec<String> = engine
                    .handle(input)
                    .iter()
                    .filter_map(|output| render_output(output, capabilities))
                    .collect();
                let _ = writeln!(blessed, "> {text}");
                for output in &actual {
                    let _ = writeln!(blessed, "< {output}");
                }
                if !bless {
                    let expected: Vec<String> = expected
                        .iter()
                        .map(|line| canonical(line, capabilities))
                        .collect::<Result<Vec<_>, _>>()?
                        .into_iter()
                        .flatten()
                        .collect();
                    if expected != actual {
                        let _ = writeln!(
                            failures,
                            "after > {text}\n  expected:\n{}\n  actual:\n{}",
                            expected
                                .iter()
                                .map(|line| format!("    < {line}"))
                                .collect::<Vec<_>>()
                                .join("\n"),
                            actual
                                .iter()
                                .map(|line| format!("    < {line}"))
                                .collect::<Vec<_>>()
                                .join("\n"),
                        );
                    }
                }
            }
        }
    }
    if bless {
        std::fs::write(path, blessed).map_err(|error| error.to_string())?;
        return Ok(());
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures)
    }
}

fn transcript_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .collect()
        })
        .unwrap_or_default();
    files.retain(|path| path.extension().is_some_and(|extension| extension == "txt"));
    files.sort();
    files
}

#[test]
fn placeholders_become_the_fixed_tokens() {
    let first = &RANDOMNESS[..32];
    let cases = [
        ("<random:0>", first.to_string()),
        ("c<random:1>\"", format!("c{}\"", &RANDOMNESS[32..64])),
        ("<random:40>", format!("{:032x}", 40)),
        (
            "<random:><random:x><random:1",
            "<random:><random:x><random:1".to_string(),
        ),
        ("<<random:0>>", format!("<{first}>")),
    ];
    for (text, expected) in cases {
        assert_eq!(restore(text), expected, "{text}");
    }
    assert_eq!(
        restore_bytes(b"\xff<random:0>\x00"),
        [b"\xff", first.as_bytes(), b"\x00"].concat()
    );
}

#[test]
fn transcripts() {
    let bless = std::env::var_os("BLESS").is_some_and(|value| value == "1");
    let files = transcript_files();
    let capabilities = Capabilities::load(bless).expect("tests/transcripts/capabilities.json");
    let mut report = String::new();
    for path in &files {
        if let Err(failure) = check(path, bless, &capabilities) {
            let _ = writeln!(report, "=== {}\n{failure}", path.display());
        }
    }
    assert!(
        report.is_empty(),
        "transcripts differ (run with BLESS=1 to accept):\n{report}"
    );
    // Guards against a moved directory silently turning this test into a no-op.
    assert!(
        files.len() >= 10,
        "expected the transcript files under tests/transcripts"
    );
}

/// A child that runs on its inheritance before its session comes: what it sends for
/// that session is kept, but not without bound. Replayed from child_inherit.txt until
/// child B said hello (and was sent dapper/inherit), then B sends a megabyte and more:
/// its connection is no longer read; once its session binds, it is read again.
#[test]
fn a_child_that_sends_much_before_its_session_is_not_read_until_it_comes() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts/child_inherit.txt");
    let source = std::fs::read_to_string(path).expect("child_inherit.txt");
    let inputs: Vec<Value> = source
        .lines()
        .filter_map(|line| line.strip_prefix("> "))
        .map(|text| serde_json::from_str(&restore(text)).expect("an input"))
        .collect();
    let options: EngineOptions = serde_json::from_value(default_options()).expect("options");
    let mut engine = Engine::new(options).expect("an engine");
    let is_attach_of_b =
        |input: &Value| input["client"] == 3 && input["message"]["command"] == "attach";
    let mut replayed = inputs.iter();
    for input in replayed.by_ref() {
        let said_hello_b = input["conn"] == 9 && input["frame"]["event"] == "dapper/sessionHello";
        engine.handle(input_from_transcript(input.clone()).expect("an input"));
        if said_hello_b {
            break;
        }
    }
    let output = serde_json::json!({"type": "event", "event": "output",
        "body": {"category": "stdout", "output": "x".repeat(64 << 10)}});
    let chunk = frame::encode(FrameKind::FromDebuggee, output.to_string().as_bytes());
    let flood = |engine: &mut Engine| {
        engine.handle(Input::ConnectionBytes {
            conn: dapper_core::ConnectionId(9),
            data: dapper_core::Bytes(chunk.clone()),
        })
    };
    let paused = |outputs: &[Output]| {
        outputs.iter().any(|output| {
            matches!(
                output,
                Output::PauseReading {
                    from: dapper_core::ReadSource::Conn(dapper_core::ConnectionId(9))
                }
            )
        })
    };
    let chunks_until_paused = (1..=64)
        .find(|_| paused(&flood(&mut engine)))
        .expect("the connection paused");
    assert_eq!(
        chunks_until_paused, 16,
        "paused at the first chunk past 1 MiB"
    );
    // Up to B's attach, the outputs of everything replayed say nothing of it again.
    for input in replayed.by_ref() {
        let attach = is_attach_of_b(input);
        let outputs = engine.handle(input_from_transcript(input.clone()).expect("an input"));
        assert!(!paused(&outputs));
        if attach {
            assert!(outputs.iter().any(|output| matches!(
                output,
                Output::ResumeReading {
                    from: dapper_core::ReadSource::Conn(dapper_core::ConnectionId(9))
                }
            )));
            // What B sent meanwhile reaches its client, in order.
            let sent = outputs
                .iter()
                .filter(
                    |output| matches!(output, Output::SendToClient { client, .. } if client.0 == 3),
                )
                .count();
            assert!(sent >= 16, "{sent} messages to B's client");
            return;
        }
    }
    panic!("the transcript has no attach of B");
}
