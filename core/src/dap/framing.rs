//! Content-Length framing of DAP messages on byte streams (stdio, TCP).
//!
//! The decoder is incremental: chunks may split a message anywhere or carry several.
//! It enforces a header size limit (a peer that never sends the blank line must not
//! make us buffer forever), a body size limit, and draws what it buffers beyond an
//! ordinary message's size from the engine's shared budget (`input_budget`).

use crate::input_budget::{Meter, Overdrawn};

/// The most header bytes accepted before the blank line that ends a header.
pub const MAX_HEADER_BYTES: usize = 8 * 1024;
/// The largest body accepted: as large as the largest DP payload (`ipc::frame`), since
/// a client may send back what the debuggee gave it (a value copied whole with the
/// `clipboard` context, set again with `setVariable`).
pub const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// Frames one message body for the wire.
pub fn encode(body: &[u8]) -> Vec<u8> {
    const PREFIX: &[u8] = b"Content-Length: ";
    let mut framed = Vec::with_capacity(PREFIX.len() + 24 + body.len());
    framed.extend_from_slice(PREFIX);
    framed.extend_from_slice(itoa::Buffer::new().format(body.len()).as_bytes());
    framed.extend_from_slice(b"\r\n\r\n");
    framed.extend_from_slice(body);
    framed
}

/// Why a stream can no longer be decoded. After any of these the stream is broken:
/// message boundaries are lost, so the connection has to be closed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FramingError {
    HeaderTooLong,
    HeaderNotText,
    MalformedHeaderLine(String),
    MissingContentLength,
    BadContentLength(String),
    BodyTooLarge(usize),
    /// The engine holds too many unfinished large messages of all its streams at once.
    Overdrawn(Overdrawn),
}

impl std::fmt::Display for FramingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FramingError::HeaderTooLong => write!(
                f,
                "a message header grew past {MAX_HEADER_BYTES} bytes without ending in a blank line"
            ),
            FramingError::HeaderNotText => write!(f, "a message header is not ASCII text"),
            FramingError::MalformedHeaderLine(line) => {
                write!(
                    f,
                    "the header line {line:?} is not of the form 'Name: value'"
                )
            }
            FramingError::MissingContentLength => {
                write!(f, "a message header has no Content-Length field")
            }
            FramingError::BadContentLength(value) => {
                write!(
                    f,
                    "the Content-Length {value:?} is not a non-negative integer"
                )
            }
            FramingError::BodyTooLarge(length) => write!(
                f,
                "a message body of {length} bytes exceeds the limit of {MAX_BODY_BYTES} bytes"
            ),
            FramingError::Overdrawn(overdrawn) => write!(f, "{overdrawn}"),
        }
    }
}

/// The incremental decoder. Feed chunks with `push`, then take bodies with `next_body`.
#[derive(Default)]
pub struct ContentLengthDecoder {
    buffer: Vec<u8>,
    /// The body length of the message whose header has been consumed.
    body_length: Option<usize>,
    broken: bool,
    /// What the buffer draws on the engine's shared budget; a chunk it could not take
    /// is the error `next_body` reports once the messages before it are taken.
    meter: Meter,
}

impl ContentLengthDecoder {
    pub fn push(&mut self, chunk: &[u8]) {
        if !self.broken {
            self.meter.push(&mut self.buffer, chunk);
        }
    }

    /// The bytes pushed and not taken as bodies yet, as they were on the stream (a
    /// header already read is written again), for handing the rest of a stream on.
    pub fn into_unread(mut self) -> Vec<u8> {
        if self.broken || self.meter.refused() {
            return Vec::new();
        }
        match self.body_length {
            Some(length) => {
                let mut bytes = format!("Content-Length: {length}\r\n\r\n").into_bytes();
                bytes.extend_from_slice(&self.buffer);
                bytes
            }
            None => std::mem::take(&mut self.buffer),
        }
    }

