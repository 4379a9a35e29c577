//! The debuggee side of a session once it said hello (starting.rs): `dapper/configure`,
//! forwarding client requests with the engine's own seq, passing responses and events
//! back, the debuggee's output, the connection closing, and the child sessions the
//! debuggee's processes ask the client for (`startDebugging`).

use super::connection::parse_payload;
use super::inheritance::{inherit_arguments, Inheritance};
use super::output_lines::OUTPUT_LINES_EVENT;
use super::pending::{Pending, PendingKey};
use super::program::Program;
use super::stage::{Stage, Step};
use super::state::{is_dapper_event, Session};
use super::timers::TimerPurpose;
use crate::config;
use crate::context::{Note, SessionContext};
use crate::dap::error::{codes, DapError};
use crate::dap::message::{self, Event, Incoming, Request, Response, Unsequenced};
use crate::ipc::frame::FrameKind;
use crate::ipc::hello;
use crate::path_mappings::PathMappings;
use crate::{Address, ConnectionId, LogLevel, ProcessId, Stream};
use serde_json::{json, Map, Value};

/// Events only the engine decides on; a debuggee that sends them anyway is ignored
/// rather than allowed to confuse the client.
const ENGINE_OWNED_EVENTS: &[&str] = &["initialized", "process", "exited", "terminated"];
/// What a child that runs before its session sends when it holds a stop for that
/// session: the client is to be asked for it now.
pub const SESSION_WANTED_EVENT: &str = "dapper/sessionWanted";

/// The arguments of `dapper/configure`: the client's initialize arguments, the
/// normalised configuration and, when children are debugged, where they connect (with
/// the token they prove themselves with, for a program that has none of its own).
pub(super) fn configure_arguments(
    client: Option<&Value>,
    launch: &Map<String, Value>,
    child_listener: Option<&Address>,
    child_token: Option<&str>,
) -> Map<String, Value> {
    let mut arguments = Map::new();
    arguments.insert("client".to_string(), client.cloned().unwrap_or(Value::Null));
    arguments.insert("launch".to_string(), Value::Object(launch.clone()));
    if let Some(address) = child_listener {
        arguments.insert("childListener".to_string(), json!(address));
        if let Some(token) = child_token {
            arguments.insert("childToken".to_string(), json!(token));
        }
    }
    arguments
}

impl Session {
    pub fn on_connection_bytes(
        &mut self,
        ctx: &mut SessionContext<'_>,
        conn: ConnectionId,
        bytes: &[u8],
    ) {
        let Some(launch) = self.program.as_mut() else {
            return;
        };
        if let Some(debuggee) = launch
            .stage
            .connection_mut()
            .filter(|debuggee| debuggee.conn == conn)
        {
            debuggee.decoder.push(bytes);
            self.drain_debuggee_frames(ctx);
        } else if let Some(decoder) = launch.candidates.get_mut(&conn) {
            decoder.push(bytes);
            self.check_candidate(ctx, conn);
        } else {
            ctx.log(
                LogLevel::Debug,
                format!("Ignored bytes on connection {conn}, which this session no longer reads."),
            );
        }
    }

    /// Sends `dapper/configure`: the client's initialize arguments, the normalised
    /// configuration and, when children are debugged, where they connect. The client
    /// hears `initialized` at once: what it sends next reaches the debuggee after the
    /// configuration, in order on the one connection, and the debuggee reads it as soon
    /// as its start-up imports are done, so the client's round trips overlap them
    /// rather than follow them. A refused configuration fails the launch all the same.
    pub(super) fn send_configure(&mut self, ctx: &mut SessionContext<'_>) {
        let Some(launch) = self.program.as_ref() else {
            return;
        };
        // A program the user started has no token of its own to hand its children.
        let token = launch
            .origin
            .endpoint()
            .is_some()
            .then_some(launch.token.as_str());
        let arguments = configure_arguments(
            self.initialize_arguments.as_ref(),
            &launch.config.normalised,
            launch.child_listener.as_ref(),
            token,
        );
        if let Some(seq) = self.send_to_debuggee(
            ctx,
            message::request("dapper/configure", Value::Object(arguments)),
        ) {
            self.pending
                .insert(PendingKey::Debuggee(seq), Pending::Configure);
            self.announce_process(ctx);
        }
    }

    /// Stamps the connection's next seq on a message and sends it; returns the seq.
    pub(super) fn send_to_debuggee(
        &mut self,
        ctx: &mut SessionContext<'_>,
        message: Unsequenced,
    ) -> Option<i64> {
        let debuggee = self.program.as_mut()?.stage.connection_mut()?;
        Some(debuggee.send(ctx, message))
    }

