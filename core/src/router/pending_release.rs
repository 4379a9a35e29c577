//! Pending children when their tree ends: a session asked to stop no longer waits for
//! its running children's sessions, and a released session's pending children go.

use super::Router;
use crate::context::SessionKey;

impl Router {
    /// A session that is asked to stop no longer waits for the sessions of its children
    /// that ran on their inheritance: they are forgotten (a child still running runs on
    /// untraced, as one whose session never came does).
    pub(super) fn stop_awaiting_children_of(&mut self, session: SessionKey) {
        let awaited: Vec<String> = self
            .children
            .children
            .iter()
            .filter(|(_, child)| {
                child.parent == Some(session)
                    && child
                        .connection
                        .as_ref()
                        .is_some_and(|connection| connection.inherited.is_some())
            })
            .map(|(id, _)| id.clone())
            .collect();
        for session_id in awaited {
            if let Some(child) = self.children.children.remove(&session_id) {
                self.settle_awaited(&child);
                if let Some(timer) = child.timer {
                    self.ctx.cancel_timer(timer);
                }
                if let Some(connection) = child.connection.filter(|c| !c.ended) {
                    self.ctx.close_connection(connection.conn);
                }
            }
        }
    }

    /// Drops the pending children of a session that is being released.
    pub(super) fn forget_children_of(&mut self, session: SessionKey) {
        self.children.shared_breakpoints.remove(&session);
        for session_id in self.children.of_session(session) {
            if let Some(child) = self.children.children.remove(&session_id) {
                self.settle_awaited(&child);
                if let Some(timer) = child.timer {
                    self.ctx.cancel_timer(timer);
                }
                if let Some(connection) = child.connection {
                    self.ctx.close_connection(connection.conn);
                }
            }
        }
    }
}
