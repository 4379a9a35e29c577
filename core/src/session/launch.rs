//! The launch sequence, as the program's part (`impl Program`): validate the
//! configuration, gather facts about the host, open a listener, start the debuggee
//! (spawned by the host, or in the client's terminal through `runInTerminal`), and
//! wait for it to connect. The session sets the deadlines and sends `runInTerminal`
//! (starting.rs).

use super::facts::{check_facts, FactRole};
use super::program::{Origin, Program};
use super::stage::Stage;
use crate::config::{
    self, launcher_argv, launcher_env, Console, LaunchConfig, LauncherEnv, Target,
};
use crate::context::SessionContext;
use crate::dap::error::{codes, DapError};
use crate::dap::message::Response;
use crate::{Address, FactAnswer, FactQuery, FactRequestId, Platform, ProcessId};
use serde_json::{json, Value};

/// How long a started debuggee has to say hello.
pub const HELLO_DEADLINE_MS: u64 = 20_000;
/// How long the client has to answer `runInTerminal`.
pub const RUN_IN_TERMINAL_TIMEOUT_MS: u64 = 30_000;

/// How the debuggee was started.
pub enum Start {
    /// The host spawned it.
    Spawned,
    /// The client is to start it in a terminal: the `runInTerminal` arguments.
    InTerminal(Value),
}

/// A `launch` request's configuration, validated for a client that can (or cannot)
/// run programs in a terminal.
pub fn launch_config(
    arguments: &Value,
    platform: Platform,
    runs_terminals: bool,
) -> Result<LaunchConfig, DapError> {
    let config = config::validate(arguments, platform, runs_terminals)?;
    if config.console != Console::Internal && !runs_terminals {
        return Err(DapError::user(
            codes::INVALID_CONFIGURATION,
            "The launch configuration asks for a terminal console, but this client cannot run programs in a terminal; use \"console\": \"internalConsole\".",
        ));
    }
    Ok(config)
}

impl Program {
    /// The program of a `launch`, the host gathering the facts it needs first.
    pub fn launching(
        ctx: &mut SessionContext<'_>,
        config: LaunchConfig,
    ) -> Result<Program, DapError> {
        let mut roles = Vec::new();
        let mut queries = Vec::new();
        // The working directory comes first: when it is missing, a program relative
        // to it is missing too, and the directory is the error worth reporting.
        if let Some(cwd) = &config.cwd {
            roles.push(FactRole::Cwd);
            queries.push(FactQuery::Path { path: cwd.clone() });
        }
        if let Target::Program(path) = &config.target {
            roles.push(FactRole::Program);
            queries.push(FactQuery::Path { path: path.clone() });
        }
        if !ctx.python_cache.contains_key(&config.python) {
            roles.push(FactRole::Python);
            queries.push(FactQuery::Python {
                executable: config.python.clone(),
            });
        }
        roles.push(FactRole::HostPythonPath);
        queries.push(FactQuery::Env {
            name: "PYTHONPATH".to_string(),
        });
        if let Some(path) = &config.env_file {
            roles.push(FactRole::EnvFile);
            queries.push(FactQuery::File { path: path.clone() });
        }
        let Some(token) = ctx.new_token() else {
            return Err(DapError::internal(
                codes::LAUNCH_FAILED,
                "The adapter has no randomness left for the session's secret token (its host did not answer gatherRandomness).",
            ));
        };
        let fact_request = ctx.gather_facts(queries);
        let stage = Stage::GatheringFacts {
            request: fact_request,
            roles,
        };
        let mut launch = Program::new(config, Origin::Launched, stage);
        launch.session_id = ctx.new_debuggee_session_id();
        launch.token = token;
        Ok(launch)
    }

    /// The host's answers to the fact queries of `request`: the listener opens when
    /// they are fine; an error says what is wrong. Answers that come after the launch
    /// stopped waiting change nothing.
    pub fn facts_gathered(
        &mut self,
        ctx: &mut SessionContext<'_>,
        request: FactRequestId,
        facts: &[FactAnswer],
    ) -> Result<(), DapError> {
        let roles = match &mut self.stage {
            Stage::GatheringFacts {
                request: waiting,
                roles,
            } if *waiting == request => std::mem::take(roles),
            // The launch failed (or was stopped) while the host gathered them.
            _ => {
                ctx.log(
                    crate::LogLevel::Debug,
                    format!("Facts for request {request} came after the launch stopped waiting."),
                );
                return Ok(());
            }
        };
        let checked = check_facts(ctx, &self.config, &roles, facts)?;
        self.stage = Stage::OpeningListener {
            host_pythonpath: checked.host_pythonpath,
        };
        // The envFile's variables go first so that `env` overrides them.
        let mut env: Vec<(String, Option<String>)> = checked
            .env_file
            .into_iter()
            .map(|(name, value)| (name, Some(value)))
            .collect();
        env.append(&mut self.config.env);
        self.config.env = env;
        self.open_listener(ctx);
        Ok(())
    }

