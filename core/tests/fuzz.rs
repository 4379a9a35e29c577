//! The fuzz target over every request's arguments: each known command, and
//! some unknown ones, with arbitrary JSON as its arguments, sent to a session that has
//! not been initialized, to one that has, and to one whose debuggee is connected (whose
//! requests go through the path mappings to the debuggee, and whose answers come back
//! through them). The engine never panics, and every request is answered: by the
//! engine, by the debuggee it was forwarded to (whose arbitrary answer comes back), or
//! by the host's work the engine asked for (a launch's facts, a connection); or the
//! client is told why its connection closes.
//!
//! A short run is part of `cargo test`; `DAPPER_FUZZ_CASES=200000 cargo test -p
//! dapper-core --release --test fuzz` is the long one (also the decoders' property
//! tests in decoders.rs).

use dapper_core::dap::framing;
use dapper_core::ipc::frame::{self, FrameDecoder, FrameKind};
use dapper_core::{Bytes, ClientId, ConnectionId, Framing, Input, Output};
use serde_json::{json, Map, Value};

mod common;
use common::{cases, engine, Rng};

const CLIENT: ClientId = ClientId(1);
/// The debuggee's connection in the attached stage (attach_path_mappings.txt's).
const DEBUGGEE: ConnectionId = ConnectionId(7);
const SEQ: i64 = 100;

const COMMANDS: &[&str] = &[
    "initialize",
    "configurationDone",
    "launch",
    "attach",
    "restart",
    "disconnect",
    "terminate",
    "breakpointLocations",
    "setBreakpoints",
    "setFunctionBreakpoints",
    "setExceptionBreakpoints",
    "dataBreakpointInfo",
    "setDataBreakpoints",
    "setInstructionBreakpoints",
    "continue",
    "next",
    "stepIn",
    "stepOut",
    "stepBack",
    "reverseContinue",
    "restartFrame",
    "goto",
    "pause",
    "stackTrace",
    "scopes",
    "variables",
    "setVariable",
    "source",
    "threads",
    "terminateThreads",
    "modules",
    "loadedSources",
    "evaluate",
    "setExpression",
    "stepInTargets",
    "gotoTargets",
    "completions",
    "exceptionInfo",
    "readMemory",
    "writeMemory",
    "disassemble",
    "cancel",
    "locations",
    "startDebugging",
    "runInTerminal",
    "dapper/hotReload",
    "dapper/configure",
    "dapper/nonsense",
    "",
    "nonsense",
];

/// Keys the engine or the path mappings look at, so that random objects often reach
/// past the first type check.
const KEYS: &[&str] = &[
    "source",
    "path",
    "name",
    "sourceReference",
    "breakpoints",
    "lines",
    "line",
    "threadId",
    "frameId",
    "variablesReference",
    "value",
    "expression",
    "context",
    "program",
    "module",
    "code",
    "args",
    "cwd",
    "env",
    "envFile",
    "python",
    "console",
    "connect",
    "listen",
    "host",
    "port",
    "processId",
    "pathMappings",
    "localRoot",
    "remoteRoot",
    "justMyCode",
    "subProcess",
    "subprocessAutoAttach",
    "noDebug",
    "terminateDebuggee",
    "restart",
    "__dapperChildSessionId",
    "adapterID",
    "pathFormat",
    "linesStartAt1",
    "stackFrames",
    "sources",
    "body",
];

const STRINGS: &[&str] = &[
    "",
    "/home/me/proj/main.py",
    "/app/main.py",
    "main.py",
    "../../etc/passwd",
    "C:\\proj\\main.py",
    "\u{0}",
    "é€😀",
    "internalConsole",
    "integratedTerminal",
    "repl",
    "clipboard",
    "127.0.0.1",
    "x=1",
    "=",
];

