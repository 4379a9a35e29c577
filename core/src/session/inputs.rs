//! What the host and the router tell a session, each passed to the sub-state it is
//! about; the session acts on what that sub-state asks of it (fail the launch, tell
//! the client).

use super::state::Session;
use crate::context::SessionContext;
use crate::{InjectionId, LogLevel};

impl Session {
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
}