    pub(super) fn drain_debuggee_frames(&mut self, ctx: &mut SessionContext<'_>) {
        loop {
            let Some(debuggee) = self
                .program
                .as_mut()
                .and_then(|launch| launch.stage.connection_mut())
            else {
                return;
            };
            let conn = debuggee.conn;
            let incoming = match debuggee.decoder.next_frame() {
                Ok(None) => return,
                Ok(Some(frame)) if frame.kind != FrameKind::FromDebuggee => Err(
                    "a frame of the kind meant for debuggees came from the debuggee".to_string(),
                ),
                Ok(Some(frame)) => parse_payload(&frame.payload),
                Err(error) => Err(error.to_string()),
            };
            match incoming {
                Ok(incoming) => self.on_debuggee_message(ctx, incoming),
                Err(reason) => {
                    ctx.log(
                        LogLevel::Error,
                        format!("Closed debuggee connection {conn}: {reason}."),
                    );
                    self.drop_debuggee_connection(ctx);
                    self.debuggee_connection_lost(ctx);
                    return;
                }
            }
        }
    }

    fn on_debuggee_message(&mut self, ctx: &mut SessionContext<'_>, incoming: Incoming) {
        match incoming {
            Incoming::Response(response) => self.on_debuggee_response(ctx, response),
            Incoming::Event(event) => self.on_debuggee_event(ctx, event),
            Incoming::Request(request) => {
                let error = DapError::internal(
                    codes::BAD_REQUEST,
                    format!(
                        "Dapper does not handle the request '{}' from a debuggee.",
                        request.command
                    ),
                );
                ctx.log(LogLevel::Warn, error.message.clone());
                self.send_to_debuggee(
                    ctx,
                    message::error_response(request.seq, &request.command, &error),
                );
            }
        }
    }

    fn on_debuggee_response(&mut self, ctx: &mut SessionContext<'_>, response: Response) {
        match self
            .pending
            .remove(PendingKey::Debuggee(response.request_seq))
        {
            Some(Pending::Configure) => {
                if !response.success {
                    let reason = response
                        .message
                        .unwrap_or_else(|| "no reason given".to_string());
                    let error = DapError::user(
                        codes::DEBUGGEE_FAILED,
                        format!("The debuggee could not be configured: {reason}"),
                    );
                    self.fail_launch(ctx, error);
                }
            }
            Some(Pending::Forwarded {
                client_seq,
                command,
            }) => {
                let mut changes = vec![
                    ("request_seq", Value::from(client_seq)),
                    ("command", Value::String(command.clone())),
                ];
                if let Some(body) = self
                    .mappings()
                    .and_then(|mappings| mappings.response_body(&command, &response.body))
                {
                    changes.push(("body", body));
                }
                let forwarded = response.raw.forwarded(changes);
                self.send(ctx, forwarded);
                match command.as_str() {
                    "continue" if response.success => self.set_stopped(false),
                    "configurationDone" if response.success => self.complete_launch(ctx),
                    "configurationDone" => {
                        let reason = response
                            .message
                            .unwrap_or_else(|| "no reason given".to_string());
                        let error = DapError::user(
                            codes::DEBUGGEE_FAILED,
                            format!("The debuggee could not start the program: {reason}"),
                        );
                        self.fail_launch(ctx, error);
                    }
                    _ => {}
                }
            }
            Some(Pending::Terminate) => ctx.log(
                LogLevel::Debug,
                format!(
                    "The attached program answered dapper/terminate (success: {}).",
                    response.success
                ),
            ),
            Some(other) => ctx.log(
                LogLevel::Error,
                format!(
                    "A debuggee response matched {other:?}, which the debuggee was never asked."
                ),
            ),
            None => ctx.log(
                LogLevel::Warn,
                format!(
                    "Ignored the debuggee's response to '{}' ({}): no such request is waiting.",
                    response.command, response.request_seq
                ),
            ),
        }
    }

    /// The debuggee is on its way to being configured: the client may configure it.
    fn announce_process(&mut self, ctx: &mut SessionContext<'_>) {
        let Some(body) = self.program.as_mut().map(Program::configured) else {
            return;
        };
        self.send_event(ctx, "process", Some(body));
        self.send_event(ctx, "initialized", None);
    }

