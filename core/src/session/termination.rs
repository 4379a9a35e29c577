//! How a session ends: the debuggee's own exit, `disconnect`, `terminate`, the client
//! going away, a launch that cannot go on, and child sessions ending before their
//! parent. On the debuggee's exit the client gets `exited` (with the code) then
//! `terminated`; `disconnect` is answered only after both. How far the end has come is
//! the session's `Lifecycle` (lifecycle.rs).

use super::lifecycle::{Disconnect, Terminated};
use super::pending::{Pending, PendingKey};
use super::state::Session;
use super::timers::TimerPurpose;
use crate::context::{Note, SessionContext};
use crate::dap::error::{codes, DapError};
use crate::dap::message::{self, Request};
use crate::{LogLevel, Platform, ProcessId, Signal};
use serde_json::{json, Value};

/// How long `disconnect` waits for a killed debuggee to be reported gone.
pub const DISCONNECT_DEADLINE_MS: u64 = 5_000;
/// How long `terminate` waits after SIGTERM before it sends SIGKILL.
pub const TERMINATE_ESCALATION_MS: u64 = 3_000;

/// The number of a signal by name, as the platform numbers it, for the shell's
/// convention that death by signal N is exit status 128 + N.
fn signal_number(signal: &str, platform: Platform) -> Option<i64> {
    let darwin = platform == Platform::Darwin;
    let number = match signal {
        "SIGHUP" => 1,
        "SIGINT" => 2,
        "SIGQUIT" => 3,
        "SIGILL" => 4,
        "SIGTRAP" => 5,
        "SIGABRT" => 6,
        "SIGBUS" if darwin => 10,
        "SIGBUS" => 7,
        "SIGFPE" => 8,
        "SIGKILL" => 9,
        "SIGUSR1" if darwin => 30,
        "SIGUSR1" => 10,
        "SIGSEGV" => 11,
        "SIGUSR2" if darwin => 31,
        "SIGUSR2" => 12,
        "SIGPIPE" => 13,
        "SIGALRM" => 14,
        "SIGTERM" => 15,
        _ => return None,
    };
    Some(number)
}

impl Session {
    /// Signals the debuggee process, whichever way it was started; a program the user
    /// started is asked to end itself instead: SIGTERM's way (`force` false: its
    /// handlers run) or SIGKILL's (`force` true), because its pid may be on another
    /// machine. Returns false when there is nothing to signal.
    pub(super) fn kill_debuggee(&mut self, ctx: &mut SessionContext<'_>, signal: Signal) -> bool {
        let users = self.is_user_attach();
        let Some(launch) = self
            .program
            .as_mut()
            .filter(|launch| launch.process.is_alive())
        else {
            return false;
        };
        if users && launch.stage.connection().is_none() {
            // Not connected (any more): the program is not ours to end.
            launch.process.gone();
            return false;
        }
        if launch.process.is_killed() {
            return true;
        }
        if users {
            launch.process.signalled(signal);
            let arguments = json!({ "force": signal == Signal::Kill });
            if let Some(seq) =
                self.send_to_debuggee(ctx, message::request("dapper/terminate", arguments))
            {
                self.pending
                    .insert(PendingKey::Debuggee(seq), Pending::Terminate);
            }
            return true;
        }
        let Some(target) = launch.process.kill_target() else {
            ctx.log(
                LogLevel::Warn,
                "Cannot signal the debuggee: its pid is unknown.",
            );
            return false;
        };
        launch.process.signalled(signal);
        ctx.kill(target, signal);
        true
    }

    pub fn on_process_exited(
        &mut self,
        ctx: &mut SessionContext<'_>,
        process: ProcessId,
        code: Option<i64>,
        signal: Option<&str>,
    ) {
        let Some(launch) = self
            .program
            .as_mut()
            .filter(|launch| launch.process.spawned == Some(process))
        else {
            return;
        };
        let rest_out = launch.process.stdout.finish();
        let rest_err = launch.process.stderr.finish();
        launch.process.remember_stderr(&rest_err);
        if !rest_out.is_empty() {
            self.send_output(ctx, "stdout", &rest_out);
        }
        if !rest_err.is_empty() {
            self.send_output(ctx, "stderr", &rest_err);
        }
        self.debuggee_exited(ctx, code, signal);
    }

