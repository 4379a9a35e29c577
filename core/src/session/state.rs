//! The `Session` type: one DAP client's session, its fields and sub-states, the
//! dispatch of what the client sends and of the session's timers, and the replies to
//! the client. How it comes to its debuggee (starting.rs), talks with it
//! (debuggee.rs) and ends (termination.rs) are its handlers in the sibling files.

use super::child::Handover;
use super::client::ClientLink;
use super::inheritance::{ClientKind, LastBreakpoints};
use super::lifecycle::Lifecycle;
use super::pending::{Pending, PendingKey, PendingTable};
use super::program::Program;
use super::timers::{TimerPurpose, Timers};
use crate::config;
use crate::context::{Note, SessionContext, SessionKey};
use crate::dap::capabilities::capabilities;
use crate::dap::error::{codes, Blame, DapError};
use crate::dap::message::{
    self, EnvelopeError, Incoming, Request, Response, TextError, Unsequenced,
};
use crate::dap::raw::JsonText;
use crate::{ClientId, Framing, LogLevel, TimerId};
use serde_json::Value;

/// Requests that only a debuggee running its tracer can answer. A `noDebug` session
/// refuses them in the engine with one clear sentence rather than letting the
/// debuggee give answers about a program it is not watching.
const NEEDS_TRACER: &[&str] = &[
    "continue",
    "next",
    "stepIn",
    "stepOut",
    "stepBack",
    "reverseContinue",
    "pause",
    "goto",
    "gotoTargets",
    "stepInTargets",
    "restartFrame",
    "stackTrace",
    "scopes",
    "variables",
    "setVariable",
    "setExpression",
    "evaluate",
    "completions",
    "exceptionInfo",
    "dataBreakpointInfo",
    "dapper/hotReload",
    "dapper/tasks",
];

/// The `initialize` argument with which a client asks for the `dapper/*` events.
const DAPPER_EVENTS_ARGUMENT: &str = "supportsDapperEvents";

/// Whether an event is one of Dapper's own, sent only to clients that ask for them.
pub(super) fn is_dapper_event(name: &str) -> bool {
    name.starts_with("dapper/")
}

pub struct Session {
    pub(super) key: SessionKey,
    pub(super) client: ClientLink,
    /// Whether the client came through the engine's client listener: such a client
    /// may only attach to a waiting child (see docs/engine-io.md).
    pub child_client_only: bool,
    /// Whether the client runs this adapter over stdio, so that its child sessions
    /// must be told to connect to the client listener.
    pub stdio_client: bool,
    /// The client's `initialize` arguments, once it sent them.
    pub(super) initialize_arguments: Option<Value>,
    pub(super) program: Option<Program>,
    pub(super) pending: PendingTable,
    pub(super) timers: Timers,
    /// How far the session is on its way to its end (lifecycle.rs).
    pub(super) lifecycle: Lifecycle,
    /// The breakpoint requests last forwarded, which its children run on until their
    /// own client configures them (inheritance.rs).
    pub(super) last_breakpoints: LastBreakpoints,
}

impl Session {
    pub fn new(key: SessionKey, client: ClientId, framing: Framing) -> Session {
        Session {
            key,
            child_client_only: false,
            stdio_client: false,
            client: ClientLink::new(client, framing),
            initialize_arguments: None,
            program: None,
            pending: PendingTable::default(),
            timers: Timers::default(),
            lifecycle: Lifecycle::Open,
            last_breakpoints: LastBreakpoints::default(),
        }
    }

    pub fn client_id(&self) -> ClientId {
        self.client.id
    }

    pub fn key(&self) -> SessionKey {
        self.key
    }

    /// The breakpoint requests last forwarded to the debuggee (inheritance.rs).
    pub fn last_breakpoints(&self) -> &LastBreakpoints {
        &self.last_breakpoints
    }

    /// The session's normalised configuration, from which a child's is built.
    pub fn normalised_configuration(&self) -> serde_json::Map<String, Value> {
        self.program
            .as_ref()
            .map(|launch| launch.config.normalised.clone())
            .unwrap_or_default()
    }

    /// The adapter type this session was started with (its configuration's `type`).
    pub fn adapter_type(&self) -> String {
        self.program
            .as_ref()
            .map_or(config::DEFAULT_ADAPTER_TYPE, |launch| {
                config::adapter_type(&launch.config.normalised)
            })
            .to_string()
    }

