//! How a session comes to its debuggee: the client's `launch` and `attach`, the host's
//! answers while the debuggee starts (facts, listener, connection, injection, spawn,
//! `runInTerminal`), the first words of the peers that connect, and the end of a
//! launch that cannot go on. The program does the work, in the files named after each
//! way (launch.rs, attach.rs, listen_attach.rs, inject.rs, child.rs, connect.rs); the
//! session acts on what it asks: answer the client, set a timer, configure the
//! debuggee, fail the launch.

use super::attach::ATTACH_DEADLINE_MS;
use super::connect::{Candidate, Verdict, CANDIDATE_HELLO_DEADLINE_MS};
use super::inject::INJECT_DEADLINE_MS;
use super::launch::{launch_config, Start, HELLO_DEADLINE_MS, RUN_IN_TERMINAL_TIMEOUT_MS};
use super::pending::{Pending, PendingKey};
use super::program::{Origin, Program};
use super::stage::Stage;
use super::state::Session;
use super::timers::TimerPurpose;
use crate::config::{self, schema, AttachMode, CHILD_SESSION_KEY};
use crate::context::{Note, SessionContext};
use crate::dap::error::{codes, DapError};
use crate::dap::message::{self, Request, Response};
use crate::{
    Address, ConnectRequestId, ConnectionId, FactAnswer, FactRequestId, InjectionId, ListenerId,
    LogLevel, ProcessId,
};
use serde_json::Value;

impl Session {
    /// The session debugs `program`, started by the client's request `seq`, which is
    /// answered once the debuggee is configured (or the start fails).
    fn begin(&mut self, seq: i64, program: Program) {
        self.program = Some(program);
        self.pending
            .insert(PendingKey::Client(seq), Pending::Launch);
    }

    pub(super) fn on_launch(&mut self, ctx: &mut SessionContext<'_>, request: Request) {
        if self.program.is_some() {
            let error = DapError::user(
                codes::WRONG_STATE,
                "This session already launched a program; a session debugs one program.",
            );
            self.respond_error(ctx, request.seq, "launch", &error);
            return;
        }
        let Some(arguments) = self.debugpy_translated(ctx, &request, "launch") else {
            return;
        };
        let runs_terminals = self.client_supports("supportsRunInTerminalRequest");
        match launch_config(&arguments, ctx.options.platform, runs_terminals)
            .and_then(|config| Program::launching(ctx, config))
        {
            Ok(program) => {
                self.note_unknown_keys(ctx, &arguments, "launch", schema::LAUNCH_KEYS);
                self.begin(request.seq, program);
            }
            Err(error) => self.respond_error(ctx, request.seq, "launch", &error),
        }
    }

    /// The arguments of a `request` (launch or attach), in Dapper's terms when they are
    /// a debugpy configuration's (config/debugpy.rs), with the debug console told what
    /// did not carry over; `None` once the request is answered with the refusal.
    fn debugpy_translated(
        &mut self,
        ctx: &mut SessionContext<'_>,
        request: &Request,
        command: &str,
    ) -> Option<Value> {
        if !config::debugpy::is_debugpy(&request.arguments) {
            return Some(Value::clone(&request.arguments));
        }
        match config::debugpy::translate(&request.arguments, command) {
            Ok(translation) => {
                for note in &translation.notes {
                    ctx.log(LogLevel::Info, note.clone());
                    self.send_output(ctx, "console", &format!("{note}\n"));
                }
                Some(translation.arguments)
            }
            Err(error) => {
                self.respond_error(ctx, request.seq, command, &error);
                None
            }
        }
    }

    /// Names the keys of the user's configuration that Dapper does not read, in the
    /// debug console, and goes on: they may be another tool's, and are passed on.
    fn note_unknown_keys(
        &mut self,
        ctx: &mut SessionContext<'_>,
        arguments: &Value,
        request: &str,
        keys: &[schema::Key],
    ) {
        if let Some(notice) = config::unknown_keys_notice(arguments, request, keys) {
            ctx.log(LogLevel::Info, notice.trim_end().to_string());
            self.send_output(ctx, "console", &notice);
        }
    }

