//! The DAP envelope: telling requests, responses and events apart, and building them.
//!
//! Only the envelope is typed; arguments and bodies stay JSON so that whatever the
//! engine does not interpret passes through untouched.

use super::error::DapError;
use serde_json::{json, Map, Value};

#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub seq: i64,
    pub command: String,
    /// `Value::Null` when the request had no arguments.
    pub arguments: Value,
    /// The whole message as received.
    pub raw: Map<String, Value>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    pub request_seq: i64,
    pub success: bool,
    pub command: String,
    pub message: Option<String>,
    pub body: Value,
    pub raw: Map<String, Value>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub event: String,
    pub body: Value,
    pub raw: Map<String, Value>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Incoming {
    Request(Request),
    Response(Response),
    Event(Event),
}

/// Why a JSON value is not a usable DAP message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvelopeError {
    /// It looks like a request with a usable `seq`, so it deserves an error response.
    BadRequest {
        seq: i64,
        command: String,
        reason: String,
    },
    /// Anything else; it can only be logged.
    Unusable(String),
}

impl std::fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EnvelopeError::BadRequest { reason, .. } | EnvelopeError::Unusable(reason) => {
                write!(f, "{reason}")
            }
        }
    }
}

fn string_field(object: &Map<String, Value>, name: &str) -> Option<String> {
    object.get(name).and_then(Value::as_str).map(str::to_string)
}

/// Sorts a JSON value into a request, response or event.
pub fn parse(value: Value) -> Result<Incoming, EnvelopeError> {
    let Value::Object(raw) = value else {
        return Err(EnvelopeError::Unusable(
            "a DAP message must be a JSON object".to_string(),
        ));
    };
    let kind = string_field(&raw, "type");
    match kind.as_deref() {
        Some("request") => {
            let seq = raw.get("seq").and_then(Value::as_i64);
            let command = string_field(&raw, "command");
            match (seq, command) {
                (Some(seq), Some(command)) => {
                    let arguments = raw.get("arguments").cloned().unwrap_or(Value::Null);
                    Ok(Incoming::Request(Request {
                        seq,
                        command,
                        arguments,
                        raw,
                    }))
                }
                (Some(seq), None) => Err(EnvelopeError::BadRequest {
                    seq,
                    command: String::new(),
                    reason: "a DAP request must have a string 'command'".to_string(),
                }),
                (None, _) => Err(EnvelopeError::Unusable(
                    "a DAP request must have an integer 'seq'".to_string(),
                )),
            }
        }
        Some("response") => {
            let request_seq = raw.get("request_seq").and_then(Value::as_i64);
            let Some(request_seq) = request_seq else {
                return Err(EnvelopeError::Unusable(
                    "a DAP response must have an integer 'request_seq'".to_string(),
                ));
            };
            Ok(Incoming::Response(Response {
                request_seq,
                success: raw.get("success").and_then(Value::as_bool).unwrap_or(false),
                command: string_field(&raw, "command").unwrap_or_default(),
                message: string_field(&raw, "message"),
                body: raw.get("body").cloned().unwrap_or(Value::Null),
                raw,
            }))
        }
        Some("event") => match string_field(&raw, "event") {
            Some(event) => Ok(Incoming::Event(Event {
                event,
                body: raw.get("body").cloned().unwrap_or(Value::Null),
                raw,
            })),
            None => Err(EnvelopeError::Unusable(
                "a DAP event must have a string 'event'".to_string(),
            )),
        },
        Some(other) => Err(EnvelopeError::Unusable(format!(
            "unknown DAP message type {other:?}"
        ))),
        None => Err(EnvelopeError::Unusable(
            "a DAP message must have a string 'type'".to_string(),
        )),
    }
}

/// A message without its `seq`; the sender stamps the seq of its own counter.
pub type Unsequenced = Map<String, Value>;

fn object(value: Value) -> Unsequenced {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

pub fn success_response(request_seq: i64, command: &str, body: Option<Value>) -> Unsequenced {
    let mut message = object(json!({
        "type": "response",
        "request_seq": request_seq,
        "success": true,
        "command": command,
    }));
    if let Some(body) = body {
        message.insert("body".to_string(), body);
    }
    message
}

pub fn error_response(request_seq: i64, command: &str, error: &DapError) -> Unsequenced {
    object(json!({
        "type": "response",
        "request_seq": request_seq,
        "success": false,
        "command": command,
        "message": error.message,
        "body": error.body(),
    }))
}

pub fn event(name: &str, body: Option<Value>) -> Unsequenced {
    let mut message = object(json!({ "type": "event", "event": name }));
    if let Some(body) = body {
        message.insert("body".to_string(), body);
    }
    message
}

pub fn request(command: &str, arguments: Value) -> Unsequenced {
    object(json!({ "type": "request", "command": command, "arguments": arguments }))
}

/// An `output` event.
pub fn output_event(category: &str, output: &str) -> Unsequenced {
    event(
        "output",
        Some(json!({ "category": category, "output": output })),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_messages_and_rejects_bad_ones() {
        let ok = [
            (
                json!({"seq":1,"type":"request","command":"threads"}),
                "request threads",
            ),
            (
                json!({"seq":2,"type":"response","request_seq":1,"success":true,"command":"x"}),
                "response 1",
            ),
            (
                json!({"seq":3,"type":"event","event":"stopped","body":{}}),
                "event stopped",
            ),
        ];
        for (value, expected) in ok {
            let described = match parse(value).unwrap() {
                Incoming::Request(r) => format!("request {}", r.command),
                Incoming::Response(r) => format!("response {}", r.request_seq),
                Incoming::Event(e) => format!("event {}", e.event),
            };
            assert_eq!(described, expected);
        }
        let bad = [
            (json!([1]), false),
            (json!({"seq":1}), false),
            (json!({"seq":1,"type":"request"}), true),
            (json!({"type":"request","command":"x"}), false),
            (json!({"seq":1,"type":"reply"}), false),
            (json!({"type":"response"}), false),
            (json!({"type":"event"}), false),
        ];
        for (value, answerable) in bad {
            let error = parse(value.clone()).unwrap_err();
            assert_eq!(
                matches!(error, EnvelopeError::BadRequest { .. }),
                answerable,
                "{value}"
            );
        }
    }
}
