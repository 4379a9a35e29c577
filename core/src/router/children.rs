//! Child processes between their announcement and their session: the matching of a child's connection (`dapper/sessionHello` on the root's
//! shared child listener) with its announcement (`dapper/childProcess` from its
//! parent) in either order, `startDebugging`, time-outs, and the binding of the new
//! client session that attaches to the child.

use super::child_table::{
    ChildConnection, ChildStage, PendingChild, CHILD_ATTACH_TIMEOUT_MS, CHILD_MATCH_TIMEOUT_MS,
    CHILD_SESSION_DELAY_MS, MOST_CLIENT_KINDS, PENDING_PAUSE_AT,
};
use super::sent_while_running::SentWhileRunning;
use super::Router;
use crate::config::{child_configuration, DEFAULT_ADAPTER_TYPE};
use crate::context::SessionKey;
use crate::dap::message::{self, Request};
use crate::ipc::frame::FrameDecoder;
use crate::ipc::hello::ChildHello;
use crate::session::{debuggee_frame, ChildBinding, Inheritance, Session};
use crate::{Address, ConnectionId, LogLevel, Output, ReadSource};
use serde_json::{json, Map, Value};

fn text(body: &Map<String, Value>, key: &str) -> Option<String> {
    body.get(key).and_then(Value::as_str).map(str::to_string)
}

impl Router {
    /// `dapper/childProcess` from the debuggee of `parent`.
    pub(super) fn on_child_announced(&mut self, parent: SessionKey, body: Value) {
        let Value::Object(body) = body else {
            self.ctx.log(
                LogLevel::Warn,
                "Ignored a dapper/childProcess whose body is not an object.",
            );
            return;
        };
        let Some(session_id) = text(&body, "sessionId").filter(|id| !id.is_empty()) else {
            // Without a session id it cannot connect; the client already got the
            // public event, so the reason goes to the log.
            self.ctx.log(
                LogLevel::Warn,
                "Ignored a dapper/childProcess without a sessionId.",
            );
            return;
        };
        let Some(child) = self.pending_child(&session_id, parent) else {
            return;
        };
        if child.announcement.is_some() {
            self.ctx.log(
                LogLevel::Warn,
                format!("Child {session_id} was announced twice; the second is ignored."),
            );
            return;
        }
        child.announcement = Some(body);
        child.parent = Some(parent);
        self.try_start_child(&session_id);
    }

    /// A valid `dapper/sessionHello` on the child listener of `root`.
    pub(super) fn on_child_hello(
        &mut self,
        root: SessionKey,
        conn: ConnectionId,
        decoder: FrameDecoder,
        hello: ChildHello,
    ) {
        let session_id = hello.session_id.clone();
        let known = self.children.children.get(&session_id);
        let duplicate = known.is_some_and(|child| child.connection.is_some());
        let other_tree = known
            .and_then(|child| child.parent)
            .is_some_and(|parent| self.ctx.tree.root(parent) != root);
        if duplicate || other_tree {
            self.ctx.log(
                LogLevel::Warn,
                format!("Closed connection {conn}: child {session_id} is already connected or belongs to another session."),
            );
            self.ctx.close_connection(conn);
            return;
        }
        let Some(child) = self.pending_child(&session_id, root) else {
            self.ctx.close_connection(conn);
            return;
        };
        child.connection = Some(ChildConnection {
            conn,
            decoder,
            hello,
            root,
            next_seq: 1,
            inherited: None,
            ended: false,
            paused: false,
        });
        self.try_start_child(&session_id);
    }

    /// The entry for a child, made (with its match time-out) if it is new; None (logged)
    /// when a new one cannot get its secret key because the host gave no randomness.
    fn pending_child(&mut self, session_id: &str, owner: SessionKey) -> Option<&mut PendingChild> {
        if !self.children.children.contains_key(session_id) {
            let Some(token) = self.ctx.new_token() else {
                self.ctx.log(
                    LogLevel::Error,
                    format!("Child {session_id} is ignored: the host has not answered gatherRandomness, so there is no secret key for it."),
                );
                return None;
            };
            let timer = self
                .ctx
                .for_session(owner)
                .set_timer(CHILD_MATCH_TIMEOUT_MS);
            let child = PendingChild {
                key: format!("c{token}"),
                parent: None,
                announcement: None,
                connection: None,
                timer: Some(timer),
                stage: ChildStage::Matching,
            };
            self.children.children.insert(session_id.to_string(), child);
        }
        self.children.children.get_mut(session_id)
    }

