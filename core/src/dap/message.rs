//! The DAP envelope: telling requests, responses and events apart, and building them.
//!
//! Only the envelope is typed; arguments and bodies stay JSON so that whatever the
//! engine does not interpret passes through untouched. Messages that arrive as text
//! are read by a scan of their top-level keys (raw.rs); their arguments and bodies
//! are parsed only if the engine looks at them.

use super::error::DapError;
use super::json::{token_bool, token_i64, token_str};
pub use super::raw::Unsequenced;
use super::raw::{self, LazyJson, RawMessage};
use super::surrogates;
use serde_json::{json, Map, Value};

#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub seq: i64,
    pub command: String,
    /// `Value::Null` when the request had no arguments.
    pub arguments: LazyJson,
    /// The whole message as received.
    pub raw: RawMessage,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    pub request_seq: i64,
    pub success: bool,
    pub command: String,
    pub message: Option<String>,
    pub body: LazyJson,
    pub raw: RawMessage,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub event: String,
    pub body: LazyJson,
    pub raw: RawMessage,
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

/// Why a text is not a usable DAP message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextError {
    /// The text is not JSON; serde_json's own description of the first error.
    NotJson(String),
    Envelope(EnvelopeError),
}

/// Sorts a message text into a request, response or event. The same verdicts as
/// `parse(serde_json::from_str(text)?)`, without parsing what the engine does not read.
pub fn parse_text(text: &str) -> Result<Incoming, TextError> {
    match raw::scan(text) {
        Some((text, top)) => {
            parse_fields(TextFields(RawMessage::from_scan(text, top))).map_err(TextError::Envelope)
        }
        None => match serde_json::from_str::<Value>(text) {
            Ok(value) => parse(value).map_err(TextError::Envelope),
            // Still not JSON once repaired: the error is the one the client's own
            // text gets.
            Err(error) => match surrogates::replace_lone_surrogates(text)
                .map(|repaired| parse_text(&repaired))
            {
                Some(Err(TextError::NotJson(_))) | None => {
                    Err(TextError::NotJson(error.to_string()))
                }
                Some(verdict) => verdict,
            },
        },
    }
}

/// `parse_text` of bytes; text that is not UTF-8 gets serde_json's verdict on it.
pub fn parse_slice(bytes: &[u8]) -> Result<Incoming, TextError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse_text(text),
        Err(_) => match serde_json::from_slice::<Value>(bytes) {
            Ok(value) => parse(value).map_err(TextError::Envelope),
            Err(error) => Err(TextError::NotJson(error.to_string())),
        },
    }
}

/// Sorts a JSON value into a request, response or event.
pub fn parse(value: Value) -> Result<Incoming, EnvelopeError> {
    let Value::Object(raw) = value else {
        return Err(EnvelopeError::Unusable(
            "a DAP message must be a JSON object".to_string(),
        ));
    };
    parse_fields(ObjectFields(raw))
}

/// How the envelope's keys are read: from a parsed object, or from scanned text.
/// Both answer exactly as `Value::as_str`, `as_i64` and `as_bool` do.
trait Fields {
    fn string(&self, name: &str) -> Option<String>;
    fn integer(&self, name: &str) -> Option<i64>;
    fn boolean(&self, name: &str) -> Option<bool>;
    /// A member the engine may or may not look at later (`arguments`, `body`).
    fn lazy(&self, name: &str) -> LazyJson;
    fn into_raw(self) -> RawMessage;
}

struct ObjectFields(Map<String, Value>);
struct TextFields(RawMessage);

impl Fields for ObjectFields {
    fn string(&self, name: &str) -> Option<String> {
        self.0.get(name).and_then(Value::as_str).map(str::to_string)
    }
    fn integer(&self, name: &str) -> Option<i64> {
        self.0.get(name).and_then(Value::as_i64)
    }
    fn boolean(&self, name: &str) -> Option<bool> {
        self.0.get(name).and_then(Value::as_bool)
    }
    fn lazy(&self, name: &str) -> LazyJson {
        LazyJson::from_value(self.0.get(name).cloned().unwrap_or(Value::Null))
    }
    fn into_raw(self) -> RawMessage {
        RawMessage::from_object(self.0)
    }
}

impl Fields for TextFields {
    fn string(&self, name: &str) -> Option<String> {
        token_str(self.0.member_text(name)?).map(|text| text.into_owned())
    }
    fn integer(&self, name: &str) -> Option<i64> {
        token_i64(self.0.member_text(name)?)
    }
    fn boolean(&self, name: &str) -> Option<bool> {
        token_bool(self.0.member_text(name)?)
    }
    fn lazy(&self, name: &str) -> LazyJson {
        self.0.lazy_member(name)
    }
    fn into_raw(self) -> RawMessage {
        self.0
    }
}

fn parse_fields(fields: impl Fields) -> Result<Incoming, EnvelopeError> {
    let kind = fields.string("type");
    match kind.as_deref() {
        Some("request") => {
            let seq = fields.integer("seq");
            let command = fields.string("command");
            match (seq, command) {
                (Some(seq), Some(command)) => Ok(Incoming::Request(Request {
                    seq,
                    command,
                    arguments: fields.lazy("arguments"),
                    raw: fields.into_raw(),
                })),
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
            let Some(request_seq) = fields.integer("request_seq") else {
                return Err(EnvelopeError::Unusable(
                    "a DAP response must have an integer 'request_seq'".to_string(),
                ));
            };
            Ok(Incoming::Response(Response {
                request_seq,
                success: fields.boolean("success").unwrap_or(false),
                command: fields.string("command").unwrap_or_default(),
                message: fields.string("message"),
                body: fields.lazy("body"),
                raw: fields.into_raw(),
            }))
        }
        Some("event") => match fields.string("event") {
            Some(event) => Ok(Incoming::Event(Event {
                event,
                body: fields.lazy("body"),
                raw: fields.into_raw(),
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

fn object(value: Value) -> Map<String, Value> {
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
    Unsequenced::from(message)
}

pub fn error_response(request_seq: i64, command: &str, error: &DapError) -> Unsequenced {
    Unsequenced::from(object(json!({
        "type": "response",
        "request_seq": request_seq,
        "success": false,
        "command": command,
        "message": error.message,
        "body": error.body(),
    })))
}

pub fn event(name: &str, body: Option<Value>) -> Unsequenced {
    let mut message = object(json!({ "type": "event", "event": name }));
    if let Some(body) = body {
        message.insert("body".to_string(), body);
    }
    Unsequenced::from(message)
}

pub fn request(command: &str, arguments: Value) -> Unsequenced {
    Unsequenced::from(object(
        json!({ "type": "request", "command": command, "arguments": arguments }),
    ))
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