    /// `attach` is how a child session starts: its configuration (built by the engine
    /// for `startDebugging`) names the waiting child with a private key. Without that
    /// key it is the user's attach: to a listening program (attach.rs), by listening
    /// for one (listen_attach.rs), or by process id (inject.rs).
    pub(super) fn on_attach(&mut self, ctx: &mut SessionContext<'_>, request: Request) {
        if self.program.is_some() {
            let error = DapError::user(
                codes::WRONG_STATE,
                "This session already debugs a program; a session debugs one program.",
            );
            self.respond_error(ctx, request.seq, "attach", &error);
            return;
        }
        let Some(child) = request
            .arguments
            .get(CHILD_SESSION_KEY)
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            self.on_user_attach(ctx, request);
            return;
        };
        let name = request
            .arguments
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("child process")
            .to_string();
        match config::validate_child(&request.arguments, &name) {
            Ok(config) => {
                self.begin(request.seq, Program::child(config));
                ctx.note(Note::AttachChild { child, request });
            }
            Err(error) => self.respond_error(ctx, request.seq, "attach", &error),
        }
    }

    fn on_user_attach(&mut self, ctx: &mut SessionContext<'_>, request: Request) {
        if self.child_client_only {
            let error = DapError::user(
                codes::WRONG_STATE,
                "This connection is for child sessions; it can only attach to a child process.",
            );
            self.respond_error(ctx, request.seq, "attach", &error);
            return;
        }
        let Some(arguments) = self.debugpy_translated(ctx, &request, "attach") else {
            return;
        };
        let program = match config::validate_attach_to_process(&arguments) {
            Some(validated) => {
                validated.and_then(|(config, target)| Program::injecting(ctx, config, target))
            }
            None => config::validate_attach(&arguments).and_then(|(config, mode)| match mode {
                AttachMode::Connect(endpoint) => Ok(Program::connecting(ctx, config, endpoint)),
                AttachMode::Listen(endpoint) => Program::listening(ctx, config, endpoint),
            }),
        };
        match program {
            Ok(program) => {
                self.note_unknown_keys(ctx, &arguments, "attach", schema::ATTACH_KEYS);
                // A `listen` attach waits, as debugpy's does, until the client gives up.
                let deadline = match program.origin {
                    Origin::Injected(_) => Some((INJECT_DEADLINE_MS, TimerPurpose::InjectDeadline)),
                    Origin::Remote(_) => Some((ATTACH_DEADLINE_MS, TimerPurpose::AttachDeadline)),
                    _ => None,
                };
                self.begin(request.seq, program);
                if let Some((after_ms, purpose)) = deadline {
                    self.set_timer(ctx, after_ms, purpose);
                }
            }
            Err(error) => self.respond_error(ctx, request.seq, "attach", &error),
        }
    }

    // ----- The host's answers while the debuggee starts ------------------------------

    pub fn on_facts(
        &mut self,
        ctx: &mut SessionContext<'_>,
        request: FactRequestId,
        facts: Vec<FactAnswer>,
    ) {
        let Some(program) = self.program.as_mut() else {
            ctx.log(
                LogLevel::Warn,
                format!("Ignored facts for request {request}, which nothing waits for."),
            );
            return;
        };
        if let Err(error) = program.facts_gathered(ctx, request, &facts) {
            self.fail_launch(ctx, error);
        }
    }

    pub fn on_listener_opened(
        &mut self,
        ctx: &mut SessionContext<'_>,
        listener: ListenerId,
        address: Address,
    ) {
        let Some(program) = self
            .program
            .as_mut()
            .filter(|program| program.listener == Some(listener))
        else {
            ctx.log(
                LogLevel::Debug,
                format!("Listener {listener} opened after it stopped mattering."),
            );
            ctx.close_listener(listener);
            return;
        };
        if program.listens() {
            let text = program.listen_opened(ctx, address);
            self.send_output(ctx, "console", &text);
        } else if program.says_tokenless_hello() {
            // A `connect` attach's own listener is for the program's children.
            program.child_listener_settled(Some(address));
            self.configure_debuggee(ctx);
        } else if !matches!(program.stage, Stage::OpeningListener { .. }) {
            ctx.log(
                LogLevel::Debug,
                format!("Listener {listener} opened after it stopped mattering."),
            );
            ctx.close_listener(listener);
        } else if program.is_injected() {
            program.request_injection(ctx, &address);
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
        let Some(program) = self
            .program
            .as_mut()
            .filter(|program| program.listener == Some(listener))
        else {
            return;
        };
        program.listener = None;
        if program.listens() {
            let error = program.listen_failed(error);
            self.fail_launch(ctx, error);
        } else if program.says_tokenless_hello() {
            ctx.log(
                LogLevel::Warn,
                format!("Dapper could not listen for the program's child processes ({error}); they are not debugged."),
            );
            program.child_listener_settled(None);
            self.configure_debuggee(ctx);
        } else {
            let error = DapError::user(
                codes::LAUNCH_FAILED,
                format!("Dapper could not open a connection point for the debuggee: {error}"),
            );
            self.fail_launch(ctx, error);
        }
    }

    /// The host refused a peer of a `listen` attach's listener.
    pub fn on_peer_refused(
        &mut self,
        ctx: &mut SessionContext<'_>,
        listener: ListenerId,
        reason: &str,
    ) {
        let Some(program) = self.program.as_ref() else {
            return;
        };
        let text = program.peer_refused(ctx, listener, reason);
        self.send_output(ctx, "important", &text);
    }

    pub fn on_connected(
        &mut self,
        ctx: &mut SessionContext<'_>,
        request: ConnectRequestId,
        conn: ConnectionId,
    ) {
        let waited = self
            .program
            .as_mut()
            .is_some_and(|program| program.connected(request, conn));
        if !waited {
            ctx.log(
                LogLevel::Debug,
                format!("Closed connection {conn}: the attach it was for is over."),
            );
            ctx.close_connection(conn);
        }
    }

    pub fn on_connect_failed(
        &mut self,
        ctx: &mut SessionContext<'_>,
        request: ConnectRequestId,
        error: &str,
    ) {
        if let Some(error) = self
            .program
            .as_ref()
            .and_then(|program| program.connect_failed(request, error))
        {
            self.fail_launch(ctx, error);
        }
    }

    pub fn on_injected(
        &mut self,
        ctx: &mut SessionContext<'_>,
        injection: InjectionId,
        method: String,
    ) {
        let waited = self
            .program
            .as_mut()
            .is_some_and(|program| program.injected(ctx, injection, method));
        if !waited {
            ctx.log(
                LogLevel::Debug,
                format!("Injection {injection} finished after the attach stopped waiting."),
            );
        }
    }

    pub fn on_inject_failed(
        &mut self,
        ctx: &mut SessionContext<'_>,
        injection: InjectionId,
        reason: &str,
    ) {
        if let Some(error) = self
            .program
            .as_mut()
            .and_then(|program| program.inject_failed(ctx, injection, reason))
        {
            self.fail_launch(ctx, error);
        }
    }

    /// Starts the debuggee, now that it has somewhere to connect to.
    fn start_debuggee(&mut self, ctx: &mut SessionContext<'_>, address: &Address) {
        let Some(program) = self.program.as_mut() else {
            return;
        };
        match program.start(ctx, address) {
            Ok(Start::Spawned) => {
                self.set_timer(ctx, HELLO_DEADLINE_MS, TimerPurpose::HelloDeadline);
            }
            Ok(Start::InTerminal(arguments)) => {
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
            Err(error) => self.fail_launch(ctx, error),
        }
    }

    pub(super) fn on_run_in_terminal_response(
        &mut self,
        ctx: &mut SessionContext<'_>,
        response: Response,
    ) {
        let Some(program) = self
            .program
            .as_mut()
            .filter(|program| program.stage.is_starting())
        else {
            ctx.log(
                LogLevel::Debug,
                "The runInTerminal response came after the launch stopped waiting for it.",
            );
            return;
        };
        match program.terminal_started(ctx, response) {
            Ok(()) => {
                self.set_timer(ctx, HELLO_DEADLINE_MS, TimerPurpose::HelloDeadline);
            }
            Err(error) => self.fail_launch(ctx, error),
        }
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

    pub fn on_process_spawned(
        &mut self,
        ctx: &mut SessionContext<'_>,
        process: ProcessId,
        pid: u32,
    ) {
        let ours = self
            .program
            .as_mut()
            .is_some_and(|program| program.spawned(process, pid));
        if !ours {
            ctx.log(
                LogLevel::Debug,
                format!("Process {process} spawned for nothing that waits."),
            );
        }
    }

    pub fn on_spawn_failed(
        &mut self,
        ctx: &mut SessionContext<'_>,
        process: ProcessId,
        error: &str,
    ) {
        if let Some(error) = self
            .program
            .as_mut()
            .and_then(|program| program.spawn_failed(process, error))
        {
            self.fail_launch(ctx, error);
        }
    }

    // ----- The peers that connect, and their first words -----------------------------

    pub fn on_connection_accepted(&mut self, ctx: &mut SessionContext<'_>, conn: ConnectionId) {
        match self.program.as_mut().map(|program| program.accept(conn)) {
            Some(Some(true)) => {
                self.set_timer(
                    ctx,
                    CANDIDATE_HELLO_DEADLINE_MS,
                    TimerPurpose::CandidateHello(conn),
                );
            }
            Some(Some(false)) => {}
            Some(None) | None => {
                ctx.log(
                    LogLevel::Warn,
                    format!(
                        "Closed connection {conn}: this session is not waiting for a debuggee."
                    ),
                );
                ctx.close_connection(conn);
            }
        }
    }

    /// Reads the first frame of a connection that has not said hello yet.
    pub(super) fn check_candidate(&mut self, ctx: &mut SessionContext<'_>, conn: ConnectionId) {
        self.check_candidate_frame(ctx, conn);
        let resolved = !self
            .program
            .as_ref()
            .is_some_and(|program| program.candidates.contains_key(&conn));
        if resolved {
            self.cancel_timers_for(ctx, TimerPurpose::CandidateHello(conn));
        }
    }

    fn check_candidate_frame(&mut self, ctx: &mut SessionContext<'_>, conn: ConnectionId) {
        let Some(program) = self.program.as_mut() else {
            return;
        };
        // A token-less attach (connect, listen) takes the program first, then its
        // children (which carry the child token).
        if program.says_tokenless_hello() && program.stage.is_starting() {
            match program.check_attach_hello(ctx, conn) {
                Ok(false) => {}
                Ok(true) => self.attached(ctx),
                Err(error) => self.attach_peer_failed(ctx, conn, error),
            }
            return;
        }
        match program.check_candidate(ctx, conn) {
            Candidate::Undecided | Candidate::Refused(None) => {}
            Candidate::Refused(Some(Verdict::Tell(text))) => {
                self.send_output(ctx, "important", &text);
            }
            Candidate::Refused(Some(Verdict::Fail(error))) => self.fail_launch(ctx, error),
            Candidate::Connected { waiting } => {
                self.cancel_timers_for(ctx, TimerPurpose::HelloDeadline);
                self.cancel_timers_for(ctx, TimerPurpose::InjectDeadline);
                // Peers that connected while the launch was starting lose the launch's
                // deadline with it; each gets its own, as later peers do.
                for other in waiting {
                    self.set_timer(
                        ctx,
                        CANDIDATE_HELLO_DEADLINE_MS,
                        TimerPurpose::CandidateHello(other),
                    );
                }
                self.configure_debuggee(ctx);
            }
        }
    }

    /// A user's attach heard its program's hello.
    fn attached(&mut self, ctx: &mut SessionContext<'_>) {
        self.cancel_timers_for(ctx, TimerPurpose::AttachDeadline);
        let Some(program) = self.program.as_mut() else {
            return;
        };
        if program.listens() {
            // The others that connected meanwhile are closed; the listener stays
            // only as the child listener.
            program.keep_listener_only_for_children(ctx);
        }
        if program.open_child_listener_for_attach(ctx) {
            // dapper/configure waits for the child listener's address.
            return;
        }
        self.configure_debuggee(ctx);
    }

    /// The first words of the attach's peer were wrong: a `connect` attach fails; a
    /// `listen` attach closes that peer and waits on for the program.
    fn attach_peer_failed(
        &mut self,
        ctx: &mut SessionContext<'_>,
        conn: ConnectionId,
        error: DapError,
    ) {
        match self.program.as_mut().filter(|program| program.listens()) {
            Some(program) => {
                let text = program.refuse_listen_peer(ctx, conn, &error.message);
                self.send_output(ctx, "important", &text);
            }
            None => self.fail_launch(ctx, error),
        }
    }

    /// The attach's connection closed before the program said anything.
    pub(super) fn attach_closed_before_hello(
        &mut self,
        ctx: &mut SessionContext<'_>,
        conn: ConnectionId,
    ) {
        if let Some(error) = self
            .program
            .as_ref()
            .map(|program| program.not_dapper("it closed the connection without a word"))
        {
            self.attach_peer_failed(ctx, conn, error);
        }
    }

    /// Answers an `attach` that names no waiting child.
    pub fn refuse_attach(&mut self, ctx: &mut SessionContext<'_>, message: String) {
        self.fail_launch(ctx, DapError::user(codes::NO_SUCH_CHILD, message));
    }

    /// The debuggee said hello (or, for a `connect` attach, its child listener
    /// settled): `dapper/configure`, then what it sent meanwhile.
    pub(super) fn configure_debuggee(&mut self, ctx: &mut SessionContext<'_>) {
        self.send_configure(ctx);
        self.drain_debuggee_frames(ctx);
    }
}
