//! Where a session's debuggee is, as a type per stage that holds exactly the data of
//! that stage: the fact request only while facts are gathered, the host's
//! `PYTHONPATH` only until the launcher's environment is built, the pending
//! `connect` only while an attach connects, the debuggee's connection only once it
//! said hello. A stage moves forward only.

use super::connection::Connection;
use super::facts::FactRole;
use crate::{ConnectRequestId, FactRequestId};

pub enum Stage {
    /// The host answers the fact queries of `request`, in the order of `roles`.
    GatheringFacts {
        request: FactRequestId,
        roles: Vec<FactRole>,
    },
    /// The listener the debuggee will connect to is opening; the host's own
    /// `PYTHONPATH` waits to go into the launcher's environment.
    OpeningListener { host_pythonpath: Option<String> },
    /// The debuggee was started (or the client asked to start it, or an attach
    /// waits for it); no hello yet. `connect`: a user's attach whose `connect` the
    /// host has not answered.
    Starting { connect: Option<ConnectRequestId> },
    /// The debuggee said hello.
    Connected(Connected),
    /// The launch failed, or the debuggee has exited.
    Over,
}

/// A debuggee that said hello.
pub struct Connected {
    /// Its connection; `None` once the connection closed while the process runs on
    /// (its exit is still to be reported).
    pub connection: Option<Connection>,
    pub step: Step,
}

/// How far the DAP configuration of a connected debuggee has come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `dapper/configure` is on its way.
    Configuring,
    /// `initialized` was sent; the client is configuring breakpoints.
    Configured,
    /// `configurationDone` was answered; the user's code runs.
    Running,
}

impl Stage {
    /// The stage of a debuggee whose hello just arrived on `connection`.
    pub fn connected(connection: Connection) -> Stage {
        Stage::Connected(Connected {
            connection: Some(connection),
            step: Step::Configuring,
        })
    }

    /// Whether the debuggee is started (or waited for) and has not said hello.
    pub fn is_starting(&self) -> bool {
        matches!(self, Stage::Starting { .. })
    }

    pub fn is_over(&self) -> bool {
        matches!(self, Stage::Over)
    }

    /// Whether the debuggee got as far as its hello (and may have exited since).
    pub fn got_hello(&self) -> bool {
        matches!(self, Stage::Connected(_) | Stage::Over)
    }

    /// Whether an attach waits for the host to answer its `connect`.
    pub fn is_connecting(&self) -> bool {
        matches!(self, Stage::Starting { connect: Some(_) })
    }

    /// The debuggee's live connection.
    pub fn connection(&self) -> Option<&Connection> {
        match self {
            Stage::Connected(connected) => connected.connection.as_ref(),
            _ => None,
        }
    }

    pub fn connection_mut(&mut self) -> Option<&mut Connection> {
        match self {
            Stage::Connected(connected) => connected.connection.as_mut(),
            _ => None,
        }
    }

    /// Takes the live connection out (the stage stays), for the caller to close.
    pub fn take_connection(&mut self) -> Option<Connection> {
        match self {
            Stage::Connected(connected) => connected.connection.take(),
            _ => None,
        }
    }

    /// Moves to `Over`, handing back the connection that was live, for the caller
    /// to close.
    pub fn end(&mut self) -> Option<Connection> {
        let connection = self.take_connection();
        *self = Stage::Over;
        connection
    }
}
