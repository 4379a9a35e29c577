//! The one budget every stream decoder of the engine shares: how many bytes of
//! unfinished large messages it holds at once.
//!
//! Each decoder caps its own stream (a header of 8 KiB, a body or payload of 64 MiB),
//! but the engine serves every session and every debuggee connection from one
//! WebAssembly memory of at most 4 GiB: 62 clients each halfway through a 60 MB body
//! would fill it, and the engine, with every session in it, would fail. So a stream may
//! buffer up to `SMALL_BYTES` on its own, more than any request needs, and what it
//! buffers beyond that is drawn from a budget of `SHARED_BYTES` that all streams share.
//! A stream whose unfinished message would overdraw it is refused, and only that
//! stream's connection is closed; the streams whose messages stay under `SMALL_BYTES`
//! never are.
//!
//! The budget protects the memory of the engine's instance, so it is kept per thread:
//! the WebAssembly instance runs one engine on its one thread. (Native tests run each
//! test on a thread of its own.)

use std::cell::Cell;

/// What one stream may buffer without drawing on the shared budget: more than any
/// request and most responses. The largest ordinary ones draw on it and are refused only
/// when it is exhausted: a page of 1000 variables of 1000 characters is 1.05 MiB as
/// ASCII and 3.9 MiB as emoji (measured with the debuggee's own rendering and encoder),
/// a source up to 4 MiB, a value copied whole up to the 64 MiB payload limit.
pub const SMALL_BYTES: usize = 1 << 20;
/// What all streams together may buffer beyond their `SMALL_BYTES` each: four whole
/// messages of the largest size either decoder accepts (64 MiB).
pub const SHARED_BYTES: usize = 256 << 20;

thread_local! {
    static DRAWN: Cell<usize> = const { Cell::new(0) };
}

/// The bytes of the shared budget drawn by all streams together (for tests and logs).
pub fn drawn() -> usize {
    DRAWN.with(Cell::get)
}

/// One stream's draw on the shared budget, given back when it is dropped.
#[derive(Default, Debug)]
pub struct Draw(usize);

/// A stream would overdraw the shared budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overdrawn {
    /// What the stream would buffer.
    pub buffered: usize,
    /// What the other streams have drawn.
    pub others: usize,
}

impl std::fmt::Display for Overdrawn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "an unfinished message would make this stream buffer {} bytes while other streams \
             already hold {} bytes of unfinished large messages; the engine holds at most {} \
             bytes of them at once, beyond {} bytes a stream",
            self.buffered, self.others, SHARED_BYTES, SMALL_BYTES
        )
    }
}

impl Draw {
    /// Draws what a stream buffering `buffered` bytes needs, giving back what it no
    /// longer does. Refused (and nothing changed) when that would overdraw the budget.
    pub fn cover(&mut self, buffered: usize) -> Result<(), Overdrawn> {
        let wanted = buffered.saturating_sub(SMALL_BYTES);
        DRAWN.with(|drawn| {
            let others = drawn.get().saturating_sub(self.0);
            if wanted > self.0 && others.saturating_add(wanted) > SHARED_BYTES {
                return Err(Overdrawn { buffered, others });
            }
            drawn.set(others + wanted);
            self.0 = wanted;
            Ok(())
        })
    }

    /// Gives back what a stream now buffering `buffered` bytes no longer needs; never
    /// draws more.
    pub fn give_back_to(&mut self, buffered: usize) {
        let wanted = buffered.saturating_sub(SMALL_BYTES);
        if wanted < self.0 {
            DRAWN.with(|drawn| drawn.set(drawn.get().saturating_sub(self.0 - wanted)));
            self.0 = wanted;
        }
    }

    /// Gives everything back (the stream holds nothing any more).
    pub fn release(&mut self) {
        self.give_back_to(0);
    }
}

impl Drop for Draw {
    fn drop(&mut self) {
        self.release();
    }
}

/// What a stream decoder keeps of the budget: its draw, and a chunk the budget refused.
#[derive(Default, Debug)]
pub struct Meter {
    draw: Draw,
    refused: Option<Overdrawn>,
}

impl Meter {
    /// Appends `chunk` to the stream's `buffer` when the budget covers it; otherwise
    /// the chunk is dropped and the refusal kept for `take_refusal`, and nothing more is
    /// appended.
    pub fn push(&mut self, buffer: &mut Vec<u8>, chunk: &[u8]) {
        if self.refused.is_some() {
            return;
        }
        match self.draw.cover(buffer.len() + chunk.len()) {
            Ok(()) => buffer.extend_from_slice(chunk),
            Err(overdrawn) => self.refused = Some(overdrawn),
        }
    }

    /// Whether a chunk was refused (the stream is then broken after what it holds).
    pub fn refused(&self) -> bool {
        self.refused.is_some()
    }

    /// The refusal, once: for the decoder to report when it has nothing complete left.
    pub fn take_refusal(&mut self) -> Option<Overdrawn> {
        self.refused.take()
    }

    /// Gives back what a stream now buffering `buffered` bytes no longer needs.
    pub fn settle(&mut self, buffered: usize) {
        self.draw.give_back_to(buffered);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_share_what_they_buffer_beyond_their_own_allowance() {
        let (mut a, mut b) = (Draw::default(), Draw::default());
        assert_eq!(a.cover(SMALL_BYTES), Ok(()));
        assert_eq!(drawn(), 0);
        assert_eq!(a.cover(SMALL_BYTES + SHARED_BYTES - 10), Ok(()));
        assert_eq!(drawn(), SHARED_BYTES - 10);
        // b's own allowance is always there; beyond it, only the 10 bytes left.
        assert_eq!(b.cover(SMALL_BYTES + 10), Ok(()));
        assert_eq!(
            b.cover(SMALL_BYTES + 11),
            Err(Overdrawn {
                buffered: SMALL_BYTES + 11,
                others: SHARED_BYTES - 10
            })
        );
        assert_eq!(drawn(), SHARED_BYTES);
        // A stream that buffers less gives back, and a dropped one gives back all.
        assert_eq!(a.cover(SMALL_BYTES + 5), Ok(()));
        assert_eq!(drawn(), 15);
        drop(a);
        assert_eq!(drawn(), 10);
        b.release();
        assert_eq!(drawn(), 0);
    }
}
