//! What Dapper's validation makes of a request's arguments, reachable from outside the
//! engine for the data-driven tests of the debugpy translation.

use super::{validate, validate_attach, validate_attach_to_process};
use crate::contract::Platform;
use crate::dap::error::DapError;
use serde_json::{Map, Value};

/// The normalised configuration Dapper's validation makes of a `launch` or `attach`
/// request's arguments (an attach to a process id included) on `platform`, or the error
/// the client would get; for the data-driven tests of the debugpy translation
/// (core/tests/debugpy_table.rs), which check what each debugpy option becomes.
pub fn normalised_configuration(
    request: &str,
    arguments: &Value,
    platform: Platform,
) -> Result<Map<String, Value>, DapError> {
    if request == "launch" {
        return validate(arguments, platform, true).map(|config| config.normalised);
    }
    match validate_attach_to_process(arguments) {
        Some(result) => result.map(|(config, _)| config.normalised),
        None => validate_attach(arguments).map(|(config, _)| config.normalised),
    }
}
