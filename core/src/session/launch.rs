//! The launch sequence: validate the configuration, gather facts about the host,
//! open a listener, start the debuggee (spawned by the host, or in the client's
//! terminal through `runInTerminal`), and wait for it to connect.

use super::facts::{check_facts, FactRole};
use super::pending::{Pending, PendingKey};
use super::program::{Origin, Program};
use super::stage::{Stage, Step};
use super::state::Session;
use super::timers::TimerPurpose;
use crate::config::{self, launcher_argv, launcher_env, Console, LauncherEnv, Target};
use crate::context::SessionContext;
use crate::dap::error::{codes, DapError};
use crate::dap::message::{self, Request, Response};
use crate::{
    Address, FactAnswer, FactQuery, FactRequestId, ListenerId, LogLevel, ProcessId, Signal,
};
use serde_json::{json, Value};

/// How long a started debuggee has to say hello.
pub const HELLO_DEADLINE_MS: u64 = 20_000;
/// How long the client has to answer `runInTerminal`.
pub const RUN_IN_TERMINAL_TIMEOUT_MS: u64 = 30_000;

impl Session {
    pub(super) fn on_launch(&mut self, ctx: &mut SessionContext<'_>, request: Request) {
        if self.program.is_some() {
            let error = DapError::user(
                codes::WRONG_STATE,
                "This session already launched a program; a session debugs one program.",
            );
            self.respond_error(ctx, request.seq, "launch", &error);
            return;
        }
        let runs_terminals = self.client_supports("supportsRunInTerminalRequest");
        let config =
            match config::validate(&request.arguments, ctx.options.platform, runs_terminals) {
                Ok(config) => config,
                Err(error) => {
                    self.respond_error(ctx, request.seq, "launch", &error);
                    return;
                }
            };
        if config.console != Console::Internal && !runs_terminals {
            let error = DapError::user(
                codes::INVALID_CONFIGURATION,
                "The launch configuration asks for a terminal console, but this client cannot run programs in a terminal; use \"console\": \"internalConsole\".",
            );
            self.respond_error(ctx, request.seq, "launch", &error);
            return;
        }
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
            let error = DapError::internal(
                codes::LAUNCH_FAILED,
                "The adapter has no randomness left for the session's secret token (its host did not answer gatherRandomness).",
            );
            self.respond_error(ctx, request.seq, "launch", &error);
            return;
        };
        let fact_request = ctx.gather_facts(queries);
        self.pending
            .insert(PendingKey::Client(request.seq), Pending::Launch);
        let stage = Stage::GatheringFacts {
            request: fact_request,
            roles,
        };
        let mut launch = Program::new(config, Origin::Launched, stage);
        launch.session_id = ctx.new_debuggee_session_id();
        launch.token = token;
        self.program = Some(launch);
    }

    pub fn on_facts(
        &mut self,
        ctx: &mut SessionContext<'_>,
        request: FactRequestId,
        facts: Vec<FactAnswer>,
    ) {
        let Some(launch) = self.program.as_mut() else {
            ctx.log(
                LogLevel::Warn,
                format!("Ignored facts for request {request}, which nothing waits for."),
            );
            return;
        };
        let roles = match &mut launch.stage {
            Stage::GatheringFacts {
                request: waiting,
                roles,
            } if *waiting == request => std::mem::take(roles),
            // The launch failed (or was stopped) while the host gathered them.
            _ => {
                ctx.log(
                    LogLevel::Debug,
                    format!("Facts for request {request} came after the launch stopped waiting."),
                );
                return;
            }
        };
        match check_facts(ctx, &launch.config, &roles, &facts) {
            Ok(checked) => {
                launch.stage = Stage::OpeningListener {
                    host_pythonpath: checked.host_pythonpath,
                };
                // The envFile's variables go first so that `env` overrides them.
                let mut env: Vec<(String, Option<String>)> = checked
                    .env_file
                    .into_iter()
                    .map(|(name, value)| (name, Some(value)))
                    .collect();
                env.append(&mut launch.config.env);
                launch.config.env = env;
                launch.open_listener(ctx);
            }
            Err(error) => self.fail_launch(ctx, error),
        }
    }

    pub fn on_listener_opened(
        &mut self,
        ctx: &mut SessionContext<'_>,
        listener: ListenerId,
        address: Address,
    ) {
        let ours = self
            .program
            .as_ref()
            .is_some_and(|launch| launch.listener == Some(listener));
        if ours && self.is_listen_attach() {
            self.on_listen_attach_listener_opened(ctx, address);
            return;
        }
        if ours && self.is_listening_attach() {
            // A `connect` attach's own listener is for the program's children.
            self.attach_child_listener_settled(ctx, Some(address));
            return;
        }
        let waiting = self.program.as_ref().is_some_and(|launch| {
            launch.listener == Some(listener)
                && matches!(launch.stage, Stage::OpeningListener { .. })
        });
        if !waiting {
            ctx.log(
                LogLevel::Debug,
                format!("Listener {listener} opened after it stopped mattering."),
            );
            ctx.close_listener(listener);
            return;
        }
        if self
            .program
            .as_ref()
            .is_some_and(|program| matches!(program.origin, Origin::Injected(_)))
        {
            if let Some(program) = self.program.as_mut() {
                program.request_injection(ctx, &address);
            }
        } else {
            self.start_debuggee(ctx, &address);
        }
    }

    pub fn on_listener_failed(
        &mut self,
        ctx: &mut SessionContext<'_>,
        listener: ListenerId,
        error: &str,
    ) {
        if self
            .program
            .as_ref()
            .is_some_and(|launch| launch.listener == Some(listener))
        {
            if let Some(launch) = self.program.as_mut() {
                launch.listener = None;
            }
            if self.is_listen_attach() {
                self.on_listen_attach_listener_failed(ctx, error);
                return;
            }
            if self.is_listening_attach() {
                ctx.log(
                    LogLevel::Warn,
                    format!("Dapper could not listen for the program's child processes ({error}); they are not debugged."),
                );
                self.attach_child_listener_settled(ctx, None);
                return;
            }
            let error = DapError::user(
                codes::LAUNCH_FAILED,
                format!("Dapper could not open a connection point for the debuggee: {error}"),
            );
            self.fail_launch(ctx, error);
        }
    }

    /// Starts the debuggee, now that it has somewhere to connect to.
    fn start_debuggee(&mut self, ctx: &mut SessionContext<'_>, address: &Address) {
        let Some(launch) = self.program.as_mut() else {
            return;
        };
        let Some(argv) = launcher_argv(&launch.config, address, &launch.session_id) else {
            let error = DapError::internal(
                codes::LAUNCH_FAILED,
                "A child session's configuration cannot start a launcher.",
            );
            self.fail_launch(ctx, error);
            return;
        };
        if launch.config.subprocess_auto_attach {
            launch.child_listener = Some(address.clone());
        }
        let host_pythonpath = match &mut launch.stage {
            Stage::OpeningListener { host_pythonpath } => host_pythonpath.take(),
            _ => None,
        };
        let env = launcher_env(
            &launch.config,
            &LauncherEnv {
                platform: ctx.options.platform,
                python_package_dir: &ctx.options.python_package_dir,
                host_pythonpath: host_pythonpath.as_deref(),
                token: &launch.token,
                output_captured: launch.config.console == Console::Internal,
            },
        );
        launch.stage = Stage::Starting { connect: None };
        let cwd = launch.config.cwd.clone();
        let kind = match launch.config.console {
            Console::Internal => {
                launch.process.spawned = Some(ctx.spawn(argv, cwd, env));
                launch.process.started();
                self.set_timer(ctx, HELLO_DEADLINE_MS, TimerPurpose::HelloDeadline);
                return;
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
        if let (Some(cwd), Some(object)) = (cwd, arguments.as_object_mut()) {
            object.insert("cwd".to_string(), Value::String(cwd));
        }
        let seq = self.client.next_seq;
        let timer = self.set_timer(
            ctx,
            RUN_IN_TERMINAL_TIMEOUT_MS,
            TimerPurpose::RunInTerminal(seq),
        );
        self.pending
            .insert(PendingKey::Reverse(seq), Pending::RunInTerminal { timer });
        self.send(ctx, message::request("runInTerminal", arguments));
    }

    pub(super) fn on_run_in_terminal_response(
        &mut self,
        ctx: &mut SessionContext<'_>,
        response: Response,
    ) {
        let Some(launch) = self
            .program
            .as_mut()
            .filter(|launch| launch.stage.is_starting())
        else {
            ctx.log(
                LogLevel::Debug,
                "The runInTerminal response came after the launch stopped waiting for it.",
            );
            return;
        };
        if !response.success {
            let reason = response
                .message
                .unwrap_or_else(|| "no reason given".to_string());
            let error = DapError::user(
                codes::LAUNCH_FAILED,
                format!("The client could not start the debuggee in a terminal: {reason}"),
            );
            self.fail_launch(ctx, error);
            return;
        }
        let pid_of = |key: &str| {
            response
                .body
                .get(key)
                .and_then(Value::as_u64)
                .and_then(|pid| u32::try_from(pid).ok())
        };
        launch.process.terminal_pid = pid_of("processId");
        launch.process.shell_pid = pid_of("shellProcessId");
        launch.process.started();
        if launch.process.terminal_pid.is_none() && launch.process.shell_pid.is_none() {
            ctx.log(LogLevel::Warn, "The client started the debuggee in a terminal without telling its pid; Dapper cannot kill it before it connects.");
        }
        self.set_timer(ctx, HELLO_DEADLINE_MS, TimerPurpose::HelloDeadline);
    }

    pub(super) fn on_run_in_terminal_timeout(&mut self, ctx: &mut SessionContext<'_>, seq: i64) {
        if self.pending.remove(PendingKey::Reverse(seq)).is_some() {
            let error = DapError::user(
                codes::LAUNCH_FAILED,
                format!(
                    "The client did not answer the runInTerminal request within {} seconds.",
                    RUN_IN_TERMINAL_TIMEOUT_MS / 1000
                ),
            );
            self.fail_launch(ctx, error);
        }
    }

    pub(super) fn on_hello_deadline(&mut self, ctx: &mut SessionContext<'_>) {
        let excerpt = self
            .program
            .as_ref()
            .map(|launch| launch.process.stderr_excerpt())
            .unwrap_or_default();
        let error = DapError::user(
            codes::LAUNCH_FAILED,
            format!(
                "The debuggee did not connect to Dapper within {} seconds.{excerpt}",
                HELLO_DEADLINE_MS / 1000
            ),
        );
        self.fail_launch(ctx, error);
    }

    pub fn on_process_spawned(
        &mut self,
        ctx: &mut SessionContext<'_>,
        process: ProcessId,
        pid: u32,
    ) {
        match self
            .program
            .as_mut()
            .filter(|launch| launch.process.spawned == Some(process))
        {
            Some(launch) => launch.process.pid = Some(pid),
            None => ctx.log(
                LogLevel::Debug,
                format!("Process {process} spawned for nothing that waits."),
            ),
        }
    }

    pub fn on_spawn_failed(
        &mut self,
        ctx: &mut SessionContext<'_>,
        process: ProcessId,
        error: &str,
    ) {
        let Some(launch) = self
            .program
            .as_mut()
            .filter(|launch| launch.process.spawned == Some(process))
        else {
            return;
        };
        launch.process.gone();
        let python = launch.config.python.clone();
        let error = DapError::user(
            codes::LAUNCH_FAILED,
            format!("Dapper could not start the Python interpreter '{python}': {error}"),
        );
        self.fail_launch(ctx, error);
    }

    /// Ends a launch that cannot go on: answers the pending `launch` with the error
    /// and lets go of everything the launch started.
    pub(super) fn fail_launch(&mut self, ctx: &mut SessionContext<'_>, error: DapError) {
        let command = self.start_command();
        match self.pending.launch() {
            Some(seq) => {
                self.pending.remove(PendingKey::Client(seq));
                self.respond_error(ctx, seq, command, &error);
            }
            None => ctx.log(
                LogLevel::Warn,
                format!("The launch failed after it was answered: {}", error.message),
            ),
        }
        self.cancel_timers_for(ctx, TimerPurpose::HelloDeadline);
        self.cancel_timers_for(ctx, TimerPurpose::AttachDeadline);
        self.cancel_timers_for(ctx, TimerPurpose::InjectDeadline);
        let reverse: Vec<_> = self
            .pending
            .drain_where(|_, pending| matches!(pending, Pending::RunInTerminal { .. }));
        for (_, pending) in reverse {
            if let Pending::RunInTerminal { timer } = pending {
                self.cancel_timer(ctx, timer);
            }
        }
        let Some(launch) = self.program.as_mut() else {
            return;
        };
        let connection = launch.stage.end();
        if let Some(listener) = launch.listener.take() {
            ctx.close_listener(listener);
        }
        let candidates = std::mem::take(&mut launch.candidates);
        for conn in candidates.into_keys() {
            ctx.close_connection(conn);
        }
        if let Some(connection) = connection {
            ctx.close_connection(connection.conn);
        }
        self.kill_debuggee(ctx, Signal::Kill);
    }

    /// The request that started this session: `attach` for a child session.
    pub(super) fn start_command(&self) -> &'static str {
        if self
            .program
            .as_ref()
            .is_some_and(|launch| launch.origin.is_attached())
        {
            "attach"
        } else {
            "launch"
        }
    }

    /// Answers the client's `launch` once `configurationDone` went through.
    pub(super) fn complete_launch(&mut self, ctx: &mut SessionContext<'_>) {
        if let Some(seq) = self.pending.launch() {
            self.pending.remove(PendingKey::Client(seq));
            let command = self.start_command();
            self.respond_ok(ctx, seq, command, None);
        }
        if let Some(Stage::Connected(connected)) =
            self.program.as_mut().map(|launch| &mut launch.stage)
        {
            if connected.step == Step::Configured {
                connected.step = Step::Running;
            }
        }
    }
}