    /// Once both halves of a child are known, asks the parent's client for a session.
    fn try_start_child(&mut self, session_id: &str) {
        let Some(child) = self.children.children.get(session_id) else {
            return;
        };
        let (Some(parent), Some(announcement), Some(connection)) = (
            child.parent,
            child.announcement.as_ref(),
            child.connection.as_ref(),
        ) else {
            return;
        };
        if !matches!(child.stage, ChildStage::Matching) {
            return;
        }
        let pid = announcement
            .get("pid")
            .and_then(Value::as_u64)
            .and_then(|pid| u32::try_from(pid).ok())
            .or(connection.hello.pid);
        let name = text(announcement, "name").unwrap_or_else(|| "python".to_string());
        let cwd = text(announcement, "cwd");
        let key = child.key.clone();
        // Children, grandchildren included, are of the type the user started the root
        // session with, the name the client registered the adapter under.
        let root = self.ctx.tree.root(parent);
        let adapter_type = self.sessions.get(&root).map(|root| root.adapter_type());
        // Whether the client gives a child the breakpoints its parent had, as seen in this
        // tree, or else in an earlier tree of a client of the same kind.
        let shared = self
            .children
            .shared_breakpoints
            .get(&root)
            .copied()
            .or_else(|| {
                let kind = self.sessions.get(&root)?.client_kind()?;
                self.children.shared_by_client.get(&kind).copied()
            });
        // Where the child's own children connect, as its session will tell it.
        let child_listener = self
            .sessions
            .get(&connection.root)
            .and_then(|root| root.child_listener());
        let Some(session) = self.sessions.get_mut(&parent) else {
            self.abandon_child(session_id, "its parent session has ended");
            return;
        };
        let mut configuration = child_configuration(
            &session.normalised_configuration(),
            adapter_type.as_deref().unwrap_or(DEFAULT_ADAPTER_TYPE),
            &key,
            &name,
            pid,
            cwd.as_deref(),
        );
        // Clients that cannot open a second session on their adapter process are told
        // where to connect; so are the clients of their child sessions (grandchildren).
        if session.stdio_client || session.child_client_only {
            match &self.client_listener_address {
                Some(Address::Tcp { host, port }) => {
                    configuration
                        .insert("connect".to_string(), json!({"host": host, "port": port}));
                }
                _ => {
                    self.abandon_child(
                        session_id,
                        "the adapter has no listener for the child session's client",
                    );
                    return;
                }
            }
        }
        // Only for a client seen to give a child the breakpoints its parent had.
        let inheritance = (shared == Some(true))
            .then(|| session.inheritance_for_child(&configuration, &name, child_listener.as_ref()))
            .flatten();
        match inheritance {
            Some(inheritance) => {
                self.send_inheritance(session_id, inheritance);
                self.set_stage(
                    session_id,
                    parent,
                    CHILD_SESSION_DELAY_MS,
                    ChildStage::Running {
                        configuration,
                        sent: SentWhileRunning::default(),
                    },
                );
            }
            None => self.ask_for_session(session_id, parent, configuration),
        }
    }

    /// Asks the parent's client for the child's session.
    pub(super) fn ask_for_session(
        &mut self,
        session_id: &str,
        parent: SessionKey,
        configuration: Map<String, Value>,
    ) {
        let Some(child) = self.children.children.get(session_id) else {
            return;
        };
        let key = child.key.clone();
        let name = child
            .announcement
            .as_ref()
            .and_then(|announcement| text(announcement, "name"))
            .unwrap_or_else(|| "python".to_string());
        let Some(session) = self.sessions.get_mut(&parent) else {
            self.abandon_child(session_id, "its parent session has ended");
            return;
        };
        match session.request_child_session(&mut self.ctx.for_session(parent), &key, configuration)
        {
            Ok(()) => {
                self.set_stage(
                    session_id,
                    parent,
                    CHILD_ATTACH_TIMEOUT_MS,
                    ChildStage::Asked,
                );
            }
            Err(reason) => {
                self.ctx.log(
                    LogLevel::Warn,
                    format!("Child process {name} will not be debugged: {reason}."),
                );
                self.abandon_child(session_id, &reason);
            }
        }
    }

    /// Moves a pending child to `stage`, whose time-out (on its parent's session) replaces
    /// the one it had.
    fn set_stage(
        &mut self,
        session_id: &str,
        parent: SessionKey,
        after_ms: u64,
        stage: ChildStage,
    ) {
        let Some(child) = self.children.children.get_mut(session_id) else {
            return;
        };
        child.stage = stage;
        if let Some(old) = child.timer.take() {
            self.ctx.cancel_timer(old);
        }
        child.timer = Some(self.ctx.for_session(parent).set_timer(after_ms));
    }

