//! The client end of a session: how its messages are framed, the decoder of a byte
//! stream client, the seq of the next message to it, and whether it is gone.

use crate::context::SessionContext;
use crate::dap::framing::{self, ContentLengthDecoder};
use crate::dap::message::Unsequenced;
use crate::{Bytes, ClientId, Framing, Output};

pub struct ClientLink {
    pub id: ClientId,
    pub framing: Framing,
    pub decoder: ContentLengthDecoder,
    /// The seq of the next message to the client; each client counts from 1.
    pub next_seq: i64,
    /// Once the client is gone nothing more is sent to it.
    pub closed: bool,
}

impl ClientLink {
    pub fn new(id: ClientId, framing: Framing) -> ClientLink {
        ClientLink {
            id,
            framing,
            decoder: ContentLengthDecoder::default(),
            next_seq: 1,
            closed: false,
        }
    }

    /// Stamps the client's next seq on a message and hands it to the host.
    pub fn send(&mut self, ctx: &mut SessionContext<'_>, message: Unsequenced) {
        if self.closed {
            return;
        }
        let message = message.stamp(self.next_seq);
        self.next_seq += 1;
        match self.framing {
            Framing::Messages => ctx.emit(Output::SendToClient {
                client: self.id,
                message,
            }),
            Framing::ContentLength => ctx.emit(Output::WriteToClient {
                client: self.id,
                data: Bytes(framing::encode(message.as_str().as_bytes())),
            }),
        }
    }

    /// Ends the conversation with the client: the host closes its stream once written.
    pub fn close(&mut self, ctx: &mut SessionContext<'_>) {
        if !self.closed {
            ctx.emit(Output::CloseClient { client: self.id });
            self.closed = true;
        }
    }
}
