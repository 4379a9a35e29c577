//! The user's `attach` configuration: connect to a program started with
//! `python -m dapperdbg --listen [HOST:]PORT` (`connect`), or listen for a program that
//! connects, started with `python -m dapperdbg --connect [HOST:]PORT` (`listen`). One
//! clear error per mistake, naming the key.

use super::read::{fill_boolean_defaults, get, invalid, optional_string_of};
use super::schema;
use super::types::{Console, LaunchConfig, Target};
use crate::dap::error::DapError;
use crate::path_mappings::PathMappings;
use serde_json::{Map, Value};

/// Where an attach connects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub host: String,
    pub port: u16,
}

impl Endpoint {
    /// `host:port`, with an IPv6 address in brackets.
    pub fn display(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// Whether the host names this machine, so that the process is a local one.
    pub fn is_loopback(&self) -> bool {
        let host = self.host.to_ascii_lowercase();
        host == "localhost" || host == "::1" || host.starts_with("127.")
    }
}

/// Which way a user's attach goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttachMode {
    /// The program listens there and the engine connects (`connect`).
    Connect(Endpoint),
    /// The engine listens there and the program connects (`listen`).
    Listen(Endpoint),
}

/// The longest host name DNS allows.
const MAX_HOST_LENGTH: usize = 253;

/// Validates a user's `attach` arguments (not a child session's: those carry
/// `__dapperChildSessionId` and go through `validate_child`).
pub fn validate_attach(arguments: &Value) -> Result<(LaunchConfig, AttachMode), DapError> {
    let arguments = match arguments {
        Value::Object(arguments) => arguments,
        Value::Null => &Map::new(),
        _ => {
            return Err(invalid(
                "The attach arguments must be a JSON object.".to_string(),
            ))
        }
    };
    let mode = match get(arguments, "listen") {
        Some(_) if get(arguments, "connect").is_some() => return Err(invalid(
            "The attach configuration has both 'connect' and 'listen'; give 'connect' to attach to a program that listens (`python -m dapperdbg --listen`), or 'listen' to wait for a program that connects (`python -m dapperdbg --connect`).".to_string(),
        )),
        Some(_) => AttachMode::Listen(listen_endpoint(arguments)?),
        None => AttachMode::Connect(endpoint(arguments)?),
    };
    for key in ["name", "type", "request"] {
        optional_string_of(arguments, key, "attach")?;
    }
    PathMappings::from_configuration(arguments, "attach")?;
    let (key, endpoint) = match &mode {
        AttachMode::Connect(endpoint) => ("connect", endpoint),
        AttachMode::Listen(endpoint) => ("listen", endpoint),
    };
    let where_to = serde_json::json!({"host": endpoint.host, "port": endpoint.port});
    let config = attach_config(
        arguments,
        (key, where_to),
        Target::Child(endpoint.display()),
    )?;
    Ok((config, mode))
}

/// The configuration of a user's attach (to a listening or connecting program, or
/// by process id): the arguments with the attach defaults filled in and `how` (the
/// checked `connect`, `listen` or `processId`) in its normal form; `target` names
/// the program until it names itself.
pub(super) fn attach_config(
    arguments: &Map<String, Value>,
    how: (&str, Value),
    target: Target,
) -> Result<LaunchConfig, DapError> {
    let mut normalised = arguments.clone();
    fill_boolean_defaults(arguments, &mut normalised, "attach", schema::ATTACH_KEYS)?;
    super::rules::check(arguments, "attach")?;
    normalised.insert(how.0.to_string(), how.1);
    // The program's output goes where it went before the attach (its own terminal,
    // which nobody captures): for the debuggee this is a terminal console, so
    // redirectOutput tees it into `output`.
    normalised.insert(
        "console".to_string(),
        Value::String("externalTerminal".to_string()),
    );
    normalised.insert("noDebug".to_string(), Value::Bool(false));
    // Its children are debugged as a launch's are (the default): through the listener
    // the program connects to, or a private one.
    let subprocess_auto_attach = normalised.get("subprocessAutoAttach") == Some(&Value::Bool(true));
    Ok(LaunchConfig {
        target,
        args: Vec::new(),
        cwd: None,
        env: Vec::new(),
        env_file: None,
        env_file_optional: false,
        python: String::new(),
        python_source: "default",
        python_args: Vec::new(),
        console: Console::ExternalTerminal,
        no_debug: false,
        subprocess_auto_attach,
        sudo: false,
        normalised,
    })
}

