//! A user's `attach`: the engine asks the host to connect to a program started with
//! `python -m dapperdbg --listen [HOST:]PORT`, reads its `dapper/hello` and then runs the
//! session as a launched one, except that the program is not ours: `disconnect` leaves
//! it running, and `terminate` asks it to end itself (`dapper/terminate`), because its
//! pid may be on another machine.

use super::connection::{parse_payload, Connection};
use super::inject::INJECT_DEADLINE_MS;
use super::pending::{Pending, PendingKey};
use super::program::{Origin, Program};
use super::stage::Stage;
use super::state::Session;
use super::timers::TimerPurpose;
use crate::config::{self, AttachMode, Target};
use crate::context::SessionContext;
use crate::dap::error::{codes, DapError};
use crate::dap::message::{self, Incoming, Request};
use crate::ipc::frame::FrameDecoder;
use crate::ipc::hello;
use crate::{Address, ConnectRequestId, ConnectionId, LogLevel, Signal};
use serde_json::{json, Value};

/// How long the host has to connect and the program to say its hello.
pub const ATTACH_DEADLINE_MS: u64 = 10_000;

/// The event a listening program sends instead of its hello when another client is
/// attached to it.
const REFUSED_EVENT: &str = "dapper/refused";

impl Session {
    /// An `attach` without the private child key: the user's own attach configuration
    /// (on_attach has refused a second program already).
    pub(super) fn on_user_attach(&mut self, ctx: &mut SessionContext<'_>, request: Request) {
        if self.child_client_only {
            let error = DapError::user(
                codes::WRONG_STATE,
                "This connection is for child sessions; it can only attach to a child process.",
            );
            self.respond_error(ctx, request.seq, "attach", &error);
            return;
        }
        if let Some(validated) = config::validate_attach_to_process(&request.arguments) {
            match validated.and_then(|(config, target)| Program::injecting(ctx, config, target)) {
                Ok(program) => {
                    self.program = Some(program);
                    self.pending
                        .insert(PendingKey::Client(request.seq), Pending::Launch);
                    self.set_timer(ctx, INJECT_DEADLINE_MS, TimerPurpose::InjectDeadline);
                }
                Err(error) => self.respond_error(ctx, request.seq, "attach", &error),
            }
            return;
        }
        let (config, endpoint) = match config::validate_attach(&request.arguments) {
            Ok((config, AttachMode::Connect(endpoint))) => (config, endpoint),
            Ok((config, AttachMode::Listen(endpoint))) => {
                self.start_listen_attach(ctx, request.seq, config, endpoint);
                return;
            }
            Err(error) => {
                self.respond_error(ctx, request.seq, "attach", &error);
                return;
            }
        };
        ctx.log(
            LogLevel::Info,
            format!("Attaching to the program at {}.", endpoint.display()),
        );
        let connect_request = ctx.connect(endpoint.host.clone(), endpoint.port);
        let stage = Stage::Starting {
            connect: Some(connect_request),
        };
        self.program = Some(Program::new(config, Origin::Remote(endpoint), stage));
        self.pending
            .insert(PendingKey::Client(request.seq), Pending::Launch);
        self.set_timer(ctx, ATTACH_DEADLINE_MS, TimerPurpose::AttachDeadline);
    }

    /// Whether this session attached to a program the user started (not a child).
    pub fn is_user_attach(&self) -> bool {
        self.program
            .as_ref()
            .is_some_and(|launch| launch.origin.is_users_program())
    }

    /// Whether this session connected to a program started with `--listen`, whose
    /// hello carries no token.
    pub(super) fn is_listening_attach(&self) -> bool {
        self.program
            .as_ref()
            .is_some_and(|launch| launch.origin.endpoint().is_some())
    }

    pub(super) fn endpoint_text(&self) -> String {
        self.program
            .as_ref()
            .and_then(|launch| launch.origin.endpoint())
            .map_or_else(String::new, config::Endpoint::display)
    }

    pub fn on_connected(
        &mut self,
        ctx: &mut SessionContext<'_>,
        request: ConnectRequestId,
        conn: ConnectionId,
    ) {
        let Some(launch) = self.program.as_mut().filter(|launch| {
            matches!(launch.stage, Stage::Starting { connect: Some(waiting) } if waiting == request)
        }) else {
            ctx.log(
                LogLevel::Debug,
                format!("Closed connection {conn}: the attach it was for is over."),
            );
            ctx.close_connection(conn);
            return;
        };
        launch.stage = Stage::Starting { connect: None };
        launch.candidates.insert(conn, FrameDecoder::default());
    }

