//! DP frames: "DP" · version 1 · kind · big-endian u32 length · UTF-8 JSON payload.
//!
//! The decoder also accepts the text form, one `DBGP: {json}` message a line, chosen
//! from the first two bytes of the connection ("DP" or "DB"). What a connection buffers
//! beyond an ordinary message's size is drawn from the engine's shared budget
//! (`input_budget`).

use crate::input_budget::{Meter, Overdrawn};

pub const MAGIC: &[u8; 2] = b"DP";
pub const VERSION: u8 = 1;
pub const HEADER_BYTES: usize = 8;
/// A payload larger than this is a protocol error.
pub const MAX_PAYLOAD_BYTES: usize = 64 * 1024 * 1024;
pub const TEXT_PREFIX: &[u8] = b"DBGP: ";

/// Who sent a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// From the debuggee: an event or a response.
    FromDebuggee = 1,
    /// To the debuggee: a request.
    ToDebuggee = 2,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub kind: FrameKind,
    pub payload: Vec<u8>,
}

/// Builds one binary frame.
pub fn encode(kind: FrameKind, payload: &[u8]) -> Vec<u8> {
    let mut frame = Vec::with_capacity(HEADER_BYTES + payload.len());
    frame.extend_from_slice(MAGIC);
    frame.push(VERSION);
    frame.push(kind as u8);
    // Payloads are JSON the engine built from bounded inputs; a length beyond u32 is
    // impossible in practice, and saturating keeps the header well-formed regardless.
    let length = u32::try_from(payload.len()).unwrap_or(u32::MAX);
    frame.extend_from_slice(&length.to_be_bytes());
    frame.extend_from_slice(payload);
    frame
}

/// A broken stream; the connection must be closed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameError {
    UnknownStart(Vec<u8>),
    BadVersion(u8),
    BadKind(u8),
    TooLarge(usize),
    TextLineWithoutPrefix,
    /// The engine holds too many unfinished large messages of all its streams at once
    /// (`input_budget`).
    Overdrawn(Overdrawn),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::UnknownStart(bytes) => write!(
                f,
                "the connection starts with {:?}, which is neither a DP frame nor a 'DBGP: ' line",
                String::from_utf8_lossy(bytes)
            ),
            FrameError::BadVersion(version) => {
                write!(
                    f,
                    "a DP frame has version {version}; only version {VERSION} is known"
                )
            }
            FrameError::BadKind(kind) => write!(f, "a DP frame has the unknown kind {kind}"),
            FrameError::TooLarge(length) => write!(
                f,
                "a DP payload of {length} bytes exceeds the limit of {MAX_PAYLOAD_BYTES} bytes"
            ),
            FrameError::TextLineWithoutPrefix => {
                write!(f, "a line of the text form does not start with 'DBGP: '")
            }
            FrameError::Overdrawn(overdrawn) => write!(f, "{overdrawn}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Undecided,
    Binary,
    Text,
}

/// The incremental decoder of one connection.
pub struct FrameDecoder {
    mode: Mode,
    buffer: Vec<u8>,
    broken: bool,
    /// What the buffer draws on the engine's shared budget; a chunk it could not take
    /// is the error `next_frame` reports once the frames before it are taken.
    meter: Meter,
}

impl Default for FrameDecoder {
    fn default() -> Self {
        FrameDecoder {
            mode: Mode::Undecided,
            buffer: Vec::new(),
            broken: false,
            meter: Meter::default(),
        }
    }
}

impl FrameDecoder {
    pub fn push(&mut self, chunk: &[u8]) {
        if !self.broken {
            self.meter.push(&mut self.buffer, chunk);
        }
    }

    /// How many bytes wait in the buffer.
    pub fn buffered(&self) -> usize {
        self.buffer.len()
    }

    /// The payloads of the whole binary frames that wait in the buffer from byte `from`
    /// on (the end of a whole frame: the buffer only grows while nothing is taken), in
    /// order, left there for `next_frame`, with the byte where the last of them ends;
    /// `None` when the stream is not one of binary frames there (text lines, garbage, a
    /// broken stream), which a caller must take as unknown.
    pub fn waiting_payloads(&self, from: usize) -> Option<(Vec<&[u8]>, usize)> {
        if self.broken || self.mode == Mode::Text {
            return None;
        }
        let mut payloads = Vec::new();
        let mut end = from;
        let mut rest = self.buffer.get(from..)?;
        while let Some(header) = rest.get(..HEADER_BYTES) {
            if &header[..2] != MAGIC || header[2] != VERSION {
                return None;
            }
            let length = u32::from_be_bytes([header[4], header[5], header[6], header[7]]) as usize;
            let Some(payload) = rest.get(HEADER_BYTES..HEADER_BYTES.saturating_add(length)) else {
                break;
            };
            payloads.push(payload);
            rest = &rest[HEADER_BYTES + length..];
            end += HEADER_BYTES + length;
        }
        if rest.len() >= 2 && &rest[..2] != MAGIC {
            return None;
        }
        Some((payloads, end))
    }

