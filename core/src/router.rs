//! Which session each client, connection, process, timer, listener and fact request
//! belongs to, and the release of everything a finished session held.
//!
//! Sessions form a tree (`Context::tree`): a child session's parent is the session
//! whose debuggee started its process. The pending children live in `children`.

mod backlog;
mod child_table;
mod children;
mod pending_release;
mod relay;
mod relay_table;
mod running_child;
mod sent_while_running;

use crate::context::{Context, Note, Owned, SessionContext, SessionKey};
use crate::session::Session;
use crate::{
    Address, ClientId, ClientTransport, EngineOptions, Input, ListenerId, LogLevel, Output, Signal,
};
use backlog::Backlogs;
use child_table::ChildTable;
use relay_table::Relays;
use std::collections::BTreeMap;

pub struct Router {
    ctx: Context,
    sessions: BTreeMap<SessionKey, Session>,
    clients: BTreeMap<ClientId, SessionKey>,
    next_session: u32,
    children: ChildTable,
    /// Clients whose child session runs in another engine (relay.rs).
    relays: Relays,
    /// The engine's one listener for the clients of child sessions of stdio clients.
    client_listener: Option<ListenerId>,
    client_listener_address: Option<Address>,
    /// The sessions whose client is behind, and what is paused for them.
    backlogs: Backlogs,
}

impl Router {
    pub fn new(options: EngineOptions) -> Result<Router, String> {
        Ok(Router {
            ctx: Context::new(options)?,
            sessions: BTreeMap::new(),
            clients: BTreeMap::new(),
            next_session: 0,
            children: ChildTable::default(),
            relays: Relays::default(),
            client_listener: None,
            client_listener_address: None,
            backlogs: Backlogs::default(),
        })
    }

