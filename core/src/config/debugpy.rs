//! Configurations written for debugpy (VS Code's `debugpy` type and the older `python`
//! type), run by Dapper: every option debugpy documents is translated into Dapper's, or
//! accepted with a note when it does not apply. Switching debuggers should cost a user
//! one setting, not an afternoon of editing launch.json files.
//!
//! `OPTIONS` is the one description: `translate` follows it, docs/debugpy.md's table is
//! generated from it, and core/tests/debugpy_options.json gives every option an expected
//! result (a test fails when an option has none).

use super::read::{get, invalid};
use crate::dap::error::DapError;
use serde_json::{Map, Value};

/// The configuration types whose configurations are debugpy's.
pub const DEBUGPY_TYPES: &[&str] = &["debugpy", "python"];

/// The private key by which VS Code's extension says that it gave a debugpy
/// configuration to Dapper (its `type` had to become `dapper` for VS Code to pick
/// Dapper's adapter); the value is the type it had.
pub const FROM_TYPE_KEY: &str = "__dapperFromType";

/// The private key by which a translated configuration says that its `envFile` may be
/// missing (config.rs reads it).
pub const ENV_FILE_OPTIONAL_KEY: &str = "__dapperEnvFileOptional";

/// Which requests an option belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requests {
    Launch,
    Attach,
    Both,
}

impl Requests {
    fn has(self, request: &str) -> bool {
        match self {
            Requests::Both => true,
            Requests::Launch => request == "launch",
            Requests::Attach => request == "attach",
        }
    }
}

/// What becomes of a debugpy option under Dapper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Treatment {
    /// Dapper reads it under the same name, with the same meaning.
    Same,
    /// Dapper reads it under another name, with the same meaning.
    Renamed(&'static str),
    /// Translated into Dapper's options as the option's text says.
    Translated,
    /// Accepted and taken out; it has no bearing on a Dapper session and is not
    /// worth a word (keys the Python extensions fill in for debugpy's own use).
    Silent,
    /// Accepted and taken out; when it asks for something (true, a non-empty value),
    /// the debug console says what Dapper does instead.
    Noted,
}

/// One option of a debugpy configuration.
#[derive(Clone, Copy, Debug)]
pub struct DebugpyOption {
    pub name: &'static str,
    pub requests: Requests,
    pub treatment: Treatment,
    /// What Dapper does with it, for docs/debugpy.md and, for `Noted`, the debug
    /// console.
    pub text: &'static str,
}

const fn option(
    name: &'static str,
    requests: Requests,
    treatment: Treatment,
    text: &'static str,
) -> DebugpyOption {
    DebugpyOption {
        name,
        requests,
        treatment,
        text,
    }
}

use Requests::{Attach, Both, Launch};
use Treatment::{Noted, Renamed, Same, Silent, Translated};

