//! The pending-child table: child processes the engine knows of (announced by their
//! parent's debuggee, or connected to the root's child listener, or both) and not
//! yet bound to a session, by the sessionId their debuggee chose.

use super::sent_while_running::SentWhileRunning;
use crate::context::SessionKey;
use crate::ipc::frame::FrameDecoder;
use crate::ipc::hello::ChildHello;
use crate::session::{ClientKind, LastBreakpoints};
use crate::{ConnectionId, TimerId};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// How long the second half of a child (its connection, or its announcement) may
/// keep the first half waiting.
pub const CHILD_MATCH_TIMEOUT_MS: u64 = 10_000;
/// How long a client has, after `startDebugging`, to attach a session to the child.
pub const CHILD_ATTACH_TIMEOUT_MS: u64 = 30_000;
/// How long a child that runs on its inheritance goes before its client is asked for its
/// session, unless it sends something that session must show first. It is about what
/// VS Code takes to start a session: a child that ends within it, with nothing to show,
/// was over before its session could have shown anything, and the client is spared
/// making one (a test suite may start hundreds of such children, and on a machine of
/// few cores every session the client makes is time taken from the program).
pub const CHILD_SESSION_DELAY_MS: u64 = 100;
/// The kinds of client whose way with a child's breakpoints the engine remembers from
/// one tree to the next: an engine serves one editor, or a few; past this, what a new
/// kind's trees show is not kept.
pub const MOST_CLIENT_KINDS: usize = 32;
/// Bytes a child that runs before its session came may have sent for it, past which
/// its connection is not read until the session comes (the child then waits on a full
/// socket, as a program writing to a slow terminal does).
pub const PENDING_PAUSE_AT: usize = 1 << 20;

/// The connection of a child process that said a valid hello.
pub struct ChildConnection {
    pub conn: ConnectionId,
    pub decoder: FrameDecoder,
    pub hello: ChildHello,
    /// The root session whose listener it connected to.
    pub root: SessionKey,
    /// The seq of the engine's next request on it.
    pub next_seq: i64,
    /// The breakpoints it was sent to run on (`dapper/inherit`), if it was.
    pub inherited: Option<LastBreakpoints>,
    /// It ran on them to its end: the connection is closed, what it sent kept.
    pub ended: bool,
    /// Its bytes are no longer read: what it sent waits for its session (past
    /// `PENDING_PAUSE_AT`).
    pub paused: bool,
}

/// A child process the engine knows of, not yet bound to a session.
pub struct PendingChild {
    /// The private, unguessable key of `__dapperChildSessionId`.
    pub key: String,
    /// The session whose debuggee announced the child (its parent session).
    pub parent: Option<SessionKey>,
    /// The body of `dapper/childProcess`.
    pub announcement: Option<Map<String, Value>>,
    pub connection: Option<ChildConnection>,
    pub timer: Option<TimerId>,
    pub stage: ChildStage,
}

/// Where a pending child is on its way to a session.
pub enum ChildStage {
    /// One of its halves (its connection, its announcement) has not come.
    Matching,
    /// It runs on its inheritance, and the client has not been asked for its session:
    /// the attach configuration it will be asked with, and what the child has sent.
    Running {
        configuration: Map<String, Value>,
        sent: SentWhileRunning,
    },
    /// `startDebugging` went to the client.
    Asked,
}

/// The pending children by the sessionId their debuggee chose.
#[derive(Default)]
pub struct ChildTable {
    pub children: BTreeMap<String, PendingChild>,
    /// By root session: whether its client gave the first child session it configured
    /// the breakpoints its parent had (clients that keep one set of breakpoints for all
    /// sessions do), so that later children may run on their parent's
    /// (session/inheritance.rs). Not there until a child's client has configured it.
    pub shared_breakpoints: BTreeMap<SessionKey, bool>,
    /// The same, by the kind of client of the tree it was learnt in, for a tree whose
    /// own first child is not configured yet (at most `MOST_CLIENT_KINDS` of them).
    pub shared_by_client: BTreeMap<ClientKind, bool>,
}

impl ChildTable {
    pub fn by_conn(&self, conn: ConnectionId) -> Option<String> {
        self.children
            .iter()
            .find(|(_, child)| child.connection.as_ref().is_some_and(|c| c.conn == conn))
            .map(|(id, _)| id.clone())
    }

    pub fn by_timer(&self, timer: TimerId) -> Option<String> {
        self.children
            .iter()
            .find(|(_, child)| child.timer == Some(timer))
            .map(|(id, _)| id.clone())
    }

    pub fn by_key(&self, key: &str) -> Option<String> {
        self.children
            .iter()
            .find(|(_, child)| child.key == key)
            .map(|(id, _)| id.clone())
    }

    pub fn by_pid(&self, pid: u64) -> Option<String> {
        self.children
            .iter()
            .find(|(_, child)| {
                let announced = child
                    .announcement
                    .as_ref()
                    .and_then(|body| body.get("pid"))
                    .and_then(Value::as_u64);
                let hello = child.connection.as_ref().and_then(|c| c.hello.pid);
                announced == Some(pid) || hello.map(u64::from) == Some(pid)
            })
            .map(|(id, _)| id.clone())
    }

    /// The children that belong to a session's tree (announced by it or connected to
    /// its listener).
    pub fn of_session(&self, session: SessionKey) -> Vec<String> {
        self.children
            .iter()
            .filter(|(_, child)| {
                child.parent == Some(session)
                    || child.connection.as_ref().is_some_and(|c| c.root == session)
            })
            .map(|(id, _)| id.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::CHILD_SESSION_DELAY_MS;

    /// A dormant child that ends soon enough after its hello closes without waiting for
    /// the engine (extension/python/dapperdbg/session/dormant.py, `QUIET_END_SECONDS`),
    /// on the promise that its client cannot have been asked for its session yet: the
    /// engine's delay must stay at least twice that time.
    #[test]
    fn the_session_delay_outlasts_a_quiet_childs_end() {
        let source = include_str!("../../../extension/python/dapperdbg/session/dormant.py");
        let seconds: f64 = source
            .lines()
            .find_map(|line| line.strip_prefix("QUIET_END_SECONDS = "))
            .and_then(|value| value.trim().parse().ok())
            .expect("dormant.py sets QUIET_END_SECONDS to a number of seconds");
        #[allow(clippy::cast_precision_loss)]
        let delay_seconds = CHILD_SESSION_DELAY_MS as f64 / 1000.0;
        assert!(
            delay_seconds >= 2.0 * seconds,
            "CHILD_SESSION_DELAY_MS ({CHILD_SESSION_DELAY_MS}) must be at least twice dormant.py's QUIET_END_SECONDS ({seconds} s)"
        );
    }
}
