//! The launch configuration's keys, described once: their names, JSON types, defaults,
//! descriptions and allowed values. The validator in `config.rs` reads its boolean
//! defaults and console names from this table; the same table becomes the JSON schema
//! of package.json's `configurationAttributes` (written by `scripts/schema.mjs` from the
//! `schema` example) and the option tables of docs/options.md, so neither can drift from what
//! the engine accepts.
//!
//! `launch` and `attach` are described. The attach keys are those of a user's attach to a
//! program started with `python -m dapperdbg --listen`; child sessions' attach
//! configurations (built by the engine, with the private `__dapperChildSessionId`) are
//! not something a user writes, so they are not described.

use serde_json::{json, Map, Value};

/// The JSON shape a key accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Text,
    Boolean,
    /// A list of strings.
    TextList,
    /// A list of strings, or one string split as a POSIX shell would.
    TextListOrText,
    /// An object whose values are strings, or null to remove a variable.
    Environment,
    /// One of a fixed set of strings.
    Choice(&'static [&'static str]),
    /// Where to connect: an object `{host, port}`; `port` is required.
    Endpoint,
    /// A list of `{localRoot, remoteRoot}` objects.
    PathMappings,
    /// A process id: a whole number, or the string of digits a VS Code command gives.
    ProcessId,
    /// A list of `{path | module, include}` objects: which code is the user's.
    Rules,
}

/// What the schema offers as the key's default. For booleans it is also the value the
/// validator fills in when the key is absent; for the others it is the value VS Code
/// inserts when completing the key, which the description explains where it differs
/// from what the engine does without the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Default {
    None,
    Boolean(bool),
    Text(&'static str),
    EmptyList,
    EmptyObject,
    /// An endpoint `{host, port}`.
    Endpoint(&'static str, u16),
    /// One path mapping `[{localRoot, remoteRoot}]`.
    PathMapping(&'static str, &'static str),
}

/// One key of a launch configuration.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    pub name: &'static str,
    pub kind: Kind,
    pub default: Default,
    /// User-facing text, shown by VS Code while editing launch.json and in docs/options.md.
    pub description: &'static str,
}

/// The console names, in the order the schema offers them.
pub const CONSOLES: &[&str] = &["internalConsole", "integratedTerminal", "externalTerminal"];

/// Every launch key the engine reads, in the order a user would look for them.
pub const LAUNCH_KEYS: &[Key] = &[
    Key {
        name: "program",
        kind: Kind::Text,
        default: Default::Text("${file}"),
        description: "Path of the Python file to debug; a relative path is taken from cwd. Exactly one of program, module and code.",
    },
    Key {
        name: "module",
        kind: Kind::Text,
        default: Default::None,
        description: "Name of the module to debug, run as `python -m`. Exactly one of program, module and code.",
    },
    Key {
        name: "code",
        kind: Kind::Text,
        default: Default::None,
        description: "Python source to debug, run as `python -c`. Exactly one of program, module and code.",
    },
    Key {
        name: "args",
        kind: Kind::TextListOrText,
        default: Default::EmptyList,
        description: "Command-line arguments of the program: a list of strings, or one string split as a POSIX shell would (quotes and backslashes). Default: none.",
    },
    Key {
        name: "cwd",
        kind: Kind::Text,
        default: Default::Text("${workspaceFolder}"),
        description: "Working directory of the program, as an absolute path. Default: the directory the adapter runs in.",
    },
    Key {
        name: "env",
        kind: Kind::Environment,
        default: Default::EmptyObject,
        description: "Environment variables added to the program's environment; a null value removes a variable. These win over envFile.",
    },
    Key {
        name: "envFile",
        kind: Kind::Text,
        default: Default::Text("${workspaceFolder}/.env"),
        description: "A dotenv file (KEY=VALUE lines) whose variables are added to the program's environment; a relative path is taken from cwd. Default: none.",
    },
    Key {
        name: "python",
        kind: Kind::Text,
        default: Default::None,
        description: "The Python interpreter, 3.9 or newer. Default in VS Code: the interpreter selected in the Python extension, else the dapper.python setting, else python3 on PATH; in other editors: python3 on PATH (python on Windows).",
    },
    Key {
        name: "pythonArgs",
        kind: Kind::TextList,
        default: Default::EmptyList,
        description: "Arguments for the interpreter itself, placed before the program (for example [\"-X\", \"dev\"]). Default: none.",
    },
    Key {
        name: "console",
        kind: Kind::Choice(CONSOLES),
        default: Default::Text("integratedTerminal"),
        description: "Where the program's input and output go. Default: integratedTerminal when the client can run terminals (VS Code can), else internalConsole.",
    },
    Key {
        name: "stopOnEntry",
        kind: Kind::Boolean,
        default: Default::Boolean(false),
        description: "Pause on the first line of the program.",
    },
    Key {
        name: "noDebug",
        kind: Kind::Boolean,
        default: Default::Boolean(false),
        description: "Run the program without the debugger: no breakpoints, no stepping (VS Code sets it for Run Without Debugging).",
    },
    JUST_MY_CODE,
    RULES,
    SHOW_RETURN_VALUE,
    ASYNCIO_TASKS_AS_THREADS,
    GEVENT,
    KEEP_EXEC_SOURCES,
    DJANGO,
    JINJA,
    Key {
        name: "sudo",
        kind: Kind::Boolean,
        default: Default::Boolean(false),
        description: "Run the program as root through `sudo -E` (Linux and macOS), its child processes too. In a terminal console sudo can ask for the password; in the internal console it must not need one. sudo leaves out PYTHONPATH and the variables its policy removes.",
    },
    Key {
        name: "redirectOutput",
        kind: Kind::Boolean,
        default: Default::Boolean(false),
        description: "With a terminal console, also show the program's output in the debug console.",
    },
    Key {
        name: "subprocessAutoAttach",
        kind: Kind::Boolean,
        default: Default::Boolean(true),
        description: "Debug every Python child process (subprocess, multiprocessing, os.fork, os.exec*), in a session of its own under this one once it stops, prints or runs past 100 ms.",
    },
];

