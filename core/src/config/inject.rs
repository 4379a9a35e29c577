//! The user's `attach` by process id: `{"processId": 1234}` (a number, or the string of
//! digits VS Code's `${command:pickProcess}` gives), with the optional `debuggerPath`
//! that injects into Pythons before 3.14. The engine asks the host to inject a
//! bootstrap into the process, which connects back (session/inject.rs).

use super::attach::attach_config;
use super::read::{get, invalid, optional_string_of};
use super::types::{LaunchConfig, Target};
use crate::dap::error::DapError;
use serde_json::{Map, Value};

/// The running process an attach injects into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessTarget {
    pub pid: u32,
    /// The gdb or lldb to inject with; `None`: the host's choice.
    pub debugger: Option<String>,
}

/// Validates an attach configuration that names a `processId`; `None` when it names
/// none (it is then an attach to a listening program: `validate_attach`).
pub fn validate_attach_to_process(
    arguments: &Value,
) -> Option<Result<(LaunchConfig, ProcessTarget), DapError>> {
    let arguments = arguments.as_object()?;
    let pid = get(arguments, "processId")?;
    Some(validate(arguments, pid))
}

fn validate(
    arguments: &Map<String, Value>,
    pid: &Value,
) -> Result<(LaunchConfig, ProcessTarget), DapError> {
    let pid = process_id(pid)?;
    if get(arguments, "connect").is_some() {
        return Err(invalid(
            "The attach configuration has both 'processId' and 'connect'; give one: 'processId' to attach to a running process, 'connect' for a program started with `python -m dapperdbg --listen`.".to_string(),
        ));
    }
    for key in ["name", "type", "request"] {
        optional_string_of(arguments, key, "attach")?;
    }
    let debugger = match optional_string_of(arguments, "debuggerPath", "attach")? {
        Some(path) if path.trim().is_empty() => {
            return Err(invalid(
                "The attach configuration's 'debuggerPath' is empty; leave it out to use gdb or lldb from PATH.".to_string(),
            ))
        }
        other => other,
    };
    let config = attach_config(
        arguments,
        ("processId", Value::from(pid)),
        Target::Child(format!("process {pid}")),
    )?;
    Ok((config, ProcessTarget { pid, debugger }))
}

fn process_id(value: &Value) -> Result<u32, DapError> {
    let number = match value {
        Value::Number(number) => number.as_u64(),
        Value::String(text) => {
            let text = text.trim();
            if text.starts_with("${") {
                return Err(invalid(format!(
                    "The attach configuration's 'processId' is {value}, a variable the client did not replace; pick a process, or write its id."
                )));
            }
            (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
                .then(|| text.parse::<u64>().ok())
                .flatten()
        }
        _ => None,
    };
    match number.map(u32::try_from) {
        Some(Ok(pid)) if pid > 0 => Ok(pid),
        _ => Err(invalid(format!(
            "The attach configuration's 'processId' is {value}; it must be the id of a running process: a whole number above 0."
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_process_id_and_the_debugger_with_one_error_per_mistake() {
        type Expected = Result<(u32, Option<&'static str>), &'static str>;
        let cases: Vec<(Value, Expected)> = vec![
            (json!({"processId": 4242}), Ok((4242, None))),
            (json!({"processId": "4242"}), Ok((4242, None))),
            (json!({"processId": " 17 ", "debuggerPath": "/opt/gdb"}), Ok((17, Some("/opt/gdb")))),
            (json!({"processId": 0}), Err("The attach configuration's 'processId' is 0; it must be the id of a running process: a whole number above 0.")),
            (json!({"processId": -3}), Err("The attach configuration's 'processId' is -3; it must be the id of a running process: a whole number above 0.")),
            (json!({"processId": "abc"}), Err("The attach configuration's 'processId' is \"abc\"; it must be the id of a running process: a whole number above 0.")),
            (json!({"processId": 5_000_000_000_u64}), Err("The attach configuration's 'processId' is 5000000000; it must be the id of a running process: a whole number above 0.")),
            (json!({"processId": "${command:pickProcess}"}), Err("The attach configuration's 'processId' is \"${command:pickProcess}\", a variable the client did not replace; pick a process, or write its id.")),
            (json!({"processId": 5, "connect": {"port": 1}}), Err("The attach configuration has both 'processId' and 'connect'; give one: 'processId' to attach to a running process, 'connect' for a program started with `python -m dapperdbg --listen`.")),
            (json!({"processId": 5, "debuggerPath": 3}), Err("The attach configuration's 'debuggerPath' must be a string.")),
            (json!({"processId": 5, "debuggerPath": " "}), Err("The attach configuration's 'debuggerPath' is empty; leave it out to use gdb or lldb from PATH.")),
            (json!({"processId": 5, "justMyCode": 1}), Err("The attach configuration's 'justMyCode' must be true or false.")),
        ];
        for (arguments, expected) in cases {
            let got = validate_attach_to_process(&arguments).expect("has a processId");
            match (got, expected) {
                (Ok((_, target)), Ok((pid, debugger))) => {
                    assert_eq!(target.pid, pid, "{arguments}");
                    assert_eq!(target.debugger.as_deref(), debugger, "{arguments}");
                }
                (Err(error), Err(message)) => assert_eq!(error.message, message, "{arguments}"),
                (got, expected) => panic!("{arguments}: got {got:?}, expected {expected:?}"),
            }
        }
        for absent in [
            json!({"connect": {"port": 1}}),
            json!({"processId": null}),
            json!(3),
        ] {
            assert!(validate_attach_to_process(&absent).is_none(), "{absent}");
        }
    }
}
