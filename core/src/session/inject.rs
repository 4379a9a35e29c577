//! A user's `attach` by process id: the engine opens a listener, as for a launch, and
//! asks the host to inject a bootstrap into the running process (`inject`); the
//! bootstrap connects back with the session's token and says the launcher's hello, and
//! the session goes on as a user's attach: `disconnect` leaves the program running with
//! the tracing removed. The host answers `injected` (with how) or `injectFailed` (with
//! a reason that names the cause and the fix); the deadline covers the injection and
//! the connection back, and its error says what was tried.

use super::pending::{Pending, PendingKey};
use super::program::{Injection, Origin, Program};
use super::stage::Stage;
use super::state::Session;
use super::timers::TimerPurpose;
use crate::config::{LaunchConfig, ProcessTarget};
use crate::context::{InjectRequest, SessionContext};
use crate::dap::error::{codes, DapError};
use crate::dap::message::Request;
use crate::{Address, InjectionId, LogLevel, Transport};

/// How long the injection and the bootstrap's connection back may take. gdb needs a
/// few seconds to attach and load symbols; a target blocked in a system call runs the
/// bootstrap only once the call returns.
pub const INJECT_DEADLINE_MS: u64 = 30_000;

impl Session {
    /// An attach configuration with a `processId`, validated (or not).
    pub(super) fn on_attach_to_process(
        &mut self,
        ctx: &mut SessionContext<'_>,
        request: Request,
        validated: Result<(LaunchConfig, ProcessTarget), DapError>,
    ) {
        let (config, target) = match validated {
            Ok(validated) => validated,
            Err(error) => {
                self.respond_error(ctx, request.seq, "attach", &error);
                return;
            }
        };
        let Some(token) = ctx.new_token() else {
            let error = DapError::internal(
                codes::ATTACH_FAILED,
                "The adapter has no randomness left for the session's secret token (its host did not answer gatherRandomness).",
            );
            self.respond_error(ctx, request.seq, "attach", &error);
            return;
        };
        ctx.log(
            LogLevel::Info,
            format!("Attaching to process {}.", target.pid),
        );
        let stage = Stage::OpeningListener {
            host_pythonpath: None,
        };
        let mut program = Program::new(config, Origin::Injected(Injection::new(target)), stage);
        program.session_id = ctx.new_debuggee_session_id();
        program.token = token;
        let transport = if ctx.options.platform.is_windows() {
            Transport::Tcp
        } else {
            Transport::Unix
        };
        program.listener = Some(ctx.open_listener(transport));
        self.program = Some(program);
        self.pending
            .insert(PendingKey::Client(request.seq), Pending::Launch);
        self.set_timer(ctx, INJECT_DEADLINE_MS, TimerPurpose::InjectDeadline);
    }

    /// The listener is open: the host injects the bootstrap that connects to it. The
    /// hello may come before the host's answer (gdb runs the bootstrap before it exits).
    pub(super) fn request_injection(&mut self, ctx: &mut SessionContext<'_>, address: &Address) {
        let Some(program) = self.program.as_mut() else {
            return;
        };
        let Origin::Injected(injection) = &mut program.origin else {
            return;
        };
        let request = InjectRequest {
            pid: injection.target.pid,
            address: address.clone(),
            token: program.token.clone(),
            session_id: program.session_id.clone(),
            debugger: injection.target.debugger.clone(),
        };
        injection.request = Some(ctx.inject(request));
        // Its children connect to the same listener, as a launched program's do.
        if program.config.subprocess_auto_attach {
            program.child_listener = Some(address.clone());
        }
        // The process runs, and is the user's: it is never killed, only detached from.
        program.process.started();
        program.stage = Stage::Starting { connect: None };
    }

    /// The injection of `request` this session waits for, taken out of the wait.
    fn answered_injection(&mut self, request: InjectionId) -> Option<&mut Injection> {
        match &mut self.program.as_mut()?.origin {
            Origin::Injected(injection) if injection.request == Some(request) => {
                injection.request = None;
                Some(injection)
            }
            _ => None,
        }
    }

    pub fn on_injected(
        &mut self,
        ctx: &mut SessionContext<'_>,
        injection: InjectionId,
        method: String,
    ) {
        let Some(waiting) = self.answered_injection(injection) else {
            ctx.log(
                LogLevel::Debug,
                format!("Injection {injection} finished after the attach stopped waiting."),
            );
            return;
        };
        let pid = waiting.target.pid;
        ctx.log(
            LogLevel::Info,
            format!("Injected the bootstrap into process {pid} ({method})."),
        );
        waiting.method = Some(method);
    }

    pub fn on_inject_failed(
        &mut self,
        ctx: &mut SessionContext<'_>,
        injection: InjectionId,
        reason: &str,
    ) {
        let Some(pid) = self
            .answered_injection(injection)
            .map(|waiting| waiting.target.pid)
        else {
            return;
        };
        if self
            .program
            .as_ref()
            .is_some_and(|program| program.stage.got_hello())
        {
            // The bootstrap connected anyway (the debugger failed only as it detached).
            ctx.log(
                LogLevel::Warn,
                format!("The injection reported a failure after the bootstrap connected: {reason}"),
            );
            return;
        }
        let error = DapError::user(
            codes::ATTACH_FAILED,
            format!("Dapper could not attach to process {pid}: {reason}"),
        );
        self.fail_launch(ctx, error);
    }

    pub(super) fn on_inject_deadline(&mut self, ctx: &mut SessionContext<'_>) {
        let Some(program) = self.program.as_ref() else {
            return;
        };
        let Origin::Injected(injection) = &program.origin else {
            return;
        };
        let pid = injection.target.pid;
        let seconds = INJECT_DEADLINE_MS / 1000;
        let message = match &injection.method {
            Some(method) => format!(
                "Process {pid} did not connect back to Dapper within {seconds} seconds after the bootstrap was injected ({method}). Python runs the bootstrap only when the process runs Python code: a program blocked in one long call (input(), a lock, a socket without a timeout, time.sleep) takes it when that call returns. Try again once it runs, or start it with `python -m dapperdbg --listen PORT` and attach with 'connect'."
            ),
            _ => format!(
                "Dapper could not inject into process {pid} within {seconds} seconds: the injection (sys.remote_exec, or gdb/lldb) did not finish. Check that the process runs (not stopped by a signal or another debugger) and try again."
            ),
        };
        self.fail_launch(ctx, DapError::user(codes::ATTACH_FAILED, message));
    }
}
