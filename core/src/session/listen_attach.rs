//! A user's attach with `listen`: the engine listens where the user said and waits —
//! until the client gives up, as debugpy's listen does — for the program to connect
//! (`python -m dapperdbg --connect HOST:PORT …`, or `dapperdbg.connect` in its code).
//!
//! Nothing secret guards the listener: the program has no token to prove itself with,
//! since the user started it. The host guards it instead (`ListenerPurpose::Attach`): on
//! Linux a peer on this machine must belong to the adapter's user, and a peer from
//! another machine is admitted only when the user chose a host that is not loopback
//! (`ListenerPurpose::AttachRemote`).
//! A peer that is refused, or that says the wrong first words, is closed and shown in
//! the debug console; the attach waits on. Once the program said hello the listener is
//! the tree's child listener (its children prove themselves with the session's token,
//! sent as `childToken` in `dapper/configure`), or closed when children are not debugged.

use super::connect::keep_listener_only_for_children;
use super::pending::{Pending, PendingKey};
use super::program::{Origin, Program};
use super::stage::Stage;
use super::state::Session;
use crate::config::{Endpoint, LaunchConfig};
use crate::context::SessionContext;
use crate::dap::error::{codes, DapError};
use crate::{Address, ConnectionId, ListenerId, LogLevel};

impl Session {
    /// Opens the listener the program will connect to; `attach` is answered once the
    /// program has connected and the client's configuration is done.
    pub(super) fn start_listen_attach(
        &mut self,
        ctx: &mut SessionContext<'_>,
        seq: i64,
        config: LaunchConfig,
        endpoint: Endpoint,
    ) {
        let Some(token) = ctx.new_token() else {
            let error = DapError::internal(
                codes::ATTACH_FAILED,
                "The adapter has no randomness left for the session's secret token (its host did not answer gatherRandomness).",
            );
            self.respond_error(ctx, seq, "attach", &error);
            return;
        };
        let remote = !endpoint.is_loopback();
        if remote {
            ctx.log(
                LogLevel::Warn,
                format!("Listening on {}, which other machines may reach: whoever connects there is debugged, and can run code in this debugger's session.", endpoint.display()),
            );
        }
        let listener = ctx.open_attach_listener(endpoint.host.clone(), endpoint.port, remote);
        let stage = Stage::Starting { connect: None };
        let mut program = Program::new(config, Origin::Incoming(endpoint), stage);
        program.listener = Some(listener);
        program.token = token;
        self.program = Some(program);
        self.pending
            .insert(PendingKey::Client(seq), Pending::Launch);
    }

    /// Whether this session is a user's attach that listens for its program.
    pub(super) fn is_listen_attach(&self) -> bool {
        self.program
            .as_ref()
            .is_some_and(|launch| matches!(launch.origin, Origin::Incoming(_)))
    }

    /// The listener is open: the user is told where the program must connect.
    pub(super) fn on_listen_attach_listener_opened(
        &mut self,
        ctx: &mut SessionContext<'_>,
        address: Address,
    ) {
        let Some(launch) = self.program.as_mut() else {
            return;
        };
        if launch.config.subprocess_auto_attach {
            launch.child_listener = Some(address);
        }
        let endpoint = self.endpoint_text();
        let message = format!("Waiting for the program to connect on {endpoint}: start it with `python -m dapperdbg --connect {endpoint} program.py`, or call `dapperdbg.connect(…)` in it.");
        ctx.log(LogLevel::Info, message.clone());
        self.send_output(ctx, "console", &format!("{message}\n"));
    }

    /// The listener could not be opened (a port in use, an address not of this machine).
    pub(super) fn on_listen_attach_listener_failed(
        &mut self,
        ctx: &mut SessionContext<'_>,
        error: &str,
    ) {
        let endpoint = self.endpoint_text();
        let error = DapError::user(
            codes::ATTACH_FAILED,
            format!("Dapper could not listen on {endpoint} for the program to connect ({error}). Is another program or debug session using that port? Choose another 'listen.port', or an address of this machine for 'listen.host'."),
        );
        self.fail_launch(ctx, error);
    }

    /// The host refused a peer of the listener (another user's process, another machine).
    pub fn on_peer_refused(
        &mut self,
        ctx: &mut SessionContext<'_>,
        listener: ListenerId,
        reason: &str,
    ) {
        let endpoint = self.endpoint_text();
        let text = format!("Dapper refused a connection on {endpoint} (listener {listener}): {reason}. It waits on for the program.");
        ctx.log(LogLevel::Warn, text.clone());
        self.send_output(ctx, "important", &format!("{text}\n"));
    }

    /// A peer of the listener said the wrong first words: it is closed, and the attach
    /// waits on for the program.
    pub(super) fn refuse_listen_peer(
        &mut self,
        ctx: &mut SessionContext<'_>,
        conn: ConnectionId,
        reason: &str,
    ) {
        if let Some(launch) = self.program.as_mut() {
            if launch.candidates.remove(&conn).is_some() {
                ctx.close_connection(conn);
            }
        }
        ctx.log(
            LogLevel::Warn,
            format!("Refused debuggee connection {conn}: {reason}"),
        );
        self.send_output(
            ctx,
            "important",
            &format!("{reason} Dapper waits on for the program.\n"),
        );
    }

    /// The program said hello: the others that connected meanwhile are closed, and the
    /// listener stays only as the child listener.
    pub(super) fn listen_attach_connected(&mut self, ctx: &mut SessionContext<'_>) {
        if !self.is_listen_attach() {
            return;
        }
        if let Some(launch) = self.program.as_mut() {
            keep_listener_only_for_children(ctx, launch);
        }
    }
}
