//! A user's `attach` by process id, as the program's part (`impl Program`): the engine
//! opens a listener, as for a launch, and asks the host to inject a bootstrap into the
//! running process (`inject`); the bootstrap connects back with the session's token and
//! says the launcher's hello, and the session goes on as a user's attach: `disconnect`
//! leaves the program running with the tracing removed. The host answers `injected`
//! (with how) or `injectFailed` (with a reason that names the cause and the fix); the
//! deadline covers the injection and the connection back, and its error says what was
//! tried.

use super::program::{Injection, Origin, Program};
use super::stage::Stage;
use crate::config::{LaunchConfig, ProcessTarget};
use crate::context::{InjectRequest, SessionContext};
use crate::dap::error::{codes, DapError};
use crate::{Address, InjectionId, LogLevel};

/// How long the injection and the bootstrap's connection back may take. gdb needs a
/// few seconds to attach and load symbols; a target blocked in a system call runs the
/// bootstrap only once the call returns.
pub const INJECT_DEADLINE_MS: u64 = 30_000;

impl Program {
    /// The program of an attach by process id, with the listener its bootstrap will
    /// connect to opening.
    pub fn injecting(
        ctx: &mut SessionContext<'_>,
        config: LaunchConfig,
        target: ProcessTarget,
    ) -> Result<Program, DapError> {
        let Some(token) = ctx.new_token() else {
            return Err(DapError::internal(
                codes::ATTACH_FAILED,
                "The adapter has no randomness left for the session's secret token (its host did not answer gatherRandomness).",
            ));
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
        program.open_listener(ctx);
        Ok(program)
    }

    /// The listener is open: the host injects the bootstrap that connects to it. The
    /// hello may come before the host's answer (gdb runs the bootstrap before it exits).
    pub fn request_injection(&mut self, ctx: &mut SessionContext<'_>, address: &Address) {
        let Origin::Injected(injection) = &mut self.origin else {
            return;
        };
        let request = InjectRequest {
            pid: injection.target.pid,
            address: address.clone(),
            token: self.token.clone(),
            session_id: self.session_id.clone(),
            debugger: injection.target.debugger.clone(),
        };
        injection.request = Some(ctx.inject(request));
        // Its children connect to the same listener, as a launched program's do.
        if self.config.subprocess_auto_attach {
            self.child_listener = Some(address.clone());
        }
        // The process runs, and is the user's: it is never killed, only detached from.
        self.process.started();
        self.stage = Stage::Starting { connect: None };
    }

    /// The injection of `request` this program waits for, taken out of the wait.
    fn answered_injection(&mut self, request: InjectionId) -> Option<&mut Injection> {
        match &mut self.origin {
            Origin::Injected(injection) if injection.request == Some(request) => {
                injection.request = None;
                Some(injection)
            }
            _ => None,
        }
    }

    /// The host injected the bootstrap (`method` says how); it is still to connect.
    /// Returns false when nothing waits for that injection.
    pub fn injected(
        &mut self,
        ctx: &mut SessionContext<'_>,
        injection: InjectionId,
        method: String,
    ) -> bool {
        let Some(waiting) = self.answered_injection(injection) else {
            return false;
        };
        let pid = waiting.target.pid;
        ctx.log(
            LogLevel::Info,
            format!("Injected the bootstrap into process {pid} ({method})."),
        );
        waiting.method = Some(method);
        true
    }

    /// The host could not inject: the error that ends the attach, unless nothing waits
    /// for that injection or the bootstrap connected anyway.
    pub fn inject_failed(
        &mut self,
        ctx: &mut SessionContext<'_>,
        injection: InjectionId,
        reason: &str,
    ) -> Option<DapError> {
        let pid = self.answered_injection(injection)?.target.pid;
        if self.stage.got_hello() {
            // The bootstrap connected anyway (the debugger failed only as it detached).
            ctx.log(
                LogLevel::Warn,
                format!("The injection reported a failure after the bootstrap connected: {reason}"),
            );
            return None;
        }
        Some(DapError::user(
            codes::ATTACH_FAILED,
            format!("Dapper could not attach to process {pid}: {reason}"),
        ))
    }

    /// The error of an injection that did not connect back in time: what was tried.
    pub fn inject_deadline_error(&self) -> Option<DapError> {
        let Origin::Injected(injection) = &self.origin else {
            return None;
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
        Some(DapError::user(codes::ATTACH_FAILED, message))
    }
}