    pub fn on_connect_failed(
        &mut self,
        ctx: &mut SessionContext<'_>,
        request: ConnectRequestId,
        error: &str,
    ) {
        let waiting = self.program.as_ref().is_some_and(|launch| {
            matches!(launch.stage, Stage::Starting { connect: Some(waiting) } if waiting == request)
        });
        if !waiting {
            return;
        }
        let endpoint = self.endpoint_text();
        let port = self
            .program
            .as_ref()
            .and_then(|launch| launch.origin.endpoint())
            .map_or(0, |endpoint| endpoint.port);
        let error = DapError::user(
            codes::ATTACH_FAILED,
            format!("Dapper could not connect to the program at {endpoint} ({error}). Is it running under `python -m dapperdbg --listen {port} …`, and is 'connect' right?"),
        );
        self.fail_launch(ctx, error);
    }

    pub(super) fn on_attach_deadline(&mut self, ctx: &mut SessionContext<'_>) {
        let Some(launch) = self.program.as_ref() else {
            return;
        };
        let endpoint = self.endpoint_text();
        let seconds = ATTACH_DEADLINE_MS / 1000;
        let message = if launch.stage.is_connecting() {
            format!("Dapper could not connect to the program at {endpoint} within {seconds} seconds; check 'connect' and that nothing (a firewall) is in the way.")
        } else {
            format!("The program at {endpoint} accepted the connection but did not say hello within {seconds} seconds; is it a program started with `python -m dapperdbg --listen`?")
        };
        self.fail_launch(ctx, DapError::user(codes::ATTACH_FAILED, message));
    }

    /// Reads the first frame of the attach's connection: the program's `dapper/hello`
    /// (no token: see docs/ipc.md, "Attach"), or `dapper/refused` when it is busy.
    pub(super) fn check_attach_hello(&mut self, ctx: &mut SessionContext<'_>, conn: ConnectionId) {
        let endpoint = self.endpoint_text();
        let Some(launch) = self.program.as_mut() else {
            return;
        };
        let Some(decoder) = launch.candidates.get_mut(&conn) else {
            return;
        };
        let incoming = match decoder.next_frame() {
            Ok(None) => return,
            Ok(Some(frame)) => parse_payload(&frame.payload),
            Err(error) => Err(error.to_string()),
        };
        let event = match incoming {
            Ok(Incoming::Event(event)) if event.event == "dapper/hello" => event,
            Ok(Incoming::Event(event)) if event.event == REFUSED_EVENT => {
                let reason = event
                    .body
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("no reason given")
                    .to_string();
                let error = DapError::user(
                    codes::ATTACH_FAILED,
                    format!("The program at {endpoint} refused the connection: {reason}"),
                );
                self.attach_peer_failed(ctx, conn, error);
                return;
            }
            Ok(other) => {
                let what = match other {
                    Incoming::Event(event) => format!("the event {:?}", event.event),
                    Incoming::Request(request) => format!("the request {:?}", request.command),
                    Incoming::Response(response) => {
                        format!("a response to {:?}", response.command)
                    }
                };
                self.fail_not_dapper(ctx, conn, &endpoint, &format!("it said {what} first"));
                return;
            }
            Err(reason) => {
                self.fail_not_dapper(ctx, conn, &endpoint, &reason);
                return;
            }
        };
        if let Some(text) = hello::check_protocol(&event.body)
            .err()
            .and_then(|error| error.protocol_mismatch())
        {
            let error = DapError::user(
                codes::ATTACH_FAILED,
                format!("Dapper cannot attach to the program at {endpoint}. {text}"),
            );
            self.attach_peer_failed(ctx, conn, error);
            return;
        }
        let Some(launch) = self.program.as_mut() else {
            return;
        };
        let Some(decoder) = launch.candidates.remove(&conn) else {
            return;
        };
        let body = &event.body;
        let pid = body
            .get("pid")
            .and_then(Value::as_u64)
            .and_then(|pid| u32::try_from(pid).ok());
        let text = |key: &str| body.get(key).and_then(Value::as_str).map(str::to_string);
        let local = launch
            .origin
            .endpoint()
            .is_some_and(config::Endpoint::is_loopback);
        ctx.log(
            LogLevel::Info,
            format!(
                "Attached to {} at {endpoint} (pid {}, Python {}).",
                text("name").unwrap_or_else(|| "the program".to_string()),
                pid.map_or("unknown".to_string(), |pid| pid.to_string()),
                text("pythonVersion").as_deref().unwrap_or("unknown"),
            ),
        );
        if let Some(name) = text("name").filter(|name| !name.is_empty()) {
            launch.config.target = Target::Child(name);
        }
        launch.session_id = text("sessionId").unwrap_or_default();
        // A pid is only meaningful on this machine; the engine never signals it anyway.
        let local_pid = pid.filter(|_| local);
        launch.process.hello_pid = local_pid;
        launch.process.started();
        launch.stage = Stage::connected(Connection::new(conn, decoder, local_pid));
        self.cancel_timers_for(ctx, TimerPurpose::AttachDeadline);
        self.listen_attach_connected(ctx);
        if self.open_child_listener_for_attach(ctx) {
            // dapper/configure waits for the child listener's address.
            return;
        }
        self.send_configure(ctx);
        self.drain_debuggee_frames(ctx);
    }

