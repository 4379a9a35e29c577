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
    /// How many of its messages could not be read at all.
    pub unreadable: UnreadableCount,
}

/// Messages from a client that cannot be read are reported one by one only at first:
/// a client (or anyone who can write to its stream) sending garbage in a loop must not
/// fill the log and the console.
#[derive(Default)]
pub struct UnreadableCount(u64);

impl UnreadableCount {
    /// Reported one by one.
    const REPORTED: u64 = 10;
    /// After those, one summary every this many.
    const SUMMARY_EVERY: u64 = 1000;

    /// Counts one more unreadable message and words how it is to be reported (`what`
    /// is its own description), or `None` when it is only counted.
    pub fn report(&mut self, what: String) -> Option<String> {
        self.0 += 1;
        match self.0 {
            n if n < Self::REPORTED => Some(what),
            Self::REPORTED => Some(format!(
                "{what} (the {}th unreadable message from this client; more are counted, and reported once every {})",
                Self::REPORTED,
                Self::SUMMARY_EVERY
            )),
            n if n % Self::SUMMARY_EVERY == 0 => Some(format!(
                "Dapper has ignored {n} unreadable messages from the client so far."
            )),
            _ => None,
        }
    }
}

impl ClientLink {
    pub fn new(id: ClientId, framing: Framing) -> ClientLink {
        ClientLink {
            id,
            framing,
            decoder: ContentLengthDecoder::default(),
            next_seq: 1,
            closed: false,
            unreadable: UnreadableCount::default(),
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

#[cfg(test)]
mod tests {
    use super::UnreadableCount;

    #[test]
    fn unreadable_messages_are_reported_at_first_then_summarised() {
        let mut count = UnreadableCount::default();
        let reported: Vec<(u64, String)> = (1..=3000)
            .filter_map(|n| count.report(format!("m{n}")).map(|text| (n, text)))
            .collect();
        let numbers: Vec<u64> = reported.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1000, 2000, 3000]);
        assert_eq!(reported[0].1, "m1");
        assert!(reported[9]
            .1
            .starts_with("m10 (the 10th unreadable message"));
        assert_eq!(
            reported[11].1,
            "Dapper has ignored 2000 unreadable messages from the client so far."
        );
    }
}