    /// The debuggee process is gone (with `code`, or killed by `signal`).
    pub(super) fn debuggee_exited(
        &mut self,
        ctx: &mut SessionContext<'_>,
        code: Option<i64>,
        signal: Option<&str>,
    ) {
        let platform = ctx.options.platform;
        let Some(launch) = self.program.as_mut() else {
            return;
        };
        launch.process.gone();
        let we_killed = launch.process.was_signalled();
        let exit_code =
            code.or_else(|| signal.map(|name| 128 + signal_number(name, platform).unwrap_or(0)));
        launch.process.exit_code = exit_code;
        let connected = launch.stage.got_hello();
        self.cancel_timers_for(ctx, TimerPurpose::HelloDeadline);
        self.cancel_timers_for(ctx, TimerPurpose::TerminateEscalation);
        let ran_on_inheritance = self
            .program
            .as_ref()
            .is_some_and(|launch| launch.origin.ran_on_inheritance());
        if ran_on_inheritance && self.pending.launch().is_some() {
            // It ran, as its parent's session had it run, before its client configured
            // this one: an ordinary end, not a failed attach.
            self.complete_launch(ctx);
        }
        if self.pending.launch().is_some() {
            let code_text =
                exit_code.map_or("an unknown code".to_string(), |code| format!("code {code}"));
            let when = if connected {
                "before it was ready"
            } else {
                "before it connected"
            };
            let excerpt = self
                .program
                .as_ref()
                .map(|launch| launch.process.stderr_excerpt())
                .unwrap_or_default();
            let error = DapError::user(
                codes::LAUNCH_FAILED,
                format!("The debuggee exited with {code_text} {when}.{excerpt}"),
            );
            self.fail_launch(ctx, error);
        } else if self
            .program
            .as_ref()
            .is_some_and(|launch| !launch.stage.is_over())
        {
            if let (Some(signal), false) = (signal, we_killed) {
                self.send_output(
                    ctx,
                    "console",
                    &format!("The debuggee was killed by {signal}.\n"),
                );
            }
            self.drop_debuggee_connection(ctx);
            self.debuggee_connection_lost(ctx);
            if let Some(launch) = self.program.as_mut() {
                // drop_debuggee_connection closed the connection already.
                launch.stage.end();
            }
            // Said once: the stage was not over before, and is now.
            if let Some(code) = exit_code {
                self.send_event(ctx, "exited", Some(json!({ "exitCode": code })));
            }
            self.send_terminated(ctx);
        }
        if let Some(disconnect) = self.lifecycle.take_disconnect() {
            self.finish_waiting_disconnect(ctx, disconnect);
        }
    }

    /// Sends `terminated` once; while child sessions are live it waits for them (the
    /// router calls `send_deferred_terminated` when the last one has ended).
    pub(super) fn send_terminated(&mut self, ctx: &mut SessionContext<'_>) {
        if self.lifecycle.is_finished() || self.lifecycle.terminated() == Some(Terminated::Sent) {
            return;
        }
        if ctx.tree.has_live_children(self.key) || ctx.tree.awaits_child_sessions(self.key) {
            self.lifecycle.set_terminated(Terminated::Deferred);
            return;
        }
        self.lifecycle.set_terminated(Terminated::Sent);
        self.send_event(ctx, "terminated", None);
        ctx.tree.mark_ended(self.key);
        ctx.note(Note::Terminated);
    }

    fn debuggee_alive(&self) -> bool {
        self.program
            .as_ref()
            .is_some_and(|launch| launch.process.is_alive())
    }