    /// The next complete body, `Ok(None)` when more bytes are needed, or the error
    /// that broke the stream (reported once; the decoder then yields nothing more).
    pub fn next_body(&mut self) -> Result<Option<Vec<u8>>, FramingError> {
        if self.broken {
            return Ok(None);
        }
        let result = match self.try_next_body() {
            Ok(None) => self.meter.take_refusal().map_or(Ok(None), |overdrawn| {
                Err(FramingError::Overdrawn(overdrawn))
            }),
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

    fn try_next_body(&mut self) -> Result<Option<Vec<u8>>, FramingError> {
        if self.body_length.is_none() {
            let Some(end) = find_blank_line(&self.buffer) else {
                if self.buffer.len() > MAX_HEADER_BYTES {
                    return Err(FramingError::HeaderTooLong);
                }
                return Ok(None);
            };
            if end > MAX_HEADER_BYTES {
                return Err(FramingError::HeaderTooLong);
            }
            let length = parse_header(&self.buffer[..end])?;
            self.buffer.drain(..end + 4);
            self.body_length = Some(length);
        }
        match self.body_length {
            Some(length) if self.buffer.len() >= length => {
                self.body_length = None;
                let rest = self.buffer.split_off(length);
                Ok(Some(std::mem::replace(&mut self.buffer, rest)))
            }
            _ => Ok(None),
        }
    }
}

fn find_blank_line(buffer: &[u8]) -> Option<usize> {
    buffer.windows(4).position(|window| window == b"\r\n\r\n")
}

/// Reads the Content-Length out of a header (without its final blank line). Other
/// fields, such as Content-Type, are allowed and ignored, as the DAP base protocol says.
fn parse_header(header: &[u8]) -> Result<usize, FramingError> {
    let text = std::str::from_utf8(header)
        .ok()
        .filter(|text| text.is_ascii())
        .ok_or(FramingError::HeaderNotText)?;
    let mut length = None;
    for line in text.split("\r\n") {
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| FramingError::MalformedHeaderLine(line.to_string()))?;
        if name.trim().eq_ignore_ascii_case("content-length") {
            let value = value.trim();
            let parsed = value
                .parse::<usize>()
                .map_err(|_| FramingError::BadContentLength(value.to_string()))?;
            if parsed > MAX_BODY_BYTES {
                return Err(FramingError::BodyTooLarge(parsed));
            }
            length = Some(parsed);
        }
    }
    length.ok_or(FramingError::MissingContentLength)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds the chunks and returns the bodies as text, plus the error if one came.
    fn decode(chunks: &[&[u8]]) -> (Vec<String>, Option<FramingError>) {
        let mut decoder = ContentLengthDecoder::default();
        let mut bodies = Vec::new();
        for chunk in chunks {
            decoder.push(chunk);
            loop {
                match decoder.next_body() {
                    Ok(Some(body)) => bodies.push(String::from_utf8(body).unwrap()),
                    Ok(None) => break,
                    Err(error) => return (bodies, Some(error)),
                }
            }
        }
        (bodies, None)
    }

    #[test]
    fn decodes_split_coalesced_and_extra_headers() {
        let cases: Vec<(Vec<&[u8]>, Vec<&str>)> = vec![
            (vec![b"Content-Length: 2\r\n\r\n{}"], vec!["{}"]),
            (
                vec![b"Content-Len", b"gth: 2\r", b"\n\r", b"\n{", b"}"],
                vec!["{}"],
            ),
            (
                vec![b"Content-Length: 1\r\n\r\n1Content-Length: 1\r\n\r\n2"],
                vec!["1", "2"],
            ),
            (
                vec![b"Content-Type: application/json\r\ncontent-length:3\r\n\r\nabc"],
                vec!["abc"],
            ),
            (vec![b"Content-Length: 0\r\n\r\n"], vec![""]),
            (vec![b"Content-Length: 5\r\n\r\nab"], vec![]),
        ];
        for (chunks, expected) in cases {
            let (bodies, error) = decode(&chunks);
            assert_eq!(error, None, "chunks {chunks:?}");
            assert_eq!(bodies, expected, "chunks {chunks:?}");
        }
    }

    #[test]
    fn reports_broken_headers() {
        let long = vec![b'x'; MAX_HEADER_BYTES + 1];
        let cases: Vec<(Vec<&[u8]>, FramingError)> = vec![
            (
                vec![b"hello\r\n\r\n"],
                FramingError::MalformedHeaderLine("hello".into()),
            ),
            (
                vec![b"Content-Type: x\r\n\r\n"],
                FramingError::MissingContentLength,
            ),
            (
                vec![b"Content-Length: -1\r\n\r\n"],
                FramingError::BadContentLength("-1".into()),
            ),
            (
                vec![b"Content-Length: 99999999999\r\n\r\n"],
                FramingError::BodyTooLarge(99999999999),
            ),
            (vec![&long], FramingError::HeaderTooLong),
            (
                vec![b"Content-Length: \xff\r\n\r\n"],
                FramingError::HeaderNotText,
            ),
        ];
        for (chunks, expected) in cases {
            assert_eq!(decode(&chunks).1, Some(expected), "chunks {chunks:?}");
        }
    }

    #[test]
    fn encode_round_trips() {
        let framed = encode(b"{\"a\":1}");
        assert_eq!(framed, b"Content-Length: 7\r\n\r\n{\"a\":1}");
        for length in [0, 9, 10, 12_345] {
            let body = vec![b'x'; length];
            let expected = [
                format!("Content-Length: {length}\r\n\r\n").as_bytes(),
                &body,
            ]
            .concat();
            assert_eq!(encode(&body), expected);
        }
        assert_eq!(decode(&[&framed]).0, vec!["{\"a\":1}"]);
    }

    #[test]
    fn hands_on_what_it_has_not_decoded_as_it_was_sent() {
        let cases: Vec<(&[u8], &[u8])> = vec![
            (b"", b""),
            (b"Content-Len", b"Content-Len"),
            (
                b"Content-Length: 5\r\n\r\nab",
                b"Content-Length: 5\r\n\r\nab",
            ),
            (
                b"Content-Type: x\r\nContent-Length: 3\r\n\r\n",
                b"Content-Length: 3\r\n\r\n",
            ),
            (
                b"Content-Length: 1\r\n\r\n1Content-Length: 2\r\n\r\n2",
                b"Content-Length: 2\r\n\r\n2",
            ),
        ];
        for (pushed, unread) in cases {
            let mut decoder = ContentLengthDecoder::default();
            decoder.push(pushed);
            while let Ok(Some(_)) = decoder.next_body() {}
            assert_eq!(decoder.into_unread(), unread, "pushed {pushed:?}");
        }
        let mut broken = ContentLengthDecoder::default();
        broken.push(b"hello\r\n\r\n");
        assert!(broken.next_body().is_err());
        assert_eq!(broken.into_unread(), b"");
    }
}