/// Every option of debugpy's launch and attach configurations (those of the Python
/// Debugger extension's schema, the older `python` type's, and those the Python
/// extensions add when they resolve a configuration), in the order a user reads them.
pub const OPTIONS: &[DebugpyOption] = &[
    option("type", Both, Translated, "`debugpy` or `python`: the configuration runs under Dapper (VS Code: with the `dapper.debugpyConfigurations` setting; other editors: when the adapter registered for the type is Dapper's)."),
    option("request", Both, Translated, "`launch` and `attach` as they are; the old `test` is a `launch` with `purpose` `debug-test`."),
    option("program", Launch, Same, "The same."),
    option("module", Launch, Same, "The same."),
    option("code", Launch, Same, "The same."),
    option("args", Launch, Same, "The same: a list, or a string split as a POSIX shell would."),
    option("cwd", Launch, Same, "The same."),
    option("env", Launch, Same, "The same."),
    option("envFile", Launch, Translated, "The same, except that a file that cannot be read is skipped, as debugpy and the Python extensions do (they fill in `${workspaceFolder}/.env` whether it exists or not); Dapper refuses that in its own configurations."),
    option("python", Launch, Translated, "A string: the same. A list: its first item is `python`, the others go before `pythonArgs`."),
    option("pythonPath", Launch, Translated, "The old name of `python`; used when `python` is absent."),
    option("pythonArgs", Launch, Same, "The same."),
    option("console", Launch, Same, "The same (`internalConsole`, `integratedTerminal`, `externalTerminal`); the old `none` is `internalConsole`."),
    option("stopOnEntry", Launch, Same, "The same."),
    option("noDebug", Launch, Same, "The same (Run Without Debugging)."),
    option("justMyCode", Both, Same, "The same; in VS Code, absent, the `debugpy.debugJustMyCode` setting decides, as for debugpy."),
    option("debugStdLib", Both, Translated, "The old inverse of `justMyCode`: `true` is `justMyCode: false`; used when `justMyCode` is absent."),
    option("rules", Both, Same, "The same: `{\"path\": GLOB, \"include\": BOOL}` and `{\"module\": NAME, \"include\": BOOL}` decide which code is yours before the library folders do; the first rule that matches wins."),
    option("subProcess", Both, Renamed("subprocessAutoAttach"), "`subprocessAutoAttach`: Python child processes are debugged, each in its own session."),
    option("redirectOutput", Both, Same, "The same."),
    option("showReturnValue", Both, Same, "The same."),
    option("sudo", Launch, Same, "The same: the program runs as root through `sudo -E`, its children too; without a terminal console sudo must not need a password."),
    option("pathMappings", Both, Same, "The same."),
    option("localRoot", Attach, Translated, "With `remoteRoot`, the old form of one `pathMappings` entry."),
    option("remoteRoot", Attach, Translated, "With `localRoot`, the old form of one `pathMappings` entry."),
    option("connect", Attach, Same, "The same; the program listens with `python -m dapperdbg --listen` (or debugpy's `--listen`, which Dapper cannot talk to: start it under Dapper)."),
    option("listen", Attach, Same, "The same; the program connects with `python -m dapperdbg --connect`."),
    option("host", Attach, Translated, "With `port`, the old form of `connect`."),
    option("port", Attach, Translated, "With `host`, the old form of `connect`."),
    option("processId", Attach, Same, "The same; `${command:pickProcess}` opens Dapper's process picker."),
    option("purpose", Launch, Translated, "`debug-test`: the configuration Debug Test uses (VS Code); `debug-in-terminal`: kept for the Python extension. No bearing on the session."),
    option("debugOptions", Both, Translated, "The Python extension's flags, each read as its option when that option is absent: `RedirectOutput`, `StopOnEntry`, `ShowReturnValue`, `DebugStdLib`, `Sudo`, `Django`, `Jinja`; the others (`FixFilePathCase`, `WindowsClient`, `UnixClient`, `WaitOnAbnormalExit`, `WaitOnNormalExit`) do not apply."),
    option("django", Both, Same, "The same: breakpoints in Django templates stop when the template renders their line (docs/templates.md)."),
    option("jinja", Both, Same, "The same: breakpoints in Jinja templates stop when the template renders their line (docs/templates.md)."),
    option("gevent", Both, Same, "The same: each greenlet is a thread with its own call stack, a stop holds the thread that runs them, a step stays in its greenlet (docs/gevent.md); on by itself once the program monkey-patches with gevent."),
    option("autoReload", Both, Noted, "Dapper reloads saved files in the program without restarting it (hot reload: `dapper.hotReload.autoOnSave`, and `dapper.hotReload.whileRunning` to reload while it runs), in place of debugpy's restart on change."),
    option("logToFile", Both, Noted, "Dapper's session logs take its place: the `dapper.trace` setting (or the adapter's `--trace`)."),
    option("breakOnSystemExit", Both, Noted, "Not read: Dapper stops on a SystemExit as on any exception, through the exception breakpoints (a SystemExit of 0 or None never stops)."),
    option("guiEventLoop", Launch, Noted, "Not read: Dapper does not run a GUI event loop while the program is stopped, so its windows do not repaint until it goes on."),
    option("pyramid", Launch, Silent, "Not needed: a Pyramid program (`pserve`) is debugged as any other."),
    option("autoStartBrowser", Launch, Silent, "Not read; VS Code's `serverReadyAction` opens the browser, for any debugger."),
    option("consoleName", Both, Noted, "Not read: Dapper's terminal and debug console are named after the configuration."),
    option("consoleTitle", Both, Silent, "Not read (the Python extension's copy of `consoleName`)."),
    option("clientOS", Both, Silent, "Not needed: the engine knows the platform it runs on."),
    option("debugAdapterPath", Both, Noted, "Not read: Dapper is the debug adapter."),
    option("debugAdapterPython", Both, Silent, "Not needed: Dapper's adapter needs no Python."),
    option("debugLauncherPython", Both, Silent, "Not needed: the program's own interpreter starts Dapper's launcher."),
    option("terminalQuoteCharacter", Both, Silent, "Not needed: Dapper gives the terminal its command as a list of words, which VS Code quotes."),
    option("workspaceFolder", Both, Silent, "Not needed (the Python extension's copy of the workspace folder)."),
];

