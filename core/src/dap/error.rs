//! Errors that become DAP error responses, with blame as CodeLLDB assigns it: the
//! user's fault (shown to them), ours (logged), or not worth mentioning.

use serde_json::{json, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blame {
    /// The user can act on it: the client shows it (`showUser: true`).
    User,
    /// A bug or a broken peer: logged, and the client gets a plain error response.
    Internal,
    /// Expected in normal operation (for example a request racing the session's end).
    Silent,
}

/// Stable numeric ids for `body.error.id`, so clients and tests can tell errors apart.
pub mod codes {
    pub const NOT_INITIALIZED: u32 = 1001;
    pub const ALREADY_INITIALIZED: u32 = 1002;
    pub const BAD_REQUEST: u32 = 1003;
    pub const WRONG_STATE: u32 = 1004;
    pub const INVALID_CONFIGURATION: u32 = 1010;
    pub const PROGRAM_NOT_FOUND: u32 = 1011;
    pub const CWD_NOT_FOUND: u32 = 1012;
    pub const PYTHON_UNUSABLE: u32 = 1013;
    pub const LAUNCH_FAILED: u32 = 1014;
    pub const ATTACH_UNSUPPORTED: u32 = 1015;
    pub const NO_SUCH_CHILD: u32 = 1016;
    /// An attach that could not reach the program, or the peer was not a Dapper program.
    pub const ATTACH_FAILED: u32 = 1017;
    pub const DEBUGGEE_NOT_CONNECTED: u32 = 1020;
    pub const DEBUGGEE_GONE: u32 = 1021;
    pub const DEBUGGEE_FAILED: u32 = 1022;
    pub const NOT_DEBUGGING: u32 = 1023;
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DapError {
    pub id: u32,
    pub message: String,
    pub blame: Blame,
}

impl DapError {
    pub fn user(id: u32, message: impl Into<String>) -> DapError {
        DapError {
            id,
            message: message.into(),
            blame: Blame::User,
        }
    }

    pub fn internal(id: u32, message: impl Into<String>) -> DapError {
        DapError {
            id,
            message: message.into(),
            blame: Blame::Internal,
        }
    }

    pub fn silent(id: u32, message: impl Into<String>) -> DapError {
        DapError {
            id,
            message: message.into(),
            blame: Blame::Silent,
        }
    }

    /// The `body` of the error response: a DAP `Message`.
    pub fn body(&self) -> Value {
        json!({
            "error": {
                "id": self.id,
                "format": self.message,
                "showUser": self.blame == Blame::User,
            }
        })
    }
}
