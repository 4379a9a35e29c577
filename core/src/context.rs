//! What every session shares while it handles one input: the options, the id
//! counters, ownership of engine-issued ids, the python probe cache, the token
//! generator and the outputs being collected. A session borrows it as a
//! `SessionContext`, which records every id the session asks for as the session's
//! own, so no ambient "current session" has to be set before each call.

use crate::dap::message::Request;
use crate::ipc::frame::FrameDecoder;
use crate::ipc::hello::ChildHello;
use crate::token::TokenPool;
use crate::{
    Address, ConnectRequestId, ConnectionId, EngineOptions, FactQuery, FactRequestId, InjectionId,
    KillTarget, ListenerId, ListenerPurpose, LogLevel, Output, ProcessId, Signal, TimerId,
    Transport,
};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The engine's own name for a session (one DAP client connection).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SessionKey(pub u32);

/// Which session owns each engine-issued id and each accepted connection, so the
/// router can hand a fact about that id to the right session.
#[derive(Default)]
pub struct Owners {
    pub listeners: BTreeMap<ListenerId, SessionKey>,
    pub processes: BTreeMap<ProcessId, SessionKey>,
    pub timers: BTreeMap<TimerId, SessionKey>,
    pub facts: BTreeMap<FactRequestId, SessionKey>,
    pub conns: BTreeMap<ConnectionId, SessionKey>,
    /// Outgoing connections asked for and not answered yet (attach).
    pub connects: BTreeMap<ConnectRequestId, SessionKey>,
    /// Injections asked for and not answered yet (attach by process id).
    pub injections: BTreeMap<InjectionId, SessionKey>,
}

impl Owners {
    /// Forgets every id owned by `session`, returning what must still be released.
    pub fn take_all(&mut self, session: SessionKey) -> Owned {
        fn take<K: Ord + Copy>(map: &mut BTreeMap<K, SessionKey>, session: SessionKey) -> Vec<K> {
            let owned: Vec<K> = map
                .iter()
                .filter(|(_, owner)| **owner == session)
                .map(|(id, _)| *id)
                .collect();
            for id in &owned {
                map.remove(id);
            }
            owned
        }
        let owned = Owned {
            listeners: take(&mut self.listeners, session),
            processes: take(&mut self.processes, session),
            timers: take(&mut self.timers, session),
            conns: take(&mut self.conns, session),
        };
        take(&mut self.facts, session);
        // A connection that succeeds after its session ended is closed by the router.
        take(&mut self.connects, session);
        take(&mut self.injections, session);
        owned
    }
}

/// What an injection needs besides the package directory (the engine's option).
pub struct InjectRequest {
    pub pid: u32,
    pub address: Address,
    pub token: String,
    pub session_id: String,
    pub debugger: Option<String>,
}

/// The ids a finished session still held.
pub struct Owned {
    pub listeners: Vec<ListenerId>,
    pub processes: Vec<ProcessId>,
    pub timers: Vec<TimerId>,
    pub conns: Vec<ConnectionId>,
}

/// A successful python probe, cached per executable so later launches skip it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PythonInfo {
    pub version: String,
    pub path: String,
}

/// What a session asks of the router, which alone sees every session. Sessions push
/// notes while they handle an input; the router acts on them, in order, right after.
pub enum Note {
    /// The session's debuggee announced a child process (`dapper/childProcess` body).
    ChildAnnounced { body: Value },
    /// The session's debuggee reported a child process gone (`dapper/childProcessExited`).
    ChildExited { body: Value },
    /// A connection on the session's child listener said a valid `dapper/sessionHello`.
    ChildHello {
        conn: ConnectionId,
        decoder: FrameDecoder,
        hello: ChildHello,
    },
    /// The client answered the session's `startDebugging` for a child.
    StartDebuggingAnswered {
        child: String,
        success: bool,
        message: Option<String>,
    },
    /// The client attached this session to a pending child (`__dapperChildSessionId`);
    /// the request is kept for a relay to the engine that debugs the child.
    AttachChild { child: String, request: Request },
    /// The session was asked to stop while it has live child sessions: they end first,
    /// killed, or (`detach`: a detach from a program the user started) left running
    /// without the debugger, as the program is.
    StopChildren { detach: bool },
    /// The client's `configurationDone` went through.
    Configured,
    /// The session is asked to stop: the sessions of its children that run on their
    /// inheritance, which the client has not attached yet, are no longer waited for.
    StopAwaiting,
    /// The session sent its `terminated` event.
    Terminated,
}

