//! A user's attach with `listen`, as the program's part (`impl Program`): the engine
//! listens where the user said and waits —
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

use super::program::{Origin, Program};
use super::stage::Stage;
use crate::config::{Endpoint, LaunchConfig, TERMINAL_PROGRAM_KEY};
use crate::context::SessionContext;
use crate::dap::error::{codes, DapError};
use crate::{Address, ConnectionId, ListenerId, LogLevel};
use serde_json::Value;

impl Program {
    /// The program of a `listen` attach, with the listener it will connect to opening;
    /// `attach` is answered once the program has connected and the client's
    /// configuration is done.
    pub fn listening(
        ctx: &mut SessionContext<'_>,
        config: LaunchConfig,
        endpoint: Endpoint,
    ) -> Result<Program, DapError> {
        let Some(token) = ctx.new_token() else {
            return Err(DapError::internal(
                codes::ATTACH_FAILED,
                "The adapter has no randomness left for the session's secret token (its host did not answer gatherRandomness).",
            ));
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
        Ok(program)
    }

    /// The listener is open: returns what tells the user where the program must
    /// connect, for the debug console.
    pub fn listen_opened(&mut self, ctx: &mut SessionContext<'_>, address: Address) -> String {
        if self.config.subprocess_auto_attach {
            self.child_listener = Some(address);
        }
        let endpoint = self.endpoint_text();
        // A program started in a terminal (VS Code's terminal auto-attach) is on its way
        // already: the configuration names it, and nothing is for the user to start.
        let started = self
            .config
            .normalised
            .get(TERMINAL_PROGRAM_KEY)
            .and_then(Value::as_str)
            .filter(|command| !command.is_empty());
        let message = match started {
            Some(command) => format!("Waiting for `{command}`, started in a terminal, to connect on {endpoint}."),
            None => format!("Waiting for the program to connect on {endpoint}: start it with `python -m dapperdbg --connect {endpoint} program.py`, or call `dapperdbg.connect(…)` in it."),
        };
        ctx.log(LogLevel::Info, message.clone());
        format!("{message}\n")
    }

    /// The listener could not be opened (a port in use, an address not of this
    /// machine): the error that ends the attach.
    pub fn listen_failed(&self, error: &str) -> DapError {
        let endpoint = self.endpoint_text();
        DapError::user(
            codes::ATTACH_FAILED,
            format!("Dapper could not listen on {endpoint} for the program to connect ({error}). Is another program or debug session using that port? Choose another 'listen.port', or an address of this machine for 'listen.host'."),
        )
    }

    /// The host refused a peer of the listener (another user's process, another
    /// machine): returns what tells the user, for the debug console.
    pub fn peer_refused(
        &self,
        ctx: &mut SessionContext<'_>,
        listener: ListenerId,
        reason: &str,
    ) -> String {
        let endpoint = self.endpoint_text();
        let text = format!("Dapper refused a connection on {endpoint} (listener {listener}): {reason}. It waits on for the program.");
        ctx.log(LogLevel::Warn, text.clone());
        format!("{text}\n")
    }

    /// A peer of the listener said the wrong first words: it is closed, and the attach
    /// waits on for the program. Returns what tells the user, for the debug console.
    pub fn refuse_listen_peer(
        &mut self,
        ctx: &mut SessionContext<'_>,
        conn: ConnectionId,
        reason: &str,
    ) -> String {
        if self.candidates.remove(&conn).is_some() {
            ctx.close_connection(conn);
        }
        ctx.log(
            LogLevel::Warn,
            format!("Refused debuggee connection {conn}: {reason}"),
        );
        format!("{reason} Dapper waits on for the program.\n")
    }
}