    fn on_debuggee_event(&mut self, ctx: &mut SessionContext<'_>, event: Event) {
        match event.event.as_str() {
            "dapper/exiting" => {
                let code = event.body.get("exitCode").and_then(Value::as_i64);
                if let Some(launch) = self.program.as_mut() {
                    launch.process.announced_exit_code = code;
                }
                return;
            }
            // Public events: forwarded to the client, and the router keeps books.
            "dapper/childProcess" => ctx.note(Note::ChildAnnounced {
                body: Value::clone(&event.body),
            }),
            "dapper/childProcessExited" => ctx.note(Note::ChildExited {
                body: Value::clone(&event.body),
            }),
            // A child that runs before its session asks for it (router/sent_while_running.rs);
            // a session that has come has nothing to do for it.
            SESSION_WANTED_EVENT => return,
            "dapper/hello" | hello::CHILD_HELLO => {
                ctx.log(
                    LogLevel::Warn,
                    "Ignored a second dapper/hello from the debuggee.",
                );
                return;
            }
            name if ENGINE_OWNED_EVENTS.contains(&name) => {
                ctx.log(
                    LogLevel::Warn,
                    format!("Ignored the event '{name}' from the debuggee; the engine sends it."),
                );
                return;
            }
            OUTPUT_LINES_EVENT => {
                self.forward_output_lines(ctx, &event.body);
                return;
            }
            "stopped" => self.set_stopped(true),
            "continued" => self.set_stopped(false),
            _ => {}
        }
        if is_dapper_event(&event.event) && !self.wants_dapper_events() {
            return;
        }
        let changes = match self
            .mappings()
            .and_then(|mappings| mappings.event_body(&event.event, &event.body))
        {
            Some(body) => vec![("body", body)],
            None => Vec::new(),
        };
        self.send(ctx, event.raw.forwarded(changes));
    }

    /// The session's `pathMappings`, when it has any.
    pub(super) fn mappings(&self) -> Option<&PathMappings> {
        self.program
            .as_ref()
            .map(|launch| &launch.path_mappings)
            .filter(|mappings| !mappings.is_empty())
    }

    fn set_stopped(&mut self, stopped: bool) {
        if let Some(debuggee) = self
            .program
            .as_mut()
            .and_then(|launch| launch.stage.connection_mut())
        {
            debuggee.stopped = stopped;
        }
    }

    /// Passes a request the engine does not decide on to the debuggee.
    pub(super) fn forward_to_debuggee(&mut self, ctx: &mut SessionContext<'_>, request: Request) {
        let command = request.command.clone();
        let refusal = match self.program.as_ref() {
            None => Some(DapError::internal(
                codes::DEBUGGEE_NOT_CONNECTED,
                format!("'{command}' needs a debuggee, and the client has not launched one."),
            )),
            Some(launch) if launch.stage.connection().is_some() => None,
            Some(launch) if launch.stage.got_hello() => {
                let code = launch.process.exit_code.or(launch.process.announced_exit_code);
                let exited = match (launch.stage.is_over(), code) {
                    (true, Some(code)) => format!("has exited with code {code}"),
                    (true, None) => "has exited".to_string(),
                    (false, Some(code)) => format!("is exiting with code {code}"),
                    (false, None) => "closed its connection".to_string(),
                };
                Some(DapError::silent(
                    codes::DEBUGGEE_GONE,
                    format!("The debuggee {exited}, so '{command}' cannot be handled."),
                ))
            }
            Some(launch) if launch.stage.is_over() => Some(DapError::silent(
                codes::DEBUGGEE_GONE,
                format!("The debuggee has exited, so '{command}' cannot be handled."),
            )),
            Some(_) => Some(DapError::internal(
                codes::DEBUGGEE_NOT_CONNECTED,
                format!("'{command}' cannot be handled before the debuggee has connected; wait for the 'initialized' event."),
            )),
        };
        if let Some(error) = refusal {
            self.respond_error(ctx, request.seq, &command, &error);
            return;
        }
        let mapped = self
            .mappings()
            .and_then(|mappings| mappings.request_arguments(&command, &request.arguments));
        // What this session's children run on until their own client configures them
        // (inheritance.rs): the breakpoints as the debuggee is given them.
        self.last_breakpoints
            .record(&command, mapped.as_ref().unwrap_or(&request.arguments));
        let changes = match mapped {
            Some(arguments) => vec![("arguments", arguments)],
            None => Vec::new(),
        };
        if let Some(seq) = self.send_to_debuggee(ctx, request.raw.forwarded(changes)) {
            self.pending.insert(
                PendingKey::Debuggee(seq),
                Pending::Forwarded {
                    client_seq: request.seq,
                    command,
                },
            );
        }
    }

