//! The launch configuration: validation with messages that name the key at fault,
//! defaults, and the pass-through of keys the engine does not know.

mod attach;
pub mod debugpy;
pub mod dotenv;
mod inject;
mod launcher;
pub mod normalised;
mod read;
mod rules;
pub mod schema;
mod shell_words;
mod types;
mod unknown_keys;

pub use attach::{endpoint, validate_attach, AttachMode, Endpoint};
pub use inject::{validate_attach_to_process, ProcessTarget};
pub use launcher::{launcher_argv, launcher_env, LauncherEnv};
pub use types::{Console, LaunchConfig, Target};
pub use unknown_keys::unknown_keys_notice;

use crate::contract::Platform;
use crate::dap::error::DapError;
use crate::path_mappings::PathMappings;
use read::{fill_boolean_defaults, get, invalid, optional_string_of};
use serde_json::{Map, Value};

fn optional_string(arguments: &Map<String, Value>, key: &str) -> Result<Option<String>, DapError> {
    optional_string_of(arguments, key, "launch")
}

fn string_list(arguments: &Map<String, Value>, key: &str) -> Result<Vec<String>, DapError> {
    let error = || {
        invalid(format!(
            "The launch configuration's '{key}' must be a list of strings."
        ))
    };
    match get(arguments, key) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_string).ok_or_else(error))
            .collect(),
        Some(_) => Err(error()),
    }
}

fn program_args(arguments: &Map<String, Value>) -> Result<Vec<String>, DapError> {
    match get(arguments, "args") {
        Some(Value::String(text)) => shell_words::split(text)
            .map_err(|reason| invalid(format!("The launch configuration's {reason}."))),
        Some(Value::Array(_)) | None => string_list(arguments, "args").map_err(|_| {
            invalid(
                "The launch configuration's 'args' must be a list of strings or a string."
                    .to_string(),
            )
        }),
        Some(_) => Err(invalid(
            "The launch configuration's 'args' must be a list of strings or a string.".to_string(),
        )),
    }
}

fn environment(arguments: &Map<String, Value>) -> Result<Vec<(String, Option<String>)>, DapError> {
    match get(arguments, "env") {
        None => Ok(Vec::new()),
        Some(Value::Object(entries)) => entries
            .iter()
            .map(|(name, value)| match value {
                _ if name.is_empty() || name.contains(['=', '\0']) => Err(invalid(format!(
                    "The launch configuration's 'env' has the variable name {name:?}, which no environment can hold: a name must be non-empty, without '=' or NUL."
                ))),
                Value::String(text) if text.contains('\0') => Err(invalid(format!(
                    "The launch configuration's 'env' value for '{name}' holds a NUL character, which no environment can hold."
                ))),
                Value::String(text) => Ok((name.clone(), Some(text.clone()))),
                Value::Null => Ok((name.clone(), None)),
                _ => Err(invalid(format!(
                    "The launch configuration's 'env' value for '{name}' must be a string or null."
                ))),
            })
            .collect(),
        Some(_) => Err(invalid(
            "The launch configuration's 'env' must be an object whose values are strings or null."
                .to_string(),
        )),
    }
}

fn target(arguments: &Map<String, Value>) -> Result<Target, DapError> {
    let program = optional_string(arguments, "program")?;
    let module = optional_string(arguments, "module")?;
    let code = optional_string(arguments, "code")?;
    let present: Vec<&str> = [("program", &program), ("module", &module), ("code", &code)]
        .iter()
        .filter(|(_, value)| value.is_some())
        .map(|(name, _)| *name)
        .collect();
    let target = match (program, module, code) {
        (Some(program), None, None) => Target::Program(program),
        (None, Some(module), None) => Target::Module(module),
        (None, None, Some(code)) => Target::Code(code),
        (None, None, None) => {
            return Err(invalid(
                "The launch configuration needs one of 'program', 'module' or 'code'; it has none."
                    .to_string(),
            ))
        }
        _ => {
            let named = present
                .iter()
                .map(|name| format!("'{name}'"))
                .collect::<Vec<_>>()
                .join(" and ");
            return Err(invalid(format!(
                "The launch configuration needs exactly one of 'program', 'module' or 'code'; it has {named}."
            )));
        }
    };
    let (key, text) = match &target {
        Target::Program(text) => ("program", text),
        Target::Module(text) => ("module", text),
        Target::Code(text) => ("code", text),
        Target::Child(text) => ("name", text),
    };
    if text.trim().is_empty() {
        return Err(invalid(format!(
            "The launch configuration's '{key}' is empty."
        )));
    }
    Ok(target)
}