    /// The kind of client this session has (inheritance.rs).
    pub fn client_kind(&self) -> Option<ClientKind> {
        ClientKind::of(self.initialize_arguments.as_ref(), &self.adapter_type())
    }

    /// Where this session's child processes connect, when it debugs children.
    pub fn child_listener(&self) -> Option<crate::Address> {
        self.program
            .as_ref()
            .and_then(|launch| launch.child_listener.clone())
    }

    /// Whether this session attached to a program the user started (not a child).
    pub fn is_user_attach(&self) -> bool {
        self.program
            .as_ref()
            .is_some_and(|program| program.origin.is_users_program())
    }

    /// Whether the session is over and everything it holds can be released.
    pub fn is_finished(&self) -> bool {
        self.lifecycle.is_finished()
    }

    // ----- Sending to the client -------------------------------------------------

    /// Stamps the client's next seq on a message and hands it to the host.
    pub(super) fn send(&mut self, ctx: &mut SessionContext<'_>, message: Unsequenced) {
        self.client.send(ctx, message);
    }

    pub(super) fn respond_ok(
        &mut self,
        ctx: &mut SessionContext<'_>,
        request_seq: i64,
        command: &str,
        body: Option<Value>,
    ) {
        self.send(ctx, message::success_response(request_seq, command, body));
    }

    /// Sends an error response, logging it as its blame asks.
    pub(super) fn respond_error(
        &mut self,
        ctx: &mut SessionContext<'_>,
        request_seq: i64,
        command: &str,
        error: &DapError,
    ) {
        let level = match error.blame {
            Blame::User => LogLevel::Info,
            Blame::Internal => LogLevel::Error,
            Blame::Silent => LogLevel::Debug,
        };
        ctx.log(
            level,
            format!(
                "Request '{command}' ({request_seq}) failed: {}",
                error.message
            ),
        );
        self.send(ctx, message::error_response(request_seq, command, error));
    }

    pub(super) fn send_event(
        &mut self,
        ctx: &mut SessionContext<'_>,
        name: &str,
        body: Option<Value>,
    ) {
        self.send(ctx, message::event(name, body));
    }

    pub(super) fn send_output(&mut self, ctx: &mut SessionContext<'_>, category: &str, text: &str) {
        self.send(ctx, message::output_event(category, text));
    }

    /// Ends the conversation with the client: the host closes its stream once written.
    pub(super) fn close_client(&mut self, ctx: &mut SessionContext<'_>) {
        self.client.close(ctx);
    }

    // ----- Receiving from the client ---------------------------------------------

    pub fn on_client_bytes(&mut self, ctx: &mut SessionContext<'_>, bytes: &[u8]) {
        if self.client.framing != Framing::ContentLength {
            ctx.log(
                LogLevel::Error,
                format!(
                    "Ignored bytes from client {}, which exchanges messages, not bytes.",
                    self.client.id
                ),
            );
            return;
        }
        self.client.decoder.push(bytes);
        loop {
            match self.client.decoder.next_body() {
                Ok(Some(body)) => match message::parse_slice(&body) {
                    Ok(incoming) => self.on_client_incoming(ctx, Ok(incoming)),
                    Err(TextError::Envelope(error)) => self.on_client_incoming(ctx, Err(error)),
                    Err(TextError::NotJson(error)) => self.report_unreadable(
                        ctx,
                        format!("Dapper skipped a message from the client whose body is not JSON ({error})."),
                    ),
                },
                Ok(None) => break,
                Err(error) => {
                    let text = format!("Dapper cannot read the client's messages any more: {error}. The connection is closed.");
                    ctx.log(LogLevel::Error, format!("Client {}: {text}", self.client.id));
                    self.send_output(ctx, "important", &format!("{text}\n"));
                    self.close_client(ctx);
                    self.on_client_closed(ctx);
                    break;
                }
            }
            if self.lifecycle.is_finished() {
                break;
            }
        }
    }

    pub fn on_client_message(&mut self, ctx: &mut SessionContext<'_>, message: JsonText) {
        match message::parse_text(message.as_str()) {
            Ok(incoming) => self.on_client_incoming(ctx, Ok(incoming)),
            Err(TextError::Envelope(error)) => self.on_client_incoming(ctx, Err(error)),
            // A `JsonText` is valid JSON, so this is out of reach; it is answered as
            // a byte stream's broken body would be rather than by a panic.
            Err(TextError::NotJson(error)) => {
                let text =
                    format!("Dapper skipped a message from the client that is not JSON ({error}).");
                ctx.log(LogLevel::Error, text.clone());
                self.send_output(ctx, "important", &format!("{text}\n"));
            }
        }
    }

