//! Child sessions served by the engine that debugs the child.
//!
//! A client that runs the adapter over stdio may start a fresh adapter process, with an
//! engine of its own, for every session, a child's too (nvim-dap's `executable` form,
//! dape without `port`). That engine knows nothing of the child: the engine that
//! debugs the child process is the root session's. The child's configuration carries
//! that engine's client listener as `connect` (children.rs), so the fresh engine
//! connects there and from then on relays the client's byte stream unchanged both
//! ways: the session itself runs in the engine that owns the child, exactly as for a
//! client that connected to the listener directly.
//!
//! The relay starts when an `attach` names a child this engine does not have and
//! carries `connect`. Once connected it says the client's `initialize` again to the
//! other engine, then the `attach` and whatever the client sent after it. The client
//! has had this engine's answer to `initialize` already, so the other engine's answer
//! to it is dropped; every other byte passes through. Both engines number their
//! messages from 1 and each has sent exactly that one answer, so the client sees one
//! unbroken sequence. When either side closes, the other is closed too. A relay never
//! starts for a client of this engine's own listener (that would only loop back).

use super::relay_table::{Connecting, Relay, Stage};
use super::Router;
use crate::config;
use crate::context::SessionKey;
use crate::dap::error::{codes, DapError};
use crate::dap::framing::{self, ContentLengthDecoder};
use crate::dap::message::{self, Incoming, Request};
use crate::{Address, Bytes, ClientId, ConnectRequestId, ConnectionId, LogLevel, Output};

impl Router {
    /// An `attach` named a child this engine does not have. When its configuration
    /// says where the engine that has it listens for clients, the session is served
    /// there; returns whether a relay was started.
    pub(super) fn relay_attach(&mut self, session: SessionKey, attach: Request) -> bool {
        let may = self
            .sessions
            .get(&session)
            .is_some_and(|session| session.may_relay());
        let connect = attach
            .arguments
            .as_object()
            .filter(|arguments| arguments.contains_key("connect"))
            .and_then(|arguments| config::endpoint(arguments).ok());
        let Some(endpoint) = connect.filter(|_| may) else {
            return false;
        };
        let own = matches!(&self.client_listener_address,
            Some(Address::Tcp { host, port }) if *host == endpoint.host && *port == endpoint.port);
        if own {
            return false;
        }
        let address = endpoint.display();
        self.ctx.log(
            LogLevel::Info,
            format!("The child process of this session is debugged by the adapter at {address}; connecting there."),
        );
        let request = self.ctx.connect_unowned(endpoint.host, endpoint.port);
        self.relays.connecting.insert(
            request,
            Connecting {
                session,
                attach,
                address,
            },
        );
        true
    }

    /// The connection to the other engine is open: the session becomes a relay.
    pub(super) fn on_relay_connected(&mut self, request: ConnectRequestId, conn: ConnectionId) {
        let Some(connecting) = self.relays.connecting.remove(&request) else {
            return;
        };
        let Some(session) = self.take_session(connecting.session) else {
            // The client went away while the host was connecting.
            self.ctx.emit(Output::Close { conn });
            return;
        };
        let handover = session.hand_over();
        let attach_seq = connecting.attach.seq;
        let attach = connecting
            .attach
            .raw
            .forwarded(Vec::new())
            .stamp(attach_seq);
        let mut said = framing::encode(handover.initialize.as_str().as_bytes());
        said.extend(framing::encode(attach.as_str().as_bytes()));
        said.extend(handover.unread);
        self.ctx.emit(Output::Send {
            conn,
            data: Bytes(said),
        });
        self.ctx.log(
            LogLevel::Info,
            format!(
                "Client {} is served by the adapter at {}.",
                handover.client, connecting.address
            ),
        );
        self.relays.relays.insert(
            handover.client,
            Relay {
                conn,
                stage: Stage::Opening {
                    decoder: ContentLengthDecoder::default(),
                    attach_seq,
                    next_seq: handover.next_seq,
                },
            },
        );
    }

