//! The session's timers, each with the reason it was set (quinn's `TimerTable` in
//! spirit): the context issues the ids and tells the host; this table remembers why.

use crate::context::SessionContext;
use crate::{ConnectionId, TimerId};
use std::collections::BTreeMap;

/// Why the session set a timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerPurpose {
    /// The debuggee must say hello within this time after it was started.
    HelloDeadline,
    /// The client must answer `runInTerminal` (reverse request seq) in time.
    RunInTerminal(i64),
    /// `terminate` asked politely; now it is time to insist.
    TerminateEscalation,
    /// `disconnect` killed the debuggee; stop waiting for its exit.
    DisconnectDeadline,
    /// A connection on the child listener must say its hello in time.
    CandidateHello(ConnectionId),
    /// A user's attach must connect and hear the program's hello in time.
    AttachDeadline,
    /// An attach by process id must inject and hear the bootstrap's hello in time.
    InjectDeadline,
}

#[derive(Default)]
pub struct Timers {
    purposes: BTreeMap<TimerId, TimerPurpose>,
}

impl Timers {
    pub fn set(
        &mut self,
        ctx: &mut SessionContext<'_>,
        after_ms: u64,
        purpose: TimerPurpose,
    ) -> TimerId {
        let timer = ctx.set_timer(after_ms);
        self.purposes.insert(timer, purpose);
        timer
    }

    pub fn cancel(&mut self, ctx: &mut SessionContext<'_>, timer: TimerId) {
        self.purposes.remove(&timer);
        ctx.cancel_timer(timer);
    }

    /// Cancels every timer set for `purpose`.
    pub fn cancel_all(&mut self, ctx: &mut SessionContext<'_>, purpose: TimerPurpose) {
        let timers: Vec<TimerId> = self
            .purposes
            .iter()
            .filter(|(_, p)| **p == purpose)
            .map(|(t, _)| *t)
            .collect();
        for timer in timers {
            self.cancel(ctx, timer);
        }
    }

    /// Why `timer` was set, forgetting it; `None` when it stopped mattering.
    pub fn fired(&mut self, timer: TimerId) -> Option<TimerPurpose> {
        self.purposes.remove(&timer)
    }
}