fn random_value(rng: &mut Rng, depth: usize) -> Value {
    let kinds = if depth == 0 { 5 } else { 8 };
    match rng.below(kinds) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 => [
            json!(0),
            json!(-1),
            json!(1),
            json!(4),
            json!(i64::MAX),
            json!(i64::MIN),
            json!(u64::MAX),
            json!(4_294_967_296u64),
            json!(9_007_199_254_740_993u64),
        ][rng.below(9)]
        .clone(),
        3 => json!([0.5, -0.0, 1e308, -1e-308][rng.below(4)]),
        4 => {
            if rng.chance(10) {
                Value::String("x".repeat(rng.below(100_000)))
            } else {
                Value::String(rng.pick(STRINGS).to_string())
            }
        }
        5 | 6 => {
            let mut object = Map::new();
            for _ in 0..rng.below(6) {
                let key = if rng.chance(90) {
                    rng.pick(KEYS).to_string()
                } else {
                    rng.pick(STRINGS).to_string()
                };
                object.insert(key, random_value(rng, depth - 1));
            }
            Value::Object(object)
        }
        _ => Value::Array(
            (0..rng.below(4))
                .map(|_| random_value(rng, depth - 1))
                .collect(),
        ),
    }
}

#[derive(Clone, Copy, Debug)]
enum Stage {
    Fresh,
    Initialized,
    /// Attached to a program through its listener, with path mappings.
    Attached,
}

/// The inputs that bring a session to `stage`: attach_path_mappings.txt's first
/// lines, up to the debuggee's answer to `dapper/configure`.
fn prelude(stage: Stage) -> Vec<Input> {
    let text = include_str!("transcripts/attach_path_mappings.txt");
    let wanted = match stage {
        Stage::Fresh => 1,
        Stage::Initialized => 2,
        Stage::Attached => 6,
    };
    text.lines()
        .filter_map(|line| line.strip_prefix("> "))
        .take(wanted)
        .map(|line| {
            let mut value: Value = serde_json::from_str(line).expect("a transcript input");
            if let Some(message) = value.as_object_mut().and_then(|o| o.remove("frame")) {
                let bytes = frame::encode(FrameKind::FromDebuggee, message.to_string().as_bytes());
                value["data"] = Value::String(base64(&bytes));
            }
            serde_json::from_value(value).expect("an input")
        })
        .collect()
}

fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The messages the outputs send to the client.
fn to_client(outputs: &[Output]) -> Vec<Value> {
    outputs
        .iter()
        .filter_map(|output| match output {
            Output::SendToClient { client, message } if *client == CLIENT => {
                serde_json::from_str(message.as_str()).ok()
            }
            _ => None,
        })
        .collect()
}

/// The requests the outputs send to the debuggee.
fn to_debuggee(outputs: &[Output]) -> Vec<Value> {
    let mut decoder = FrameDecoder::default();
    for output in outputs {
        if let Output::Send { conn, data } = output {
            if *conn == DEBUGGEE {
                decoder.push(&data.0);
            }
        }
    }
    let mut messages = Vec::new();
    while let Ok(Some(frame)) = decoder.next_frame() {
        messages.extend(serde_json::from_slice::<Value>(&frame.payload).ok());
    }
    messages
}

fn answered(outputs: &[Output]) -> bool {
    to_client(outputs)
        .iter()
        .any(|message| message["type"] == "response" && message["request_seq"] == SEQ)
        || outputs
            .iter()
            .any(|output| matches!(output, Output::CloseClient { .. }))
}

/// Work the engine asked the host for, whose result answers the request.
fn in_progress(outputs: &[Output]) -> bool {
    outputs.iter().any(|output| {
        matches!(
            output,
            Output::GatherFacts { .. }
                | Output::Connect { .. }
                | Output::Spawn { .. }
                | Output::OpenListener { .. }
                | Output::Inject { .. }
                | Output::Kill { .. }
                | Output::Close { .. }
        )
    })
}

