//! How far a session is on its way to its end, as a type per stage that holds exactly
//! its data: open; stopping, with what the stop still waits for (the child sessions,
//! the killed debuggee's exit, the child sessions' `terminated` before its own); and
//! finished. The debuggee's `exited` needs no mark of its own: it is said once, as its
//! stage becomes `Over` (stage.rs).

use crate::dap::message::Request;
use crate::TimerId;

pub enum Lifecycle {
    /// The session goes on, and nothing of its end is under way.
    Open,
    /// The session's end is under way.
    Stopping(Stopping),
    /// Over: the `disconnect` is answered, or the client is gone. Nothing more is read
    /// from the client, and the router releases the session.
    Finished,
}

/// What a stopping session has come to, and still waits for. At least one field is
/// set: a stop with nothing left is open again.
#[derive(Default)]
pub struct Stopping {
    /// A `disconnect` or `terminate` that came while child sessions lived: the router
    /// ends them first, then hands it back.
    after_children: Option<Request>,
    /// The client's `disconnect`, waiting for the killed debuggee to be reported gone.
    disconnect: Option<Disconnect>,
    /// The session's `terminated` event, once it was due.
    terminated: Option<Terminated>,
}

/// A `disconnect` (the client's seq) answered once the killed debuggee is reported
/// gone, or when `timer` gives up on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Disconnect {
    pub seq: i64,
    pub timer: TimerId,
}

/// Where a due `terminated` event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Terminated {
    /// Due, but waiting for live child sessions to send theirs.
    Deferred,
    Sent,
}

impl Lifecycle {
    pub fn is_finished(&self) -> bool {
        matches!(self, Lifecycle::Finished)
    }

    /// The session is over.
    pub fn finish(&mut self) {
        *self = Lifecycle::Finished;
    }

    fn stopping(&self) -> Option<&Stopping> {
        match self {
            Lifecycle::Stopping(stopping) => Some(stopping),
            _ => None,
        }
    }

    /// Changes what the stop waits for (starting it when the session was open), then
    /// opens the session again if the stop has nothing left. A finished session stays
    /// finished.
    fn change(&mut self, change: impl FnOnce(&mut Stopping)) {
        let mut stopping = match std::mem::replace(self, Lifecycle::Open) {
            Lifecycle::Open => Stopping::default(),
            Lifecycle::Stopping(stopping) => stopping,
            Lifecycle::Finished => {
                *self = Lifecycle::Finished;
                return;
            }
        };
        change(&mut stopping);
        if stopping.after_children.is_some()
            || stopping.disconnect.is_some()
            || stopping.terminated.is_some()
        {
            *self = Lifecycle::Stopping(stopping);
        }
    }

    /// Whether a `disconnect` or `terminate` waits for the child sessions to end.
    pub fn waits_for_children(&self) -> bool {
        self.stopping()
            .is_some_and(|stopping| stopping.after_children.is_some())
    }

    /// Holds `request` back until the router has ended the child sessions.
    pub fn after_children(&mut self, request: Request) {
        self.change(|stopping| stopping.after_children = Some(request));
    }

    /// The request that waited for the child sessions, now that they ended.
    pub fn take_after_children(&mut self) -> Option<Request> {
        let mut request = None;
        self.change(|stopping| request = stopping.after_children.take());
        request
    }

    /// The `disconnect` waiting for the debuggee's exit.
    pub fn disconnect(&self) -> Option<Disconnect> {
        self.stopping().and_then(|stopping| stopping.disconnect)
    }

    /// Answers `disconnect` once the killed debuggee is reported gone.
    pub fn wait_for_exit(&mut self, disconnect: Disconnect) {
        self.change(|stopping| stopping.disconnect = Some(disconnect));
    }

    /// The `disconnect` waiting for the debuggee's exit, to be answered now.
    pub fn take_disconnect(&mut self) -> Option<Disconnect> {
        let mut disconnect = None;
        self.change(|stopping| disconnect = stopping.disconnect.take());
        disconnect
    }

    /// Where the `terminated` event is; `None` while it was not due.
    pub fn terminated(&self) -> Option<Terminated> {
        self.stopping().and_then(|stopping| stopping.terminated)
    }

    pub fn set_terminated(&mut self, terminated: Terminated) {
        self.change(|stopping| stopping.terminated = Some(terminated));
    }
}

#[cfg(test)]
mod tests {
    use super::{Disconnect, Lifecycle, Terminated};
    use crate::TimerId;

    #[test]
    fn a_stop_with_nothing_left_is_open_again_and_the_end_is_last() {
        let disconnect = Disconnect {
            seq: 7,
            timer: TimerId(3),
        };
        let mut lifecycle = Lifecycle::Open;
        lifecycle.wait_for_exit(disconnect);
        assert!(matches!(lifecycle, Lifecycle::Stopping(_)));
        assert_eq!(lifecycle.disconnect(), Some(disconnect));
        assert_eq!(lifecycle.take_disconnect(), Some(disconnect));
        assert!(matches!(lifecycle, Lifecycle::Open));
        assert_eq!(lifecycle.take_disconnect(), None);

        lifecycle.set_terminated(Terminated::Deferred);
        lifecycle.wait_for_exit(disconnect);
        assert_eq!(lifecycle.take_disconnect(), Some(disconnect));
        // What the stop has come to stays: the deferred `terminated`.
        assert_eq!(lifecycle.terminated(), Some(Terminated::Deferred));
        assert!(!lifecycle.waits_for_children());

        lifecycle.finish();
        lifecycle.set_terminated(Terminated::Sent);
        lifecycle.wait_for_exit(disconnect);
        assert!(lifecycle.is_finished());
        assert_eq!(lifecycle.terminated(), None);
        assert_eq!(lifecycle.disconnect(), None);
        assert_eq!(lifecycle.take_after_children().map(|_| ()), None);
    }
}
