//! The hellos that open debuggee connections: `dapper/hello` from a root session's
//! debuggee, `dapper/sessionHello` from a child process on the shared child listener.

use crate::dap::message::Incoming;
use serde_json::Value;

/// What a valid hello told us about the debuggee.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    pub session_id: String,
    pub pid: Option<u32>,
    pub python_version: Option<String>,
    /// What the program is (a program attached to by its process id names itself).
    pub name: Option<String>,
}

/// What a valid `dapper/sessionHello` told us about a child process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildHello {
    pub session_id: String,
    pub parent_session_id: Option<String>,
    pub pid: Option<u32>,
    pub python_version: Option<String>,
}

/// The version of the IPC protocol this engine speaks: a debuggee's hello names its
/// own in `protocol` (extension/python/dapperdbg/common/package.py, `PROTOCOL_VERSION`), and a
/// debuggee package of another version is refused with both versions named. A hello
/// without the field is taken as version 1, which every package before the field
/// spoke.
pub const PROTOCOL_VERSION: u64 = 1;

/// The event a child process opens its connection with.
pub const CHILD_HELLO: &str = "dapper/sessionHello";

/// Whether a first message is a child's hello (which `check_child` then verifies).
pub fn is_child_hello(message: &Incoming) -> bool {
    matches!(message, Incoming::Event(event) if event.event == CHILD_HELLO)
}

/// Checks a child's `dapper/sessionHello`: the root session's token and a session id.
pub fn check_child(message: &Incoming, token: &str) -> Result<ChildHello, HelloError> {
    let Incoming::Event(event) = message else {
        return Err(HelloError::NotAHello("not an event".to_string()));
    };
    check_token(&event.body, token)?;
    check_protocol(&event.body)?;
    let text = |key: &str| {
        event
            .body
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let session_id = text("sessionId")
        .filter(|id| !id.is_empty())
        .ok_or_else(|| HelloError::WrongSession(String::new()))?;
    Ok(ChildHello {
        session_id,
        parent_session_id: text("parentSessionId"),
        pid: event
            .body
            .get("pid")
            .and_then(Value::as_u64)
            .and_then(|pid| u32::try_from(pid).ok()),
        python_version: text("pythonVersion"),
    })
}

/// Why a connection was refused. None of these texts contains the token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HelloError {
    NotAHello(String),
    MissingToken,
    WrongToken,
    WrongSession(String),
    /// The debuggee's package speaks another protocol version (given as it was sent).
    WrongProtocol(String),
}

impl HelloError {
    /// The sentence for the user when the debuggee's package is of another protocol
    /// version, which only the user can fix; `None` for every other refusal.
    pub fn protocol_mismatch(&self) -> Option<String> {
        let HelloError::WrongProtocol(offered) = self else {
            return None;
        };
        Some(format!(
            "The program's Dapper package speaks IPC protocol version {offered}, but this \
             Dapper adapter speaks version {PROTOCOL_VERSION}. Use the dapper Python package \
             of the same Dapper release as the extension (pip install the python/ \
             directory that comes with it)."
        ))
    }
}

impl std::fmt::Display for HelloError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HelloError::NotAHello(what) => {
                write!(f, "the first message was {what}, not a dapper/hello event")
            }
            HelloError::MissingToken => write!(f, "the hello carries no token"),
            HelloError::WrongToken => write!(f, "the hello carries a wrong token"),
            HelloError::WrongSession(id) => {
                write!(
                    f,
                    "the hello names session {id:?}, which is not this listener's session"
                )
            }
            HelloError::WrongProtocol(offered) => write!(
                f,
                "the hello speaks protocol version {offered}, not {PROTOCOL_VERSION}"
            ),
        }
    }
}

/// Compares in time independent of where the strings differ, so that a local
/// attacker cannot learn a token prefix from response timing.
/// Both hellos carry the session's secret in `body.token`.
fn check_token(body: &Value, token: &str) -> Result<(), HelloError> {
    let offered = body
        .get("token")
        .and_then(Value::as_str)
        .ok_or(HelloError::MissingToken)?;
    if same_secret(offered, token) {
        Ok(())
    } else {
        Err(HelloError::WrongToken)
    }
}

/// Checks the protocol version a hello's body names (absent: version 1).
pub fn check_protocol(body: &Value) -> Result<(), HelloError> {
    match body.get("protocol") {
        None => Ok(()),
        Some(version) if version.as_u64() == Some(PROTOCOL_VERSION) => Ok(()),
        Some(Value::String(text)) => Err(HelloError::WrongProtocol(text.clone())),
        Some(other) => Err(HelloError::WrongProtocol(other.to_string())),
    }
}

fn same_secret(a: &str, b: &str) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.bytes()
        .zip(b.bytes())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y))
        == 0
}

/// The event a debuggee sends instead of its hello when it will not be debugged.
pub const REFUSED: &str = "dapper/refused";