/// The host an attach connects to when `connect.host` is absent.
pub const DEFAULT_ATTACH_HOST: &str = "127.0.0.1";

/// The keys launch and attach share, written once so that both describe them alike.
const JUST_MY_CODE: Key = Key {
    name: "justMyCode",
    kind: Kind::Boolean,
    default: Default::Boolean(true),
    description: "Debug only your own code: never step into, or stop in, the standard library and site-packages.",
};

const RULES: Key = Key {
    name: "rules",
    kind: Kind::Rules,
    default: Default::None,
    description: "Which code is yours under justMyCode, before the standard library and site-packages are ruled out: each rule names files by a `path` glob (`*` within a name, `**` across folders; a folder means everything in it) or a `module` name (and its submodules), and says whether they are yours (`include`: true) or not. The first rule that matches decides.",
};

const SHOW_RETURN_VALUE: Key = Key {
    name: "showReturnValue",
    kind: Kind::Boolean,
    default: Default::Boolean(true),
    description:
        "After stepping out of a function, show the value it returned as '(return) name' in Locals.",
};

const ASYNCIO_TASKS_AS_THREADS: Key = Key {
    name: "asyncioTasksAsThreads",
    kind: Kind::Boolean,
    default: Default::Boolean(false),
    description: "Show each asyncio task as a thread of its own, named after the task with what it does (running, waiting on what, done); the task that stops is the stopped thread. Off, the tasks are listed in the Tasks view of Run and Debug (the `dapper/tasks` request in other editors), and a stopped task's call stack goes on through the tasks that await it either way.",
};

const GEVENT: Key = Key {
    name: "gevent",
    kind: Kind::Boolean,
    default: Default::Boolean(false),
    description: "Show each of gevent's greenlets as a thread of its own, with its call stack; a stop holds the whole thread that runs them (and gevent's hub), and a step goes on in the greenlet that stepped. On by itself once the program monkey-patches with gevent (gunicorn's gevent workers do); this key also covers a program that uses gevent without patching.",
};

const DJANGO: Key = Key {
    name: "django",
    kind: Kind::Boolean,
    default: Default::Boolean(false),
    description: "Stop at breakpoints in Django templates (.html, .txt and the other template files): when the template renders that line, with the template's context as the frame's variables; an exception raised while rendering stops in the template (with the userUnhandled or raised exception breakpoint).",
};