    /// The next whole frame, `Ok(None)` when more bytes are needed, or the error that
    /// broke the stream (reported once).
    pub fn next_frame(&mut self) -> Result<Option<Frame>, FrameError> {
        if self.broken {
            return Ok(None);
        }
        let result = match self.try_next_frame() {
            Ok(None) => self
                .meter
                .take_refusal()
                .map_or(Ok(None), |overdrawn| Err(FrameError::Overdrawn(overdrawn))),
            other => other,
        };
        if result.is_err() {
            self.broken = true;
            // Given back, not just emptied: a refused stream may have held 64 MiB.
            self.buffer = Vec::new();
        }
        self.meter.settle(self.buffer.len());
        result
    }

    fn try_next_frame(&mut self) -> Result<Option<Frame>, FrameError> {
        if self.mode == Mode::Undecided {
            if self.buffer.len() < 2 {
                return Ok(None);
            }
            self.mode = match &self.buffer[..2] {
                b"DP" => Mode::Binary,
                b"DB" => Mode::Text,
                other => return Err(FrameError::UnknownStart(other.to_vec())),
            };
        }
        match self.mode {
            Mode::Binary => self.next_binary(),
            _ => self.next_text(),
        }
    }

    fn next_binary(&mut self) -> Result<Option<Frame>, FrameError> {
        if self.buffer.len() < HEADER_BYTES {
            // Check what has arrived so garbage is refused without waiting for more.
            return match self.buffer.get(..2) {
                Some(start) if start != MAGIC => Err(FrameError::UnknownStart(start.to_vec())),
                _ => Ok(None),
            };
        }
        if &self.buffer[..2] != MAGIC {
            return Err(FrameError::UnknownStart(self.buffer[..2].to_vec()));
        }
        if self.buffer[2] != VERSION {
            return Err(FrameError::BadVersion(self.buffer[2]));
        }
        let kind = match self.buffer[3] {
            1 => FrameKind::FromDebuggee,
            2 => FrameKind::ToDebuggee,
            other => return Err(FrameError::BadKind(other)),
        };
        let length_bytes = [
            self.buffer[4],
            self.buffer[5],
            self.buffer[6],
            self.buffer[7],
        ];
        let length = u32::from_be_bytes(length_bytes) as usize;
        if length > MAX_PAYLOAD_BYTES {
            return Err(FrameError::TooLarge(length));
        }
        if self.buffer.len() < HEADER_BYTES + length {
            return Ok(None);
        }
        let rest = self.buffer.split_off(HEADER_BYTES + length);
        let mut frame = std::mem::replace(&mut self.buffer, rest);
        frame.drain(..HEADER_BYTES);
        Ok(Some(Frame {
            kind,
            payload: frame,
        }))
    }

