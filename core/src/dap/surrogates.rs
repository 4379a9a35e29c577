//! Lone UTF-16 surrogate escapes in JSON text (`"\ud83d"` without its low half).
//!
//! JSON's grammar allows any `\uXXXX` escape, and JavaScript clients produce lone
//! surrogates when they cut a string in the middle of an emoji. A Rust string cannot
//! hold one, so serde_json refuses the whole message, which would leave a request
//! unanswered. The engine reads such a message with each lone surrogate replaced by
//! U+FFFD, as a UTF-8 encoder does, and answers it like any other.

/// The text with each lone surrogate escape replaced by `\uFFFD`, or `None` when it has
/// none (the text is then refused or accepted as it is).
pub fn replace_lone_surrogates(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(unit) = escape_at(bytes, i) else {
            // Another escape (`\\`, `\"`, `\n`, …): skip both characters so that an
            // escaped backslash is never read as the start of an escape.
            i += 2;
            continue;
        };
        if !(0xD800..=0xDFFF).contains(&unit) {
            i += 6;
            continue;
        }
        let paired = (0xD800..=0xDBFF).contains(&unit)
            && escape_at(bytes, i + 6).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low));
        if paired {
            i += 12;
            continue;
        }
        let repaired = out.get_or_insert_with(|| String::with_capacity(text.len()));
        repaired.push_str(&text[copied..i]);
        repaired.push_str("\\uFFFD");
        i += 6;
        copied = i;
    }
    let mut repaired = out?;
    repaired.push_str(&text[copied..]);
    Some(repaired)
}

/// The code unit of a `\uXXXX` escape starting at `at`, if one does.
fn escape_at(bytes: &[u8], at: usize) -> Option<u32> {
    let escape = bytes.get(at..at + 6)?;
    if escape[0] != b'\\' || escape[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&escape[2..]).ok()?;
    u32::from_str_radix(hex, 16)
        .ok()
        .filter(|_| hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::replace_lone_surrogates;

    #[test]
    fn replaces_only_lone_surrogates() {
        let cases: &[(&str, Option<&str>)] = &[
            (r#"{"a":"x"}"#, None),
            (r#"{"a":"\ud83d"}"#, Some(r#"{"a":"\uFFFD"}"#)),
            (r#"{"a":"\uDE00 tail"}"#, Some(r#"{"a":"\uFFFD tail"}"#)),
            // A pair is a character; only its missing half is replaced.
            (r#"{"a":"\ud83d\ude00"}"#, None),
            (
                r#"{"a":"\ud83d\ud83d\ude00"}"#,
                Some(r#"{"a":"\uFFFD\ud83d\ude00"}"#),
            ),
            (r#"{"a":"\ude00\ud83d"}"#, Some(r#"{"a":"\uFFFD\uFFFD"}"#)),
            // An escaped backslash followed by text that looks like an escape.
            (r#"{"a":"\\ud83d"}"#, None),
            (r#"{"a":"\\\ud83d"}"#, Some(r#"{"a":"\\\uFFFD"}"#)),
            (r#"{"a":"\u00e9"}"#, None),
            // Truncated or not hexadecimal: left to the JSON parser to refuse.
            (r#"{"a":"\ud8"#, None),
            (r#"{"a":"\u+d83"}"#, None),
            ("é\\ud800", Some("é\\uFFFD")),
        ];
        for (text, expected) in cases {
            assert_eq!(
                replace_lone_surrogates(text).as_deref(),
                *expected,
                "{text}"
            );
        }
    }
}
