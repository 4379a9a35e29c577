//! DAP messages kept as the JSON text they arrived in. The engine reads a few
//! top-level keys of every message but interprets the arguments and bodies of only a
//! few commands; everything else is passed on with its `seq` (and, for responses,
//! `request_seq` and `command`) spliced into the original text, without ever being
//! parsed into a `serde_json::Value`.

use super::json::{self, TopLevel};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::cell::OnceCell;
use std::fmt;
use std::ops::{Deref, Range};
use std::sync::Arc;

/// One JSON value as text: what a `messages` client's DAP object is in the engine's
/// inputs and outputs. The text is always valid JSON; it is copied verbatim into the
/// output JSON, so a forwarded message is never parsed and re-serialised.
#[derive(Clone)]
pub struct JsonText(String);

impl JsonText {
    /// The text of a value that is known to be valid JSON (a scanned span, or the
    /// output of serde_json).
    pub(crate) fn from_valid(text: String) -> JsonText {
        JsonText(text)
    }

    pub fn from_value(value: &Value) -> JsonText {
        JsonText(value.to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The value the text stands for.
    pub fn to_value(&self) -> Value {
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }
}

impl From<Value> for JsonText {
    fn from(value: Value) -> JsonText {
        JsonText::from_value(&value)
    }
}

impl fmt::Debug for JsonText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Two texts are equal when they stand for the same value (key order and spacing
/// do not matter), as `Value`s were before.
impl PartialEq for JsonText {
    fn eq(&self, other: &JsonText) -> bool {
        self.0 == other.0 || self.to_value() == other.to_value()
    }
}

/// Serialises as the value itself (the shim's writer in lib.rs copies the text
/// instead, which gives the same JSON).
impl Serialize for JsonText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for JsonText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(|value| JsonText::from_value(&value))
    }
}

/// A part of a message (`arguments`, `body`) parsed into a `Value` only when the
/// engine looks at it: most messages are forwarded without anyone looking.
#[derive(Clone, Default)]
pub struct LazyJson {
    /// The message's text and where the part is in it; `None` when absent.
    source: Option<(Arc<str>, Range<usize>)>,
    value: OnceCell<Value>,
}

impl LazyJson {
    pub fn from_value(value: Value) -> LazyJson {
        LazyJson {
            source: None,
            value: OnceCell::from(value),
        }
    }

    fn from_text(text: &Arc<str>, range: Option<Range<usize>>) -> LazyJson {
        LazyJson {
            source: range.map(|range| (Arc::clone(text), range)),
            value: OnceCell::new(),
        }
    }

    /// The value, taken out (parsed now if nobody looked before).
    pub fn into_value(self) -> Value {
        let _ = self.get();
        self.value.into_inner().unwrap_or(Value::Null)
    }

    fn get(&self) -> &Value {
        self.value.get_or_init(|| match &self.source {
            // The span was scanned as valid JSON that serde_json accepts, so the
            // fallback to null is unreachable; it only keeps this free of panics.
            Some((text, range)) => {
                serde_json::from_str(&text[range.clone()]).unwrap_or(Value::Null)
            }
            None => Value::Null,
        })
    }
}

impl Deref for LazyJson {
    type Target = Value;

    fn deref(&self) -> &Value {
        self.get()
    }
}

impl fmt::Debug for LazyJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.get(), f)
    }
}

impl PartialEq for LazyJson {
    fn eq(&self, other: &LazyJson) -> bool {
        self.get() == other.get()
    }
}

/// A whole message as received: its text and the positions of its top-level
/// members, or (when it came as a `Value`, or the scan declined it) the parsed object.
#[derive(Clone)]
pub struct RawMessage(Repr);

#[derive(Clone)]
enum Repr {
    Text { text: Arc<str>, top: TopLevel },
    Object(Map<String, Value>),
}

impl RawMessage {
    pub(crate) fn from_scan(text: Arc<str>, top: TopLevel) -> RawMessage {
        RawMessage(Repr::Text { text, top })
    }

    pub(crate) fn from_object(object: Map<String, Value>) -> RawMessage {
        RawMessage(Repr::Object(object))
    }

    /// The JSON text of a top-level member (for the envelope's own keys).
    pub(crate) fn member_text(&self, key: &str) -> Option<&str> {
        match &self.0 {
            Repr::Text { text, top } => top.value(text, key),
            Repr::Object(_) => None,
        }
    }

