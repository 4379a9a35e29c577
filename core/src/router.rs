//! Which session each client, connection, process, timer, listener and fact request
//! belongs to, and the release of everything a finished session held.
//!
//! Sessions form a tree through `Session::parent`; today every session is a root
//! (child sessions for subprocesses arrive with `startDebugging`).

use crate::context::{Context, SessionKey};
use crate::session::Session;
use crate::{ClientId, EngineOptions, Input, LogLevel, Output};
use std::collections::BTreeMap;

pub struct Router {
    ctx: Context,
    sessions: BTreeMap<SessionKey, Session>,
    clients: BTreeMap<ClientId, SessionKey>,
    next_session: u32,
}

impl Router {
    pub fn new(options: EngineOptions) -> Result<Router, String> {
        Ok(Router {
            ctx: Context::new(options)?,
            sessions: BTreeMap::new(),
            clients: BTreeMap::new(),
            next_session: 0,
        })
    }

    pub fn handle(&mut self, now_ms: u64, input: Input) -> Vec<Output> {
        self.ctx.now_ms = now_ms;
        match input {
            Input::ClientOpened { client, framing } => {
                if self.clients.contains_key(&client) {
                    self.ctx.log(
                        LogLevel::Error,
                        format!(
                            "The host opened client {client} twice; the second open is ignored."
                        ),
                    );
                } else {
                    self.next_session += 1;
                    let key = SessionKey(self.next_session);
                    self.sessions
                        .insert(key, Session::new(key, None, client, framing));
                    self.clients.insert(client, key);
                    self.ctx.log(
                        LogLevel::Debug,
                        format!("Client {client} opened ({framing:?} framing)."),
                    );
                }
            }
            Input::ClientMessage { client, message } => {
                self.with_client(client, "a message", |session, ctx| {
                    session.on_client_message(ctx, message)
                })
            }
            Input::ClientBytes { client, data } => {
                self.with_client(client, "bytes", |session, ctx| {
                    session.on_client_bytes(ctx, &data.0)
                })
            }
            Input::ClientClosed { client } => {
                self.with_client(client, "a close", |session, ctx| {
                    session.on_client_closed(ctx)
                })
            }
            Input::ListenerOpened { listener, address } => {
                let owner = self.ctx.owners.listeners.get(&listener).copied();
                self.with_session(
                    owner,
                    format_args!("listener {listener} opened"),
                    |session, ctx| session.on_listener_opened(ctx, listener, address),
                )
            }
            Input::ListenerFailed { listener, error } => {
                let owner = self.ctx.owners.listeners.remove(&listener);
                self.with_session(
                    owner,
                    format_args!("listener {listener} failed"),
                    |session, ctx| session.on_listener_failed(ctx, listener, &error),
                )
            }
            Input::ConnectionAccepted { listener, conn } => {
                let owner = self.ctx.owners.listeners.get(&listener).copied();
                if owner.is_none() {
                    // Nobody wants this peer; leaving it open would leak the socket.
                    self.ctx.emit(Output::Close { conn });
                }
                self.with_session(
                    owner,
                    format_args!("connection {conn} accepted on listener {listener}"),
                    |session, ctx| {
                        ctx.adopt_connection(conn);
                        session.on_connection_accepted(ctx, conn)
                    },
                )
            }
            Input::ConnectionBytes { conn, data } => {
                let owner = self.ctx.owners.conns.get(&conn).copied();
                self.with_session(
                    owner,
                    format_args!("bytes on connection {conn}"),
                    |session, ctx| session.on_connection_bytes(ctx, conn, &data.0),
                )
            }
            Input::ConnectionClosed { conn, error } => {
                let owner = self.ctx.owners.conns.get(&conn).copied();
                self.ctx.connection_closed(conn);
                self.with_session(
                    owner,
                    format_args!("connection {conn} closed"),
                    |session, ctx| session.on_connection_closed(ctx, conn, error.as_deref()),
                )
            }
            Input::ProcessSpawned { process, pid } => {
                let owner = self.ctx.owners.processes.get(&process).copied();
                self.with_session(
                    owner,
                    format_args!("process {process} spawned"),
                    |session, ctx| session.on_process_spawned(ctx, process, pid),
                )
            }
            Input::SpawnFailed { process, error } => {
                let owner = self.ctx.owners.processes.get(&process).copied();
                self.ctx.process_exited(process);
                self.with_session(
                    owner,
                    format_args!("process {process} failed to spawn"),
                    |session, ctx| session.on_spawn_failed(ctx, process, &error),
                )
            }
            Input::ProcessOutput {
                process,
                stream,
                data,
            } => {
                let owner = self.ctx.owners.processes.get(&process).copied();
                self.with_session(
                    owner,
                    format_args!("output of process {process}"),
                    |session, ctx| session.on_process_output(ctx, process, stream, &data.0),
                )
            }
            Input::ProcessExited {
                process,
                code,
                signal,
            } => {
                let owner = self.ctx.owners.processes.get(&process).copied();
                self.ctx.process_exited(process);
                self.with_session(
                    owner,
                    format_args!("process {process} exited"),
                    |session, ctx| session.on_process_exited(ctx, process, code, signal.as_deref()),
                )
            }
            Input::TimerFired { timer } => {
                let owner = self.ctx.owners.timers.get(&timer).copied();
                self.ctx.timer_fired(timer);
                self.with_session(
                    owner,
                    format_args!("timer {timer} fired"),
                    |session, ctx| session.on_timer(ctx, timer),
                )
            }
            Input::FactsGathered { request, facts } => {
                let owner = self.ctx.owners.facts.get(&request).copied();
                self.ctx.facts_answered(request);
                self.with_session(
                    owner,
                    format_args!("facts for request {request}"),
                    |session, ctx| session.on_facts(ctx, request, facts),
                )
            }
        }
        std::mem::take(&mut self.ctx.outputs)
    }