const JINJA: Key = Key {
    name: "jinja",
    kind: Kind::Boolean,
    default: Default::Boolean(false),
    description: "Stop at breakpoints in Jinja templates (Flask's; .html, .jinja, .j2 and the other template files): when the template renders that line, with the template's variables as the frame's; an exception raised while rendering stops in the template (with the userUnhandled or raised exception breakpoint).",
};

const KEEP_EXEC_SOURCES: Key = Key {
    name: "keepExecSources",
    kind: Kind::Boolean,
    default: Default::Boolean(false),
    description: "Keep the text of code the program runs from strings (exec, eval, compile; generated dataclass methods) so that its frames show their source. It needs an audit hook, which slows every audited call of the program: copy.deepcopy about 2x, pickle about 1.15x.",
};

/// Every attach key the engine reads (besides `name`, `type` and `request`).
pub const ATTACH_KEYS: &[Key] = &[
    Key {
        name: "connect",
        kind: Kind::Endpoint,
        default: Default::Endpoint(DEFAULT_ATTACH_HOST, 5678),
        description: "Where the program listens, as started with `python -m dapperdbg --listen [HOST:]PORT`: `port` (required) and `host` (default 127.0.0.1). Give `connect` or `listen`, not both.",
    },
    Key {
        name: "listen",
        kind: Kind::Endpoint,
        default: Default::None,
        description: "Dapper listens here and waits, until you stop the session, for the program to connect: started with `python -m dapperdbg --connect [HOST:]PORT program.py`, or calling `dapperdbg.connect((HOST, PORT))`. `port` (required, 1 to 65535) and `host` (default 127.0.0.1: only this machine; another host lets other machines connect). On Linux a program of another local user is refused.",
    },
    Key {
        name: "processId",
        kind: Kind::ProcessId,
        default: Default::Text("${command:pickProcess}"),
        description: "Instead of 'connect': the process id of a running Python program (3.9 or later) to attach to, with nothing to prepare. Python 3.14+ is attached through sys.remote_exec; older Pythons through gdb or lldb, which must be installed and allowed to attach (ptrace).",
    },
    Key {
        name: "debuggerPath",
        kind: Kind::Text,
        default: Default::None,
        description: "With 'processId' on Python 3.9-3.13: the gdb or lldb to attach with (default: the DAPPER_INJECT_DEBUGGER environment variable, else gdb, else lldb found on PATH).",
    },
    JUST_MY_CODE,
    RULES,
    SHOW_RETURN_VALUE,
    ASYNCIO_TASKS_AS_THREADS,
    GEVENT,
    KEEP_EXEC_SOURCES,
    DJANGO,
    JINJA,
    Key {
        name: "pathMappings",
        kind: Kind::PathMappings,
        default: Default::PathMapping("${workspaceFolder}", "/app"),
        description: "Where your files are on the machine or in the container the program runs in, when that is not where VS Code sees them: each localRoot (a folder here) is the remoteRoot (the same folder there). Breakpoints, stack frames, loaded sources, exceptions, hot reload and child processes are mapped both ways; the longest root that holds a path maps it, and a path under no root is left as it is. Default: none.",
    },
    Key {
        name: "redirectOutput",
        kind: Kind::Boolean,
        default: Default::Boolean(true),
        description: "Also show what the program writes to stdout and stderr in the debug console (it still goes to the program's own terminal).",
    },
    Key {
        name: "subprocessAutoAttach",
        kind: Kind::Boolean,
        default: Default::Boolean(true),
        description: "Debug the Python child processes the program starts from now on (subprocess, multiprocessing, os.fork), each in its own session, as a launch does. They connect back to Dapper: with `listen`, to the same address as the program; with `connect`, to a private listener on this machine, so only when the program runs on this machine.",
    },
];

/// The launch keys whose values are true or false, with the value used when absent.
pub fn boolean_defaults() -> impl Iterator<Item = (&'static str, bool)> {
    boolean_defaults_of(LAUNCH_KEYS)
}

/// The boolean keys of a key table, with the value used when absent.
pub fn boolean_defaults_of(keys: &'static [Key]) -> impl Iterator<Item = (&'static str, bool)> {
    keys.iter().filter_map(|key| match key.default {
        Default::Boolean(value) if key.kind == Kind::Boolean => Some((key.name, value)),
        _ => None,
    })
}

