//! A user's `attach` by `connect`, as the program's part (`impl Program`): the engine
//! asks the host to connect to a program started with
//! `python -m dapperdbg --listen [HOST:]PORT` and reads its `dapper/hello` (no token);
//! the session then runs as a launched one, except that the program is not ours:
//! `disconnect` leaves it running, and `terminate` asks it to end itself
//! (`dapper/terminate`, termination.rs), because its pid may be on another machine.

use super::connection::{parse_payload, Connection};
use super::program::{Origin, Program};
use super::stage::Stage;
use crate::config::{Endpoint, LaunchConfig, Target};
use crate::context::SessionContext;
use crate::dap::error::{codes, DapError};
use crate::dap::message::Incoming;
use crate::ipc::frame::FrameDecoder;
use crate::ipc::hello;
use crate::{Address, ConnectRequestId, ConnectionId, LogLevel};
use serde_json::Value;

/// How long the host has to connect and the program to say its hello.
pub const ATTACH_DEADLINE_MS: u64 = 10_000;

/// The event a listening program sends instead of its hello when another client is
/// attached to it.
const REFUSED_EVENT: &str = "dapper/refused";

impl Program {
    /// The program of a `connect` attach, the host connecting to it.
    pub fn connecting(
        ctx: &mut SessionContext<'_>,
        config: LaunchConfig,
        endpoint: Endpoint,
    ) -> Program {
        ctx.log(
            LogLevel::Info,
            format!("Attaching to the program at {}.", endpoint.display()),
        );
        let connect_request = ctx.connect(endpoint.host.clone(), endpoint.port);
        let stage = Stage::Starting {
            connect: Some(connect_request),
        };
        Program::new(config, Origin::Remote(endpoint), stage)
    }

    /// The host connected the attach's `request` as `conn`; false when nothing waits
    /// for it.
    pub fn connected(&mut self, request: ConnectRequestId, conn: ConnectionId) -> bool {
        if !self.waits_for_connect(request) {
            return false;
        }
        self.stage = Stage::Starting { connect: None };
        self.candidates.insert(conn, FrameDecoder::default());
        true
    }

    fn waits_for_connect(&self, request: ConnectRequestId) -> bool {
        matches!(self.stage, Stage::Starting { connect: Some(waiting) } if waiting == request)
    }

    /// The host could not connect: the error that ends the attach, unless nothing
    /// waits for that connection.
    pub fn connect_failed(&self, request: ConnectRequestId, error: &str) -> Option<DapError> {
        if !self.waits_for_connect(request) {
            return None;
        }
        let endpoint = self.endpoint_text();
        let port = self.origin.endpoint().map_or(0, |endpoint| endpoint.port);
        Some(DapError::user(
            codes::ATTACH_FAILED,
            format!("Dapper could not connect to the program at {endpoint} ({error}). Is it running under `python -m dapperdbg --listen {port} …`, and is 'connect' right?"),
        ))
    }

    /// The error of an attach that did not connect, or hear the hello, in time.
    pub fn attach_deadline_error(&self) -> DapError {
        let endpoint = self.endpoint_text();
        let seconds = ATTACH_DEADLINE_MS / 1000;
        let message = if self.stage.is_connecting() {
            format!("Dapper could not connect to the program at {endpoint} within {seconds} seconds; check 'connect' and that nothing (a firewall) is in the way.")
        } else {
            format!("The program at {endpoint} accepted the connection but did not say hello within {seconds} seconds; is it a program started with `python -m dapperdbg --listen`?")
        };
        DapError::user(codes::ATTACH_FAILED, message)
    }

    /// Reads the first frame of the attach's connection: the program's `dapper/hello`
    /// (no token: see docs/ipc.md, "Attach"), or `dapper/refused` when it is busy.
    /// `Ok(true)`: the program said hello and is connected; `Ok(false)`: nothing to
    /// read yet; an error: the peer's first words were wrong.
    pub fn check_attach_hello(
        &mut self,
        ctx: &mut SessionContext<'_>,
        conn: ConnectionId,
    ) -> Result<bool, DapError> {
        let endpoint = self.endpoint_text();
        let Some(decoder) = self.candidates.get_mut(&conn) else {
            return Ok(false);
        };
        let incoming = match decoder.next_frame() {
            Ok(None) => return Ok(false),
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
                return Err(DapError::user(
                    codes::ATTACH_FAILED,
                    format!("The program at {endpoint} refused the connection: {reason}"),
                ));
            }
            Ok(other) => {
                let what = match other {
                    Incoming::Event(event) => format!("the event {:?}", event.event),
                    Incoming::Request(request) => format!("the request {:?}", request.command),
                    Incoming::Response(response) => {
                        format!("a response to {:?}", response.command)
                    }
                };
                return Err(self.not_dapper(&format!("it said {what} first")));
            }
            Err(reason) => return Err(self.not_dapper(&reason)),
        };
        if let Some(text) = hello::check_protocol(&event.body)
            .err()
            .and_then(|error| error.protocol_mismatch())
        {
            return Err(DapError::user(
                codes::ATTACH_FAILED,
                format!("Dapper cannot attach to the program at {endpoint}. {text}"),
            ));
        }
        let Some(decoder) = self.candidates.remove(&conn) else {
            return Ok(false);
        };
        let body = &event.body;
        let pid = body
            .get("pid")
            .and_then(Value::as_u64)
            .and_then(|pid| u32::try_from(pid).ok());
        let text = |key: &str| body.get(key).and_then(Value::as_str).map(str::to_string);
        let local = self.origin.endpoint().is_some_and(Endpoint::is_loopback);
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
            self.config.target = Target::Child(name);
        }
        self.session_id = text("sessionId").unwrap_or_default();
        // A pid is only meaningful on this machine; the engine never signals it anyway.
        let local_pid = pid.filter(|_| local);
        self.process.hello_pid = local_pid;
        self.process.started();
        self.stage = Stage::connected(Connection::new(conn, decoder, local_pid));
        Ok(true)
    }

    /// A `connect` attach whose program's children are to be debugged opens a listener
    /// for them, private to this machine as a launch's is; a program on another machine
    /// could not reach it, so its children are not debugged. Returns whether it opened one.
    pub fn open_child_listener_for_attach(&mut self, ctx: &mut SessionContext<'_>) -> bool {
        let Origin::Remote(endpoint) = &self.origin else {
            return false;
        };
        if !self.config.subprocess_auto_attach {
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
        self.token = token;
        self.open_listener(ctx);
        true
    }

    /// The child listener of a `connect` attach opened (`address`) or failed (`None`).
    pub fn child_listener_settled(&mut self, address: Option<Address>) {
        if address.is_none() {
            self.listener = None;
        }
        self.child_listener = address;
    }

    /// The error for a peer of a user's attach that is not a Dapper debuggee.
    pub fn not_dapper(&self, reason: &str) -> DapError {
        let endpoint = self.endpoint_text();
        if self.listens() {
            DapError::user(
                codes::ATTACH_FAILED,
                format!("A peer that connected to {endpoint} is not a Dapper debuggee ({reason}); start the program with `python -m dapperdbg --connect {endpoint} …`."),
            )
        } else {
            DapError::user(
                codes::ATTACH_FAILED,
                format!("The program at {endpoint} is not a Dapper debuggee ({reason}); start it with `python -m dapperdbg --listen`."),
            )
        }
    }
}