fn console(
    arguments: &Map<String, Value>,
    client_runs_terminals: bool,
) -> Result<Console, DapError> {
    match optional_string(arguments, "console")?.as_deref() {
        None if client_runs_terminals => Ok(Console::IntegratedTerminal),
        None => Ok(Console::Internal),
        Some(name) => Console::ALL
            .into_iter()
            .find(|console| console.name() == name)
            .ok_or_else(|| {
                let names: Vec<String> = schema::CONSOLES
                    .iter()
                    .map(|name| format!("'{name}'"))
                    .collect();
                let (last, rest) = names.split_last().map_or((String::new(), &[][..]), |(last, rest)| (last.clone(), rest));
                invalid(format!(
                    "The launch configuration's 'console' is {name:?}; it must be one of {} or {last}.",
                    rest.join(", ")
                ))
            }),
    }
}

/// The private key by which VS Code's extension says where the `python` it put into the
/// configuration came from (the Python extension, a setting), so that the engine's
/// message about it names the same source as the extension's own check.
pub const PYTHON_SOURCE_KEY: &str = "__dapperPythonSource";

/// Where the configuration's interpreter came from: a key of `messages::PYTHON_SOURCES`.
fn python_source(arguments: &Map<String, Value>, given: bool) -> &'static str {
    let named = arguments.get(PYTHON_SOURCE_KEY).and_then(Value::as_str);
    let known = crate::messages::PYTHON_SOURCES
        .iter()
        .map(|(key, _)| *key)
        .find(|key| Some(*key) == named);
    match known {
        Some(source) => source,
        None if given => "launch configuration",
        None => "default",
    }
}

