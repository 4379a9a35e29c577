//! The JSON of the engine boundary on its hot path. The inputs a session sends most
//! (`clientMessage` and the byte inputs) are read by a scan of their
//! top-level keys instead of serde's buffering of internally tagged enums, and a DAP
//! message inside stays text; outputs are written with the messages copied verbatim
//! and bytes encoded straight into the output. Every other input and output, and
//! every input the scan does not vouch for, goes through serde exactly as before, so
//! the JSON and the errors are the same either way.

use crate::contract::BASE64;
use crate::dap::json::{scan_object, token_str, token_u64, TopLevel};
use crate::{Bytes, ClientId, ConnectionId, Input, JsonText, LogLevel, Output, ProcessId, Stream};
use base64::Engine as _;
use serde::de::Error as _;
use serde_json::Value;

/// The inputs that carry bytes, which the host may pass beside the JSON.
const BYTE_INPUTS: [&str; 3] = ["clientBytes", "connectionBytes", "processOutput"];

/// Parses one `Input` from JSON text. `data`, when given, is the input's byte payload
/// passed beside the JSON instead of as its base64 `data` field (docs/engine-io.md).
pub fn parse_input(text: &str, mut data: Option<Vec<u8>>) -> Result<Input, serde_json::Error> {
    if let Some(input) = fast_input(text, &mut data) {
        return Ok(input);
    }
    match data {
        None => serde_json::from_str(text),
        Some(bytes) => parse_with_bytes(text, bytes),
    }
}

/// The slow path of an input with bytes beside it: the bytes become the `data` field
/// serde expects, so every error is the one the JSON alone would get.
fn parse_with_bytes(text: &str, bytes: Vec<u8>) -> Result<Input, serde_json::Error> {
    let mut value: Value = serde_json::from_str(text)?;
    if let Some(object) = value.as_object_mut() {
        let kind = object.get("type").and_then(Value::as_str).unwrap_or("");
        if !BYTE_INPUTS.contains(&kind) {
            return Err(serde_json::Error::custom(format!(
                "an input of type {kind:?} takes no bytes beside its JSON"
            )));
        }
        if object.contains_key("data") {
            return Err(serde_json::Error::custom(
                "the input has both a data field and bytes beside its JSON",
            ));
        }
        object.insert("data".to_string(), Value::String(BASE64.encode(&bytes)));
    }
    serde_json::from_value(value)
}

/// The hot inputs, when the scan vouches for the text and every field is as serde
/// would accept it; `None` leaves the decision (and the error message) to serde.
/// `data` is taken only when the input is returned.
fn fast_input(text: &str, data: &mut Option<Vec<u8>>) -> Option<Input> {
    let top = scan_object(text)?;
    let field = |key: &str| top.value(text, key);
    match &*token_str(field("type")?)? {
        "clientMessage" if data.is_none() => Some(Input::ClientMessage {
            client: ClientId(id(&top, text, "client")?),
            message: JsonText::from_valid(field("message")?.to_string()),
        }),
        "clientBytes" => {
            let client = ClientId(id(&top, text, "client")?);
            let data = payload(field("data"), data)?;
            Some(Input::ClientBytes { client, data })
        }
        "connectionBytes" => {
            let conn = ConnectionId(id(&top, text, "conn")?);
            let data = payload(field("data"), data)?;
            Some(Input::ConnectionBytes { conn, data })
        }
        "processOutput" => {
            let process = ProcessId(id(&top, text, "process")?);
            let stream = match &*token_str(field("stream")?)? {
                "stdout" => Stream::Stdout,
                "stderr" => Stream::Stderr,
                _ => return None,
            };
            let data = payload(field("data"), data)?;
            Some(Input::ProcessOutput {
                process,
                stream,
                data,
            })
        }
        _ => None,
    }
}

/// An input's bytes: beside the JSON, or in it as base64 (never both).
fn payload(field: Option<&str>, beside: &mut Option<Vec<u8>>) -> Option<Bytes> {
    match (field, beside.is_some()) {
        (None, true) => beside.take().map(Bytes),
        (Some(token), false) => BASE64.decode(&*token_str(token)?).ok().map(Bytes),
        _ => None,
    }
}

/// An id field: a JSON integer that fits a `u32`, as serde reads the newtype ids.
fn id(top: &TopLevel, text: &str, key: &str) -> Option<u32> {
    u32::try_from(token_u64(top.value(text, key)?)?).ok()
}