/// The option `name` of `OPTIONS`.
pub fn option_named(name: &str) -> Option<&'static DebugpyOption> {
    OPTIONS.iter().find(|option| option.name == name)
}

/// Whether `arguments` is a debugpy configuration: its `type` is one of debugpy's, or VS
/// Code's extension says it had one.
pub fn is_debugpy(arguments: &Value) -> bool {
    let named = |key: &str| arguments.get(key).and_then(Value::as_str);
    [named("type"), named(FROM_TYPE_KEY)]
        .into_iter()
        .flatten()
        .any(|name| DEBUGPY_TYPES.contains(&name))
}

/// A debugpy configuration in Dapper's terms, with what the debug console should say
/// about the options that do not carry over.
#[derive(Clone, Debug, PartialEq)]
pub struct Translation {
    pub arguments: Value,
    pub notes: Vec<String>,
}

/// Translates the `request` (`launch` or `attach`) arguments of a debugpy configuration
/// into Dapper's. Keys debugpy does not know are kept as they are (Dapper's own, and
/// other tools'); so are the `Same` options, which Dapper's validation then checks.
pub fn translate(arguments: &Value, request: &str) -> Result<Translation, DapError> {
    let Value::Object(given) = arguments else {
        return Ok(Translation {
            arguments: arguments.clone(),
            notes: Vec::new(),
        });
    };
    let mut out = given.clone();
    let mut notes = Vec::new();
    let flags = debug_options(given)?;
    for option in OPTIONS {
        let Some(value) = get(given, option.name) else {
            continue;
        };
        match option.treatment {
            Treatment::Same => {}
            Treatment::Renamed(to) => {
                out.remove(option.name);
                if get(given, to).is_none() {
                    out.insert(to.to_string(), value.clone());
                }
            }
            Treatment::Silent => {
                out.remove(option.name);
            }
            Treatment::Noted => {
                out.remove(option.name);
                if asks_for_something(value) && option.requests.has(request) {
                    notes.push(format!("debugpy's '{}': {}", option.name, option.text));
                }
            }
            Treatment::Translated => {}
        }
    }
    translate_python(given, &mut out)?;
    translate_console(given, &mut out, &flags);
    translate_just_my_code(given, &mut out, &flags)?;
    translate_old_attach(given, &mut out, request)?;
    for (flag, key) in [
        ("RedirectOutput", "redirectOutput"),
        ("StopOnEntry", "stopOnEntry"),
        ("ShowReturnValue", "showReturnValue"),
        ("Sudo", "sudo"),
        ("Django", "django"),
        ("Jinja", "jinja"),
    ] {
        if flags.contains(&flag) && get(given, key).is_none() {
            out.insert(key.to_string(), Value::Bool(true));
        }
    }
    out.remove("debugOptions");
    if get(given, "envFile").is_some() {
        out.insert(ENV_FILE_OPTIONAL_KEY.to_string(), Value::Bool(true));
    }
    if get(given, "request").and_then(Value::as_str) == Some("test") {
        out.insert("request".to_string(), Value::String("launch".to_string()));
        let mut purpose = match get(given, "purpose") {
            Some(Value::Array(items)) => items.clone(),
            _ => Vec::new(),
        };
        purpose.push(Value::String("debug-test".to_string()));
        out.insert("purpose".to_string(), Value::Array(purpose));
    }
    if let Some(purpose) = get(given, "purpose") {
        let listed = purpose
            .as_array()
            .is_some_and(|items| items.iter().all(Value::is_string));
        if !listed {
            return Err(invalid(format!(
                "The {request} configuration's 'purpose' must be a list of strings (\"debug-test\", \"debug-in-terminal\")."
            )));
        }
    }
    Ok(Translation {
        arguments: Value::Object(out),
        notes,
    })
}