    pub(super) fn on_client_incoming(
        &mut self,
        ctx: &mut SessionContext<'_>,
        incoming: Result<Incoming, EnvelopeError>,
    ) {
        if self.lifecycle.is_finished() {
            return;
        }
        match incoming {
            Ok(Incoming::Request(request)) => self.on_request(ctx, request),
            Ok(Incoming::Response(response)) => self.on_client_response(ctx, response),
            Ok(Incoming::Event(event)) => {
                ctx.log(
                    LogLevel::Warn,
                    format!(
                        "Ignored the event '{}' from the client; clients do not send events.",
                        event.event
                    ),
                );
            }
            Err(EnvelopeError::BadRequest {
                seq,
                command,
                reason,
            }) => {
                let error = DapError::internal(
                    codes::BAD_REQUEST,
                    format!("The request could not be handled: {reason}."),
                );
                self.respond_error(ctx, seq, &command, &error);
            }
            Err(error @ EnvelopeError::Unusable(_)) => self.report_unreadable(
                ctx,
                format!("Dapper ignored a message from the client: {error}."),
            ),
        }
    }

    /// Logs and shows a client message that could not be read, as often as the
    /// client's count of them allows.
    fn report_unreadable(&mut self, ctx: &mut SessionContext<'_>, text: String) {
        if let Some(text) = self.client.unreadable.report(text) {
            ctx.log(LogLevel::Error, text.clone());
            self.send_output(ctx, "important", &format!("{text}\n"));
        }
    }

    pub(super) fn on_request(&mut self, ctx: &mut SessionContext<'_>, request: Request) {
        let stopping = matches!(request.command.as_str(), "disconnect" | "terminate");
        if stopping && ctx.tree.awaits_child_sessions(self.key) {
            ctx.note(Note::StopAwaiting);
        }
        if stopping && !self.lifecycle.waits_for_children() && ctx.tree.has_live_children(self.key)
        {
            // Children end before their parent: the router ends them, then resumes.
            // A detach from a program the user started leaves its children running too.
            let detach = request.command == "disconnect"
                && self.is_user_attach()
                && request.arguments.get("terminateDebuggee") != Some(&Value::Bool(true));
            self.lifecycle.after_children(request);
            ctx.note(Note::StopChildren { detach });
            return;
        }
        if self.child_client_only && request.command == "launch" {
            let error = DapError::user(
                codes::WRONG_STATE,
                "This connection is for child sessions; it can only attach to a child process.",
            );
            self.respond_error(ctx, request.seq, "launch", &error);
            return;
        }
        if self.initialize_arguments.is_none() && request.command != "initialize" {
            let error = DapError::internal(
                codes::NOT_INITIALIZED,
                format!(
                    "The client must send 'initialize' before '{}'.",
                    request.command
                ),
            );
            self.respond_error(ctx, request.seq, &request.command, &error);
            return;
        }
        match request.command.as_str() {
            "initialize" => self.on_initialize(ctx, request),
            "launch" => self.on_launch(ctx, request),
            "attach" => self.on_attach(ctx, request),
            "disconnect" => self.on_disconnect(ctx, request),
            "terminate" => self.on_terminate(ctx, request),
            command if self.no_debug() && NEEDS_TRACER.contains(&command) => {
                let error = DapError::silent(
                    codes::NOT_DEBUGGING,
                    format!("'{command}' is not available: the program runs without debugging (noDebug)."),
                );
                self.respond_error(ctx, request.seq, &request.command, &error);
            }
            _ => self.forward_to_debuggee(ctx, request),
        }
    }

    pub(super) fn on_initialize(&mut self, ctx: &mut SessionContext<'_>, request: Request) {
        if self.initialize_arguments.is_some() {
            let error = DapError::internal(
                codes::ALREADY_INITIALIZED,
                "The client sent 'initialize' twice.",
            );
            self.respond_error(ctx, request.seq, "initialize", &error);
            return;
        }
        let arguments = match request.arguments.into_value() {
            Value::Null => Value::Object(Default::default()),
            other => other,
        };
        if !arguments.is_object() {
            let error = DapError::internal(
                codes::BAD_REQUEST,
                "The arguments of 'initialize' must be an object.",
            );
            self.respond_error(ctx, request.seq, "initialize", &error);
            return;
        }
        self.initialize_arguments = Some(arguments);
        self.respond_ok(ctx, request.seq, "initialize", Some(capabilities()));
    }

