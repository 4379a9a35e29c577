//! Standard base64 (RFC 4648 alphabet, with padding), the encoding of every byte
//! payload that crosses the engine boundary as JSON.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The two symbols of every 12-bit value, so that encoding takes two lookups per
/// three bytes instead of four (8 KiB; encoding is on the engine's hot path).
const SYMBOL_PAIRS: [[u8; 2]; 4096] = {
    let mut table = [[0u8; 2]; 4096];
    let mut index = 0;
    while index < 4096 {
        table[index] = [ALPHABET[index >> 6], ALPHABET[index & 0x3f]];
        index += 1;
    }
    table
};

/// Encodes bytes as padded standard base64.
pub fn encode(bytes: &[u8]) -> String {
    let mut text = Vec::with_capacity(encoded_len(bytes.len()));
    encode_into(bytes, &mut text);
    // The alphabet is ASCII, so the conversion cannot fail; the fallback only keeps
    // this free of panics.
    String::from_utf8(text).unwrap_or_default()
}

/// How many characters the padded base64 of `length` bytes has.
pub fn encoded_len(length: usize) -> usize {
    length.div_ceil(3) * 4
}

/// Appends the padded standard base64 of `bytes` (ASCII) to `out`; the output
/// writer encodes straight into the JSON it builds.
pub fn encode_into(bytes: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + encoded_len(bytes.len()), b'=');
    let symbol = |sextet: u32| ALPHABET[(sextet & 0x3f) as usize];
    let mut chunks = bytes.chunks_exact(3);
    let mut targets = out[start..].chunks_exact_mut(4);
    for (chunk, target) in (&mut chunks).zip(&mut targets) {
        let triple = (u32::from(chunk[0]) << 16) | (u32::from(chunk[1]) << 8) | u32::from(chunk[2]);
        let [a, b] = SYMBOL_PAIRS[(triple >> 12) as usize];
        let [c, d] = SYMBOL_PAIRS[(triple & 0xfff) as usize];
        target.copy_from_slice(&[a, b, c, d]);
    }
    let rest = chunks.remainder();
    if let Some(target) = targets.next() {
        let b0 = rest.first().copied().unwrap_or(0);
        let b1 = rest.get(1).copied().unwrap_or(0);
        let triple = (u32::from(b0) << 16) | (u32::from(b1) << 8);
        target[0] = symbol(triple >> 18);
        target[1] = symbol(triple >> 12);
        if rest.len() == 2 {
            target[2] = symbol(triple >> 6);
        }
    }
}

/// Appends the padded standard base64 of `bytes` to a string, a block at a time
/// through a small buffer (the output writer builds its JSON as a `String`).
pub fn encode_into_string(bytes: &[u8], text: &mut String) {
    text.reserve(encoded_len(bytes.len()));
    let mut block = Vec::with_capacity(1024);
    for chunk in bytes.chunks(768) {
        block.clear();
        encode_into(chunk, &mut block);
        // The alphabet and the padding are ASCII: the check always passes.
        text.push_str(std::str::from_utf8(&block).unwrap_or_default());
    }
}

/// Marks the bytes that are not base64 symbols in `SEXTETS`.
const INVALID: u8 = 0xff;

/// The value of each base64 symbol, `INVALID` for every other byte.
const SEXTETS: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut index = 0;
    while index < 64 {
        table[ALPHABET[index] as usize] = index as u8;
        index += 1;
    }
    table
};

fn invalid_character(byte: u8) -> String {
    format!(
        "base64 text contains the invalid character {:?}",
        char::from(byte)
    )
}

/// Decodes padded standard base64. Unpadded input is accepted too, because some
/// encoders drop the padding and nothing is ambiguous without it.
pub fn decode(text: &str) -> Result<Vec<u8>, String> {
    let trimmed = text.trim_end_matches('=');
    let padding = text.len() - trimmed.len();
    if padding > 2 || (padding > 0 && !text.len().is_multiple_of(4)) {
        return Err("base64 text has misplaced '=' padding".to_string());
    }
    let bytes = trimmed.as_bytes();
    if bytes.len() % 4 == 1 {
        return Err("base64 text has an impossible length".to_string());
    }
    let mut out = vec![0; bytes.len() / 4 * 3];
    let mut chunks = bytes.chunks_exact(4);
    for (chunk, target) in (&mut chunks).zip(out.chunks_exact_mut(3)) {
        let [a, b, c, d] =
            [chunk[0], chunk[1], chunk[2], chunk[3]].map(|byte| SEXTETS[byte as usize]);
        // Valid sextets are below 64; INVALID has the top bits set.
        if (a | b | c | d) & 0xc0 != 0 {
            let bad = chunk
                .iter()
                .copied()
                .find(|&byte| SEXTETS[byte as usize] == INVALID);
            return Err(invalid_character(bad.unwrap_or(chunk[0])));
        }
        let triple =
            (u32::from(a) << 18) | (u32::from(b) << 12) | (u32::from(c) << 6) | u32::from(d);
        target.copy_from_slice(&[(triple >> 16) as u8, (triple >> 8) as u8, triple as u8]);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut triple = 0u32;
        for (index, &byte) in rest.iter().enumerate() {
            let sextet = SEXTETS[byte as usize];
            if sextet == INVALID {
                return Err(invalid_character(byte));
            }
            triple |= u32::from(sextet) << (18 - 6 * index);
        }
        for index in 0..rest.len() - 1 {
            out.push((triple >> (16 - 8 * index)) as u8);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_matches_rfc_4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in cases {
            assert_eq!(encode(plain.as_bytes()), encoded);
            assert_eq!(decode(encoded).unwrap(), plain.as_bytes());
        }
        let mut appended = String::from("x");
        encode_into_string(&[7; 2000], &mut appended);
        assert_eq!(appended, format!("x{}", encode(&[7; 2000])));
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(decode(&encode(&all)).unwrap(), all);
        for length in 0..12 {
            let bytes: Vec<u8> = (0..length).map(|index| (index * 37 + 200) as u8).collect();
            assert_eq!(decode(&encode(&bytes)).unwrap(), bytes, "length {length}");
        }
    }

    #[test]
    fn rejects_bad_text() {
        for bad in ["Zg=", "Z", "Zm9v!A==", "Zg===", "=Zg="] {
            assert!(decode(bad).is_err(), "{bad:?} should be rejected");
        }
        assert_eq!(decode("Zg").unwrap(), b"f");
        // The first bad character is named, wherever it is.
        let cases = [
            ("Zm9vY!Fy", '!'),
            ("Zm9v*mFy", '*'),
            ("Zm=vYmFy", '='),
            ("Zm9vY\u{e9}", '\u{c3}'),
        ];
        for (text, bad) in cases {
            let expected = format!("base64 text contains the invalid character {bad:?}");
            assert_eq!(decode(text), Err(expected), "{text:?}");
        }
    }
}
