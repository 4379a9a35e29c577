//! Connections on a session's listener before they are known: the root debuggee's
//! `dapper/hello`, child processes' `dapper/sessionHello` (handed to the router), and
//! peers that say nothing or the wrong thing.

use super::connection::{parse_payload, Connection};
use super::program::{Origin, Program};
use super::stage::Stage;
use super::state::Session;
use super::timers::TimerPurpose;
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

impl Session {
    pub fn on_connection_accepted(&mut self, ctx: &mut SessionContext<'_>, conn: ConnectionId) {
        // Besides its own debuggee, a root session's listener takes the connections of
        // child processes for as long as the session debugs children.
        match self.program.as_mut().filter(|launch| {
            launch.stage.is_starting()
                || (launch.listener.is_some()
                    && launch.child_listener.is_some()
                    && !launch.stage.is_over())
        }) {
            Some(launch) => {
                let starting = launch.stage.is_starting();
                let listening = matches!(launch.origin, Origin::Incoming(_));
                launch.candidates.insert(conn, FrameDecoder::default());
                // While starting, the launch's own hello deadline covers every peer
                // (a listen attach has none, so each of its peers gets its own);
                // afterwards each peer of the child listener gets its own.
                if !starting || listening {
                    self.set_timer(
                        ctx,
                        CANDIDATE_HELLO_DEADLINE_MS,
                        TimerPurpose::CandidateHello(conn),
                    );
                }
            }
            None => {
                ctx.log(
                    LogLevel::Warn,
                    format!(
                        "Closed connection {conn}: this session is not waiting for a debuggee."
                    ),
                );
                ctx.close_connection(conn);
            }
        }
    }

    /// A peer of the child listener that never said hello is closed.
    pub(super) fn on_candidate_hello_deadline(
        &mut self,
        ctx: &mut SessionContext<'_>,
        conn: ConnectionId,
    ) {
        let Some(launch) = self.program.as_mut() else {
            return;
        };
        if launch.candidates.remove(&conn).is_some() {
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

    /// Reads the first frame of a connection that has not said hello yet.
    pub(super) fn check_candidate(&mut self, ctx: &mut SessionContext<'_>, conn: ConnectionId) {
        self.check_candidate_frame(ctx, conn);
        let resolved = !self
            .program
            .as_ref()
            .is_some_and(|launch| launch.candidates.contains_key(&conn));
        if resolved {
            self.cancel_timers_for(ctx, TimerPurpose::CandidateHello(conn));
        }
    }

    fn check_candidate_frame(&mut self, ctx: &mut SessionContext<'_>, conn: ConnectionId) {
        // A token-less attach (connect, listen) takes the program first, then its
        // children (which carry the child token).
        let waits_for_program = self
            .program
            .as_ref()
            .is_some_and(|launch| launch.stage.is_starting());
        if self.is_listening_attach() && waits_for_program {
            self.check_attach_hello(ctx, conn);
            return;
        }
        let Some(launch) = self.program.as_mut() else {
            return;
        };
        let Some(decoder) = launch.candidates.get_mut(&conn) else {
            return;
        };
        let verdict = match decoder.next_frame() {
            Ok(None) => return,
            Err(error) => Err(Refusal::quiet(&error.to_string())),
            Ok(Some(frame)) => match parse_payload(&frame.payload) {
                Err(error) => Err(Refusal::quiet(&error)),
                Ok(incoming) if hello::is_child_hello(&incoming) => {
                    match hello::check_child(&incoming, &launch.token) {
                        Ok(child) => {
                            // The router matches it with the child's announcement.
                            if let Some(decoder) = launch.candidates.remove(&conn) {
                                ctx.note(Note::ChildHello {
                                    conn,
                                    decoder,
                                    hello: child,
                                });
                            }
                            return;
                        }
                        Err(error) => Err(Refusal {
                            reason: format!("{error} (a child's {})", hello::CHILD_HELLO),
                            for_user: error.protocol_mismatch(),
                            child: true,
                        }),
                    }
                }
                Ok(_) if !launch.stage.is_starting() => Err(Refusal::quiet(
                    "this session's debuggee has already connected",
                )),
                Ok(incoming) => match hello::check_refusal(&incoming, &launch.token) {
                    // A bootstrap injected into a process that Dapper debugs already.
                    Some(reason) => Err(Refusal {
                        for_user: Some(format!(
                            "Dapper could not attach to {}: {reason}",
                            launch.process_name()
                        )),
                        reason,
                        child: false,
                    }),
                    None => hello::check(&incoming, &launch.token, &launch.session_id).map_err(
                        |error| Refusal {
                            reason: error.to_string(),
                            for_user: error.protocol_mismatch(),
                            child: false,
                        },
                    ),
                },
            },
        };
        match verdict {
            Err(refusal) => {
                launch.candidates.remove(&conn);
                ctx.log(
                    LogLevel::Warn,
                    format!("Refused debuggee connection {conn}: {}.", refusal.reason),
                );
                ctx.close_connection(conn);
                match refusal.for_user {
                    // The user's own child process: the parent session goes on.
                    Some(text) if refusal.child => self.send_output(
                        ctx,
                        "important",
                        &format!("Dapper did not debug a child process: {text}\n"),
                    ),
                    Some(text) => {
                        let code = if matches!(launch.origin, Origin::Injected(_)) {
                            codes::ATTACH_FAILED
                        } else {
                            codes::LAUNCH_FAILED
                        };
                        self.fail_launch(ctx, DapError::user(code, text));
                    }
                    None => {}
                }
            }
            Ok(hello) => {
                let Some(decoder) = launch.candidates.remove(&conn) else {
                    return;
                };
                keep_listener_only_for_children(ctx, launch);
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
                launch.process.hello_pid = hello.pid;
                if let (Origin::Injected(_), Some(name)) = (&launch.origin, hello.name) {
                    // A program attached to by its process id says what it runs.
                    launch.config.target = Target::Child(name);
                }
                launch.stage = Stage::connected(Connection::new(
                    conn,
                    decoder,
                    hello
                        .pid
                        .or(launch.process.pid)
                        .or(launch.process.terminal_pid),
                ));
                let waiting: Vec<ConnectionId> = launch.candidates.keys().copied().collect();
                self.cancel_timers_for(ctx, TimerPurpose::HelloDeadline);
                self.cancel_timers_for(ctx, TimerPurpose::InjectDeadline);
                // Peers that connected while the launch was starting lose the launch's
                // deadline with it; each gets its own, as later peers do.
                for other in waiting {
                    self.set_timer(
                        ctx,
                        CANDIDATE_HELLO_DEADLINE_MS,
                        TimerPurpose::CandidateHello(other),
                    );
                }
                self.send_configure(ctx);
                self.drain_debuggee_frames(ctx);
            }
        }
    }
}

/// The debuggee said hello: without children to debug nothing else may connect (the
/// others waiting are closed, and the listener); with them the listener stays open as
/// the tree's shared child listener.
pub(super) fn keep_listener_only_for_children(ctx: &mut SessionContext<'_>, launch: &mut Program) {
    if launch.child_listener.is_none() {
        let others = std::mem::take(&mut launch.candidates);
        for other in others.into_keys() {
            ctx.close_connection(other);
        }
        if let Some(listener) = launch.listener.take() {
            ctx.close_listener(listener);
        }
    }
}
