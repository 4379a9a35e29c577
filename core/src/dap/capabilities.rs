//! The capabilities the engine advertises in its `initialize` response.
//!
//! This is the one place to extend when a feature works end to end (engine and
//! debuggee); advertising anything that does not would make clients send requests
//! that fail.

use serde_json::{json, Value};

pub fn capabilities() -> Value {
    json!({
        "supportsConfigurationDoneRequest": true,
        "supportsTerminateRequest": true,
    })
}
