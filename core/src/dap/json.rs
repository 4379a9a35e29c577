//! A validating scan of JSON text that finds the members of a top-level object
//! without building any value, so that the engine can read the few keys it needs
//! (`seq`, `type`, `command`, …) and pass the rest of a message on as text.
//!
//! The scan is deliberately conservative: it succeeds only when a full
//! `serde_json` parse into a `Value` would certainly succeed and agree with it. On
//! anything it is not sure about — a syntax error, a duplicate or escaped top-level
//! key, a surrogate escape, a number with an exponent or hundreds of digits, deep
//! nesting — it answers `None`, and the caller takes the full `serde_json` path, which
//! then decides (and words any error) exactly as before.
//!
//! Why not serde_json's borrowed `RawValue` (a map of `&str` keys to `&RawValue`
//! does "read a few keys, pass the rest on as text" too): it lost on the hot path.
//! Measured natively (release, LTO) on the engine's messages: a 62-byte `threads`
//! request took 41 ns here against 57 ns through `RawValue`, a 5.6 KB `variables`
//! response 1.98 µs against 2.56 µs. It would also vouch for text a
//! `Value` parse refuses (`1e999`), so the conservative checks would stay anyway.

use serde_json::Value;
use std::ops::Range;

/// Nesting deeper than this is left to serde_json, whose own recursion limit (128)
/// then decides.
const MAX_DEPTH: usize = 100;
/// Numbers longer than this are left to serde_json: with about 309 digits a number
/// no longer fits an `f64`, which serde_json reports as an error.
const MAX_NUMBER_CHARS: usize = 300;

/// One member of the top-level object: where its key (without quotes; it has no
/// escapes) and its value (the whole JSON token or structure) are in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub key: Range<usize>,
    pub value: Range<usize>,
}

/// The shape of a JSON object text: where it opens and closes, and its members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopLevel {
    /// The byte offset of the opening `{`.
    pub open: usize,
    /// The byte offset just past the closing `}`.
    pub end: usize,
    pub members: Vec<Member>,
}

impl TopLevel {
    /// The member named `key`, if the object has one (keys are unique: `scan_object`
    /// refuses objects with a repeated key).
    pub fn member(&self, text: &str, key: &str) -> Option<&Member> {
        self.members
            .iter()
            .find(|member| &text[member.key.clone()] == key)
    }

    /// The JSON text of the value of `key`.
    pub fn value<'t>(&self, text: &'t str, key: &str) -> Option<&'t str> {
        self.member(text, key)
            .map(|member| &text[member.value.clone()])
    }
}

