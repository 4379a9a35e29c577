//! The validated configuration's types: what the debuggee runs, where its terminal
//! is, and the whole launch configuration.

use serde_json::{Map, Value};

/// What the debuggee runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Program(String),
    Module(String),
    Code(String),
    /// A process that is already running (a child session's debuggee, or a program
    /// the user attached to); the text is its display name.
    Child(String),
}

/// Where the debuggee's terminal is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Console {
    /// The client's debug console; the host captures the output.
    Internal,
    IntegratedTerminal,
    ExternalTerminal,
}

impl Console {
    /// Every console, in the order of `schema::CONSOLES`.
    pub(super) const ALL: [Console; 3] = [
        Console::Internal,
        Console::IntegratedTerminal,
        Console::ExternalTerminal,
    ];

    pub(super) fn name(self) -> &'static str {
        match self {
            Console::Internal => "internalConsole",
            Console::IntegratedTerminal => "integratedTerminal",
            Console::ExternalTerminal => "externalTerminal",
        }
    }
}

/// A validated launch configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchConfig {
    pub target: Target,
    pub args: Vec<String>,
    pub cwd: Option<String>,
    /// The user's environment overlay: `None` removes a variable. Once the envFile
    /// is read its variables come first, so that `env` wins over them.
    pub env: Vec<(String, Option<String>)>,
    /// The `envFile` to read (joined to `cwd` when relative), through a fact query.
    pub env_file: Option<String>,
    /// Whether an `envFile` that cannot be read is skipped instead of refused (a debugpy
    /// configuration's, whose tools fill in a default file that may not exist).
    pub env_file_optional: bool,
    pub python: String,
    /// Where `python` came from, a key of `messages::PYTHON_SOURCES`, so that a message
    /// about it can say so.
    pub python_source: &'static str,
    pub python_args: Vec<String>,
    pub console: Console,
    pub no_debug: bool,
    /// Whether child processes are debugged too (and so the child listener stays open).
    pub subprocess_auto_attach: bool,
    /// Whether the launcher runs as root through `sudo -E` (debugpy's `sudo`).
    pub sudo: bool,
    /// The whole configuration with defaults filled in and unknown keys kept; this is
    /// what the debuggee receives in `dapper/configure`.
    pub normalised: Map<String, Value>,
}