    pub(super) fn on_disconnect(&mut self, ctx: &mut SessionContext<'_>, request: Request) {
        if self.lifecycle.disconnect().is_some() {
            let error =
                DapError::silent(codes::WRONG_STATE, "The session is already disconnecting.");
            self.respond_error(ctx, request.seq, "disconnect", &error);
            return;
        }
        // A launched debuggee is terminated unless the client says otherwise; a child
        // session's process (attached) is left running, as DAP says of attach, and
        // runs on without the debugger. `terminate` is how a child is stopped.
        let attached = self
            .program
            .as_ref()
            .is_some_and(|launch| launch.origin.is_attached());
        let terminate = request
            .arguments
            .get("terminateDebuggee")
            .and_then(Value::as_bool)
            .unwrap_or(!attached);
        if self.pending.launch().is_some() {
            let error = DapError::silent(
                codes::LAUNCH_FAILED,
                "The debug session was stopped before the debuggee was ready.",
            );
            self.fail_launch(ctx, error);
        }
        if self.debuggee_alive() && terminate {
            self.kill_debuggee(ctx, Signal::Kill);
            // The exit is observable through the host's processExited (spawned) or the
            // debuggee connection closing (runInTerminal); without either, waiting
            // would only delay the end of the session.
            let observable = self.program.as_ref().is_some_and(|launch| {
                launch.process.spawned.is_some() || launch.stage.connection().is_some()
            });
            if observable {
                let timer = self.set_timer(
                    ctx,
                    DISCONNECT_DEADLINE_MS,
                    TimerPurpose::DisconnectDeadline,
                );
                self.lifecycle.wait_for_exit(Disconnect {
                    seq: request.seq,
                    timer,
                });
                return;
            }
            if let Some(launch) = self.program.as_mut() {
                launch.process.gone();
            }
        }
        if self.debuggee_alive() {
            self.detach(ctx);
        }
        self.finish_disconnect(ctx, request.seq);
    }

    /// Leaves a launched debuggee running without the debugger (terminateDebuggee
    /// false): the connection closes and the process is no longer ours to kill. The
    /// debuggee is told first (`dapper/detach`, not answered): a launched program whose
    /// connection closes without it takes the engine for dead and ends itself.
    fn detach(&mut self, ctx: &mut SessionContext<'_>) {
        self.send_to_debuggee(ctx, message::request("dapper/detach", json!({})));
        self.drop_debuggee_connection(ctx);
        if let Some(launch) = self.program.as_mut() {
            launch.process.gone();
            if let Some(process) = launch.process.spawned {
                ctx.disown_process(process);
            }
            ctx.log(
                LogLevel::Info,
                "Left the debuggee running, as the client asked.",
            );
        }
    }

    /// Completes a `disconnect` that waited for the debuggee's exit.
    pub(super) fn finish_waiting_disconnect(
        &mut self,
        ctx: &mut SessionContext<'_>,
        disconnect: Disconnect,
    ) {
        self.cancel_timer(ctx, disconnect.timer);
        self.finish_disconnect(ctx, disconnect.seq);
    }

    /// Completes the `disconnect` of client seq `seq`: `terminated` if not yet sent,
    /// the response, and the end of the client stream.
    fn finish_disconnect(&mut self, ctx: &mut SessionContext<'_>, seq: i64) {
        if self.program.is_some() {
            self.send_terminated(ctx);
        }
        self.respond_ok(ctx, seq, "disconnect", None);
        self.close_client(ctx);
        self.lifecycle.finish();
    }

    pub(super) fn on_disconnect_deadline(&mut self, ctx: &mut SessionContext<'_>) {
        ctx.log(
            LogLevel::Warn,
            format!("The debuggee was not reported gone within {} seconds of SIGKILL; ending the session without its exit code.", DISCONNECT_DEADLINE_MS / 1000),
        );
        if let Some(disconnect) = self.lifecycle.take_disconnect() {
            self.finish_waiting_disconnect(ctx, disconnect);
        }
    }

