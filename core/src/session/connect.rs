//! Connections on a program's listener before they are known (`impl Program`): the
//! root debuggee's `dapper/hello`, child processes' `dapper/sessionHello` (handed to
//! the router), and peers that say nothing or the wrong thing. Each first frame is
//! decided here (`Candidate`); the session acts on the decision (starting.rs).

use super::connection::{parse_payload, Connection};
use super::program::{Origin, Program};
use super::stage::Stage;
use crate::config::Target;
use crate::context::{Note, SessionContext};
use crate::dap::error::{codes, DapError};
use crate::ipc::frame::FrameDecoder;
use crate::ipc::hello;
use crate::{ConnectionId, LogLevel};

/// How long a peer of the child listener has to say its hello.
pub const CANDIDATE_HELLO_DEADLINE_MS: u64 = 10_000;

/// Why a peer of the listener was refused.
struct Refusal {
    /// For the log.
    reason: String,
    /// For the user, when only the user can fix it (a package of another protocol).
    for_user: Option<String>,
    /// Whether the peer said a child's hello.
    child: bool,
}

impl Refusal {
    fn quiet(reason: &str) -> Refusal {
        Refusal {
            reason: reason.to_string(),
            for_user: None,
            child: false,
        }
    }
}

/// What a peer's first frame decided.
pub enum Candidate {
    /// Nothing yet, or nothing for this session (a child's hello goes to the router).
    Undecided,
    /// The peer was refused and closed; with what the user must hear of it, when only
    /// the user can fix it.
    Refused(Option<Verdict>),
    /// The debuggee said hello; these peers that connected meanwhile wait on.
    Connected { waiting: Vec<ConnectionId> },
}

/// What the session does about a refused peer the user must hear of.
pub enum Verdict {
    /// The user's own child process: the parent session goes on, and the debug console
    /// says why the child is not debugged.
    Tell(String),
    /// The debuggee of the launch (or of an attach by process id): the start fails.
    Fail(DapError),
}

impl Program {
    /// A peer connected to the listener. Besides its own debuggee, a root session's
    /// listener takes the connections of child processes for as long as the session
    /// debugs children. Returns whether the peer needs a hello deadline of its own,
    /// or `None` when this program waits for no peer.
    pub fn accept(&mut self, conn: ConnectionId) -> Option<bool> {
        let starting = self.stage.is_starting();
        let debugs_children =
            self.listener.is_some() && self.child_listener.is_some() && !self.stage.is_over();
        if !starting && !debugs_children {
            return None;
        }
        self.candidates.insert(conn, FrameDecoder::default());
        // While starting, the launch's own hello deadline covers every peer (a listen
        // attach has none, so each of its peers gets its own); afterwards each peer of
        // the child listener gets its own.
        Some(!starting || self.listens())
    }

    /// A peer of the child listener that never said hello is closed.
    pub fn candidate_hello_deadline(&mut self, ctx: &mut SessionContext<'_>, conn: ConnectionId) {
        if self.candidates.remove(&conn).is_some() {
            ctx.log(
                LogLevel::Warn,
                format!(
                    "Closed connection {conn}: it said no hello within {} seconds.",
                    CANDIDATE_HELLO_DEADLINE_MS / 1000
                ),
            );
            ctx.close_connection(conn);
        }
    }

    /// Reads the first frame of a peer that has not said hello yet, one of those that
    /// carry the token: the launch's (or injected attach's) debuggee, or a child.
    pub fn check_candidate(
        &mut self,
        ctx: &mut SessionContext<'_>,
        conn: ConnectionId,
    ) -> Candidate {
        let Some(decoder) = self.candidates.get_mut(&conn) else {
            return Candidate::Undecided;
        };
        let verdict =
            match decoder.next_frame() {
                Ok(None) => return Candidate::Undecided,
                Err(error) => Err(Refusal::quiet(&error.to_string())),
                Ok(Some(frame)) => match parse_payload(&frame.payload) {
                    Err(error) => Err(Refusal::quiet(&error)),
                    Ok(incoming) if hello::is_child_hello(&incoming) => {
                        match hello::check_child(&incoming, &self.token) {
                            Ok(child) => {
                                // The router matches it with the child's announcement.
                                if let Some(decoder) = self.candidates.remove(&conn) {
                                    ctx.note(Note::ChildHello {
                                        conn,
                                        decoder,
                                        hello: child,
                                    });
                                }
                                return Candidate::Undecided;
                            }
                            Err(error) => Err(Refusal {
                                reason: format!("{error} (a child's {})", hello::CHILD_HELLO),
                                for_user: error.protocol_mismatch(),
                                child: true,
                            }),
                        }
                    }
                    Ok(_) if !self.stage.is_starting() => Err(Refusal::quiet(
                        "this session's debuggee has already connected",
                    )),
                    Ok(incoming) => match hello::check_refusal(&incoming, &self.token) {
                        // A bootstrap injected into a process that Dapper debugs already.
                        Some(reason) => Err(Refusal {
                            for_user: Some(format!(
                                "Dapper could not attach to {}: {reason}",
                                self.process_name()
                            )),
                            reason,
                            child: false,
                        }),
                        None => hello::check(&incoming, &self.token, &self.session_id).map_err(
                            |error| Refusal {
                                reason: error.to_string(),
                                for_user: error.protocol_mismatch(),
                                child: false,
                            },
                        ),
                    },
                },
            };
        let hello = match verdict {
            Ok(hello) => hello,
            Err(refusal) => {
                self.candidates.remove(&conn);
                ctx.log(
                    LogLevel::Warn,
                    format!("Refused debuggee connection {conn}: {}.", refusal.reason),
                );
                ctx.close_connection(conn);
                return Candidate::Refused(refusal.for_user.map(|text| {
                    if refusal.child {
                        // The user's own child process: the parent session goes on.
                        Verdict::Tell(format!("Dapper did not debug a child process: {text}\n"))
                    } else {
                        let code = if matches!(self.origin, Origin::Injected(_)) {
                            codes::ATTACH_FAILED
                        } else {
                            codes::LAUNCH_FAILED
                        };
                        Verdict::Fail(DapError::user(code, text))
                    }
                }));
            }
        };
        let Some(decoder) = self.candidates.remove(&conn) else {
            return Candidate::Undecided;
        };
        self.keep_listener_only_for_children(ctx);
        ctx.log(
            LogLevel::Info,
            format!(
                "Debuggee {} connected (pid {}, Python {}).",
                hello.session_id,
                hello
                    .pid
                    .map_or("unknown".to_string(), |pid| pid.to_string()),
                hello.python_version.as_deref().unwrap_or("unknown"),
            ),
        );
        self.process.hello_pid = hello.pid;
        if let (Origin::Injected(_), Some(name)) = (&self.origin, hello.name) {
            // A program attached to by its process id says what it runs.
            self.config.target = Target::Child(name);
        }
        self.stage = Stage::connected(Connection::new(
            conn,
            decoder,
            hello.pid.or(self.process.pid).or(self.process.terminal_pid),
        ));
        Candidate::Connected {
            waiting: self.candidates.keys().copied().collect(),
        }
    }
}