/// Validates `launch` arguments. `client_runs_terminals` is the client's
/// `supportsRunInTerminalRequest`, which decides the default console.
pub fn validate(
    arguments: &Value,
    platform: Platform,
    client_runs_terminals: bool,
) -> Result<LaunchConfig, DapError> {
    let arguments = match arguments {
        Value::Object(arguments) => arguments,
        Value::Null => &Map::new(),
        _ => {
            return Err(invalid(
                "The launch arguments must be a JSON object.".to_string(),
            ))
        }
    };
    let target = target(arguments)?;
    let args = program_args(arguments)?;
    let cwd = optional_string(arguments, "cwd")?;
    if let Some(cwd) = &cwd {
        // A relative cwd would be resolved against whatever directory the adapter
        // happens to run in, which the user cannot see; VS Code's ${workspaceFolder}
        // gives the absolute path they mean.
        if !is_absolute(cwd, platform) {
            return Err(invalid(format!(
                "The launch configuration's 'cwd' must be an absolute path; {cwd:?} is relative."
            )));
        }
    }
    let env = environment(arguments)?;
    PathMappings::from_configuration(arguments, "launch")?;
    let env_file = optional_string(arguments, "envFile")?;
    if env_file
        .as_deref()
        .is_some_and(|path| path.trim().is_empty())
    {
        return Err(invalid(
            "The launch configuration's 'envFile' is empty.".to_string(),
        ));
    }
    for key in ["name", "type", "request"] {
        optional_string(arguments, key)?;
    }
    let default_python = if platform.is_windows() {
        "python"
    } else {
        "python3"
    };
    let given_python = optional_string(arguments, "python")?;
    let python_source = python_source(arguments, given_python.is_some());
    let python = given_python.unwrap_or_else(|| default_python.to_string());
    if python.trim().is_empty() {
        return Err(invalid(
            "The launch configuration's 'python' is empty.".to_string(),
        ));
    }
    let python_args = string_list(arguments, "pythonArgs")?;
    let console = console(arguments, client_runs_terminals)?;
    rules::check(arguments, "launch")?;
    let mut normalised = arguments.clone();
    fill_boolean_defaults(arguments, &mut normalised, "launch", schema::LAUNCH_KEYS)?;
    let flag = |key: &str| normalised.get(key).and_then(Value::as_bool);
    let no_debug = flag("noDebug").unwrap_or(false);
    let subprocess_auto_attach = flag("subprocessAutoAttach").unwrap_or(true);
    let sudo = flag("sudo").unwrap_or(false);
    let env_file_optional =
        arguments.get(debugpy::ENV_FILE_OPTIONAL_KEY) == Some(&Value::Bool(true));
    if sudo && platform.is_windows() {
        return Err(invalid(
            "The launch configuration's 'sudo' runs the program through sudo, which Windows does not have; leave it out, or run VS Code as an administrator.".to_string(),
        ));
    }
    let mut target = target;
    if let (Target::Program(program), Some(cwd)) = (&mut target, &cwd) {
        if !is_absolute(program, platform) {
            *program = join(cwd, program, platform);
        }
    }
    if let Target::Program(program) = &target {
        normalised.insert("program".to_string(), Value::String(program.clone()));
    }
    let env_file = env_file.map(|path| match &cwd {
        Some(cwd) if !is_absolute(&path, platform) => join(cwd, &path, platform),
        _ => path,
    });
    if let Some(path) = &env_file {
        normalised.insert("envFile".to_string(), Value::String(path.clone()));
    }
    normalised.insert("args".to_string(), Value::from(args.clone()));
    normalised.insert("python".to_string(), Value::String(python.clone()));
    normalised.insert("pythonArgs".to_string(), Value::from(python_args.clone()));
    normalised.insert(
        "console".to_string(),
        Value::String(console.name().to_string()),
    );
    Ok(LaunchConfig {
        target,
        args,
        cwd,
        env,
        env_file,
        env_file_optional,
        python,
        python_source,
        python_args,
        console,
        no_debug,
        subprocess_auto_attach,
        sudo,
        normalised,
    })
}

/// Validates the `attach` configuration of a child session, which the engine itself
/// built for `startDebugging` (see `child_configuration`) and the client sends back,
/// possibly edited. Only the keys a child uses are read; the rest passes through.
pub fn validate_child(arguments: &Value, name: &str) -> Result<LaunchConfig, DapError> {
    let Value::Object(arguments) = arguments else {
        return Err(invalid(
            "The attach arguments must be a JSON object.".to_string(),
        ));
    };
    let python = optional_string(arguments, "python")?.unwrap_or_else(|| "python".to_string());
    let console = console(arguments, false)?;
    PathMappings::from_configuration(arguments, "attach")?;
    let mut normalised = arguments.clone();
    // The key is the engine's secret for binding; the debuggee has no use for it.
    normalised.remove(CHILD_SESSION_KEY);
    fill_boolean_defaults(arguments, &mut normalised, "attach", schema::LAUNCH_KEYS)?;
    let flag = |key: &str| normalised.get(key).and_then(Value::as_bool);
    Ok(LaunchConfig {
        target: Target::Child(name.to_string()),
        args: Vec::new(),
        cwd: optional_string(arguments, "cwd")?,
        env: Vec::new(),
        env_file: None,
        env_file_optional: false,
        python,
        python_source: "launch configuration",
        python_args: Vec::new(),
        console,
        no_debug: flag("noDebug").unwrap_or(false),
        subprocess_auto_attach: flag("subprocessAutoAttach").unwrap_or(true),
        // A child of a program run as root is root already; its launcher needs no sudo.
        sudo: false,
        normalised,
    })
}