    /// Sends a child whose session the client was asked for what it runs on until
    /// that session configures it (session/inheritance.rs).
    fn send_inheritance(&mut self, session_id: &str, inheritance: Inheritance) {
        let Some(child) = self.children.children.get_mut(session_id) else {
            return;
        };
        let (Some(parent), Some(connection)) = (child.parent, child.connection.as_mut()) else {
            return;
        };
        // The child may end before its session comes; its parent terminates after it.
        self.ctx.tree.await_child_session(parent);
        let seq = connection.next_seq;
        connection.next_seq += 1;
        connection.inherited = Some(inheritance.breakpoints);
        let data = debuggee_frame(
            message::request("dapper/inherit", inheritance.arguments),
            seq,
        );
        self.ctx.emit(Output::Send {
            conn: connection.conn,
            data,
        });
    }

    /// A pending child leaves the table: if it ran on its inheritance, its parent no
    /// longer waits for its session; returns that parent.
    pub(super) fn settle_awaited(&mut self, child: &PendingChild) -> Option<SessionKey> {
        let parent = child.parent?;
        child.connection.as_ref()?.inherited.as_ref()?;
        self.ctx.tree.child_session_settled(parent);
        Some(parent)
    }

    /// Gives up on a pending child: closes its connection (its process then runs on
    /// without the debugger) and reports it with `dapper/childProcessCandidate`.
    pub(super) fn abandon_child(&mut self, session_id: &str, reason: &str) {
        let Some(child) = self.children.children.remove(session_id) else {
            return;
        };
        if let Some(parent) = self.settle_awaited(&child) {
            self.parent_may_terminate(parent);
        }
        if let Some(timer) = child.timer {
            self.ctx.cancel_timer(timer);
        }
        let mut body = child.announcement.clone().unwrap_or_default();
        body.insert(
            "sessionId".to_string(),
            Value::String(session_id.to_string()),
        );
        if let Some(connection) = &child.connection {
            self.ctx.close_connection(connection.conn);
            if let Some(pid) = connection.hello.pid {
                body.entry("pid").or_insert(Value::from(pid));
            }
        }
        body.insert("reason".to_string(), Value::String(reason.to_string()));
        self.ctx.log(
            LogLevel::Info,
            format!("Child {session_id} is not debugged: {reason}."),
        );
        let tell = child
            .parent
            .or(child.connection.as_ref().map(|connection| connection.root));
        if let Some(session) = tell.and_then(|key| self.sessions.get_mut(&key)) {
            let key = session.key();
            session.report_child_candidate(&mut self.ctx.for_session(key), Value::Object(body));
        }
    }

    /// A pending child's timer: the other half never came, or no client attached.
    pub(super) fn on_child_timer(&mut self, session_id: &str) {
        let Some(child) = self.children.children.get_mut(session_id) else {
            return;
        };
        child.timer = None;
        if let ChildStage::Running { .. } = child.stage {
            // The child has run long enough for its session to be worth showing.
            if let Some(parent) = child.parent {
                self.ask_running_child(session_id, parent);
            }
            return;
        }
        let reason = if matches!(child.stage, ChildStage::Asked) {
            format!(
                "no debug session attached to it within {} seconds",
                CHILD_ATTACH_TIMEOUT_MS / 1000
            )
        } else if child.connection.is_none() {
            "did not connect".to_string()
        } else {
            "its parent never announced it".to_string()
        };
        self.abandon_child(session_id, &reason);
    }

    /// The client answered `startDebugging`.
    pub(super) fn on_start_debugging_answered(
        &mut self,
        key: &str,
        success: bool,
        message: Option<String>,
    ) {
        if success {
            return;
        }
        if let Some(session_id) = self.children.by_key(key) {
            let reason = format!(
                "the client refused to start its session ({})",
                message.unwrap_or_else(|| "no reason given".to_string())
            );
            self.abandon_child(&session_id, &reason);
        }
    }

    /// A client's `attach` names a pending child by its key. A child this engine
    /// does not have may be debugged by another engine (relay.rs).
    pub(super) fn on_attach_child(&mut self, session: SessionKey, key: &str, request: Request) {
        let found = self
            .children
            .by_key(key)
            .filter(|id| {
                self.children
                    .children
                    .get(id)
                    .is_some_and(|child| child.connection.is_some())
            })
            .and_then(|id| self.children.children.remove(&id).map(|child| (id, child)));
        let Some((session_id, child)) = found else {
            if self.relay_attach(session, request) {
                return;
            }
            if let Some(target) = self.sessions.get_mut(&session) {
                target.refuse_attach(
                    &mut self.ctx.for_session(session),
                    "No child process is waiting for this session; it may have exited or timed out."
                        .to_string(),
                );
            }
            return;
        };
        if let Some(timer) = child.timer {
            self.ctx.cancel_timer(timer);
        }
        // Settled before it is added as a live child: the parent keeps waiting for it.
        self.settle_awaited(&child);
        let Some(connection) = child.connection else {
            return;
        };
        if connection.paused && !connection.ended {
            self.ctx.emit(Output::ResumeReading {
                from: ReadSource::Conn(connection.conn),
            });
        }
        let root = self.sessions.get(&connection.root);
        let child_listener = root.and_then(|root| root.child_listener());
        // A root that is gone leaves nothing to vouch for the child's pid.
        let of_users_program = root.is_none_or(|root| root.is_user_attach());
        let parent = child.parent.unwrap_or(connection.root);
        if !connection.ended {
            self.ctx.owners.conns.insert(connection.conn, session);
        }
        self.ctx.tree.add_child(session, parent);
        if let Some(target) = self.sessions.get_mut(&session) {
            target.bind_child(
                &mut self.ctx.for_session(session),
                ChildBinding {
                    conn: connection.conn,
                    decoder: connection.decoder,
                    pid: connection.hello.pid,
                    session_id,
                    child_listener,
                    of_users_program,
                    next_seq: connection.next_seq,
                    inherited: connection.inherited,
                    ended: connection.ended,
                },
            );
        }
    }