fn property(key: &Key) -> Value {
    let mut property = match key.kind {
        Kind::Text => json!({"type": "string"}),
        Kind::Boolean => json!({"type": "boolean"}),
        Kind::TextList => json!({"type": "array", "items": {"type": "string"}}),
        Kind::TextListOrText => json!({"type": ["array", "string"], "items": {"type": "string"}}),
        Kind::Environment => json!({
            "type": "object",
            "additionalProperties": {"type": ["string", "null"]}
        }),
        Kind::Choice(values) => json!({"type": "string", "enum": values}),
        Kind::Endpoint => json!({
            "type": "object",
            "properties": {
                "host": {
                    "type": "string",
                    "default": DEFAULT_ATTACH_HOST,
                    "description": "A host name or IP address. Default: 127.0.0.1."
                },
                "port": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 65535,
                    "description": "The TCP port."
                }
            },
            "required": ["port"],
            "additionalProperties": false
        }),
        Kind::ProcessId => json!({
            "type": ["integer", "string"],
            "minimum": 1,
            "pattern": "^([1-9][0-9]*|\\$\\{command:pickProcess\\})$"
        }),
        Kind::Rules => json!({
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "A glob of the files the rule is about (`**` spans folders); a folder means everything in it."
                    },
                    "module": {
                        "type": "string",
                        "description": "A module the rule is about, with its submodules."
                    },
                    "include": {
                        "type": "boolean",
                        "description": "true: the code is yours (debugged); false: it is not (stepped over, never stopped in)."
                    }
                },
                "required": ["include"]
            }
        }),
        Kind::PathMappings => json!({
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "localRoot": {
                        "type": "string",
                        "description": "A folder on this machine, as VS Code sees it."
                    },
                    "remoteRoot": {
                        "type": "string",
                        "description": "The same folder where the program runs."
                    }
                },
                "required": ["localRoot", "remoteRoot"]
            }
        }),
    };
    let default = match key.default {
        Default::None => None,
        Default::Boolean(value) => Some(Value::Bool(value)),
        Default::Text(text) => Some(Value::String(text.to_string())),
        Default::EmptyList => Some(json!([])),
        Default::EmptyObject => Some(json!({})),
        Default::Endpoint(host, port) => Some(json!({"host": host, "port": port})),
        Default::PathMapping(local, remote) => {
            Some(json!([{"localRoot": local, "remoteRoot": remote}]))
        }
    };
    if let Value::Object(fields) = &mut property {
        fields.insert(
            "description".to_string(),
            Value::String(key.description.to_string()),
        );
        if let Some(default) = default {
            fields.insert("default".to_string(), default);
        }
    }
    property
}

/// The `configurationAttributes` object of the `dapper` debugger in package.json.
pub fn configuration_attributes() -> Value {
    let properties = |keys: &[Key]| -> Map<String, Value> {
        keys.iter()
            .map(|key| (key.name.to_string(), property(key)))
            .collect()
    };
    json!({
        "launch": {"properties": properties(LAUNCH_KEYS)},
        // `connect` or `processId`: the engine says which is missing.
        "attach": {"properties": properties(ATTACH_KEYS)},
    })
}

/// Every key name, those only attach has first (so that `connect` leads the attach
/// keys), then launch's, each in table order. JSON objects do not keep an order;
/// scripts/schema.mjs orders package.json by this list.
pub fn key_names() -> Vec<&'static str> {
    let launch: Vec<&'static str> = LAUNCH_KEYS.iter().map(|key| key.name).collect();
    ATTACH_KEYS
        .iter()
        .map(|key| key.name)
        .filter(|name| !launch.contains(name))
        .chain(launch.iter().copied())
        .collect()
}