/// The keys of a parent's configuration that a child session inherits. An allow-list,
/// never a deny-list: keys added to configurations later (or by other extensions, as
/// debugpy's `purpose` was) must not leak into children unless listed here.
const INHERITED_KEYS: &[&str] = &[
    "python",
    "console",
    "justMyCode",
    "showReturnValue",
    "asyncioTasksAsThreads",
    "gevent",
    "keepExecSources",
    "django",
    "jinja",
    "redirectOutput",
    "subprocessAutoAttach",
    "rules",
    "pathMappings",
];

/// The adapter type of a session whose configuration does not name one.
pub const DEFAULT_ADAPTER_TYPE: &str = "dapper";

/// The adapter type a configuration was started with (its `type`). Clients pick the
/// adapter of a child session by the `type` of its configuration (nvim-dap looks it up
/// among the adapters the user registered), so children carry their root's.
pub fn adapter_type(configuration: &Map<String, Value>) -> &str {
    configuration
        .get("type")
        .and_then(Value::as_str)
        .filter(|name| !name.is_empty())
        .unwrap_or(DEFAULT_ADAPTER_TYPE)
}

/// The `attach` configuration for a child session, from its parent's normalised
/// configuration, the adapter type of its root session and the child's announcement.
pub fn child_configuration(
    parent: &Map<String, Value>,
    adapter_type: &str,
    child_session_id: &str,
    name: &str,
    pid: Option<u32>,
    cwd: Option<&str>,
) -> Map<String, Value> {
    let mut configuration: Map<String, Value> = INHERITED_KEYS
        .iter()
        .filter_map(|key| {
            parent
                .get(*key)
                .map(|value| ((*key).to_string(), value.clone()))
        })
        .collect();
    let title = match pid {
        Some(pid) => format!("{name} (pid {pid})"),
        None => name.to_string(),
    };
    configuration.insert("name".to_string(), Value::String(title));
    configuration.insert("type".to_string(), Value::String(adapter_type.to_string()));
    configuration.insert("request".to_string(), Value::String("attach".to_string()));
    // A child has been waiting since its hello; stopping it on entry again would
    // only surprise: its breakpoints are in place before its first line runs.
    configuration.insert("stopOnEntry".to_string(), Value::Bool(false));
    if let Some(pid) = pid {
        configuration.insert("processId".to_string(), Value::from(pid));
    }
    if let Some(cwd) = cwd {
        configuration.insert("cwd".to_string(), Value::String(cwd.to_string()));
    }
    configuration.insert(
        CHILD_SESSION_KEY.to_string(),
        Value::String(child_session_id.to_string()),
    );
    configuration
}

/// The private key that binds a client's `attach` to a pending child process.
pub const CHILD_SESSION_KEY: &str = "__dapperChildSessionId";

/// The key of a `listen` attach configuration that VS Code's terminal auto-attach
/// (extension/src/autoAttach/broker.ts) gives the command line of the program on its
/// way to connect, for the debug console's waiting message. Private, as the child key.
pub const TERMINAL_PROGRAM_KEY: &str = "__dapperTerminalProgram";

/// Whether a path is absolute under the platform's rules.
pub fn is_absolute(path: &str, platform: Platform) -> bool {
    if platform.is_windows() {
        let bytes = path.as_bytes();
        let drive = bytes.len() >= 3
            && bytes[0].is_ascii_alphabetic()
            && bytes[1] == b':'
            && (bytes[2] == b'\\' || bytes[2] == b'/');
        drive || path.starts_with("\\\\") || path.starts_with('/') || path.starts_with('\\')
    } else {
        path.starts_with('/')
    }
}

fn join(base: &str, relative: &str, platform: Platform) -> String {
    let separator = if platform.is_windows() { '\\' } else { '/' };
    let trimmed = base.trim_end_matches(['/', '\\']);
    let relative = relative.strip_prefix("./").unwrap_or(relative);
    format!("{trimmed}{separator}{relative}")
}

#[cfg(test)]
mod tests;