/// Scans `text` as one JSON object (surrounded by optional whitespace). `None` when
/// the text is anything else, or when the scan cannot vouch for it (see the module
/// comment).
pub fn scan_object(text: &str) -> Option<TopLevel> {
    let bytes = text.as_bytes();
    let open = skip_whitespace(bytes, 0);
    if bytes.get(open) != Some(&b'{') {
        return None;
    }
    let mut members = Vec::new();
    let mut at = skip_whitespace(bytes, open + 1);
    if bytes.get(at) == Some(&b'}') {
        at += 1;
    } else {
        loop {
            let key_start = at;
            let (key_end, escaped) = scan_string(bytes, key_start)?;
            if escaped {
                return None;
            }
            let key = key_start + 1..key_end - 1;
            if members
                .iter()
                .any(|member: &Member| bytes[member.key.clone()] == bytes[key.clone()])
            {
                return None;
            }
            at = skip_whitespace(bytes, key_end);
            if bytes.get(at) != Some(&b':') {
                return None;
            }
            let value_start = skip_whitespace(bytes, at + 1);
            let value_end = scan_value(bytes, value_start, 1)?;
            members.push(Member {
                key,
                value: value_start..value_end,
            });
            at = skip_whitespace(bytes, value_end);
            match bytes.get(at) {
                Some(b',') => at = skip_whitespace(bytes, at + 1),
                Some(b'}') => {
                    at += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    let end = at;
    if skip_whitespace(bytes, end) != bytes.len() {
        return None;
    }
    Some(TopLevel { open, end, members })
}

/// The string a scanned JSON string token stands for; `None` for other tokens.
pub fn token_str(token: &str) -> Option<std::borrow::Cow<'_, str>> {
    let inner = token.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        serde_json::from_str::<String>(token)
            .ok()
            .map(std::borrow::Cow::Owned)
    } else {
        Some(std::borrow::Cow::Borrowed(inner))
    }
}

/// What `Value::as_i64` says of a scanned token: integers in range only (not `1.0`,
/// not `-0`, which serde_json reads as a float).
pub fn token_i64(token: &str) -> Option<i64> {
    if let Some(small) = small_natural(token) {
        return i64::try_from(small).ok();
    }
    match token.as_bytes().first()? {
        b'-' | b'0'..=b'9' => serde_json::from_str::<Value>(token).ok()?.as_i64(),
        _ => None,
    }
}

/// What `Value::as_u64` says of a scanned token.
pub fn token_u64(token: &str) -> Option<u64> {
    if let Some(small) = small_natural(token) {
        return Some(small);
    }
    match token.as_bytes().first()? {
        b'0'..=b'9' => serde_json::from_str::<Value>(token).ok()?.as_u64(),
        _ => None,
    }
}

/// The common case of seqs and ids, read without serde_json: up to 18 digits, no
/// sign, no leading zero (so that the value fits and the token is valid JSON).
fn small_natural(token: &str) -> Option<u64> {
    let bytes = token.as_bytes();
    let plain = (1..=18).contains(&bytes.len())
        && bytes.iter().all(u8::is_ascii_digit)
        && (bytes[0] != b'0' || bytes.len() == 1);
    if plain {
        token.parse().ok()
    } else {
        None
    }
}

/// What `Value::as_bool` says of a scanned token.
pub fn token_bool(token: &str) -> Option<bool> {
    match token {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// Whether serde_json writes `string` between quotes as it is: it holds no quote,
/// backslash or control character, the only characters serde_json escapes.
pub fn is_plain_string(string: &str) -> bool {
    next_special_string_byte(string.as_bytes(), 0) == string.len()
}

fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// Scans one value starting at `at` (no leading whitespace); returns where it ends.
fn scan_value(bytes: &[u8], at: usize, depth: usize) -> Option<usize> {
    match *bytes.get(at)? {
        b'"' => scan_string(bytes, at).map(|(end, _)| end),
        b'{' => scan_nested_object(bytes, at, depth + 1),
        b'[' => scan_array(bytes, at, depth + 1),
        b't' => scan_literal(bytes, at, b"true"),
        b'f' => scan_literal(bytes, at, b"false"),
        b'n' => scan_literal(bytes, at, b"null"),
        b'-' | b'0'..=b'9' => scan_number(bytes, at),
        _ => None,
    }
}

fn scan_literal(bytes: &[u8], at: usize, literal: &[u8]) -> Option<usize> {
    let end = at + literal.len();
    (bytes.get(at..end)? == literal).then_some(end)
}

fn scan_nested_object(bytes: &[u8], open: usize, depth: usize) -> Option<usize> {
    if depth > MAX_DEPTH {
        return None;
    }
    let mut at = skip_whitespace(bytes, open + 1);
    if bytes.get(at) == Some(&b'}') {
        return Some(at + 1);
    }
    loop {
        let (key_end, _) = scan_string(bytes, at)?;
        at = skip_whitespace(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        at = skip_whitespace(bytes, at + 1);
        at = skip_whitespace(bytes, scan_value(bytes, at, depth)?);
        match bytes.get(at)? {
            b',' => at = skip_whitespace(bytes, at + 1),
            b'}' => return Some(at + 1),
            _ => return None,
        }
    }
}

fn scan_array(bytes: &[u8], open: usize, depth: usize) -> Option<usize> {
    if depth > MAX_DEPTH {
        return None;
    }
    let mut at = skip_whitespace(bytes, open + 1);
    if bytes.get(at) == Some(&b']') {
        return Some(at + 1);
    }
    loop {
        at = skip_whitespace(bytes, scan_value(bytes, at, depth)?);
        match bytes.get(at)? {
            b',' => at = skip_whitespace(bytes, at + 1),
            b']' => return Some(at + 1),
            _ => return None,
        }
    }
}

/// Scans a string token starting at its opening quote; returns where it ends (past
/// the closing quote) and whether it holds escapes. The text is already UTF-8 (it
/// is a `str`), so only control characters and escapes need checking.
fn scan_string(bytes: &[u8], open: usize) -> Option<(usize, bool)> {
    if bytes.get(open) != Some(&b'"') {
        return None;
    }
    let mut at = open + 1;
    let mut escaped = false;
    loop {
        at = next_special_string_byte(bytes, at);
        match *bytes.get(at)? {
            b'"' => return Some((at + 1, escaped)),
            b'\\' => {
                escaped = true;
                at = scan_escape(bytes, at + 1)?;
            }
            // A control character (the only other byte that is not plain).
            _ => return None,
        }
    }
}

/// The bytes a string holds as they are: all but quotes, backslashes and control
/// characters.
const PLAIN: [bool; 256] = {
    let mut table = [true; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = false;
        byte += 1;
    }
    table[b'"' as usize] = false;
    table[b'\\' as usize] = false;
    table
};

/// Where the first byte at or after `at` is that a string does not hold as it is (a
/// quote, a backslash or a control character), or the length of `bytes` when there is
/// none. Strings are most of a DAP message's bytes, and most are short (keys, names,
/// values), so eight bytes are tested at once and the answer is read off the test's
/// mask rather than found again byte by byte.
fn next_special_string_byte(bytes: &[u8], mut at: usize) -> usize {
    while let Some(chunk) = bytes.get(at..at + 8) {
        let Ok(chunk) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let special = special_bytes(u64::from_le_bytes(chunk));
        if special != 0 {
            // Little-endian: the lowest flagged bit is in the first special byte.
            return at + (special.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while bytes.get(at).is_some_and(|&byte| PLAIN[usize::from(byte)]) {
        at += 1;
    }
    at
}

/// A mask with the high bit set in the byte lanes of `word` that hold a quote, a
/// backslash or a control character. A borrow in the subtraction may also flag a lane
/// above (later than) a special one, never one below it, so the lowest flagged lane is
/// always the first special byte, which is all `next_special_string_byte` reads.
fn special_bytes(word: u64) -> u64 {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    /// Lanes below `limit` (at most 0x80).
    fn below(word: u64, limit: u8) -> u64 {
        word.wrapping_sub(ONES * u64::from(limit)) & !word & HIGH
    }
    below(word, 0x20)
        | below(word ^ (ONES * u64::from(b'"')), 1)
        | below(word ^ (ONES * u64::from(b'\\')), 1)
}

/// Scans the escape after a backslash; returns where it ends. Surrogate escapes are
/// accepted only as a well-formed pair (high then low), as serde_json requires.
fn scan_escape(bytes: &[u8], at: usize) -> Option<usize> {
    match *bytes.get(at)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(at + 1),
        b'u' => {
            let unit = hex4(bytes, at + 1)?;
            match unit {
                0xD800..=0xDBFF => {
                    if bytes.get(at + 5..at + 7)? != b"\\u" {
                        return None;
                    }
                    let low = hex4(bytes, at + 7)?;
                    (0xDC00..=0xDFFF).contains(&low).then_some(at + 11)
                }
                0xDC00..=0xDFFF => None,
                _ => Some(at + 5),
            }
        }
        _ => None,
    }
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    digits.iter().try_fold(0u32, |unit, &digit| {
        let value = char::from(digit).to_digit(16)?;
        Some(unit * 16 + value)
    })
}

/// Scans a number: `-? (0 | [1-9][0-9]*) (. [0-9]+)?`. Exponents and very long
/// numbers are left to serde_json (see the module comment).
fn scan_number(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start;
    if bytes.get(at) == Some(&b'-') {
        at += 1;
    }
    match *bytes.get(at)? {
        b'0' => at += 1,
        b'1'..=b'9' => at = skip_digits(bytes, at),
        _ => return None,
    }
    if bytes.get(at) == Some(&b'.') {
        let digits = at + 1;
        at = skip_digits(bytes, digits);
        if at == digits {
            return None;
        }
    }
    match bytes.get(at) {
        Some(b'e' | b'E' | b'0'..=b'9') => None,
        _ if at - start > MAX_NUMBER_CHARS => None,
        _ => Some(at),
    }
}

fn skip_digits(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b'0'..=b'9') = bytes.get(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the scan makes of a text: its members as `key=value` text, or `None`.
    fn members(text: &str) -> Option<Vec<String>> {
        let top = scan_object(text)?;
        Some(
            top.members
                .iter()
                .map(|member| {
                    format!(
                        "{}={}",
                        &text[member.key.clone()],
                        &text[member.value.clone()]
                    )
                })
                .collect(),
        )
    }

    #[test]
    fn finds_top_level_members_only() {
        let cases: &[(&str, &[&str])] = &[
            ("{}", &[]),
            (" {\n} ", &[]),
            (
                r#"{"seq":1,"type":"request","arguments":{"seq":2,"a":[1,{"seq":3}]}}"#,
                &[
                    "seq=1",
                    r#"type="request""#,
                    r#"arguments={"seq":2,"a":[1,{"seq":3}]}"#,
                ],
            ),
            (
                "{ \"a\" : -0.5 , \"b\":\t\"x\\\"y\" ,\"c\":[ ],\"d\":null}",
                &["a=-0.5", r#"b="x\"y""#, "c=[ ]", "d=null"],
            ),
            (
                r#"{"é":"\u00e9\ud83d\ude00","t":true,"f":false}"#,
                &[r#"é="\u00e9\ud83d\ude00""#, "t=true", "f=false"],
            ),
        ];
        for (text, expected) in cases {
            let expected: Vec<String> = expected.iter().map(|item| item.to_string()).collect();
            assert_eq!(members(text), Some(expected), "{text}");
        }
    }

    /// Texts the scan leaves to serde_json: errors, and valid JSON it does not vouch for.
    #[test]
    fn declines_what_it_cannot_vouch_for() {
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(120), "]".repeat(120));
        let long = format!("{{\"a\":{}}}", "9".repeat(400));
        let cases = [
            "",
            "[]",
            "{",
            r#"{"a"}"#,
            r#"{"a":}"#,
            r#"{"a":1,}"#,
            r#"{"a":1}x"#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":-}"#,
            r#"{"a":1e5}"#,
            r#"{"a":tru}"#,
            r#"{"a":"\x"}"#,
            "{\"a\":\"\u{1}\"}",
            r#"{"a":"\ud800"}"#,
            r#"{"a":"\udc00\ud800"}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"\u0061":1}"#,
            r#"{"a":[1 2]}"#,
            r#"{"a":{"b" 1}}"#,
            &deep,
            &long,
        ];
        for text in cases {
            assert_eq!(members(text), None, "{text}");
        }
    }

    #[test]
    fn strings_end_at_their_quote_whatever_the_alignment() {
        for length in 0..40 {
            for special in ["", "\\\"", "\\n", "é"] {
                let body = format!("{}{special}{}", "a".repeat(length), "b".repeat(length % 9));
                let token = format!("\"{body}\"");
                let text = format!("{{\"k\":{token},\"z\":1}}");
                assert_eq!(
                    members(&text),
                    Some(vec![format!("k={token}"), "z=1".to_string()]),
                    "{text}"
                );
            }
            let control = format!("{{\"k\":\"{}\u{1f}\"}}", "a".repeat(length));
            assert_eq!(members(&control), None, "{control:?}");
        }
    }

    /// The word test of string bytes finds the first special byte wherever it is and
    /// whatever the bytes around it are (the bytes that could upset a borrow included).
    #[test]
    fn the_first_special_byte_of_a_word_is_found_exactly() {
        let tricky = [
            0x00, 0x01, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7f, 0x80, 0x81, 0xa2,
            0xdc, 0xff, b'a', b' ',
        ];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..200_000 {
            let mut lanes = [0u8; 8];
            for lane in &mut lanes {
                let pick = next();
                *lane = if pick % 3 == 0 {
                    (pick >> 8) as u8
                } else {
                    tricky[(pick >> 8) as usize % tricky.len()]
                };
            }
            let expected = lanes.iter().position(|&byte| !PLAIN[usize::from(byte)]);
            let mask = special_bytes(u64::from_le_bytes(lanes));
            let found = (mask != 0).then(|| (mask.trailing_zeros() / 8) as usize);
            assert_eq!(found, expected, "{lanes:02x?}");
        }
    }

    #[test]
    fn reads_tokens_as_serde_json_does() {
        let cases = [
            ("1", Some(1)),
            ("-7", Some(-7)),
            ("-0", None),
            ("1.0", None),
            ("9223372036854775807", Some(i64::MAX)),
            ("9223372036854775808", None),
            ("-9223372036854775808", Some(i64::MIN)),
            ("\"1\"", None),
            ("01", None),
            ("0", Some(0)),
            ("123456789012345678", Some(123_456_789_012_345_678)),
        ];
        for (token, expected) in cases {
            assert_eq!(token_i64(token), expected, "{token}");
        }
        assert_eq!(token_u64("18446744073709551615"), Some(u64::MAX));
        assert_eq!(token_u64("-1"), None);
        assert_eq!(token_str(r#""a\nb""#).as_deref(), Some("a\nb"));
        assert_eq!(token_str(r#""plain""#).as_deref(), Some("plain"));
        assert_eq!(token_str("12"), None);
        assert_eq!(token_bool("true"), Some(true));
        assert_eq!(token_bool("1"), None);
    }
}