/// The `listen` address of an attach configuration, checked: the program must be told
/// where to connect, so port 0 (any free port) is refused.
fn listen_endpoint(arguments: &Map<String, Value>) -> Result<Endpoint, DapError> {
    let Some(Value::Object(listen)) = get(arguments, "listen") else {
        return Err(invalid(
            "The attach configuration's 'listen' must be an object like {\"host\": \"127.0.0.1\", \"port\": 5678}.".to_string(),
        ));
    };
    if get(listen, "port")
        .is_some_and(|value| value.as_u64() == Some(0) || value.as_str() == Some("0"))
    {
        return Err(invalid(
            "The attach configuration's 'listen.port' is 0; the program must know where to connect, so choose a port from 1 to 65535.".to_string(),
        ));
    }
    endpoint_in(
        listen,
        "listen",
        "The attach configuration's 'listen' needs a 'port': the one the program connects to (`python -m dapperdbg --connect PORT …`).",
    )
}

/// The `connect` address of an attach configuration, checked.
pub fn endpoint(arguments: &Map<String, Value>) -> Result<Endpoint, DapError> {
    let connect = match get(arguments, "connect") {
        Some(Value::Object(connect)) => connect,
        Some(_) => {
            return Err(invalid(
                "The attach configuration's 'connect' must be an object like {\"host\": \"127.0.0.1\", \"port\": 5678}.".to_string(),
            ))
        }
        None if get(arguments, "port").is_some() || get(arguments, "host").is_some() => {
            return Err(invalid(
                "The attach configuration needs 'host' and 'port' inside 'connect': \"connect\": {\"host\": \"127.0.0.1\", \"port\": 5678}.".to_string(),
            ))
        }
        None => {
            return Err(invalid(
                "The attach configuration needs 'connect' with the port the program listens on (started with `python -m dapperdbg --listen PORT …`), like \"connect\": {\"port\": 5678}.".to_string(),
            ))
        }
    };
    endpoint_in(
        connect,
        "connect",
        "The attach configuration's 'connect' needs a 'port': the one the program listens on.",
    )
}

/// The `port` and `host` of the endpoint object under `key`; `no_port` says what is
/// missing without a port.
fn endpoint_in(
    object: &Map<String, Value>,
    key: &str,
    no_port: &str,
) -> Result<Endpoint, DapError> {
    let port = match get(object, "port") {
        None => return Err(invalid(no_port.to_string())),
        Some(value) => port(value, key)?,
    };
    let host = match get(object, "host") {
        None => schema::DEFAULT_ATTACH_HOST.to_string(),
        Some(Value::String(host)) => host_name(host, key)?,
        Some(_) => {
            return Err(invalid(format!(
                "The attach configuration's '{key}.host' must be a string: a host name or an IP address."
            )))
        }
    };
    Ok(Endpoint { host, port })
}

fn port(value: &Value, key: &str) -> Result<u16, DapError> {
    // A string of digits is accepted too: VS Code's input variables produce strings.
    let number = match value {
        Value::Number(number) => number.as_u64(),
        Value::String(text) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            text.parse::<u64>().ok()
        }
        _ => None,
    };
    match number.map(u16::try_from) {
        Some(Ok(port)) if port > 0 => Ok(port),
        Some(_) => Err(invalid(format!(
            "The attach configuration's '{key}.port' is {value}; it must be from 1 to 65535."
        ))),
        None => Err(invalid(format!(
            "The attach configuration's '{key}.port' is {value}; it must be a whole number from 1 to 65535."
        ))),
    }
}

