//! Incremental UTF-8 decoding of process output: a character split across chunks
//! comes out whole, and invalid bytes become U+FFFD (one per invalid sequence, as
//! `String::from_utf8_lossy` has it). std's `Utf8Chunks` does the decoding; this
//! only holds back the start of a character cut off at the end of a chunk.

#[derive(Default)]
pub struct Utf8Stream {
    /// The start of a character whose remaining bytes have not arrived yet (at most 3).
    pending: Vec<u8>,
}

impl Utf8Stream {
    /// Decodes a chunk, holding back an incomplete character at its end.
    pub fn push(&mut self, chunk: &[u8]) -> String {
        let mut bytes = std::mem::take(&mut self.pending);
        bytes.extend_from_slice(chunk);
        let mut text = String::with_capacity(bytes.len());
        let mut pieces = bytes.utf8_chunks().peekable();
        while let Some(piece) = pieces.next() {
            text.push_str(piece.valid());
            let invalid = piece.invalid();
            if invalid.is_empty() {
                continue;
            }
            if pieces.peek().is_none() && is_cut_off(invalid) {
                self.pending = invalid.to_vec();
            } else {
                text.push('\u{FFFD}');
            }
        }
        text
    }

    /// Ends the stream: an incomplete character left over becomes U+FFFD.
    pub fn finish(&mut self) -> String {
        if self.pending.is_empty() {
            String::new()
        } else {
            self.pending.clear();
            "\u{FFFD}".to_string()
        }
    }
}

/// Whether invalid bytes at the very end are the start of a character that more
/// bytes could complete, rather than bytes no continuation can save.
fn is_cut_off(invalid: &[u8]) -> bool {
    std::str::from_utf8(invalid).is_err_and(|error| error.error_len().is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_chunks(chunks: &[&[u8]]) -> String {
        let mut stream = Utf8Stream::default();
        let mut text: String = chunks.iter().map(|chunk| stream.push(chunk)).collect();
        text.push_str(&stream.finish());
        text
    }

    #[test]
    fn decodes_split_and_invalid_sequences() {
        let euro = "€".as_bytes(); // three bytes
        let cases: Vec<(Vec<&[u8]>, &str)> = vec![
            (vec![b"plain"], "plain"),
            (vec![&euro[..1], &euro[1..]], "€"),
            (vec![&euro[..2], &euro[2..], b"x"], "€x"),
            (vec![b"a", &euro[..1], &euro[1..2], &euro[2..]], "a€"),
            (vec![b"a\xffb"], "a\u{FFFD}b"),
            (vec![&euro[..2]], "\u{FFFD}"),
            (vec![b"\xe2\x82", b"A"], "\u{FFFD}A"),
            (vec![b"\xf0\x9f\x98", b"\x80!"], "😀!"),
            (vec![b"\xe2\x82\xe2"], "\u{FFFD}\u{FFFD}"),
        ];
        for (chunks, expected) in cases {
            assert_eq!(decode_chunks(&chunks), expected, "chunks {chunks:?}");
        }
    }
}