    /// Bytes from a child connection that waits for its session: kept for it, up to
    /// `PENDING_PAUSE_AT`, past which the connection is not read until then.
    pub(super) fn on_pending_child_bytes(&mut self, session_id: &str, bytes: &[u8]) {
        if let Some(connection) = self
            .children
            .children
            .get_mut(session_id)
            .and_then(|child| child.connection.as_mut())
        {
            connection.decoder.push(bytes);
            if !connection.paused && connection.decoder.buffered() >= PENDING_PAUSE_AT {
                connection.paused = true;
                self.ctx.emit(Output::PauseReading {
                    from: ReadSource::Conn(connection.conn),
                });
            }
        }
        self.review_running_child(session_id, false);
    }

    /// A waiting child's connection closed: it will not be debugged; or, if it ran on
    /// its inheritance, it ended, and its session (which the client was asked for) is
    /// told so when it comes.
    pub(super) fn on_pending_child_closed(&mut self, session_id: &str) {
        if let Some(connection) = self
            .children
            .children
            .get_mut(session_id)
            .and_then(|child| child.connection.as_mut())
        {
            // Already closed by the peer: nothing to close from our side.
            self.ctx.owners.conns.remove(&connection.conn);
            if connection.inherited.is_some() {
                connection.ended = true;
                self.ctx.log(
                    LogLevel::Debug,
                    format!("Child {session_id} ran to its end before its session came."),
                );
                self.review_running_child(session_id, true);
                return;
            }
        }
        self.abandon_child(
            session_id,
            "its connection closed before its session started",
        );
    }

    /// `dapper/childProcessExited`: a child that exits before its session started is
    /// forgotten quietly (its parent's client got the public event).
    pub(super) fn on_child_exited(&mut self, body: &Value) {
        let Some(pid) = body.get("pid").and_then(Value::as_u64) else {
            return;
        };
        if let Some(session_id) = self.children.by_pid(pid) {
            let inherited = self
                .children
                .children
                .get(&session_id)
                .is_some_and(|child| {
                    child
                        .connection
                        .as_ref()
                        .is_some_and(|connection| connection.inherited.is_some())
                });
            if inherited {
                // Its session, which the client was asked for, reports its exit.
                return;
            }
            if let Some(child) = self.children.children.remove(&session_id) {
                if let Some(timer) = child.timer {
                    self.ctx.cancel_timer(timer);
                }
                if let Some(connection) = child.connection {
                    self.ctx.close_connection(connection.conn);
                }
                self.ctx.log(
                    LogLevel::Info,
                    format!("Child {session_id} (pid {pid}) exited before its session started."),
                );
            }
        }
    }

    /// A session's client finished configuring it: if it is the first child session of
    /// its tree to be configured, whether its client gave it the breakpoints its parent
    /// has decides whether later children run on their parent's (session/inheritance.rs).
    pub(super) fn on_session_configured(&mut self, session: SessionKey) {
        let Some(parent) = self.ctx.tree.parent(session) else {
            return;
        };
        let root = self.ctx.tree.root(session);
        if self.children.shared_breakpoints.contains_key(&root) {
            return;
        }
        let (Some(child), Some(parent)) = (self.sessions.get(&session), self.sessions.get(&parent))
        else {
            return;
        };
        let shared = child.last_breakpoints() == parent.last_breakpoints();
        self.ctx.log(
            LogLevel::Debug,
            if shared {
                "The client gave a child session its parent's breakpoints: later children run on their parent's until their own session is configured."
            } else {
                "The client gave a child session breakpoints other than its parent's: children wait for their own session's configuration."
            },
        );
        self.children.shared_breakpoints.insert(root, shared);
        if let Some(kind) = self.sessions.get(&root).and_then(Session::client_kind) {
            let known = &mut self.children.shared_by_client;
            if known.contains_key(&kind) || known.len() < MOST_CLIENT_KINDS {
                known.insert(kind, shared);
            }
        }
    }
}