/// The reason of a `dapper/refused` that carries `token` (a bootstrap injected into a
/// process that Dapper debugs already says so); `None` for anything else.
pub fn check_refusal(message: &Incoming, token: &str) -> Option<String> {
    match message {
        Incoming::Event(event) if event.event == REFUSED => {
            check_token(&event.body, token).ok()?;
            let reason = event.body.get("message").and_then(Value::as_str);
            Some(reason.unwrap_or("no reason given").to_string())
        }
        _ => None,
    }
}

/// Checks that `message` is the hello of session `session_id` with `token`.
pub fn check(message: &Incoming, token: &str, session_id: &str) -> Result<Hello, HelloError> {
    let event = match message {
        Incoming::Event(event) if event.event == "dapper/hello" => event,
        Incoming::Event(event) => {
            return Err(HelloError::NotAHello(format!(
                "the event {:?}",
                event.event
            )))
        }
        Incoming::Request(request) => {
            return Err(HelloError::NotAHello(format!(
                "the request {:?}",
                request.command
            )))
        }
        Incoming::Response(response) => {
            return Err(HelloError::NotAHello(format!(
                "a response to {:?}",
                response.command
            )))
        }
    };
    check_token(&event.body, token)?;
    check_protocol(&event.body)?;
    let offered_session = event
        .body
        .get("sessionId")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if offered_session != session_id {
        return Err(HelloError::WrongSession(offered_session.to_string()));
    }
    Ok(Hello {
        session_id: offered_session.to_string(),
        pid: event
            .body
            .get("pid")
            .and_then(Value::as_u64)
            .and_then(|pid| u32::try_from(pid).ok()),
        python_version: event
            .body
            .get("pythonVersion")
            .and_then(Value::as_str)
            .map(str::to_string),
        name: event
            .body
            .get("name")
            .and_then(Value::as_str)
            .filter(|name| !name.is_empty())
            .map(str::to_string),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dap::message::parse;
    use serde_json::json;

    #[test]
    fn accepts_only_the_right_hello() {
        let hello = |body: Value| {
            parse(json!({"seq":1,"type":"event","event":"dapper/hello","body":body})).unwrap()
        };
        let cases = [
            (
                hello(json!({"token":"abc","sessionId":"s1","pid":42})),
                Ok(Some(42)),
            ),
            (
                hello(json!({"token":"abd","sessionId":"s1"})),
                Err(HelloError::WrongToken),
            ),
            (
                hello(json!({"token":"ab","sessionId":"s1"})),
                Err(HelloError::WrongToken),
            ),
            (
                hello(json!({"sessionId":"s1"})),
                Err(HelloError::MissingToken),
            ),
            (
                hello(json!({"token":"abc","sessionId":"s2"})),
                Err(HelloError::WrongSession("s2".into())),
            ),
            (
                hello(json!({"token":"abc","sessionId":"s1","pid":7,"protocol":1})),
                Ok(Some(7)),
            ),
            (
                hello(json!({"token":"abc","sessionId":"s1","protocol":2})),
                Err(HelloError::WrongProtocol("2".into())),
            ),
            (
                hello(json!({"token":"abc","sessionId":"s1","protocol":"1.0"})),
                Err(HelloError::WrongProtocol("1.0".into())),
            ),
            (
                hello(json!({"token":"abd","sessionId":"s1","protocol":2})),
                Err(HelloError::WrongToken),
            ),
            (
                parse(json!({"seq":1,"type":"event","event":"output"})).unwrap(),
                Err(HelloError::NotAHello("the event \"output\"".into())),
            ),
        ];
        for (message, expected) in cases {
            let result = check(&message, "abc", "s1").map(|hello| hello.pid);
            assert_eq!(result, expected);
        }
    }

    #[test]
    fn checks_child_hellos() {
        let hello = |body: Value| {
            parse(json!({"seq":1,"type":"event","event":"dapper/sessionHello","body":body}))
                .unwrap()
        };
        let cases = [
            (
                hello(json!({"token":"abc","sessionId":"s1.1","parentSessionId":"s1","pid":9})),
                Ok((String::from("s1.1"), Some(String::from("s1")), Some(9))),
            ),
            (
                hello(json!({"token":"abd","sessionId":"s1.1"})),
                Err(HelloError::WrongToken),
            ),
            (
                hello(json!({"sessionId":"s1.1"})),
                Err(HelloError::MissingToken),
            ),
            (
                hello(json!({"token":"abc","sessionId":""})),
                Err(HelloError::WrongSession(String::new())),
            ),
            (
                hello(json!({"token":"abc"})),
                Err(HelloError::WrongSession(String::new())),
            ),
            (
                hello(json!({"token":"abc","sessionId":"s1.1","protocol":0})),
                Err(HelloError::WrongProtocol("0".into())),
            ),
        ];
        for (message, expected) in cases {
            assert!(is_child_hello(&message));
            let result = check_child(&message, "abc")
                .map(|hello| (hello.session_id, hello.parent_session_id, hello.pid));
            assert_eq!(result, expected);
        }
    }
}