    pub fn on_connection_closed(
        &mut self,
        ctx: &mut SessionContext<'_>,
        conn: ConnectionId,
        error: Option<&str>,
    ) {
        let Some(launch) = self.program.as_mut() else {
            return;
        };
        if let Some(error) = error {
            ctx.log(
                LogLevel::Info,
                format!("Debuggee connection {conn} failed: {error}"),
            );
        }
        let attach_starting = launch.says_tokenless_hello() && launch.stage.is_starting();
        if launch.candidates.remove(&conn).is_some() {
            self.cancel_timers_for(ctx, TimerPurpose::CandidateHello(conn));
            if attach_starting {
                self.attach_closed_before_hello(ctx, conn);
            }
            return;
        }
        if launch
            .stage
            .connection()
            .is_some_and(|debuggee| debuggee.conn == conn)
        {
            launch.stage.take_connection();
            self.debuggee_connection_lost(ctx);
        }
    }

    /// Closes the debuggee connection from our side, if there is one.
    pub(super) fn drop_debuggee_connection(&mut self, ctx: &mut SessionContext<'_>) {
        if let Some(debuggee) = self
            .program
            .as_mut()
            .and_then(|launch| launch.stage.take_connection())
        {
            ctx.close_connection(debuggee.conn);
        }
    }

    /// The debuggee connection is gone: nothing pending on it will be answered. A
    /// debuggee the engine did not spawn (runInTerminal) is taken to have exited,
    /// with the code it announced; a spawned one ends with the host's processExited.
    pub(super) fn debuggee_connection_lost(&mut self, ctx: &mut SessionContext<'_>) {
        let configure_lost = self.abandon_debuggee_requests(ctx);
        let Some(launch) = self.program.as_ref() else {
            return;
        };
        if launch.process.spawned.is_none() && launch.process.is_alive() {
            let code = launch.process.announced_exit_code;
            self.debuggee_exited(ctx, code, None);
        } else if configure_lost {
            let error = DapError::user(
                codes::DEBUGGEE_FAILED,
                "The debuggee closed its connection before it was configured.",
            );
            self.fail_launch(ctx, error);
        }
    }

    /// Answers every client request still waiting for the debuggee with an error (its
    /// connection is gone or being closed); returns whether `dapper/configure` was
    /// among what it never answered.
    pub(super) fn abandon_debuggee_requests(&mut self, ctx: &mut SessionContext<'_>) -> bool {
        let waiting = self
            .pending
            .drain_where(|key, _| matches!(key, PendingKey::Debuggee(_)));
        let mut configure_lost = false;
        for (_, pending) in waiting {
            match pending {
                Pending::Forwarded {
                    client_seq,
                    command,
                } => {
                    let error = DapError::silent(
                        codes::DEBUGGEE_GONE,
                        format!("The debuggee is gone; '{command}' was not answered."),
                    );
                    self.respond_error(ctx, client_seq, &command, &error);
                }
                Pending::Configure => configure_lost = true,
                _ => {}
            }
        }
        configure_lost
    }

    pub fn on_process_output(
        &mut self,
        ctx: &mut SessionContext<'_>,
        process: ProcessId,
        stream: Stream,
        bytes: &[u8],
    ) {
        let Some(launch) = self
            .program
            .as_mut()
            .filter(|launch| launch.process.spawned == Some(process))
        else {
            return;
        };
        let text = launch.process.output(stream, bytes);
        if !text.is_empty() {
            let category = match stream {
                Stream::Stdout => "stdout",
                Stream::Stderr => "stderr",
            };
            self.send_output(ctx, category, &text);
        }
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

    /// What a child whose session this session asks its client for runs on until that
    /// client configures it (inheritance.rs), from the configuration the client is
    /// asked to attach with and where the child's own children connect; `None` when the
    /// child is to wait for its client.
    pub fn inheritance_for_child(
        &self,
        configuration: &Map<String, Value>,
        name: &str,
        child_listener: Option<&Address>,
    ) -> Option<Inheritance> {
        let config = config::validate_child(&Value::Object(configuration.clone()), name).ok()?;
        let listener = child_listener.filter(|_| config.subprocess_auto_attach);
        let configure = configure_arguments(
            self.initialize_arguments.as_ref(),
            &config.normalised,
            listener,
            None,
        );
        let arguments = inherit_arguments(configure, &self.last_breakpoints)?;
        Some(Inheritance {
            arguments,
            breakpoints: self.last_breakpoints.clone(),
        })
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

    /// Answers the client's `launch` once `configurationDone` went through.
    pub(super) fn complete_launch(&mut self, ctx: &mut SessionContext<'_>) {
        ctx.note(Note::Configured);
        if let Some(seq) = self.pending.launch() {
            self.pending.remove(PendingKey::Client(seq));
            let command = self.start_command();
            self.respond_ok(ctx, seq, command, None);
        }
        if let Some(Stage::Connected(connected)) =
            self.program.as_mut().map(|launch| &mut launch.stage)
        {
            if connected.step == Step::Configured {
                connected.step = Step::Running;
            }
        }
    }
}