    /// A `connect` attach whose program's children are to be debugged opens a listener
    /// for them, private to this machine as a launch's is; a program on another machine
    /// could not reach it, so its children are not debugged. Returns whether it opened one.
    fn open_child_listener_for_attach(&mut self, ctx: &mut SessionContext<'_>) -> bool {
        let Some(launch) = self.program.as_mut() else {
            return false;
        };
        let Origin::Remote(endpoint) = &launch.origin else {
            return false;
        };
        if !launch.config.subprocess_auto_attach {
            return false;
        }
        if !endpoint.is_loopback() {
            ctx.log(
                LogLevel::Info,
                format!("The program at {} is not on this machine (as far as its address tells): its child processes are not debugged.", endpoint.display()),
            );
            return false;
        }
        let Some(token) = ctx.new_token() else {
            ctx.log(
                LogLevel::Warn,
                "No randomness left for a token: the program's child processes are not debugged.",
            );
            return false;
        };
        launch.token = token;
        launch.open_listener(ctx);
        true
    }

    /// The child listener of a `connect` attach opened (`address`) or failed (`None`):
    /// the program is configured now.
    pub(super) fn attach_child_listener_settled(
        &mut self,
        ctx: &mut SessionContext<'_>,
        address: Option<Address>,
    ) {
        let Some(launch) = self.program.as_mut() else {
            return;
        };
        if address.is_none() {
            launch.listener = None;
        }
        launch.child_listener = address;
        self.send_configure(ctx);
        self.drain_debuggee_frames(ctx);
    }

    /// The attach's connection closed before the program said anything.
    pub(super) fn attach_closed_before_hello(
        &mut self,
        ctx: &mut SessionContext<'_>,
        conn: ConnectionId,
    ) {
        let endpoint = self.endpoint_text();
        self.fail_not_dapper(
            ctx,
            conn,
            &endpoint,
            "it closed the connection without a word",
        );
    }

    fn fail_not_dapper(
        &mut self,
        ctx: &mut SessionContext<'_>,
        conn: ConnectionId,
        endpoint: &str,
        reason: &str,
    ) {
        let error = if self.is_listen_attach() {
            DapError::user(
                codes::ATTACH_FAILED,
                format!("A peer that connected to {endpoint} is not a Dapper debuggee ({reason}); start the program with `python -m dapperdbg --connect {endpoint} …`."),
            )
        } else {
            DapError::user(
                codes::ATTACH_FAILED,
                format!("The program at {endpoint} is not a Dapper debuggee ({reason}); start it with `python -m dapperdbg --listen`."),
            )
        };
        self.attach_peer_failed(ctx, conn, error);
    }

    /// The first words of the attach's peer were wrong: a `connect` attach fails; a
    /// `listen` attach closes that peer and waits on for the program.
    fn attach_peer_failed(
        &mut self,
        ctx: &mut SessionContext<'_>,
        conn: ConnectionId,
        error: DapError,
    ) {
        if self.is_listen_attach() {
            self.refuse_listen_peer(ctx, conn, &error.message);
        } else {
            self.fail_launch(ctx, error);
        }
    }

    /// Asks an attached program to end itself: SIGTERM's way (`force` false: its
    /// handlers run) or SIGKILL's (`force` true). Returns false when it cannot be asked.
    pub(super) fn ask_program_to_exit(
        &mut self,
        ctx: &mut SessionContext<'_>,
        signal: Signal,
    ) -> bool {
        let Some(launch) = self
            .program
            .as_mut()
            .filter(|launch| launch.process.is_alive())
        else {
            return false;
        };
        if launch.stage.connection().is_none() {
            // Not connected (any more): the program is not ours to end.
            launch.process.gone();
            return false;
        }
        if launch.process.is_killed() {
            return true;
        }
        launch.process.signalled(signal);
        let arguments = json!({ "force": signal == Signal::Kill });
        if let Some(seq) =
            self.send_to_debuggee(ctx, message::request("dapper/terminate", arguments))
        {
            self.pending
                .insert(PendingKey::Debuggee(seq), Pending::Terminate);
        }
        true
    }
}
