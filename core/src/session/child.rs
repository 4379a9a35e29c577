//! A session's part in child-process debugging: asking its client to start a child
//! session (`startDebugging`), attaching a new client's session to a waiting child
//! process, and ending child sessions before their parent.

use super::connection::Connection;
use super::lifecycle::Terminated;
use super::pending::{Pending, PendingKey};
use super::program::{Origin, Program};
use super::stage::Stage;
use super::state::Session;
use super::timers::TimerPurpose;
use crate::config::{self, CHILD_SESSION_KEY};
use crate::context::{Note, SessionContext};
use crate::dap::error::{codes, DapError};
use crate::dap::message::{self, Request, Response};
use crate::dap::raw::JsonText;
use crate::ipc::frame::FrameDecoder;
use crate::{Address, ClientId, ConnectionId, Framing, LogLevel, Signal};
use serde_json::{json, Map, Value};

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

/// What the router hands a child session when it binds it to its process.
pub struct ChildBinding {
    pub conn: ConnectionId,
    pub decoder: FrameDecoder,
    pub pid: Option<u32>,
    pub session_id: String,
    /// The root's child listener, handed on so grandchildren connect there too.
    pub child_listener: Option<Address>,
}

impl Session {
    /// `attach` is how a child session starts: its configuration (built by the engine
    /// for `startDebugging`) names the waiting child with a private key. Without that
    /// key it is the user's attach to a listening program (attach.rs).
    pub(super) fn on_attach(&mut self, ctx: &mut SessionContext<'_>, request: Request) {
        if self.program.is_some() {
            let error = DapError::user(
                codes::WRONG_STATE,
                "This session already debugs a program; a session debugs one program.",
            );
            self.respond_error(ctx, request.seq, "attach", &error);
            return;
        }
        let Some(child) = request
            .arguments
            .get(CHILD_SESSION_KEY)
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            self.on_user_attach(ctx, request);
            return;
        };
        let name = request
            .arguments
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("child process")
            .to_string();
        let config = match config::validate_child(&request.arguments, &name) {
            Ok(config) => config,
            Err(error) => {
                self.respond_error(ctx, request.seq, "attach", &error);
                return;
            }
        };
        let stage = Stage::Starting { connect: None };
        self.program = Some(Program::new(config, Origin::Child, stage));
        self.pending
            .insert(PendingKey::Client(request.seq), Pending::Launch);
        ctx.note(Note::AttachChild { child, request });
    }

    /// Whether this session's child attach may be served by the engine that debugs
    /// the child (router/relay.rs): its client is a byte stream the engine frames, and
    /// did not itself come through this engine's client listener.
    pub fn may_relay(&self) -> bool {
        self.client.framing == Framing::ContentLength
            && !self.child_client_only
            && !self.client.closed
            && !self.lifecycle.is_finished()
    }

    /// Gives up this session for a relay: what its client has said that the engine
    /// that debugs the child must hear too, and what the client is owed from here.
    pub fn hand_over(self) -> Handover {
        let arguments = self
            .initialize_arguments
            .unwrap_or_else(|| Value::Object(Map::new()));
        Handover {
            client: self.client.id,
            next_seq: self.client.next_seq,
            initialize: message::request("initialize", arguments).stamp(1),
            unread: self.client.decoder.into_unread(),
        }
    }

    /// Binds this session to its child process's connection and configures it.
    pub fn bind_child(&mut self, ctx: &mut SessionContext<'_>, binding: ChildBinding) {
        let Some(launch) = self
            .program
            .as_mut()
            .filter(|launch| matches!(launch.origin, Origin::Child) && launch.stage.is_starting())
        else {
            ctx.log(
                LogLevel::Error,
                "A child process was bound to a session that is not waiting for one.",
            );
            ctx.close_connection(binding.conn);
            return;
        };
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
        launch.session_id = binding.session_id;
        launch.process.hello_pid = binding.pid;
        launch.process.started();
        if launch.config.subprocess_auto_attach {
            launch.child_listener = binding.child_listener;
        }
        launch.stage =
            Stage::connected(Connection::new(binding.conn, binding.decoder, binding.pid));
        self.send_configure(ctx);
        self.drain_debuggee_frames(ctx);
    }

    /// Answers an `attach` that names no waiting child.
    pub fn refuse_attach(&mut self, ctx: &mut SessionContext<'_>, message: String) {
        self.fail_launch(ctx, DapError::user(codes::NO_SUCH_CHILD, message));
    }

    /// Asks the client to start a session for a child. Fails, with the reason, when
    /// the client cannot.
    pub fn request_child_session(
        &mut self,
        ctx: &mut SessionContext<'_>,
        child: &str,
        configuration: Map<String, Value>,
    ) -> Result<(), String> {
        if self.client.closed || self.lifecycle.is_finished() {
            return Err("the parent session's client is gone".to_string());
        }
        if !self.client_supports("supportsStartDebuggingRequest") {
            return Err("the client does not support the startDebugging request".to_string());
        }
        let seq = self.client.next_seq;
        self.pending.insert(
            PendingKey::Reverse(seq),
            Pending::StartDebugging {
                child: child.to_string(),
            },
        );
        let arguments = json!({ "request": "attach", "configuration": configuration });
        self.send(ctx, message::request("startDebugging", arguments));
        Ok(())
    }

    pub(super) fn on_start_debugging_response(
        &mut self,
        ctx: &mut SessionContext<'_>,
        child: String,
        response: Response,
    ) {
        ctx.note(Note::StartDebuggingAnswered {
            child,
            success: response.success,
            message: response.message,
        });
    }

    /// Tells the client about a child process that will not be debugged, and why.
    /// Clients that did not ask for Dapper's events have it in the log only.
    pub fn report_child_candidate(&mut self, ctx: &mut SessionContext<'_>, body: Value) {
        if self.wants_dapper_events() {
            self.send_event(ctx, "dapper/childProcessCandidate", Some(body));
        }
    }

    /// Ends this child session because its parent is stopping: its process is sent
    /// `signal`, or, without one, left running without the debugger (its connection
    /// closes); its client gets `terminated` now, before the parent's.
    pub fn end_with_parent(&mut self, ctx: &mut SessionContext<'_>, signal: Option<Signal>) {
        if self.lifecycle.terminated() == Some(Terminated::Sent) || self.lifecycle.is_finished() {
            return;
        }
        if self.pending.launch().is_some() {
            let error = DapError::silent(
                codes::DEBUGGEE_GONE,
                "The parent session stopped before this child session was ready.",
            );
            self.fail_launch(ctx, error);
        }
        self.drop_debuggee_connection(ctx);
        if let Some(signal) = signal {
            self.kill_debuggee(ctx, signal);
        }
        self.cancel_timers_for(ctx, TimerPurpose::TerminateEscalation);
        if let Some(launch) = self.program.as_mut() {
            launch.process.gone();
            // drop_debuggee_connection closed the connection already.
            launch.stage.end();
        }
        self.send_terminated(ctx);
        if let Some(disconnect) = self.lifecycle.take_disconnect() {
            self.finish_waiting_disconnect(ctx, disconnect);
        }
    }

    /// Goes on with the `disconnect`/`terminate` that waited for the children to end.
    pub fn resume_deferred_stop(&mut self, ctx: &mut SessionContext<'_>) {
        if let Some(request) = self.lifecycle.take_after_children() {
            self.on_request(ctx, request);
        }
    }

    /// Sends the `terminated` that waited for the children, once none is live.
    pub fn send_deferred_terminated(&mut self, ctx: &mut SessionContext<'_>) {
        if self.lifecycle.terminated() == Some(Terminated::Deferred) {
            self.send_terminated(ctx);
        }
    }
}