/// An output that carries bytes to a peer, `opening` being everything up to the peer's
/// id: `{"type":…,"<peer>":id,"data":"<base64>"}`, or with `beside`, the bytes appended
/// there and `{"type":…,"<peer>":id,"dataRange":[start,end]}` locating them.
fn push_bytes_output(
    json: &mut String,
    opening: &str,
    peer: u32,
    data: &Bytes,
    beside: Option<&mut Vec<u8>>,
) {
    json.push_str(opening);
    push_number(json, peer);
    match beside {
        Some(beside) => {
            json.push_str(r#","dataRange":["#);
            push_number(json, beside.len());
            json.push(',');
            beside.extend_from_slice(&data.0);
            push_number(json, beside.len());
            json.push_str("]}");
        }
        None => {
            json.push_str(r#","data":""#);
            BASE64.encode_string(&data.0, json);
            json.push_str("\"}");
        }
    }
}

/// Appends a whole number in decimal.
fn push_number(json: &mut String, number: impl itoa::Integer) {
    json.push_str(itoa::Buffer::new().format(number));
}

/// Writes the outputs as a JSON array: the same JSON as `serde_json::to_string`.
#[cfg(test)]
fn outputs_to_json(outputs: &[Output]) -> Result<String, serde_json::Error> {
    let mut json = String::new();
    write_outputs(outputs, &mut json, None)?;
    Ok(json)
}

/// The outputs as a JSON array, or when one cannot be serialised, an array of one
/// `log` that says so: what the host is always given.
pub fn outputs_json_or_log(outputs: &[Output], json: &mut String) {
    outputs_json_or_log_beside(outputs, json, None);
}

/// `outputs_json_or_log`, with the bytes of `writeToClient` and `send` outputs in
/// `beside` instead of base64 in the JSON, when given (`IoBuffers`).
pub(super) fn outputs_json_or_log_beside(
    outputs: &[Output],
    json: &mut String,
    beside: Option<&mut Vec<u8>>,
) {
    if let Err(error) = write_outputs(outputs, json, beside) {
        json.clear();
        let fallback = [Output::Log {
            level: LogLevel::Error,
            message: format!("The engine could not serialise its outputs: {error}"),
        }];
        // A log of a plain message always serialises; "[]" only keeps this total.
        if write_outputs(&fallback, json, None).is_err() {
            json.clear();
            json.push_str("[]");
        }
    }
}

/// `outputs_to_json` into `json`, which is cleared first and keeps its capacity. With
/// `beside`, the bytes of a `writeToClient` or `send` are appended there (cleared first
/// too) and its JSON has `"dataRange":[start,end]`, where they are in `beside`, instead
/// of `data`.
fn write_outputs(
    outputs: &[Output],
    json: &mut String,
    mut beside: Option<&mut Vec<u8>>,
) -> Result<(), serde_json::Error> {
    json.clear();
    if let Some(beside) = beside.as_deref_mut() {
        beside.clear();
    }
    json.reserve(outputs.iter().map(size_hint).sum::<usize>() + 2);
    let json = &mut *json;
    json.push('[');
    for (index, output) in outputs.iter().enumerate() {
        if index > 0 {
            json.push(',');
        }
        match output {
            Output::SendToClient { client, message } => {
                json.push_str(r#"{"type":"sendToClient","client":"#);
                push_number(json, client.0);
                json.push_str(r#","message":"#);
                json.push_str(message.as_str());
                json.push('}');
            }
            Output::WriteToClient { client, data } => push_bytes_output(
                json,
                r#"{"type":"writeToClient","client":"#,
                client.0,
                data,
                beside.as_deref_mut(),
            ),
            Output::Send { conn, data } => push_bytes_output(
                json,
                r#"{"type":"send","conn":"#,
                conn.0,
                data,
                beside.as_deref_mut(),
            ),
            other => json.push_str(&serde_json::to_string(other)?),
        }
    }
    json.push(']');
    Ok(())
}

/// Roughly how long an output's JSON is, so the buffer is allocated once.
fn size_hint(output: &Output) -> usize {
    match output {
        Output::SendToClient { message, .. } => message.as_str().len() + 48,
        Output::WriteToClient { data, .. } | Output::Send { data, .. } => {
            base64::encoded_len(data.0.len(), true).unwrap_or(0) + 48
        }
        _ => 128,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hot_inputs_parse_as_serde_parses_them() {
        let cases = [
            r#"{"type":"clientMessage","client":3,"message":{"seq":1,"type":"request","command":"threads"}}"#,
            r#"{"client":3,"message":[1, 2],"type":"clientMessage","extra":{"x":1}}"#,
            r#"{"type":"clientBytes","client":1,"data":"Q29udGVudA=="}"#,
            r#"{"type":"connectionBytes","conn":4294967295,"data":""}"#,
            r#"{"type":"clientBytes","client":1,"data":"Q29u\u0064GVudA=="}"#,
            r#"{"type":"timerFired","timer":2}"#,
            r#"{"type":"processOutput","process":2,"stream":"stderr","data":"aGk="}"#,
        ];
        for text in cases {
            let serde: Input = serde_json::from_str(text).unwrap();
            if let Some(fast) = fast_input(text, &mut None) {
                assert_eq!(fast, serde, "{text}");
            }
            assert_eq!(parse_input(text, None).unwrap(), serde, "{text}");
        }
    }

    #[test]
    fn bad_hot_inputs_get_serdes_own_error() {
        let cases = [
            r#"{"type":"clientMessage","client":-1,"message":{}}"#,
            r#"{"type":"clientMessage","client":1.0,"message":{}}"#,
            r#"{"type":"clientMessage","client":4294967296,"message":{}}"#,
            r#"{"type":"clientMessage","client":1}"#,
            r#"{"type":"clientBytes","client":1,"data":"!!!!"}"#,
            r#"{"type":"clientBytes","client":1,"data":7}"#,
            r#"{"type":"connectionBytes","conn":1,"data":"","data":""}"#,
            r#"{"type":"connectionBytes","conn":1,"data":"" "#,
            r#"{"type":"clientMessage","client":1,"message":{"a":1e999}}"#,
            r#"{"type":"processOutput","process":2,"stream":"other","data":"aGk="}"#,
        ];
        for text in cases {
            let expected = serde_json::from_str::<Input>(text).unwrap_err().to_string();
            let actual = parse_input(text, None).map(|_| ()).unwrap_err().to_string();
            assert_eq!(actual, expected, "{text}");
        }
    }

    /// Bytes beside the JSON stand for the base64 `data` field, fast path or not.
    #[test]
    fn bytes_beside_the_json_stand_for_data() {
        let cases = [
            (
                r#"{"type":"clientBytes","client":1}"#,
                Some(r#"{"type":"clientBytes","client":1,"data":"AP8="}"#),
            ),
            (
                r#"{"type":"connectionBytes","conn":7}"#,
                Some(r#"{"type":"connectionBytes","conn":7,"data":"AP8="}"#),
            ),
            (
                r#"{"type":"processOutput","process":2,"stream":"stdout"}"#,
                Some(r#"{"type":"processOutput","process":2,"stream":"stdout","data":"AP8="}"#),
            ),
            (
                r#"{"type":"connectionBytes","conn":7,"note":1e5}"#,
                Some(r#"{"type":"connectionBytes","conn":7,"data":"AP8="}"#),
            ),
            (r#"{"type":"connectionBytes","conn":7,"data":"AP8="}"#, None),
            (r#"{"type":"timerFired","timer":1}"#, None),
            (r#"{"type":"connectionBytes"}"#, None),
        ];
        for (text, expected) in cases {
            let actual = parse_input(text, Some(vec![0, 255]));
            match expected {
                Some(expected) => {
                    let expected: Input = serde_json::from_str(expected).unwrap();
                    assert_eq!(actual.unwrap(), expected, "{text}");
                }
                None => assert!(actual.is_err(), "{text}"),
            }
        }
    }

    #[test]
    fn outputs_are_written_as_serde_writes_them() {
        let outputs = vec![
            Output::SendToClient {
                client: ClientId(2),
                message: JsonText::from_value(&serde_json::json!({"seq": 1, "body": {"x": "é\n"}})),
            },
            Output::WriteToClient {
                client: ClientId(2),
                data: Bytes(b"Content-Length: 2\r\n\r\n{}".to_vec()),
            },
            Output::Send {
                conn: ConnectionId(9),
                data: Bytes(vec![0, 255, 7]),
            },
            Output::Log {
                level: LogLevel::Warn,
                message: "a \"quoted\" word".to_string(),
            },
        ];
        let expected = serde_json::to_string(&outputs).unwrap();
        assert_eq!(outputs_to_json(&outputs).unwrap(), expected);
        assert_eq!(outputs_to_json(&[]).unwrap(), "[]");
    }

    /// With bytes beside the JSON, `writeToClient` and `send` locate theirs there with
    /// `dataRange`, one after the other; every other output is as without.
    #[test]
    fn bytes_of_outputs_go_beside_the_json() {
        let outputs = vec![
            Output::Send {
                conn: ConnectionId(9),
                data: Bytes(vec![0, 255, 7]),
            },
            Output::WriteToClient {
                client: ClientId(2),
                data: Bytes(b"Content-Length: 2\r\n\r\n{}".to_vec()),
            },
            Output::Send {
                conn: ConnectionId(4),
                data: Bytes(Vec::new()),
            },
            Output::Log {
                level: LogLevel::Info,
                message: "x".to_string(),
            },
        ];
        let (mut json, mut beside) = (String::new(), vec![1, 2, 3]);
        write_outputs(&outputs, &mut json, Some(&mut beside)).unwrap();
        assert_eq!(
            json,
            r#"[{"type":"send","conn":9,"dataRange":[0,3]},{"type":"writeToClient","client":2,"dataRange":[3,26]},{"type":"send","conn":4,"dataRange":[26,26]},{"type":"log","level":"info","message":"x"}]"#
        );
        assert_eq!(beside, b"\x00\xff\x07Content-Length: 2\r\n\r\n{}");
    }
}
