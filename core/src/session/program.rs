//! The program a session debugs, however the session came to it: its validated
//! configuration, its origin (launched, a child, a program the user started), its
//! stage, its process, the listener it connects to and the peers that have not
//! said hello yet. Each way to a program adds its methods in the file named after it
//! (launch.rs, attach.rs, listen_attach.rs, inject.rs, child.rs, connect.rs), as
//! quinn's connection leaves its streams to `StreamsState`.

use super::process::DebuggeeProcess;
use super::stage::{Stage, Step};
use crate::config::{Endpoint, LaunchConfig, ProcessTarget, Target};
use crate::context::SessionContext;
use crate::ipc::frame::FrameDecoder;
use crate::path_mappings::{Direction, PathMappings};
use crate::{Address, ConnectionId, InjectionId, ListenerId, Transport};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// How a session's debuggee came to be.
pub enum Origin {
    /// This session launched it (spawned by the host, or in the client's terminal).
    Launched,
    /// Its parent debuggee started it, and it waits for this session (attach).
    /// `of_users_program`: the tree's root is a program the user started (attached to
    /// by `connect`, `listen` or process id), perhaps on another machine: the pid in
    /// the child's hello is only its word, so the child is treated as the user's
    /// program too, asked to end rather than signalled.
    Child {
        of_users_program: bool,
        /// It ran on what its parent's session had (inheritance.rs) before this session
        /// came: an exit before the client's configuration ends the session, not the
        /// attach.
        inherited: bool,
    },
    /// The user started it with `python -m dapperdbg --listen`; the session attached to
    /// it at this endpoint.
    Remote(Endpoint),
    /// The user named its process id; the host injected a bootstrap into it.
    Injected(Injection),
    /// The user started it with `python -m dapperdbg --connect` (or it called
    /// `dapperdbg.connect`); it connects to this session's listener at this endpoint.
    Incoming(Endpoint),
}

/// An attach by process id: the process, and how the bootstrap got into it.
pub struct Injection {
    pub target: ProcessTarget,
    /// The `inject` the host has not answered yet.
    pub request: Option<InjectionId>,
    /// How the host injected it (`injected`), for the deadline's error.
    pub method: Option<String>,
}

impl Injection {
    pub fn new(target: ProcessTarget) -> Injection {
        Injection {
            target,
            request: None,
            method: None,
        }
    }
}

impl Origin {
    /// Whether the session attached to a running process rather than launching it.
    pub fn is_attached(&self) -> bool {
        !matches!(self, Origin::Launched)
    }

    /// Whether the user attached to a program that runs on its own (by `connect`, or
    /// by process id): it is detached from, never killed.
    pub fn is_users_program(&self) -> bool {
        matches!(
            self,
            Origin::Remote(_)
                | Origin::Injected(_)
                | Origin::Incoming(_)
                | Origin::Child {
                    of_users_program: true,
                    ..
                }
        )
    }

    /// Whether this child ran on its parent's configuration before its session came.
    pub fn ran_on_inheritance(&self) -> bool {
        matches!(
            self,
            Origin::Child {
                inherited: true,
                ..
            }
        )
    }

    /// Where a user's attach connects.
    pub fn endpoint(&self) -> Option<&Endpoint> {
        match self {
            Origin::Remote(endpoint) | Origin::Incoming(endpoint) => Some(endpoint),
            _ => None,
        }
    }
}

/// The program a session debugs, launched or attached to.
pub struct Program {
    pub config: LaunchConfig,
    /// Where the debuggee is (stage.rs).
    pub stage: Stage,
    /// The debuggee's `--session-id`.
    pub session_id: String,
    /// The secret the debuggee's hello must carry. Never logged.
    pub token: String,
    pub listener: Option<ListenerId>,
    /// Where child processes connect (`childListener` in `dapper/configure`): this
    /// session's own listener, kept open after the hello, for a root session with
    /// `subprocessAutoAttach`; the root's for a child session.
    pub child_listener: Option<Address>,
    /// How the debuggee came to be: launched by this session, or attached to.
    pub origin: Origin,
    /// The debuggee's process, however it was started.
    pub process: DebuggeeProcess,
    /// Connections accepted on the listener that have not said hello yet.
    pub candidates: BTreeMap<ConnectionId, FrameDecoder>,
    /// Where the client's files are on the debuggee's side (`pathMappings`).
    pub path_mappings: PathMappings,
}