/// The session tree: each child session's parent, and which sessions are live (bound
/// to a debuggee and not yet terminated), so that a parent terminates after them.
#[derive(Default)]
pub struct SessionTree {
    parents: BTreeMap<SessionKey, SessionKey>,
    live: BTreeSet<SessionKey>,
    /// By parent: how many of its children run on their inheritance while the client
    /// starts their sessions; it terminates after those sessions too.
    awaited: BTreeMap<SessionKey, usize>,
}

impl SessionTree {
    pub fn add_child(&mut self, child: SessionKey, parent: SessionKey) {
        self.parents.insert(child, parent);
        self.live.insert(child);
    }

    pub fn parent(&self, session: SessionKey) -> Option<SessionKey> {
        self.parents.get(&session).copied()
    }

    /// The root of a session's tree (itself for a root session).
    pub fn root(&self, mut session: SessionKey) -> SessionKey {
        while let Some(parent) = self.parent(session) {
            session = parent;
        }
        session
    }

    pub fn mark_ended(&mut self, session: SessionKey) {
        self.live.remove(&session);
    }

    pub fn forget(&mut self, session: SessionKey) {
        self.live.remove(&session);
        self.parents.remove(&session);
        self.awaited.remove(&session);
    }

    /// A child of `parent` runs before its session came: the parent's end waits for it.
    pub fn await_child_session(&mut self, parent: SessionKey) {
        *self.awaited.entry(parent).or_default() += 1;
    }

    /// The session of such a child came (it is a live child now), or never will.
    pub fn child_session_settled(&mut self, parent: SessionKey) {
        if let Some(count) = self.awaited.get_mut(&parent) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.awaited.remove(&parent);
            }
        }
    }

    /// Whether the session waits for the sessions of children that run on their
    /// inheritance (its `terminated` comes after them).
    pub fn awaits_child_sessions(&self, session: SessionKey) -> bool {
        self.awaited.contains_key(&session)
    }

    pub fn has_live_children(&self, session: SessionKey) -> bool {
        self.parents
            .iter()
            .any(|(child, parent)| *parent == session && self.live.contains(child))
    }

    /// Every descendant of a session, deepest first, so that grandchildren end
    /// before their parents.
    pub fn descendants_deepest_first(&self, session: SessionKey) -> Vec<SessionKey> {
        let mut order = Vec::new();
        for (child, parent) in &self.parents {
            if *parent == session {
                order.extend(self.descendants_deepest_first(*child));
                order.push(*child);
            }
        }
        order
    }
}

pub struct Context {
    pub options: EngineOptions,
    pub notes: std::collections::VecDeque<(SessionKey, Note)>,
    pub tree: SessionTree,
    pub outputs: Vec<Output>,
    pub owners: Owners,
    pub python_cache: BTreeMap<String, PythonInfo>,
    /// Processes already sent SIGKILL, so releasing their session does not repeat it.
    killed: BTreeSet<ProcessId>,
    tokens: TokenPool,
    next_listener: u32,
    next_process: u32,
    next_timer: u32,
    next_fact: u32,
    next_debuggee_session: u32,
    next_connect: u32,
    next_injection: u32,
}