    /// The other engine could not be reached: the `attach` fails, and says why.
    pub(super) fn on_relay_connect_failed(&mut self, request: ConnectRequestId, error: &str) {
        let Some(connecting) = self.relays.connecting.remove(&request) else {
            return;
        };
        if let Some(session) = self.sessions.get_mut(&connecting.session) {
            session.refuse_attach(
                &mut self.ctx.for_session(connecting.session),
                format!(
                    "Dapper could not reach the adapter that debugs this child process at {} ({error}); the child runs on without the debugger.",
                    connecting.address
                ),
            );
        }
    }

    pub(super) fn on_relay_client_bytes(&mut self, client: ClientId, bytes: Vec<u8>) {
        if let Some(relay) = self.relays.relays.get(&client) {
            self.ctx.emit(Output::Send {
                conn: relay.conn,
                data: Bytes(bytes),
            });
        }
    }

    pub(super) fn on_relay_client_closed(&mut self, client: ClientId) {
        if let Some(relay) = self.relays.relays.remove(&client) {
            self.ctx.emit(Output::Close { conn: relay.conn });
        }
    }

    pub(super) fn on_relay_connection_bytes(&mut self, client: ClientId, bytes: Vec<u8>) {
        let Some(relay) = self.relays.relays.get_mut(&client) else {
            return;
        };
        let Stage::Opening { decoder, .. } = &mut relay.stage else {
            self.ctx.emit(Output::WriteToClient {
                client,
                data: Bytes(bytes),
            });
            return;
        };
        decoder.push(&bytes);
        loop {
            let body = match decoder.next_body() {
                Ok(Some(body)) => body,
                Ok(None) => return,
                Err(error) => {
                    self.ctx.log(
                        LogLevel::Error,
                        format!("The adapter that debugs client {client}'s child process sent what is not DAP ({error}); the session is closed."),
                    );
                    self.end_relay(client, true);
                    return;
                }
            };
            let answers_initialize = matches!(message::parse_slice(&body),
                Ok(Incoming::Response(response)) if response.command == "initialize");
            if !answers_initialize {
                self.ctx.emit(Output::WriteToClient {
                    client,
                    data: Bytes(framing::encode(&body)),
                });
                continue;
            }
            // The client had this engine's answer; from here on bytes pass through.
            let Stage::Opening { decoder, .. } = std::mem::replace(&mut relay.stage, Stage::Piping)
            else {
                return;
            };
            let rest = decoder.into_unread();
            if !rest.is_empty() {
                self.ctx.emit(Output::WriteToClient {
                    client,
                    data: Bytes(rest),
                });
            }
            return;
        }
    }

    /// The other engine closed the session: so is the client.
    pub(super) fn on_relay_connection_closed(&mut self, client: ClientId) {
        self.end_relay(client, false);
    }

    /// Ends a relay and its client. One that ends before the other engine answered
    /// leaves the client's `attach` failed, not unanswered.
    fn end_relay(&mut self, client: ClientId, close_connection: bool) {
        let Some(relay) = self.relays.relays.remove(&client) else {
            return;
        };
        if let Stage::Opening {
            attach_seq,
            next_seq,
            ..
        } = relay.stage
        {
            let error = DapError::user(
                codes::NO_SUCH_CHILD,
                "The adapter that debugs this child process closed the connection before the session started.",
            );
            let response = message::error_response(attach_seq, "attach", &error).stamp(next_seq);
            self.ctx.emit(Output::WriteToClient {
                client,
                data: Bytes(framing::encode(response.as_str().as_bytes())),
            });
        }
        if close_connection {
            self.ctx.emit(Output::Close { conn: relay.conn });
        }
        self.ctx.emit(Output::CloseClient { client });
    }

    /// Removes a session that is not released but handed over: nothing it asked for
    /// outlives it, and its client is the relay's from now on.
    fn take_session(&mut self, key: SessionKey) -> Option<crate::session::Session> {
        let session = self.sessions.remove(&key)?;
        self.clients.retain(|_, owner| *owner != key);
        let owned = self.ctx.owners.take_all(key);
        self.release_owned(owned);
        Some(session)
    }
}