    /// A top-level member, parsed when first looked at.
    pub(crate) fn lazy_member(&self, key: &str) -> LazyJson {
        match &self.0 {
            Repr::Text { text, top } => {
                LazyJson::from_text(text, top.member(text, key).map(|m| m.value.clone()))
            }
            Repr::Object(object) => {
                LazyJson::from_value(object.get(key).cloned().unwrap_or(Value::Null))
            }
        }
    }

    /// The message as it is passed on: without its `seq` (the sender stamps its own)
    /// and with `changes` set, added when absent.
    pub fn forwarded(self, changes: Vec<(&'static str, Value)>) -> Unsequenced {
        match self.0 {
            Repr::Object(mut object) => {
                object.remove("seq");
                for (key, value) in changes {
                    object.insert(key.to_string(), value);
                }
                Unsequenced::from(object)
            }
            Repr::Text { text, top } => Unsequenced(Outgoing::Spliced { text, top, changes }),
        }
    }

    /// The whole message as a `Value` (for logs and tests).
    pub fn to_value(&self) -> Value {
        match &self.0 {
            Repr::Text { text, top } => {
                serde_json::from_str(&text[top.open..top.end]).unwrap_or(Value::Null)
            }
            Repr::Object(object) => Value::Object(object.clone()),
        }
    }
}

impl fmt::Debug for RawMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_value(), f)
    }
}

impl PartialEq for RawMessage {
    fn eq(&self, other: &RawMessage) -> bool {
        self.to_value() == other.to_value()
    }
}

/// A message without its `seq`; the sender stamps the seq of its own counter.
#[derive(Clone, Debug)]
pub struct Unsequenced(Outgoing);