/// Whether an option's value asks for something: not false, not empty, not "none".
fn asks_for_something(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(false) => false,
        Value::String(text) => !text.is_empty() && text != "none",
        Value::Array(items) => !items.is_empty(),
        Value::Object(fields) => {
            fields.get("enable") != Some(&Value::Bool(false)) && !fields.is_empty()
        }
        _ => true,
    }
}

/// The flags of the Python extension's `debugOptions`.
fn debug_options(given: &Map<String, Value>) -> Result<Vec<&str>, DapError> {
    match get(given, "debugOptions") {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str().ok_or_else(|| {
                    invalid(
                        "The configuration's 'debugOptions' must be a list of strings.".to_string(),
                    )
                })
            })
            .collect(),
        Some(_) => Err(invalid(
            "The configuration's 'debugOptions' must be a list of strings.".to_string(),
        )),
    }
}

/// `python` as a list (the interpreter and its first arguments), and the old `pythonPath`.
fn translate_python(
    given: &Map<String, Value>,
    out: &mut Map<String, Value>,
) -> Result<(), DapError> {
    out.remove("pythonPath");
    match get(given, "python") {
        Some(Value::Array(words)) => {
            let mut words = words.iter().map(|word| {
                word.as_str().map(str::to_string).ok_or_else(|| {
                    invalid("The launch configuration's 'python' must be a string, or a list of strings: the interpreter, then its arguments.".to_string())
                })
            });
            let Some(python) = words.next().transpose()? else {
                return Err(invalid(
                    "The launch configuration's 'python' is an empty list; it needs the interpreter first.".to_string(),
                ));
            };
            let mut python_args = words.collect::<Result<Vec<String>, DapError>>()?;
            if let Some(Value::Array(more)) = get(given, "pythonArgs") {
                python_args.extend(more.iter().filter_map(Value::as_str).map(str::to_string));
            }
            out.insert("python".to_string(), Value::String(python));
            out.insert("pythonArgs".to_string(), Value::from(python_args));
        }
        Some(_) => {}
        None => {
            if let Some(path) = get(given, "pythonPath") {
                out.insert("python".to_string(), path.clone());
            }
        }
    }
    Ok(())
}

/// The old console `none` (the debug console).
fn translate_console(given: &Map<String, Value>, out: &mut Map<String, Value>, _flags: &[&str]) {
    if get(given, "console").and_then(Value::as_str) == Some("none") {
        out.insert(
            "console".to_string(),
            Value::String("internalConsole".to_string()),
        );
    }
}

/// `debugStdLib` (and the `DebugStdLib` flag), the old inverse of `justMyCode`.
fn translate_just_my_code(
    given: &Map<String, Value>,
    out: &mut Map<String, Value>,
    flags: &[&str],
) -> Result<(), DapError> {
    let debug_std_lib = match get(given, "debugStdLib") {
        None => flags.contains(&"DebugStdLib"),
        Some(Value::Bool(value)) => *value,
        Some(_) => {
            return Err(invalid(
                "The configuration's 'debugStdLib' must be true or false.".to_string(),
            ))
        }
    };
    out.remove("debugStdLib");
    if get(given, "justMyCode").is_none() && debug_std_lib {
        out.insert("justMyCode".to_string(), Value::Bool(false));
    }
    Ok(())
}