    /// Whether this session runs its program without the debugger (`noDebug`).
    pub(super) fn no_debug(&self) -> bool {
        self.program
            .as_ref()
            .is_some_and(|launch| launch.config.no_debug)
    }

    /// Whether the client wants Dapper's own `dapper/*` events (child processes, hot
    /// reload results): a client that says `supportsDapperEvents: true` in its
    /// `initialize` arguments. Other clients do not know them, and some warn about every
    /// one (nvim-dap logs "No event handler"); VS Code's extension reads none, and each
    /// would cost its debug service work for every child a test suite starts.
    pub(super) fn wants_dapper_events(&self) -> bool {
        self.client_supports(DAPPER_EVENTS_ARGUMENT)
    }

    /// A boolean the client declared in its `initialize` arguments.
    pub(super) fn client_supports(&self, capability: &str) -> bool {
        self.initialize_arguments
            .as_ref()
            .and_then(|arguments| arguments.get(capability))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    pub(super) fn on_client_response(&mut self, ctx: &mut SessionContext<'_>, response: Response) {
        let key = PendingKey::Reverse(response.request_seq);
        match self.pending.remove(key) {
            Some(Pending::RunInTerminal { timer }) => {
                self.cancel_timer(ctx, timer);
                self.on_run_in_terminal_response(ctx, response);
            }
            Some(Pending::StartDebugging { child }) => {
                self.on_start_debugging_response(ctx, child, response)
            }
            Some(other) => {
                ctx.log(
                    LogLevel::Error,
                    format!("A client response matched {other:?}, which is not a reverse request."),
                );
            }
            None => ctx.log(
                LogLevel::Warn,
                format!(
                    "Ignored the client's response to '{}' ({}): no such request is waiting.",
                    response.command, response.request_seq
                ),
            ),
        }
    }

    // ----- Timers ------------------------------------------------------------------

    pub(super) fn set_timer(
        &mut self,
        ctx: &mut SessionContext<'_>,
        after_ms: u64,
        purpose: TimerPurpose,
    ) -> TimerId {
        self.timers.set(ctx, after_ms, purpose)
    }

    pub(super) fn cancel_timer(&mut self, ctx: &mut SessionContext<'_>, timer: TimerId) {
        self.timers.cancel(ctx, timer);
    }

    pub(super) fn cancel_timers_for(
        &mut self,
        ctx: &mut SessionContext<'_>,
        purpose: TimerPurpose,
    ) {
        self.timers.cancel_all(ctx, purpose);
    }

    pub fn on_timer(&mut self, ctx: &mut SessionContext<'_>, timer: TimerId) {
        let Some(purpose) = self.timers.fired(timer) else {
            ctx.log(
                LogLevel::Debug,
                format!("Timer {timer} fired after it stopped mattering."),
            );
            return;
        };
        match purpose {
            TimerPurpose::HelloDeadline => {
                if let Some(error) = self.program.as_ref().map(Program::hello_deadline_error) {
                    self.fail_launch(ctx, error);
                }
            }
            TimerPurpose::RunInTerminal(seq) => self.on_run_in_terminal_timeout(ctx, seq),
            TimerPurpose::TerminateEscalation => self.on_terminate_escalation(ctx),
            TimerPurpose::DisconnectDeadline => self.on_disconnect_deadline(ctx),
            TimerPurpose::CandidateHello(conn) => {
                if let Some(program) = self.program.as_mut() {
                    program.candidate_hello_deadline(ctx, conn);
                }
            }
            TimerPurpose::AttachDeadline => {
                if let Some(error) = self.program.as_ref().map(Program::attach_deadline_error) {
                    self.fail_launch(ctx, error);
                }
            }
            TimerPurpose::InjectDeadline => {
                if let Some(error) = self
                    .program
                    .as_ref()
                    .and_then(Program::inject_deadline_error)
                {
                    self.fail_launch(ctx, error);
                }
            }
        }
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
        Handover::new(self.client, self.initialize_arguments)
    }
}