fn host_name(host: &str, key: &str) -> Result<String, DapError> {
    let trimmed = host.trim();
    let unbracketed = trimmed
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .unwrap_or(trimmed);
    if unbracketed.is_empty() {
        return Err(invalid(format!(
            "The attach configuration's '{key}.host' is empty; leave it out for 127.0.0.1."
        )));
    }
    let plausible = unbracketed.len() <= MAX_HOST_LENGTH
        && unbracketed
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '%'));
    if !plausible {
        return Err(invalid(format!(
            "The attach configuration's '{key}.host' is {host:?}, which is not a host name or an IP address (write only the host, without a scheme, path or port)."
        )));
    }
    Ok(unbracketed.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The endpoint an attach configuration gives, or its error message.
    type Expected = Result<(&'static str, u16), &'static str>;

    fn check(arguments: Value, expected: Expected) {
        match (validate_attach(&arguments), expected) {
            (Ok((config, mode)), Ok((host, port))) => {
                let (key, endpoint) = match &mode {
                    AttachMode::Connect(endpoint) => ("connect", endpoint),
                    AttachMode::Listen(endpoint) => ("listen", endpoint),
                };
                assert_eq!((endpoint.host.as_str(), endpoint.port), (host, port));
                assert_eq!(
                    config.normalised[key],
                    json!({"host": host, "port": port}),
                    "{arguments}"
                );
            }
            (Err(error), Err(expected)) => assert_eq!(error.message, expected, "{arguments}"),
            (result, expected) => panic!("{arguments}: got {result:?}, expected {expected:?}"),
        }
    }

    #[test]
    fn validates_the_endpoint_with_one_error_per_mistake() {
        let cases: Vec<(Value, Expected)> = vec![
            (json!({"connect": {"port": 5678}}), Ok(("127.0.0.1", 5678))),
            (json!({"connect": {"host": "devbox.local", "port": 1}}), Ok(("devbox.local", 1))),
            (json!({"connect": {"host": "[::1]", "port": "65535"}}), Ok(("::1", 65535))),
            (json!({"connect": {"host": null, "port": 80}}), Ok(("127.0.0.1", 80))),
            (json!({}), Err("The attach configuration needs 'connect' with the port the program listens on (started with `python -m dapperdbg --listen PORT …`), like \"connect\": {\"port\": 5678}.")),
            (json!({"port": 5678}), Err("The attach configuration needs 'host' and 'port' inside 'connect': \"connect\": {\"host\": \"127.0.0.1\", \"port\": 5678}.")),
            (json!({"connect": 5678}), Err("The attach configuration's 'connect' must be an object like {\"host\": \"127.0.0.1\", \"port\": 5678}.")),
            (json!({"connect": {"host": "h"}}), Err("The attach configuration's 'connect' needs a 'port': the one the program listens on.")),
            (json!({"connect": {"port": 0}}), Err("The attach configuration's 'connect.port' is 0; it must be from 1 to 65535.")),
            (json!({"connect": {"port": 70000}}), Err("The attach configuration's 'connect.port' is 70000; it must be from 1 to 65535.")),
            (json!({"connect": {"port": -1}}), Err("The attach configuration's 'connect.port' is -1; it must be a whole number from 1 to 65535.")),
            (json!({"connect": {"port": 56.5}}), Err("The attach configuration's 'connect.port' is 56.5; it must be a whole number from 1 to 65535.")),
            (json!({"connect": {"port": "http"}}), Err("The attach configuration's 'connect.port' is \"http\"; it must be a whole number from 1 to 65535.")),
            (json!({"connect": {"host": "", "port": 1}}), Err("The attach configuration's 'connect.host' is empty; leave it out for 127.0.0.1.")),
            (json!({"connect": {"host": 7, "port": 1}}), Err("The attach configuration's 'connect.host' must be a string: a host name or an IP address.")),
            (json!({"connect": {"host": "http://box:80/", "port": 1}}), Err("The attach configuration's 'connect.host' is \"http://box:80/\", which is not a host name or an IP address (write only the host, without a scheme, path or port).")),
            (json!({"connect": {"host": "my box", "port": 1}}), Err("The attach configuration's 'connect.host' is \"my box\", which is not a host name or an IP address (write only the host, without a scheme, path or port).")),
            (json!({"connect": {"port": 1}, "justMyCode": "no"}), Err("The attach configuration's 'justMyCode' must be true or false.")),
            (json!({"connect": {"port": 1}, "name": 3}), Err("The attach configuration's 'name' must be a string.")),
            (json!({"connect": {"port": 1}, "pathMappings": [{"localRoot": "/a", "remoteRoot": "/b"}]}), Ok(("127.0.0.1", 1))),
            (json!({"connect": {"port": 1}, "pathMappings": [{"localRoot": "/a"}]}), Err("The attach configuration's 'pathMappings[0].remoteRoot' must be a non-empty string: the folder on the machine the program runs on.")),
            (json!({"connect": {"port": 1}, "pathMappings": []}), Ok(("127.0.0.1", 1))),
            (json!({"connect": {"port": 1}, "subprocessAutoAttach": "yes"}), Err("The attach configuration's 'subprocessAutoAttach' must be true or false.")),
            (json!({"listen": {"port": 5678}}), Ok(("127.0.0.1", 5678))),
            (json!({"listen": {"host": "0.0.0.0", "port": "6000"}}), Ok(("0.0.0.0", 6000))),
            (json!({"listen": {"port": 1}, "connect": {"port": 2}}), Err("The attach configuration has both 'connect' and 'listen'; give 'connect' to attach to a program that listens (`python -m dapperdbg --listen`), or 'listen' to wait for a program that connects (`python -m dapperdbg --connect`).")),
            (json!({"listen": 5678}), Err("The attach configuration's 'listen' must be an object like {\"host\": \"127.0.0.1\", \"port\": 5678}.")),
            (json!({"listen": {}}), Err("The attach configuration's 'listen' needs a 'port': the one the program connects to (`python -m dapperdbg --connect PORT …`).")),
            (json!({"listen": {"port": 0}}), Err("The attach configuration's 'listen.port' is 0; the program must know where to connect, so choose a port from 1 to 65535.")),
            (json!({"listen": {"port": 65536}}), Err("The attach configuration's 'listen.port' is 65536; it must be from 1 to 65535.")),
            (json!({"listen": {"host": "a b", "port": 1}}), Err("The attach configuration's 'listen.host' is \"a b\", which is not a host name or an IP address (write only the host, without a scheme, path or port).")),
            (json!({"listen": {"host": false, "port": 1}}), Err("The attach configuration's 'listen.host' must be a string: a host name or an IP address.")),
            (json!("attach"), Err("The attach arguments must be a JSON object.")),
        ];
        for (arguments, expected) in cases {
            check(arguments, expected);
        }
    }

    #[test]
    fn normalises_with_the_attach_defaults_and_keeps_unknown_keys() {
        // An attach to a listening program, and one by process id: the same defaults.
        let connect = validate_attach(
            &json!({"connect": {"port": 5678}, "custom": [1], "justMyCode": false}),
        )
        .map(|(config, _)| config);
        let by_pid = crate::config::validate_attach_to_process(
            &json!({"processId": "12", "custom": [1], "justMyCode": false}),
        )
        .expect("has a processId")
        .map(|(config, _)| config);
        let cases = [
            (
                connect,
                ("connect", json!({"host": "127.0.0.1", "port": 5678})),
                "127.0.0.1:5678",
            ),
            (by_pid, ("processId", json!(12)), "process 12"),
        ];
        for (config, (key, how), target) in cases {
            let config = config.unwrap();
            let mut expected = json!({
                "custom": [1],
                "justMyCode": false,
                "showReturnValue": true,
                "asyncioTasksAsThreads": false,
                "gevent": false,
                "keepExecSources": false,
                "django": false,
                "jinja": false,
                "redirectOutput": true,
                "console": "externalTerminal",
                "subprocessAutoAttach": true,
                "noDebug": false,
            });
            expected[key] = how;
            assert_eq!(Value::Object(config.normalised), expected, "{key}");
            assert_eq!(config.target, Target::Child(target.to_string()));
            assert!(config.subprocess_auto_attach);
        }
    }

    #[test]
    fn endpoints_display_and_know_loopback() {
        let cases = [
            ("127.0.0.1", "127.0.0.1:5", true),
            ("localhost", "localhost:5", true),
            ("::1", "[::1]:5", true),
            ("10.0.0.2", "10.0.0.2:5", false),
        ];
        for (host, shown, loopback) in cases {
            let endpoint = Endpoint {
                host: host.to_string(),
                port: 5,
            };
            assert_eq!(endpoint.display(), shown);
            assert_eq!(endpoint.is_loopback(), loopback, "{host}");
        }
    }
}