    pub(super) fn on_terminate(&mut self, ctx: &mut SessionContext<'_>, request: Request) {
        self.respond_ok(ctx, request.seq, "terminate", None);
        if self.pending.launch().is_some() {
            let error = DapError::silent(
                codes::LAUNCH_FAILED,
                "The debug session was stopped before the debuggee was ready.",
            );
            self.fail_launch(ctx, error);
            return;
        }
        if self.debuggee_alive() {
            if self.kill_debuggee(ctx, Signal::Term) {
                self.set_timer(
                    ctx,
                    TERMINATE_ESCALATION_MS,
                    TimerPurpose::TerminateEscalation,
                );
            }
        } else if self.program.is_some() {
            self.send_terminated(ctx);
        }
    }

    pub(super) fn on_terminate_escalation(&mut self, ctx: &mut SessionContext<'_>) {
        if self.debuggee_alive() {
            ctx.log(
                LogLevel::Info,
                format!(
                    "The debuggee ignored SIGTERM for {} seconds; sending SIGKILL.",
                    TERMINATE_ESCALATION_MS / 1000
                ),
            );
            self.kill_debuggee(ctx, Signal::Kill);
        }
    }

    pub fn on_client_closed(&mut self, ctx: &mut SessionContext<'_>) {
        self.client.closed = true;
        if self.is_user_attach() && self.debuggee_alive() {
            // A program the user started outlives the client, as after a disconnect.
            self.detach(ctx);
        } else if self.debuggee_alive() {
            ctx.log(
                LogLevel::Info,
                "The client went away; killing its debuggee.",
            );
            self.kill_debuggee(ctx, Signal::Kill);
        }
        self.lifecycle.finish();
    }

    /// Ends this child session because its parent is stopping: its process is sent
    /// `signal`, or, without one, left running without the debugger (its connection
    /// closes); its client gets `terminated` now, before the parent's.
    pub fn end_with_parent(&mut self, ctx: &mut SessionContext<'_>, signal: Option<Signal>) {
        if self.lifecycle.terminated() == Some(Terminated::Sent) || self.lifecycle.is_finished() {
            return;
        }
        if self.pending.launch().is_some() {
            let error = DapError::silent(
                codes::DEBUGGEE_GONE,
                "The parent session stopped before this child session was ready.",
            );
            self.fail_launch(ctx, error);
        }
        self.drop_debuggee_connection(ctx);
        if let Some(signal) = signal {
            self.kill_debuggee(ctx, signal);
        }
        self.cancel_timers_for(ctx, TimerPurpose::TerminateEscalation);
        if let Some(launch) = self.program.as_mut() {
            launch.process.gone();
            // drop_debuggee_connection closed the connection already.
            launch.stage.end();
        }
        self.send_terminated(ctx);
        if let Some(disconnect) = self.lifecycle.take_disconnect() {
            self.finish_waiting_disconnect(ctx, disconnect);
        }
    }

    /// Goes on with the `disconnect`/`terminate` that waited for the children to end.
    pub fn resume_deferred_stop(&mut self, ctx: &mut SessionContext<'_>) {
        if let Some(request) = self.lifecycle.take_after_children() {
            self.on_request(ctx, request);
        }
    }

    /// Sends the `terminated` that waited for the children, once none is live.
    pub fn send_deferred_terminated(&mut self, ctx: &mut SessionContext<'_>) {
        if self.lifecycle.terminated() == Some(Terminated::Deferred) {
            self.send_terminated(ctx);
        }
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
        // What the client asked of the debuggee meanwhile (it heard `initialized` when
        // the configuration was sent) is answered: no answer comes from a closed connection.
        self.abandon_debuggee_requests(ctx);
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
}

#[cfg(test)]
mod tests {
    use super::signal_number;
    use crate::Platform;

    #[test]
    fn numbers_signals_per_platform() {
        let cases = [
            ("SIGKILL", Platform::Linux, Some(9)),
            ("SIGSEGV", Platform::Darwin, Some(11)),
            ("SIGBUS", Platform::Linux, Some(7)),
            ("SIGBUS", Platform::Darwin, Some(10)),
            ("SIGUSR1", Platform::Darwin, Some(30)),
            ("SIGWHAT", Platform::Linux, None),
        ];
        for (name, platform, expected) in cases {
            assert_eq!(
                signal_number(name, platform),
                expected,
                "{name} on {platform:?}"
            );
        }
    }
}