impl Context {
    pub fn new(options: EngineOptions) -> Result<Context, String> {
        let tokens = TokenPool::from_hex(&options.randomness)?;
        Ok(Context {
            options,
            notes: Default::default(),
            tree: SessionTree::default(),
            outputs: Vec::new(),
            owners: Owners::default(),
            python_cache: BTreeMap::new(),
            killed: BTreeSet::new(),
            tokens,
            next_listener: 0,
            next_process: 0,
            next_timer: 0,
            next_fact: 0,
            next_debuggee_session: 0,
            next_connect: 0,
            next_injection: 0,
        })
    }

    pub fn emit(&mut self, output: Output) {
        self.outputs.push(output);
    }

    pub fn log(&mut self, level: LogLevel, message: impl Into<String>) {
        self.emit(Output::Log {
            level,
            message: message.into(),
        });
    }

    /// A fresh secret token of the host's randomness; None when the host has not
    /// answered the requests for more (an internal error: the launch fails).
    pub fn new_token(&mut self) -> Option<String> {
        let token = self.tokens.take();
        if let Some(bytes) = self.tokens.refill_bytes() {
            self.emit(Output::GatherRandomness { bytes });
        }
        token
    }

    /// The host's answer to `gatherRandomness`.
    pub fn randomness_gathered(&mut self, hex: &str) {
        if let Err(error) = self.tokens.add_hex(hex) {
            self.log(
                LogLevel::Error,
                format!("randomnessGathered: the host's randomness {error}"),
            );
        }
    }

    /// The `--session-id` of the next debuggee: "s1", "s2", ….
    pub fn new_debuggee_session_id(&mut self) -> String {
        self.next_debuggee_session += 1;
        format!("s{}", self.next_debuggee_session)
    }

    /// Cancels a timer that has not fired. Cancelling one that is already gone (it
    /// fired, or was cancelled) does nothing.
    pub fn cancel_timer(&mut self, timer: TimerId) {
        if self.owners.timers.remove(&timer).is_some() {
            self.emit(Output::CancelTimer { timer });
        }
    }

    /// Forgets a timer that has just fired.
    pub fn timer_fired(&mut self, timer: TimerId) {
        self.owners.timers.remove(&timer);
    }

    /// Opens the engine's one loopback listener for DAP clients of child sessions
    /// (see docs/engine-io.md, "Child sessions of stdio clients"). No session owns it.
    pub fn open_client_listener(&mut self) -> ListenerId {
        self.next_listener += 1;
        let listener = ListenerId(self.next_listener);
        self.emit(Output::OpenListener {
            listener,
            transport: Transport::Tcp,
            host: Some("127.0.0.1".to_string()),
            port: Some(0),
            purpose: Some(ListenerPurpose::Clients),
        });
        listener
    }

    /// Asks the host for an outgoing TCP connection that no session owns (the relay
    /// of a child session to the engine that debugs the child, router/relay.rs).
    pub fn connect_unowned(&mut self, host: String, port: u16) -> ConnectRequestId {
        self.next_connect += 1;
        let request = ConnectRequestId(self.next_connect);
        self.emit(Output::Connect {
            request,
            host,
            port,
        });
        request
    }

    pub fn close_listener(&mut self, listener: ListenerId) {
        if self.owners.listeners.remove(&listener).is_some() {
            self.emit(Output::CloseListener { listener });
        }
    }

    /// Forgets a process the host reported as exited.
    /// A spawned process is left to run on its own (see `Output::Disown`).
    pub fn disown_process(&mut self, process: ProcessId) {
        self.process_exited(process);
        self.emit(Output::Disown { process });
    }

    pub fn process_exited(&mut self, process: ProcessId) {
        self.owners.processes.remove(&process);
        self.killed.remove(&process);
    }

    /// Signals a process and its whole tree.
    pub fn kill(&mut self, target: KillTarget, signal: Signal) {
        if let (KillTarget::Process(process), Signal::Kill) = (target, signal) {
            self.killed.insert(process);
        }
        self.emit(Output::Kill {
            target,
            signal,
            tree: true,
        });
    }

