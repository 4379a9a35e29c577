//! Incremental UTF-8 decoding of process output: a character split across chunks
//! comes out whole, and invalid bytes become U+FFFD.

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
        let mut rest = bytes.as_slice();
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    text.push_str(valid);
                    break;
                }
                Err(error) => {
                    let (valid, after) = rest.split_at(error.valid_up_to());
                    // from_utf8 just vouched for this prefix, so the lossy conversion
                    // never substitutes anything here.
                    text.push_str(&String::from_utf8_lossy(valid));
                    match error.error_len() {
                        Some(bad) => {
                            text.push('\u{FFFD}');
                            rest = &after[bad..];
                        }
                        None => {
                            self.pending = after.to_vec();
                            break;
                        }
                    }
                }
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
        ];
        for (chunks, expected) in cases {
            assert_eq!(decode_chunks(&chunks), expected, "chunks {chunks:?}");
        }
    }
}
