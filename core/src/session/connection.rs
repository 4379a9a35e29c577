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
        Connection::continuing(conn, decoder, pid, 1)
    }

    /// A connection on which the engine sent messages before (a child's inheritance):
    /// its next request has `next_seq`.
    pub fn continuing(
        conn: ConnectionId,
        decoder: FrameDecoder,
        pid: Option<u32>,
        next_seq: i64,
    ) -> Connection {
        Connection {
            conn,
            decoder,
            next_seq,
            pid,
            stopped: false,
        }
    }

    /// Stamps the connection's next seq on a message and sends it in a DP frame;
    /// returns the seq.
    pub fn send(&mut self, ctx: &mut SessionContext<'_>, message: Unsequenced) -> i64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        ctx.emit(Output::Send {
            conn: self.conn,
            data: debuggee_frame(message, seq),
        });
        seq
    }
}

/// A message stamped with `seq`, in the DP frame that carries it to a debuggee.
pub fn debuggee_frame(message: Unsequenced, seq: i64) -> Bytes {
    let payload = message.stamp(seq);
    Bytes(frame::encode(
        FrameKind::ToDebuggee,
        payload.as_str().as_bytes(),
    ))
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
