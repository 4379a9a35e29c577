//! The one table of requests waiting on something: the client's requests the engine
//! answers later, requests forwarded to the debuggee, and reverse requests to the
//! client. Each kind of seq has its own number space, so the key names it.

use crate::TimerId;
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PendingKey {
    /// A request the client sent, by the client's seq.
    Client(i64),
    /// A request the engine sent the debuggee, by the engine's seq on that connection.
    Debuggee(i64),
    /// A reverse request the engine sent the client, by the engine's seq to the client.
    Reverse(i64),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pending {
    /// The client's `launch`, answered after `configurationDone` (or when it fails).
    Launch,
    /// A client request passed to the debuggee.
    Forwarded { client_seq: i64, command: String },
    /// The engine's own `dapper/configure`.
    Configure,
    /// `runInTerminal`, with the timer that gives up on the client.
    RunInTerminal { timer: TimerId },
    /// `startDebugging` for a child process, by the router's key for that child.
    StartDebugging { child: String },
    /// `dapper/terminate` to a program the user attached to; its answer changes nothing.
    Terminate,
}

#[derive(Default)]
pub struct PendingTable {
    entries: BTreeMap<PendingKey, Pending>,
}

impl PendingTable {
    pub fn insert(&mut self, key: PendingKey, pending: Pending) {
        self.entries.insert(key, pending);
    }

    pub fn remove(&mut self, key: PendingKey) -> Option<Pending> {
        self.entries.remove(&key)
    }

    /// Takes every entry of a kind, in seq order.
    pub fn drain_where(
        &mut self,
        mut keep_out: impl FnMut(&PendingKey, &Pending) -> bool,
    ) -> Vec<(PendingKey, Pending)> {
        let keys: Vec<PendingKey> = self
            .entries
            .iter()
            .filter(|(key, pending)| keep_out(key, pending))
            .map(|(key, _)| *key)
            .collect();
        keys.into_iter()
            .filter_map(|key| self.entries.remove(&key).map(|pending| (key, pending)))
            .collect()
    }

    /// Finds the client's pending `launch`.
    pub fn launch(&self) -> Option<i64> {
        self.entries
            .iter()
            .find_map(|(key, pending)| match (key, pending) {
                (PendingKey::Client(seq), Pending::Launch) => Some(*seq),
                _ => None,
            })
    }
}