    /// Starts the debuggee, now that it has somewhere to connect to.
    pub fn start(
        &mut self,
        ctx: &mut SessionContext<'_>,
        address: &Address,
    ) -> Result<Start, DapError> {
        let Some(argv) = launcher_argv(
            &self.config,
            address,
            &self.session_id,
            &ctx.options.python_package_dir,
            ctx.options.platform,
        ) else {
            return Err(DapError::internal(
                codes::LAUNCH_FAILED,
                "A child session's configuration cannot start a launcher.",
            ));
        };
        if self.config.subprocess_auto_attach {
            self.child_listener = Some(address.clone());
        }
        let host_pythonpath = match &mut self.stage {
            Stage::OpeningListener { host_pythonpath } => host_pythonpath.take(),
            _ => None,
        };
        let env = launcher_env(
            &self.config,
            &LauncherEnv {
                platform: ctx.options.platform,
                python_package_dir: &ctx.options.python_package_dir,
                host_pythonpath: host_pythonpath.as_deref(),
                token: &self.token,
                output_captured: self.config.console == Console::Internal,
            },
        );
        self.stage = Stage::Starting { connect: None };
        let cwd = self.config.cwd.clone();
        let kind = match self.config.console {
            Console::Internal => {
                self.process.spawned = Some(ctx.spawn(argv, cwd, env));
                self.process.started();
                return Ok(Start::Spawned);
            }
            Console::IntegratedTerminal => "integrated",
            Console::ExternalTerminal => "external",
        };
        let mut arguments = json!({
            "kind": kind,
            "title": "Python Debug Console",
            "args": argv,
            "env": env,
        });
        // DAP requires the terminal's directory; without `cwd` the program runs where
        // the adapter runs, as a spawned one would.
        let cwd = cwd
            .or_else(|| Some(ctx.options.working_directory.clone()).filter(|dir| !dir.is_empty()));
        if let (Some(cwd), Some(object)) = (cwd, arguments.as_object_mut()) {
            object.insert("cwd".to_string(), Value::String(cwd));
        }
        Ok(Start::InTerminal(arguments))
    }

    /// The client answered `runInTerminal`: the debuggee runs, and is to say hello.
    pub fn terminal_started(
        &mut self,
        ctx: &mut SessionContext<'_>,
        response: Response,
    ) -> Result<(), DapError> {
        if !response.success {
            let reason = response
                .message
                .unwrap_or_else(|| "no reason given".to_string());
            return Err(DapError::user(
                codes::LAUNCH_FAILED,
                format!("The client could not start the debuggee in a terminal: {reason}"),
            ));
        }
        let pid_of = |key: &str| {
            response
                .body
                .get(key)
                .and_then(Value::as_u64)
                .and_then(|pid| u32::try_from(pid).ok())
        };
        self.process.terminal_pid = pid_of("processId");
        self.process.shell_pid = pid_of("shellProcessId");
        self.process.started();
        if self.process.terminal_pid.is_none() && self.process.shell_pid.is_none() {
            ctx.log(crate::LogLevel::Warn, "The client started the debuggee in a terminal without telling its pid; Dapper cannot kill it before it connects.");
        }
        Ok(())
    }

    /// The error of a debuggee that did not say hello in time.
    pub fn hello_deadline_error(&self) -> DapError {
        let excerpt = self.process.stderr_excerpt();
        DapError::user(
            codes::LAUNCH_FAILED,
            format!(
                "The debuggee did not connect to Dapper within {} seconds.{excerpt}",
                HELLO_DEADLINE_MS / 1000
            ),
        )
    }

    /// The host spawned `process` as `pid`; false when it is not this program's.
    pub fn spawned(&mut self, process: ProcessId, pid: u32) -> bool {
        if self.process.spawned != Some(process) {
            return false;
        }
        self.process.pid = Some(pid);
        true
    }

    /// The host could not spawn `process`: the error that ends the launch, unless it
    /// is not this program's.
    pub fn spawn_failed(&mut self, process: ProcessId, error: &str) -> Option<DapError> {
        if self.process.spawned != Some(process) {
            return None;
        }
        self.process.gone();
        let python = &self.config.python;
        Some(DapError::user(
            codes::LAUNCH_FAILED,
            format!("Dapper could not start the Python interpreter '{python}': {error}"),
        ))
    }
}
