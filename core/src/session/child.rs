//! A child session's program (`impl Program`): a child process started by its parent
//! debuggee, waiting for the router to bind it to its connection; and what a session
//! hands a relay when another engine debugs the child its client attaches to. Asking
//! the client to start child sessions is debuggee.rs's; ending them before their
//! parent, termination.rs's.

use super::client::ClientLink;
use super::connection::Connection;
use super::inheritance::LastBreakpoints;
use super::program::{Origin, Program};
use super::stage::Stage;
use crate::config::LaunchConfig;
use crate::context::SessionContext;
use crate::dap::message;
use crate::dap::raw::JsonText;
use crate::ipc::frame::FrameDecoder;
use crate::{Address, ClientId, ConnectionId, LogLevel};
use serde_json::{Map, Value};

/// What a session leaves a relay (router/relay.rs) when another engine debugs the
/// child its client attaches to.
pub struct Handover {
    pub client: ClientId,
    /// The seq of the next message to the client.
    pub next_seq: i64,
    /// The client's `initialize`, to be said again to the other engine.
    pub initialize: JsonText,
    /// Bytes the client sent after its `attach`, not read yet.
    pub unread: Vec<u8>,
}

impl Handover {
    /// What a client that said `initialize_arguments` is owed from here.
    pub fn new(client: ClientLink, initialize_arguments: Option<Value>) -> Handover {
        let arguments = initialize_arguments.unwrap_or_else(|| Value::Object(Map::new()));
        Handover {
            client: client.id,
            next_seq: client.next_seq,
            initialize: message::request("initialize", arguments).stamp(1),
            unread: client.decoder.into_unread(),
        }
    }
}

/// What the router hands a child session when it binds it to its process.
pub struct ChildBinding {
    pub conn: ConnectionId,
    pub decoder: FrameDecoder,
    pub pid: Option<u32>,
    pub session_id: String,
    /// The root's child listener, handed on so grandchildren connect there too.
    pub child_listener: Option<Address>,
    /// Whether the tree's root is a program the user started (see `Origin::Child`).
    pub of_users_program: bool,
    /// The seq of the engine's next request on the connection.
    pub next_seq: i64,
    /// The breakpoints the child was sent to run on (inheritance.rs), if it was.
    pub inherited: Option<LastBreakpoints>,
    /// The child ran on them to its end before its session came: its connection is
    /// closed, and what it sent is in `decoder`.
    pub ended: bool,
}

impl Program {
    /// The program of a child session: a child process, started by its parent
    /// debuggee, that waits for the router to bind it.
    pub fn child(config: LaunchConfig) -> Program {
        Program::new(
            config,
            Origin::Child {
                of_users_program: false,
                inherited: false,
            },
            Stage::Starting { connect: None },
        )
    }

    /// Whether this is a child session's program waiting for its process.
    pub fn awaits_child(&self) -> bool {
        matches!(self.origin, Origin::Child { .. }) && self.stage.is_starting()
    }

    /// Binds a child session's program (one that `awaits_child`) to its process's
    /// connection.
    pub fn bind(&mut self, ctx: &mut SessionContext<'_>, binding: ChildBinding) {
        ctx.log(
            LogLevel::Info,
            format!(
                "Child session {} attached (pid {}).",
                binding.session_id,
                binding
                    .pid
                    .map_or("unknown".to_string(), |pid| pid.to_string())
            ),
        );
        self.session_id = binding.session_id;
        self.origin = Origin::Child {
            of_users_program: binding.of_users_program,
            inherited: binding.inherited.is_some(),
        };
        self.process.hello_pid = binding.pid;
        self.process.started();
        if self.config.subprocess_auto_attach {
            self.child_listener = binding.child_listener;
        }
        self.stage = Stage::connected(Connection::continuing(
            binding.conn,
            binding.decoder,
            binding.pid,
            binding.next_seq,
        ));
    }
}