    pub fn handle(&mut self, input: Input) -> Vec<Output> {
        match input {
            Input::ClientOpened {
                client,
                framing,
                transport,
            } => {
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
                    let mut session = Session::new(key, client, framing);
                    session.stdio_client = transport == Some(ClientTransport::Stdio);
                    session.child_client_only = transport == Some(ClientTransport::ChildClient);
                    self.sessions.insert(key, session);
                    self.clients.insert(client, key);
                    if transport == Some(ClientTransport::Stdio) && self.client_listener.is_none() {
                        // A stdio client cannot open a second session on its adapter
                        // process; its child sessions connect here instead.
                        self.client_listener = Some(self.ctx.open_client_listener());
                    }
                    self.ctx.log(
                        LogLevel::Debug,
                        format!("Client {client} opened ({framing:?} framing)."),
                    );
                }
            }
            Input::ClientBytes { client, data } if self.relays.has_client(client) => {
                self.on_relay_client_bytes(client, data.0)
            }
            Input::ClientClosed { client } if self.relays.has_client(client) => {
                self.on_relay_client_closed(client)
            }
            Input::ConnectionBytes { conn, data } if self.relays.client_of(conn).is_some() => {
                if let Some(client) = self.relays.client_of(conn) {
                    self.on_relay_connection_bytes(client, data.0);
                }
            }
            Input::ConnectionClosed { conn, .. } if self.relays.client_of(conn).is_some() => {
                if let Some(client) = self.relays.client_of(conn) {
                    self.on_relay_connection_closed(client);
                }
            }
            Input::Connected { request, conn } if self.relays.waits_for(request) => {
                self.on_relay_connected(request, conn)
            }
            Input::ConnectFailed { request, error } if self.relays.waits_for(request) => {
                self.on_relay_connect_failed(request, &error)
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
            Input::ClientBacklog { client, bytes } => match self.clients.get(&client) {
                Some(&key) => self.backlogs.on_report(&mut self.ctx, key, client, bytes),
                None => self.ctx.log(
                    LogLevel::Debug,
                    format!("Ignored the backlog of client {client}, which is not open."),
                ),
            },
            Input::ClientClosed { client } => {
                if let Some(&key) = self.clients.get(&client) {
                    self.backlogs.client_closed(&mut self.ctx, key);
                }
                self.with_client(client, "a close", |session, ctx| {
                    session.on_client_closed(ctx)
                })
            }
            Input::ListenerOpened { listener, address }
                if self.client_listener == Some(listener) =>
            {
                let shown = match &address {
                    Address::Tcp { host, port } => format!("{host}:{port}"),
                    Address::Unix { path } => path.clone(),
                };
                self.ctx.log(
                    LogLevel::Info,
                    format!("Listening for child sessions' clients on {shown}."),
                );
                self.client_listener_address = Some(address);
            }
            Input::ListenerFailed { listener, error } if self.client_listener == Some(listener) => {
                self.ctx.log(
                    LogLevel::Warn,
                    format!("Could not listen for child sessions' clients ({error}); child processes of stdio clients will not be debugged."),
                );
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
            Input::PeerRefused { listener, reason } => {
                let owner = self.ctx.owners.listeners.get(&listener).copied();
                self.with_session(
                    owner,
                    format_args!("a peer refused on listener {listener}"),
                    |session, ctx| session.on_peer_refused(ctx, listener, &reason),
                )
            }
            Input::ConnectionBytes { conn, data } if self.children.by_conn(conn).is_some() => {
                if let Some(session_id) = self.children.by_conn(conn) {
                    self.on_pending_child_bytes(&session_id, &data.0);
                }
            }
            Input::ConnectionClosed { conn, .. } if self.children.by_conn(conn).is_some() => {
                if let Some(session_id) = self.children.by_conn(conn) {
                    self.on_pending_child_closed(&session_id);
                }
                self.ctx.connection_closed(conn);
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
            Input::TimerFired { timer } if self.children.by_timer(timer).is_some() => {
                self.ctx.timer_fired(timer);
                if let Some(session_id) = self.children.by_timer(timer) {
                    self.on_child_timer(&session_id);
                }
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
            Input::Connected { request, conn } => {
                let owner = self.ctx.owners.connects.remove(&request);
                if owner.is_none() {
                    // Its session ended while the host was connecting.
                    self.ctx.emit(Output::Close { conn });
                }
                self.with_session(
                    owner,
                    format_args!("connection {conn} for connect request {request}"),
                    |session, ctx| {
                        ctx.adopt_connection(conn);
                        session.on_connected(ctx, request, conn)
                    },
                )
            }
            Input::ConnectFailed { request, error } => {
                let owner = self.ctx.owners.connects.remove(&request);
                self.with_session(
                    owner,
                    format_args!("connect request {request} failed"),
                    |session, ctx| session.on_connect_failed(ctx, request, &error),
                )
            }
            Input::Injected { injection, method } => {
                let owner = self.ctx.owners.injections.remove(&injection);
                self.with_session(
                    owner,
                    format_args!("injection {injection} done"),
                    |session, ctx| session.on_injected(ctx, injection, method),
                )
            }
            Input::InjectFailed { injection, reason } => {
                let owner = self.ctx.owners.injections.remove(&injection);
                self.with_session(
                    owner,
                    format_args!("injection {injection} failed"),
                    |session, ctx| session.on_inject_failed(ctx, injection, &reason),
                )
            }
            Input::RandomnessGathered { hex } => self.ctx.randomness_gathered(&hex),
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
        self.settle();
        if !self.backlogs.is_empty() {
            self.backlogs.sync(&mut self.ctx);
        }
        std::mem::take(&mut self.ctx.outputs)
    }

    /// Acts on the sessions' notes and releases finished sessions, until neither
    /// leaves anything to do.
    fn settle(&mut self) {
        loop {
            while let Some((from, note)) = self.ctx.notes.pop_front() {
                self.on_note(from, note);
            }
            let finished: Vec<SessionKey> = self
                .sessions
                .iter()
                .filter(|(_, session)| session.is_finished())
                .map(|(key, _)| *key)
                .collect();
            if finished.is_empty() && self.ctx.notes.is_empty() {
                return;
            }
            for key in finished {
                self.release(key);
            }
        }
    }

    fn on_note(&mut self, from: SessionKey, note: Note) {
        match note {
            Note::ChildAnnounced { body } => self.on_child_announced(from, body),
            Note::ChildExited { body } => self.on_child_exited(&body),
            Note::ChildHello {
                conn,
                decoder,
                hello,
            } => self.on_child_hello(from, conn, decoder, hello),
            Note::StartDebuggingAnswered {
                child,
                success,
                message,
            } => self.on_start_debugging_answered(&child, success, message),
            Note::AttachChild { child, request } => self.on_attach_child(from, &child, request),
            Note::StopChildren { detach } => {
                self.end_descendants(from, detach);
                if let Some(session) = self.sessions.get_mut(&from) {
                    session.resume_deferred_stop(&mut self.ctx.for_session(from));
                }
            }
            Note::Configured => self.on_session_configured(from),
            Note::StopAwaiting => self.stop_awaiting_children_of(from),
            Note::Terminated => self.child_ended(from),
        }
    }

    /// Ends every child session under `session`, deepest first, each with its own
    /// `terminated`, before the parent goes on stopping.
    fn end_descendants(&mut self, session: SessionKey, detach: bool) {
        let signal = (!detach).then_some(Signal::Kill);
        for key in self.ctx.tree.descendants_deepest_first(session) {
            if let Some(child) = self.sessions.get_mut(&key) {
                child.end_with_parent(&mut self.ctx.for_session(key), signal);
            }
        }
    }

    /// A session ended (sent `terminated`, or was released): its parent may now send
    /// the `terminated` it held back.
    fn child_ended(&mut self, session: SessionKey) {
        if let Some(parent) = self.ctx.tree.parent(session) {
            self.parent_may_terminate(parent);
        }
    }

    fn parent_may_terminate(&mut self, parent: SessionKey) {
        if self.ctx.tree.has_live_children(parent) || self.ctx.tree.awaits_child_sessions(parent) {
            return;
        }
        if let Some(parent_session) = self.sessions.get_mut(&parent) {
            parent_session.send_deferred_terminated(&mut self.ctx.for_session(parent));
        }
    }

    fn with_client(
        &mut self,
        client: ClientId,
        what: &str,
        handle: impl FnOnce(&mut Session, &mut SessionContext<'_>),
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
        handle: impl FnOnce(&mut Session, &mut SessionContext<'_>),
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
        handle(session, &mut self.ctx.for_session(key));
    }

    /// Removes a finished session and lets go of everything it still held, so that
    /// no timer, listener, connection or process outlives it.
    fn release(&mut self, key: SessionKey) {
        // Children of a session that goes away end with it (its client closed); those
        // of a program the user started are left running, as the program is.
        let detach = self.sessions.get(&key).is_some_and(Session::is_user_attach);
        self.end_descendants(key, detach);
        self.forget_children_of(key);
        let Some(session) = self.sessions.remove(&key) else {
            return;
        };
        let parent = self.ctx.tree.parent(key);
        self.ctx.tree.forget(key);
        if let Some(parent) = parent {
            self.parent_may_terminate(parent);
        }
        self.clients.retain(|_, owner| *owner != key);
        self.backlogs.forget(key);
        let owned = self.ctx.owners.take_all(key);
        self.release_owned(owned);
        self.ctx.log(
            LogLevel::Debug,
            format!("Session of client {} released.", session.client_id()),
        );
    }

    /// Cancels, closes and kills what a session that is gone still held.
    fn release_owned(&mut self, owned: Owned) {
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
    }
}
