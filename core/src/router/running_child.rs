//! A child that runs on its inheritance before its client was asked for its session:
//! the router asks for the session when the child has something to show, or forgets a
//! child that ended with nothing (what it sent is weighed in sent_while_running.rs).

use super::child_table::{ChildStage, CHILD_SESSION_DELAY_MS};
use super::Router;
use crate::context::SessionKey;
use crate::LogLevel;

impl Router {
    /// A child that runs before its session was asked for: asks for it now when what the
    /// child sent holds something for the session to show (when `ended`, anything but
    /// what is over with its process), or forgets it when it ended with nothing.
    pub(super) fn review_running_child(&mut self, session_id: &str, ended: bool) {
        let Some(child) = self.children.children.get_mut(session_id) else {
            return;
        };
        let (ChildStage::Running { sent, .. }, Some(connection), Some(parent)) =
            (&mut child.stage, child.connection.as_ref(), child.parent)
        else {
            return;
        };
        sent.review(&connection.decoder);
        let (to_show, exit_code) = (sent.to_show, sent.exit_code);
        if to_show || connection.paused {
            self.ask_running_child(session_id, parent);
        } else if ended {
            self.forget_quiet_child(session_id, exit_code);
        }
    }

    pub(super) fn ask_running_child(&mut self, session_id: &str, parent: SessionKey) {
        let Some(child) = self.children.children.get_mut(session_id) else {
            return;
        };
        if let ChildStage::Running { configuration, .. } =
            std::mem::replace(&mut child.stage, ChildStage::Asked)
        {
            self.ask_for_session(session_id, parent, configuration);
        }
    }

    /// A child that ran on its inheritance and ended before its session was asked for,
    /// with nothing for it to show: no session is made. Its parent's client had the
    /// public events of its start and its end.
    fn forget_quiet_child(&mut self, session_id: &str, exit_code: Option<i64>) {
        let Some(child) = self.children.children.remove(session_id) else {
            return;
        };
        if let Some(timer) = child.timer {
            self.ctx.cancel_timer(timer);
        }
        if let Some(parent) = self.settle_awaited(&child) {
            self.parent_may_terminate(parent);
        }
        let code = exit_code.map_or_else(
            || "no exit code".to_string(),
            |code| format!("exit code {code}"),
        );
        self.ctx.log(
            LogLevel::Info,
            format!("Child {session_id} ended ({code}) within {CHILD_SESSION_DELAY_MS} ms with nothing for a session to show; its client was not asked for one."),
        );
    }
}