impl Program {
    pub fn new(config: LaunchConfig, origin: Origin, stage: Stage) -> Program {
        // Validated with the configuration (config.rs), so the fallback is unreachable.
        let path_mappings =
            PathMappings::from_configuration(&config.normalised, "launch").unwrap_or_default();
        Program {
            path_mappings,
            config,
            stage,
            session_id: String::new(),
            token: String::new(),
            listener: None,
            child_listener: None,
            origin,
            process: DebuggeeProcess::default(),
            candidates: BTreeMap::new(),
        }
    }

    /// Whether the user attached to a program that listens for this session
    /// (`listen`).
    pub fn listens(&self) -> bool {
        matches!(self.origin, Origin::Incoming(_))
    }

    /// Whether the user attached to the program by its process id.
    pub fn is_injected(&self) -> bool {
        matches!(self.origin, Origin::Injected(_))
    }

    /// Whether the program's hello carries no token: a user's attach by `connect` or
    /// `listen` (see docs/ipc.md, "Attach").
    pub fn says_tokenless_hello(&self) -> bool {
        self.origin.endpoint().is_some()
    }

    /// Where a user's attach connects or listens, for messages.
    pub fn endpoint_text(&self) -> String {
        self.origin
            .endpoint()
            .map_or_else(String::new, Endpoint::display)
    }

    /// The debuggee said hello: without children to debug nothing else may connect
    /// (the others waiting are closed, and the listener); with them the listener stays
    /// open as the tree's shared child listener.
    pub fn keep_listener_only_for_children(&mut self, ctx: &mut SessionContext<'_>) {
        if self.child_listener.is_none() {
            let others = std::mem::take(&mut self.candidates);
            for other in others.into_keys() {
                ctx.close_connection(other);
            }
            if let Some(listener) = self.listener.take() {
                ctx.close_listener(listener);
            }
        }
    }

    /// Opens the listener, private to this machine, that the debuggee (and its
    /// children) connect to.
    pub fn open_listener(&mut self, ctx: &mut SessionContext<'_>) {
        let transport = if ctx.options.platform.is_windows() {
            Transport::Tcp
        } else {
            Transport::Unix
        };
        self.listener = Some(ctx.open_listener(transport));
    }

    /// The debuggee accepted its configuration (the client may now configure it):
    /// returns the body of the `process` event.
    pub fn configured(&mut self) -> Value {
        if let Stage::Connected(connected) = &mut self.stage {
            connected.step = Step::Configured;
        }
        // An attached program names itself by its own path, which the client knows by
        // the mapped one.
        let name = self
            .path_mappings
            .translated(Direction::ToLocal, &self.process_name());
        // A child process was started by its parent and has waited for this session; a
        // program the user started runs already (and may run on another machine).
        let start_method = match self.origin {
            Origin::Remote(_) | Origin::Injected(_) | Origin::Incoming(_) => "attach",
            Origin::Child { .. } => "attachForSuspendedLaunch",
            Origin::Launched => "launch",
        };
        let local = self.origin.endpoint().is_none_or(Endpoint::is_loopback);
        let mut body =
            json!({ "name": name, "isLocalProcess": local, "startMethod": start_method });
        if let (Some(pid), Some(object)) = (
            self.stage.connection().and_then(|debuggee| debuggee.pid),
            body.as_object_mut(),
        ) {
            object.insert("systemProcessId".to_string(), Value::from(pid));
        }
        body
    }

    /// The name of the debuggee for the `process` event.
    pub fn process_name(&self) -> String {
        match &self.config.target {
            Target::Program(path) => path.clone(),
            Target::Module(name) => name.clone(),
            Target::Code(_) => "python -c".to_string(),
            Target::Child(name) => name.clone(),
        }
    }
}