fn type_name(kind: Kind) -> String {
    match kind {
        Kind::Text => "string".to_string(),
        Kind::Boolean => "boolean".to_string(),
        Kind::TextList => "list of strings".to_string(),
        Kind::TextListOrText => "list of strings, or string".to_string(),
        Kind::Environment => "object of string or null".to_string(),
        Kind::Choice(values) => values
            .iter()
            .map(|value| format!("`{value}`"))
            .collect::<Vec<_>>()
            .join(", "),
        Kind::Endpoint => "object `{host, port}`".to_string(),
        Kind::PathMappings => "list of `{localRoot, remoteRoot}`".to_string(),
        Kind::ProcessId => "integer, or string of digits".to_string(),
        Kind::Rules => "list of `{path or module, include}`".to_string(),
    }
}

fn default_text(default: Default) -> String {
    match default {
        Default::None => String::new(),
        Default::Boolean(value) => format!("`{value}`"),
        Default::Text(text) => format!("`{text}`"),
        Default::EmptyList => "`[]`".to_string(),
        Default::EmptyObject => "`{}`".to_string(),
        Default::Endpoint(host, port) => format!("`{{\"host\": \"{host}\", \"port\": {port}}}`"),
        Default::PathMapping(local, remote) => {
            format!("`[{{\"localRoot\": \"{local}\", \"remoteRoot\": \"{remote}\"}}]`")
        }
    }
}

/// The option tables of docs/options.md, in Markdown. The default column is the value VS
/// Code suggests; the descriptions say what happens without the key.
pub fn options_markdown() -> String {
    markdown_table(LAUNCH_KEYS)
}

/// The attach option tables of docs/options.md, in Markdown.
pub fn attach_options_markdown() -> String {
    markdown_table(ATTACH_KEYS)
}

fn markdown_table(keys: &[Key]) -> String {
    let mut table =
        String::from("| option | type | suggested value | description |\n|---|---|---|---|\n");
    for key in keys {
        table.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            key.name,
            type_name(key.kind),
            default_text(key.default),
            key.description.replace('|', "\\|")
        ));
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_described_once_with_a_matching_default() {
        for keys in [LAUNCH_KEYS, ATTACH_KEYS] {
            let mut names: Vec<&str> = keys.iter().map(|key| key.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), keys.len(), "a key is described twice");
        }
        for key in LAUNCH_KEYS.iter().chain(ATTACH_KEYS) {
            assert!(key.description.ends_with('.'), "{}", key.name);
            let fits = match (key.kind, key.default) {
                (_, Default::None) => true,
                (Kind::Boolean, Default::Boolean(_)) => true,
                (Kind::Text, Default::Text(_)) => true,
                (Kind::Choice(values), Default::Text(text)) => values.contains(&text),
                (Kind::TextList | Kind::TextListOrText, Default::EmptyList) => true,
                (Kind::Environment, Default::EmptyObject) => true,
                (Kind::Endpoint, Default::Endpoint(_, _)) => true,
                (Kind::PathMappings, Default::PathMapping(_, _)) => true,
                (Kind::ProcessId, Default::Text(text)) => text.starts_with("${command:"),
                _ => false,
            };
            assert!(fits, "the default of {} does not fit its type", key.name);
        }
    }

    #[test]
    fn schema_properties_follow_the_table() {
        let attributes = configuration_attributes();
        let cases = [
            ("stopOnEntry", json!({"type": "boolean", "default": false})),
            (
                "subprocessAutoAttach",
                json!({"type": "boolean", "default": true}),
            ),
            (
                "console",
                json!({"type": "string", "enum": CONSOLES, "default": "integratedTerminal"}),
            ),
            (
                "args",
                json!({"type": ["array", "string"], "items": {"type": "string"}, "default": []}),
            ),
            ("module", json!({"type": "string"})),
        ];
        for (name, expected) in cases {
            let mut property = attributes["launch"]["properties"][name].clone();
            property
                .as_object_mut()
                .map(|fields| fields.remove("description"));
            assert_eq!(property, expected, "{name}");
        }
        let connect = &attributes["attach"]["properties"]["connect"];
        assert_eq!(connect["required"], json!(["port"]));
        assert_eq!(
            connect["default"],
            json!({"host": "127.0.0.1", "port": 5678})
        );
        // 'connect' or 'processId': the engine says which is missing.
        assert!(attributes["attach"].get("required").is_none());
        assert_eq!(
            attributes["attach"]["properties"]["redirectOutput"]["default"],
            json!(true)
        );
        assert!(attributes["attach"]["properties"].get("program").is_none());
    }
}