#[test]
fn every_request_is_answered_whatever_its_arguments() {
    let mut rng = Rng(41);
    let stages = [Stage::Fresh, Stage::Initialized, Stage::Attached];
    let preludes: Vec<Vec<Input>> = stages.iter().map(|&stage| prelude(stage)).collect();
    // How the requests were answered: by the engine, by the debuggee, by the host.
    let mut by = [0usize; 3];
    for case in 0..cases(1500) {
        let stage = rng.below(stages.len());
        let mut engine = engine();
        for input in preludes[stage].clone() {
            engine.handle(input);
        }
        let command = rng.pick(COMMANDS);
        let mut request = json!({"seq": SEQ, "type": "request", "command": command});
        if rng.chance(90) {
            request["arguments"] = random_value(&mut rng, 3);
        }
        if command == "launch" && rng.chance(50) {
            // Valid enough to start, so that the rest of the arguments are looked at.
            let mut arguments = json!({"program": "/app/main.py"});
            if let Value::Object(extra) = random_value(&mut rng, 2) {
                arguments.as_object_mut().unwrap().extend(extra);
            }
            request["arguments"] = arguments;
        }
        let shown: String = request.to_string().chars().take(300).collect();
        let outputs = engine.handle(Input::ClientMessage {
            client: CLIENT,
            message: dapper_core::JsonText::from_value(&request),
        });
        if answered(&outputs) {
            by[0] += 1;
            continue;
        }
        // Forwarded: the debuggee's answer, arbitrary too, comes back to the client.
        let forwarded: Vec<Value> = to_debuggee(&outputs)
            .into_iter()
            .filter(|message| message["type"] == "request" && message["command"] == command)
            .collect();
        if let Some(sent) = forwarded.first() {
            let mut response = json!({
                "seq": 1000, "type": "response", "request_seq": sent["seq"],
                "success": rng.chance(70), "command": command,
            });
            if rng.chance(80) {
                response["body"] = random_value(&mut rng, 3);
            }
            let outputs = engine.handle(Input::ConnectionBytes {
                conn: DEBUGGEE,
                data: Bytes(frame::encode(
                    FrameKind::FromDebuggee,
                    response.to_string().as_bytes(),
                )),
            });
            assert!(
                answered(&outputs) || in_progress(&outputs),
                "case {case} ({stages:?}[{stage}]): the debuggee's answer to {shown} reached nobody: {outputs:?}",
            );
            by[1] += 1;
            continue;
        }
        assert!(
            in_progress(&outputs),
            "case {case} ({stages:?}[{stage}]): {shown} was not answered: {outputs:?}",
        );
        by[2] += 1;
    }
    // Each way is taken, so the stages are what they say.
    assert!(by.iter().all(|&count| count > 0), "answered by {by:?}");
}

/// The same requests as bytes, framed and split anywhere, with a byte flipped now and
/// then: the client gets answers or is told why its connection closes.
#[test]
fn split_framed_requests_are_answered_or_refused() {
    let mut rng = Rng(43);
    for case in 0..cases(300) {
        let mut engine = engine();
        engine.handle(Input::ClientOpened {
            client: CLIENT,
            framing: Framing::ContentLength,
            transport: None,
        });
        let mut stream = Vec::new();
        for seq in 1..=5 {
            let mut request = json!({"seq": seq, "type": "request", "command": rng.pick(COMMANDS)});
            request["arguments"] = random_value(&mut rng, 2);
            stream.extend(framing::encode(request.to_string().as_bytes()));
        }
        let flipped = rng.chance(30);
        if flipped {
            let at = rng.below(stream.len());
            stream[at] = rng.next() as u8;
        }
        let mut outputs = Vec::new();
        for chunk in rng.chunks(&stream) {
            outputs.extend(engine.handle(Input::ClientBytes {
                client: CLIENT,
                data: Bytes(chunk.to_vec()),
            }));
        }
        let written: Vec<u8> = outputs
            .iter()
            .filter_map(|output| match output {
                Output::WriteToClient { data, .. } => Some(data.0.clone()),
                _ => None,
            })
            .flatten()
            .collect();
        let mut decoder = framing::ContentLengthDecoder::default();
        decoder.push(&written);
        let mut responses = 0;
        while let Ok(Some(body)) = decoder.next_body() {
            let message: Value = serde_json::from_slice(&body).expect("the engine writes JSON");
            responses += usize::from(message["type"] == "response");
        }
        let closed = outputs
            .iter()
            .any(|output| matches!(output, Output::CloseClient { .. }));
        // Without a flipped byte, the first request is answered (initialize, or an
        // error saying it must come first), and nothing closes the client but a
        // launch or attach failing; a flipped byte may cost any of them.
        assert!(
            responses > 0 || closed || flipped || in_progress(&outputs),
            "case {case}: nothing answered {:?}",
            String::from_utf8_lossy(&stream)
        );
    }
}