    fn next_text(&mut self) -> Result<Option<Frame>, FrameError> {
        loop {
            let Some(end) = self.buffer.iter().position(|&byte| byte == b'\n') else {
                if self.buffer.len() > MAX_PAYLOAD_BYTES + TEXT_PREFIX.len() {
                    return Err(FrameError::TooLarge(self.buffer.len()));
                }
                let checked = self.buffer.len().min(TEXT_PREFIX.len());
                if self.buffer[..checked] != TEXT_PREFIX[..checked] {
                    return Err(FrameError::TextLineWithoutPrefix);
                }
                return Ok(None);
            };
            let rest = self.buffer.split_off(end + 1);
            let mut line = std::mem::replace(&mut self.buffer, rest);
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            // Blank lines separate nothing and carry nothing; skipping them keeps a
            // hand-typed or CRLF-translated stream working.
            if line.is_empty() {
                continue;
            }
            if !line.starts_with(TEXT_PREFIX) {
                return Err(FrameError::TextLineWithoutPrefix);
            }
            if line.len() - TEXT_PREFIX.len() > MAX_PAYLOAD_BYTES {
                return Err(FrameError::TooLarge(line.len() - TEXT_PREFIX.len()));
            }
            line.drain(..TEXT_PREFIX.len());
            return Ok(Some(Frame {
                kind: FrameKind::FromDebuggee,
                payload: line,
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(chunks: &[&[u8]]) -> (Vec<(u8, String)>, Option<FrameError>) {
        let mut decoder = FrameDecoder::default();
        let mut frames = Vec::new();
        for chunk in chunks {
            decoder.push(chunk);
            loop {
                match decoder.next_frame() {
                    Ok(Some(frame)) => {
                        frames.push((frame.kind as u8, String::from_utf8(frame.payload).unwrap()))
                    }
                    Ok(None) => break,
                    Err(error) => return (frames, Some(error)),
                }
            }
        }
        (frames, None)
    }

    #[test]
    fn waiting_payloads_are_looked_at_and_left_in_place() {
        let one = encode(FrameKind::FromDebuggee, b"{\"a\":1}");
        let two = encode(FrameKind::FromDebuggee, b"[]");
        type Case<'a> = (Vec<u8>, usize, Option<(Vec<&'a [u8]>, usize)>);
        let whole = one.len() + two.len();
        let cases: Vec<Case> = vec![
            (Vec::new(), 0, Some((vec![], 0))),
            (one[..5].to_vec(), 0, Some((vec![], 0))),
            (
                [one.clone(), two[..9].to_vec()].concat(),
                0,
                Some((vec![b"{\"a\":1}"], one.len())),
            ),
            (
                [one.clone(), two.clone()].concat(),
                0,
                Some((vec![b"{\"a\":1}", b"[]"], whole)),
            ),
            // From the end of the first frame: only the second.
            (
                [one.clone(), two.clone()].concat(),
                one.len(),
                Some((vec![b"[]"], whole)),
            ),
            (
                [one.clone(), two.clone()].concat(),
                whole,
                Some((vec![], whole)),
            ),
            ([one.clone(), two.clone()].concat(), whole + 1, None),
            (b"DBGP: {}\n".to_vec(), 0, None),
            ([one.clone(), b"xx".to_vec()].concat(), 0, None),
            (
                [one.clone(), b"D".to_vec()].concat(),
                0,
                Some((vec![b"{\"a\":1}"], one.len())),
            ),
        ];
        for (bytes, from, expected) in cases {
            let mut decoder = FrameDecoder::default();
            decoder.push(&bytes);
            assert_eq!(
                decoder.waiting_payloads(from),
                expected,
                "{bytes:?} from {from}"
            );
            // Nothing was taken: the decoder still gives every whole frame.
            let mut taken = 0;
            while let Ok(Some(_)) = decoder.next_frame() {
                taken += 1;
            }
            if from == 0 {
                assert_eq!(
                    taken,
                    expected.map_or(taken, |(payloads, _)| payloads.len())
                );
            }
        }
    }

    #[test]
    fn decodes_binary_and_text_frames() {
        let one = encode(FrameKind::FromDebuggee, b"{\"a\":1}");
        let two = encode(FrameKind::ToDebuggee, b"{}");
        let both = [one.clone(), two.clone()].concat();
        type Case<'a> = (Vec<&'a [u8]>, Vec<(u8, &'a str)>);
        let cases: Vec<Case> = vec![
            (vec![&one], vec![(1, "{\"a\":1}")]),
            (
                vec![&one[..1], &one[1..5], &one[5..]],
                vec![(1, "{\"a\":1}")],
            ),
            (vec![&both], vec![(1, "{\"a\":1}"), (2, "{}")]),
            (vec![b"DBGP: {}\n"], vec![(1, "{}")]),
            (
                vec![b"D", b"BGP: {\"x\":2}\r\n\nDBGP: []", b"\n"],
                vec![(1, "{\"x\":2}"), (1, "[]")],
            ),
            (vec![b"DBGP: {}"], vec![]),
        ];
        for (chunks, expected) in cases {
            let (frames, error) = decode(&chunks);
            assert_eq!(error, None, "chunks {chunks:?}");
            let expected: Vec<(u8, String)> = expected
                .into_iter()
                .map(|(kind, text)| (kind, text.to_string()))
                .collect();
            assert_eq!(frames, expected, "chunks {chunks:?}");
        }
    }

    #[test]
    fn reports_broken_streams() {
        let too_large = [
            b"DP\x01\x01".as_slice(),
            &(MAX_PAYLOAD_BYTES as u32 + 1).to_be_bytes(),
        ]
        .concat();
        let cases: Vec<(Vec<&[u8]>, FrameError)> = vec![
            (
                vec![b"GET / HTTP/1.1\r\n"],
                FrameError::UnknownStart(b"GE".to_vec()),
            ),
            (vec![b"DP\x02\x01\0\0\0\0"], FrameError::BadVersion(2)),
            (vec![b"DP\x01\x07\0\0\0\0"], FrameError::BadKind(7)),
            (
                vec![&too_large],
                FrameError::TooLarge(MAX_PAYLOAD_BYTES + 1),
            ),
            (vec![b"DBXX"], FrameError::TextLineWithoutPrefix),
            (
                vec![b"DBGP: {}\nhello\n"],
                FrameError::TextLineWithoutPrefix,
            ),
        ];
        for (chunks, expected) in cases {
            assert_eq!(decode(&chunks).1, Some(expected), "chunks {chunks:?}");
        }
    }
}