    /// Kills a process of a session being released, unless it was killed already.
    pub fn release_process(&mut self, process: ProcessId) {
        if !self.killed.remove(&process) {
            self.emit(Output::Kill {
                target: KillTarget::Process(process),
                signal: Signal::Kill,
                tree: true,
            });
        }
    }

    pub fn facts_answered(&mut self, request: FactRequestId) {
        self.owners.facts.remove(&request);
    }

    /// Ends a connection the engine no longer wants.
    pub fn close_connection(&mut self, conn: ConnectionId) {
        if self.owners.conns.remove(&conn).is_some() {
            self.emit(Output::Close { conn });
        }
    }

    /// Forgets a connection the peer closed.
    pub fn connection_closed(&mut self, conn: ConnectionId) {
        self.owners.conns.remove(&conn);
    }
}

/// The shared context lent to one session while it handles an input. It derefs to
/// the `Context`; what it adds are the requests made on the session's behalf, each
/// recorded as owned by `session` so that the router hands the answer back to it.
pub struct SessionContext<'a> {
    pub session: SessionKey,
    shared: &'a mut Context,
}

impl Context {
    /// Lends the context to `session`.
    pub fn for_session(&mut self, session: SessionKey) -> SessionContext<'_> {
        SessionContext {
            session,
            shared: self,
        }
    }
}

impl std::ops::Deref for SessionContext<'_> {
    type Target = Context;

    fn deref(&self) -> &Context {
        self.shared
    }
}

impl std::ops::DerefMut for SessionContext<'_> {
    fn deref_mut(&mut self) -> &mut Context {
        self.shared
    }
}

impl SessionContext<'_> {
    /// Leaves a note for the router on behalf of this session.
    pub fn note(&mut self, note: Note) {
        self.shared.notes.push_back((self.session, note));
    }

    pub fn set_timer(&mut self, after_ms: u64) -> TimerId {
        self.shared.next_timer += 1;
        let timer = TimerId(self.shared.next_timer);
        self.shared.owners.timers.insert(timer, self.session);
        self.emit(Output::SetTimer { timer, after_ms });
        timer
    }

    pub fn open_listener(&mut self, transport: Transport) -> ListenerId {
        let host = (transport == Transport::Tcp).then(|| "127.0.0.1".to_string());
        let port = (transport == Transport::Tcp).then_some(0);
        self.open_listener_for(transport, host, port, None)
    }

    fn open_listener_for(
        &mut self,
        transport: Transport,
        host: Option<String>,
        port: Option<u16>,
        purpose: Option<ListenerPurpose>,
    ) -> ListenerId {
        self.shared.next_listener += 1;
        let listener = ListenerId(self.shared.next_listener);
        self.shared.owners.listeners.insert(listener, self.session);
        self.emit(Output::OpenListener {
            listener,
            transport,
            host,
            port,
            purpose,
        });
        listener
    }

    /// A TCP listener at the user's own address, for a program to connect to (attach
    /// `listen`); the host admits only the peers the purpose allows: `remote`, peers of
    /// other machines too.
    pub fn open_attach_listener(&mut self, host: String, port: u16, remote: bool) -> ListenerId {
        let purpose = if remote {
            ListenerPurpose::AttachRemote
        } else {
            ListenerPurpose::Attach
        };
        self.open_listener_for(Transport::Tcp, Some(host), Some(port), Some(purpose))
    }

    pub fn spawn(
        &mut self,
        argv: Vec<String>,
        cwd: Option<String>,
        env: Map<String, Value>,
    ) -> ProcessId {
        self.shared.next_process += 1;
        let process = ProcessId(self.shared.next_process);
        self.shared.owners.processes.insert(process, self.session);
        self.emit(Output::Spawn {
            process,
            argv,
            cwd,
            env,
        });
        process
    }

    pub fn gather_facts(&mut self, queries: Vec<FactQuery>) -> FactRequestId {
        self.shared.next_fact += 1;
        let request = FactRequestId(self.shared.next_fact);
        self.shared.owners.facts.insert(request, self.session);
        self.emit(Output::GatherFacts { request, queries });
        request
    }

    /// Asks the host for an outgoing TCP connection on behalf of this session.
    pub fn connect(&mut self, host: String, port: u16) -> ConnectRequestId {
        self.shared.next_connect += 1;
        let request = ConnectRequestId(self.shared.next_connect);
        self.shared.owners.connects.insert(request, self.session);
        self.emit(Output::Connect {
            request,
            host,
            port,
        });
        request
    }

    /// Asks the host to inject the debuggee's bootstrap into the running process `pid`.
    pub fn inject(&mut self, request: InjectRequest) -> InjectionId {
        self.shared.next_injection += 1;
        let injection = InjectionId(self.shared.next_injection);
        self.shared
            .owners
            .injections
            .insert(injection, self.session);
        let package_dir = self.shared.options.python_package_dir.clone();
        self.emit(Output::Inject {
            injection,
            pid: request.pid,
            address: request.address,
            token: request.token,
            session_id: request.session_id,
            package_dir,
            debugger: request.debugger,
        });
        injection
    }

    pub fn adopt_connection(&mut self, conn: ConnectionId) {
        self.shared.owners.conns.insert(conn, self.session);
    }
}

