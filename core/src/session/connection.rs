//! The connection of a debuggee that said a valid hello (connect.rs, attach.rs,
//! child.rs): its frames, the seq of the engine's requests on it, and what the
//! debuggee said of itself. It knows nothing of the session that owns it.

use crate::context::SessionContext;
use crate::dap::message::{self, Incoming, TextError, Unsequenced};
use crate::ipc::frame::{self, FrameDecoder, FrameKind};
use crate::{Bytes, ConnectionId, Output};

/// The connection of a debuggee that said a valid hello.
pub struct Connection {
    pub conn: ConnectionId,
    pub decoder: FrameDecoder,
    /// The seq of the next request the engine sends on this connection.
    next_seq: i64,
    /// The debuggee's own pid, from its hello.
    pub pid: Option<u32>,
    /// Whether the debuggee reported itself stopped (and not continued since).
    pub stopped: bool,
}

impl Connection {
    pub fn new(conn: ConnectionId, decoder: FrameDecoder, pid: Option<u32>) -> Connection {
        Connection {
            conn,
            decoder,
            next_seq: 1,
            pid,
            stopped: false,
        }
    }

    /// Stamps the connection's next seq on a message and sends it in a DP frame;
    /// returns the seq.
    pub fn send(&mut self, ctx: &mut SessionContext<'_>, message: Unsequenced) -> i64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        let payload = message.stamp(seq);
        ctx.emit(Output::Send {
            conn: self.conn,
            data: Bytes(frame::encode(
                FrameKind::ToDebuggee,
                payload.as_str().as_bytes(),
            )),
        });
        seq
    }
}

/// A frame's payload as a DAP message, or why it is not one.
pub(super) fn parse_payload(payload: &[u8]) -> Result<Incoming, String> {
    message::parse_slice(payload).map_err(|error| match error {
        TextError::NotJson(error) => format!("a frame's payload is not JSON ({error})"),
        TextError::Envelope(error) => {
            format!("a frame's payload is not a DAP message ({error})")
        }
    })
}