/// The old attach keys: `host`/`port` for `connect`, `localRoot`/`remoteRoot` for one
/// path mapping. Only an attach has them; a launch's `port` is left to the unknown-key
/// note.
fn translate_old_attach(
    given: &Map<String, Value>,
    out: &mut Map<String, Value>,
    request: &str,
) -> Result<(), DapError> {
    if request != "attach" {
        return Ok(());
    }
    let (host, port) = (get(given, "host"), get(given, "port"));
    if host.is_some() || port.is_some() {
        out.remove("host");
        out.remove("port");
        let taken = ["connect", "listen", "processId"]
            .iter()
            .any(|key| get(given, key).is_some());
        if !taken {
            let mut connect = Map::new();
            if let Some(host) = host {
                connect.insert("host".to_string(), host.clone());
            }
            if let Some(port) = port {
                connect.insert("port".to_string(), port.clone());
            }
            out.insert("connect".to_string(), Value::Object(connect));
        }
    }
    let (local, remote) = (get(given, "localRoot"), get(given, "remoteRoot"));
    if local.is_some() || remote.is_some() {
        out.remove("localRoot");
        out.remove("remoteRoot");
        let (Some(local), Some(remote)) = (local, remote) else {
            return Err(invalid(
                "The attach configuration has one of 'localRoot' and 'remoteRoot' without the other; give both, or a 'pathMappings' list.".to_string(),
            ));
        };
        if get(given, "pathMappings").is_none() {
            out.insert(
                "pathMappings".to_string(),
                serde_json::json!([{"localRoot": local, "remoteRoot": remote}]),
            );
        }
    }
    Ok(())
}

/// extension/src/host/debugpy.ts: what VS Code's extension needs to hand a debugpy
/// configuration over, the same as the engine's.
pub fn typescript() -> String {
    let quote = |text: &str| Value::String(text.to_string()).to_string();
    let types: Vec<String> = DEBUGPY_TYPES.iter().map(|name| quote(name)).collect();
    format!(
        "// GENERATED from core/src/config/debugpy.rs: do not edit. `BLESS=1 cargo test -p\n\
         // dapper-core debugpy` rewrites it; the engine's tests fail while it is stale.\n\
         //\n\
         // What VS Code's extension needs to hand a debugpy configuration to the engine.\n\n\
         /** The configuration types whose configurations are debugpy's. */\n\
         export const DEBUGPY_TYPES: readonly string[] = [{}];\n\n\
         /** The private key that says which debugpy type a configuration had before it became Dapper's. */\n\
         export const FROM_TYPE_KEY = {};\n",
        types.join(", "),
        quote(FROM_TYPE_KEY)
    )
}

fn treatment_text(treatment: Treatment) -> String {
    match treatment {
        Treatment::Same => "same".to_string(),
        Treatment::Renamed(to) => format!("renamed: `{to}`"),
        Treatment::Translated => "translated".to_string(),
        Treatment::Silent => "not needed".to_string(),
        Treatment::Noted => "accepted, with a note".to_string(),
    }
}

/// The table of docs/debugpy.md: every debugpy option and what Dapper does with it.
pub fn options_markdown() -> String {
    let mut table = String::from(
        "| debugpy option | request | under Dapper | what Dapper does |\n|---|---|---|---|\n",
    );
    for option in OPTIONS {
        let requests = match option.requests {
            Requests::Launch => "launch",
            Requests::Attach => "attach",
            Requests::Both => "both",
        };
        table.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            option.name,
            requests,
            treatment_text(option.treatment),
            option.text.replace('|', "\\|")
        ));
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_is_described_once() {
        let mut names: Vec<&str> = OPTIONS.iter().map(|option| option.name).collect();
        names.sort_unstable();
        let count = names.len();
        names.dedup();
        assert_eq!(names.len(), count, "an option is described twice");
        for option in OPTIONS {
            assert!(option.text.ends_with('.'), "{}", option.name);
        }
    }

    #[test]
    fn a_configuration_is_debugpys_by_its_type_or_the_extensions_word() {
        assert!(is_debugpy(&serde_json::json!({"type": "debugpy"})));
        assert!(is_debugpy(&serde_json::json!({"type": "python"})));
        assert!(is_debugpy(
            &serde_json::json!({"type": "dapper", FROM_TYPE_KEY: "debugpy"})
        ));
        assert!(!is_debugpy(&serde_json::json!({"type": "dapper"})));
        assert!(!is_debugpy(&serde_json::json!([1])));
    }
}