#[cfg(test)]
mod tests {
    use super::{SessionKey, SessionTree};

    #[test]
    fn the_tree_orders_descendants_and_tracks_live_children() {
        let [root, a, b, grandchild] = [1, 2, 3, 4].map(SessionKey);
        let mut tree = SessionTree::default();
        tree.add_child(a, root);
        tree.add_child(b, root);
        tree.add_child(grandchild, a);
        assert_eq!(tree.descendants_deepest_first(root), [grandchild, a, b]);
        assert_eq!(tree.root(grandchild), root);
        assert!(tree.has_live_children(root));
        tree.mark_ended(a);
        tree.mark_ended(b);
        assert!(!tree.has_live_children(root));
        assert!(tree.has_live_children(a));
        tree.forget(grandchild);
        assert!(!tree.has_live_children(a));
        assert_eq!(tree.parent(a), Some(root));
    }

    #[test]
    fn tokens_are_the_hosts_randomness_and_the_engine_asks_for_more() {
        use super::Context;
        use crate::{EngineOptions, Input, Output, Platform};
        let randomness: String = (0..32u32).map(|index| format!("{index:032x}")).collect();
        let mut ctx = Context::new(EngineOptions {
            python_package_dir: "/ext/python".to_string(),
            platform: Platform::Linux,
            randomness,
            adapter_version: String::new(),
            working_directory: String::new(),
        })
        .unwrap();
        let tokens: Vec<String> = (0..32).map(|_| ctx.new_token().unwrap()).collect();
        assert_eq!(tokens[0], format!("{:032x}", 0));
        assert_eq!(tokens[31], format!("{:032x}", 31));
        assert_eq!(ctx.new_token(), None, "every byte is used once");
        let asks: Vec<&Output> = ctx
            .outputs
            .iter()
            .filter(|output| matches!(output, Output::GatherRandomness { .. }))
            .collect();
        assert_eq!(asks, [&Output::GatherRandomness { bytes: 17 * 16 }]);
        let answer: Input = serde_json::from_str(&format!(
            r#"{{"type":"randomnessGathered","hex":"{}"}}"#,
            "7e".repeat(16)
        ))
        .unwrap();
        let Input::RandomnessGathered { hex } = answer else {
            unreachable!()
        };
        ctx.randomness_gathered(&hex);
        assert_eq!(ctx.new_token().unwrap(), "7e".repeat(16));
    }
}
