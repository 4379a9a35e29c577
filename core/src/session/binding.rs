//! The session's side of binding a child process (`impl Session`): the router hands it
//! the child's connection once the client's `attach` names the child, and the session
//! configures the child, or, for a child that ran on its inheritance to its end before
//! the session came (inheritance.rs), reports that end.

use super::child::ChildBinding;
use super::program::Program;
use super::state::Session;
use crate::context::SessionContext;
use crate::LogLevel;

impl Session {
    /// Binds this session to its child process's connection and configures it.
    pub fn bind_child(&mut self, ctx: &mut SessionContext<'_>, mut binding: ChildBinding) {
        if let Some(inherited) = binding.inherited.as_mut() {
            // Its own children inherit these until its client has configured it.
            self.last_breakpoints = std::mem::take(inherited);
        }
        let ended = binding.ended;
        match self.program.as_mut() {
            Some(program) if program.awaits_child() => program.bind(ctx, binding),
            _ => {
                ctx.log(
                    LogLevel::Error,
                    "A child process was bound to a session that is not waiting for one.",
                );
                ctx.close_connection(binding.conn);
                return;
            }
        }
        if ended {
            self.end_of_inherited_run(ctx);
        } else {
            self.configure_debuggee(ctx);
        }
    }

    /// A child that ran on its inheritance to its end before this session came: the
    /// client hears of its process, what it sent meanwhile, and its exit; there is
    /// nothing to configure (no `initialized`), and the attach is answered.
    fn end_of_inherited_run(&mut self, ctx: &mut SessionContext<'_>) {
        if let Some(body) = self.program.as_mut().map(Program::configured) {
            self.send_event(ctx, "process", Some(body));
        }
        self.drain_debuggee_frames(ctx);
        if let Some(launch) = self.program.as_mut() {
            launch.stage.take_connection();
        }
        self.debuggee_connection_lost(ctx);
    }
}
