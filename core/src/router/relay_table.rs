//! The relays' bookkeeping (relay.rs has what they do): attaches waiting for their
//! connection to the engine that debugs the child, and clients being relayed.

use crate::context::SessionKey;
use crate::dap::framing::ContentLengthDecoder;
use crate::dap::message::Request;
use crate::{ClientId, ConnectRequestId, ConnectionId};
use std::collections::BTreeMap;

#[derive(Default)]
pub struct Relays {
    /// Attaches waiting for their connection to the other engine, by connect request.
    pub connecting: BTreeMap<ConnectRequestId, Connecting>,
    /// Clients whose session runs in another engine.
    pub relays: BTreeMap<ClientId, Relay>,
}

pub struct Connecting {
    pub session: SessionKey,
    pub attach: Request,
    /// `host:port` of the other engine's client listener, for messages.
    pub address: String,
}

pub struct Relay {
    pub conn: ConnectionId,
    pub stage: Stage,
}

pub enum Stage {
    /// The other engine's answer to the `initialize` said again has not come yet: its
    /// frames are read until then. The client waits for the answer to its `attach`.
    Opening {
        decoder: ContentLengthDecoder,
        attach_seq: i64,
        next_seq: i64,
    },
    /// Bytes flow unchanged both ways.
    Piping,
}

impl Relays {
    pub fn waits_for(&self, request: ConnectRequestId) -> bool {
        self.connecting.contains_key(&request)
    }

    pub fn has_client(&self, client: ClientId) -> bool {
        self.relays.contains_key(&client)
    }

    pub fn client_of(&self, conn: ConnectionId) -> Option<ClientId> {
        self.relays
            .iter()
            .find(|(_, relay)| relay.conn == conn)
            .map(|(client, _)| *client)
    }
}