    fn with_client(
        &mut self,
        client: ClientId,
        what: &str,
        handle: impl FnOnce(&mut Session, &mut Context),
    ) {
        let owner = self.clients.get(&client).copied();
        if owner.is_none() {
            // The host reports clientClosed also for clients the engine closed itself,
            // after their session was released: that one is expected.
            let level = if what == "a close" {
                LogLevel::Debug
            } else {
                LogLevel::Warn
            };
            self.ctx.log(
                level,
                format!("Ignored {what} from client {client}, which is not open."),
            );
            return;
        }
        self.with_session(owner, format_args!("{what} from client {client}"), handle);
    }

    /// Runs `handle` on the owning session, then releases the session if it finished.
    /// Facts about ids nobody owns (a session already ended) are logged and dropped.
    fn with_session(
        &mut self,
        owner: Option<SessionKey>,
        what: std::fmt::Arguments<'_>,
        handle: impl FnOnce(&mut Session, &mut Context),
    ) {
        let Some(key) = owner else {
            self.ctx.log(
                LogLevel::Debug,
                format!("Ignored {what}: no session owns it."),
            );
            return;
        };
        let Some(session) = self.sessions.get_mut(&key) else {
            self.ctx.log(
                LogLevel::Debug,
                format!("Ignored {what}: its session has ended."),
            );
            return;
        };
        self.ctx.current = key;
        handle(session, &mut self.ctx);
        if session.is_finished() {
            self.release(key);
        }
    }

    /// Removes a finished session and lets go of everything it still held, so that
    /// no timer, listener, connection or process outlives it.
    fn release(&mut self, key: SessionKey) {
        let Some(session) = self.sessions.remove(&key) else {
            return;
        };
        self.clients.retain(|_, owner| *owner != key);
        let owned = self.ctx.owners.take_all(key);
        for timer in owned.timers {
            self.ctx.emit(Output::CancelTimer { timer });
        }
        for listener in owned.listeners {
            self.ctx.emit(Output::CloseListener { listener });
        }
        for conn in owned.conns {
            self.ctx.emit(Output::Close { conn });
        }
        for process in owned.processes {
            self.ctx.release_process(process);
        }
        self.ctx.log(
            LogLevel::Debug,
            format!("Session of client {} released.", session.client_id()),
        );
    }
}