#[derive(Clone, Debug)]
enum Outgoing {
    /// A message the engine built.
    Built(Map<String, Value>),
    /// A message passed on: the received text with `changes` (and the seq) spliced in.
    Spliced {
        text: Arc<str>,
        top: TopLevel,
        changes: Vec<(&'static str, Value)>,
    },
}

impl From<Map<String, Value>> for Unsequenced {
    fn from(object: Map<String, Value>) -> Unsequenced {
        Unsequenced(Outgoing::Built(object))
    }
}

impl Unsequenced {
    /// The message's JSON text with `seq` set.
    pub fn stamp(self, seq: i64) -> JsonText {
        match self.0 {
            Outgoing::Built(mut object) => {
                object.insert("seq".to_string(), Value::from(seq));
                JsonText(serde_json::to_string(&object).unwrap_or_default())
            }
            Outgoing::Spliced {
                text,
                top,
                mut changes,
            } => {
                changes.push(("seq", Value::from(seq)));
                JsonText(splice(&text, &top, &changes))
            }
        }
    }
}

/// The object text with each change applied: a member's value replaced where the
/// key exists, else the member added right after the opening brace. Where `changes`
/// names a key twice, the last one counts.
fn splice(text: &str, top: &TopLevel, changes: &[(&'static str, Value)]) -> String {
    let change = |key: &str| {
        changes
            .iter()
            .rev()
            .find(|(changed, _)| *changed == key)
            .map(|(_, value)| value)
    };
    let mut out = String::with_capacity(top.end - top.open + 16 * changes.len() + 16);
    out.push('{');
    let mut added = false;
    for (index, (key, value)) in changes.iter().enumerate() {
        let later = changes[index + 1..].iter().any(|(other, _)| other == key);
        if later || top.member(text, key).is_some() {
            continue;
        }
        if added {
            out.push(',');
        }
        // The keys are the engine's own ASCII names: nothing to escape.
        out.push('"');
        out.push_str(key);
        out.push_str("\":");
        push_value(&mut out, value);
        added = true;
    }
    if added && !top.members.is_empty() {
        out.push(',');
    }
    // Members are in text order, so the text between replaced values is copied once.
    let mut at = top.open + 1;
    for member in &top.members {
        if let Some(value) = change(&text[member.key.clone()]) {
            out.push_str(&text[at..member.value.start]);
            push_value(&mut out, value);
            at = member.value.end;
        }
    }
    out.push_str(&text[at..top.end]);
    out
}

/// Appends `value` as serde_json writes it. The values spliced into every forwarded
/// message (seqs, command names) are written directly: serde_json's writer allocates a
/// string per value, and its `Display` goes through the formatting machinery, which is
/// slow in WebAssembly.
fn push_value(out: &mut String, value: &Value) {
    match value {
        Value::Number(number) if number.as_u64().is_some() => {
            out.push_str(itoa::Buffer::new().format(number.as_u64().unwrap_or_default()));
        }
        Value::Number(number) if number.as_i64().is_some() => {
            out.push_str(itoa::Buffer::new().format(number.as_i64().unwrap_or_default()));
        }
        Value::String(string) if json::is_plain_string(string) => {
            out.push('"');
            out.push_str(string);
            out.push('"');
        }
        Value::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        other => out.push_str(&serde_json::to_string(other).unwrap_or_default()),
    }
}

/// Scans a message text; `None` when the full parse must decide (see json.rs).
pub(crate) fn scan(text: &str) -> Option<(Arc<str>, TopLevel)> {
    let top = json::scan_object(text)?;
    Some((Arc::from(text), top))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stamped(text: &str, changes: Vec<(&'static str, Value)>, seq: i64) -> String {
        let (text, top) = scan(text).expect("the test's text scans");
        RawMessage::from_scan(text, top)
            .forwarded(changes)
            .stamp(seq)
            .as_str()
            .to_string()
    }

    #[test]
    fn splices_seq_and_changes_into_the_text() {
        type Changes = Vec<(&'static str, Value)>;
        let cases: Vec<(&str, Changes, &str)> = vec![
            (
                r#"{"seq":12,"type":"request","command":"threads"}"#,
                vec![],
                r#"{"seq":7,"type":"request","command":"threads"}"#,
            ),
            (
                r#"{"type":"event","event":"output","body":{"seq":1}}"#,
                vec![],
                r#"{"seq":7,"type":"event","event":"output","body":{"seq":1}}"#,
            ),
            (
                " {\"request_seq\" : 3, \"seq\":\t1 ,\"body\":{}} ",
                vec![("request_seq", json!(40)), ("command", json!("say \"hi\""))],
                "{\"command\":\"say \\\"hi\\\"\",\"request_seq\" : 40, \"seq\":\t7 ,\"body\":{}}",
            ),
            ("{}", vec![], r#"{"seq":7}"#),
        ];
        for (text, changes, expected) in cases {
            assert_eq!(stamped(text, changes, 7), expected, "{text}");
        }
    }

    #[test]
    fn spliced_values_are_written_as_serde_json_writes_them() {
        let values = [
            json!(0),
            json!(7),
            json!(-1),
            json!(i64::MIN),
            json!(u64::MAX),
            json!(1.5),
            json!(-0.0),
            json!("threads"),
            json!(""),
            json!("é and 😀"),
            json!("say \"hi\""),
            json!("back\\slash"),
            json!("tab\tnew\nline\u{1}\u{7f}"),
            json!(true),
            json!(false),
            Value::Null,
            json!([1, "a", {"b": null}]),
        ];
        for value in values {
            let mut written = String::new();
            push_value(&mut written, &value);
            assert_eq!(written, serde_json::to_string(&value).unwrap(), "{value}");
        }
    }

    /// A key changed twice takes its last value, whether it is replaced or added.
    #[test]
    fn the_last_change_of_a_key_counts() {
        let changes = vec![
            ("command", json!("a")),
            ("seq", json!(1)),
            ("command", json!("b")),
            ("extra", json!(1)),
            ("extra", json!(2)),
        ];
        assert_eq!(
            stamped(r#"{"seq":5,"command":"x"}"#, changes, 9),
            r#"{"extra":2,"seq":9,"command":"b"}"#
        );
    }

    #[test]
    fn built_and_spliced_messages_agree() {
        let text = r#"{"seq":5,"type":"response","request_seq":2,"command":"x","success":true,"body":{"a":[1,2]}}"#;
        let changes = || vec![("request_seq", json!(9)), ("command", json!("threads"))];
        let object = serde_json::from_str::<Map<String, Value>>(text).unwrap();
        let built = RawMessage::from_object(object)
            .forwarded(changes())
            .stamp(3);
        let spliced = stamped(text, changes(), 3);
        assert_eq!(
            built.to_value(),
            serde_json::from_str::<Value>(&spliced).unwrap()
        );
    }

    #[test]
    fn lazy_parts_parse_on_demand() {
        let (text, top) = scan(r#"{"arguments":{"a":1},"x":2}"#).unwrap();
        let raw = RawMessage::from_scan(text, top);
        assert_eq!(*raw.lazy_member("arguments"), json!({"a": 1}));
        assert_eq!(*raw.lazy_member("missing"), Value::Null);
        assert_eq!(raw.lazy_member("x").into_value(), json!(2));
    }
}
