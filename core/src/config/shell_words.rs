//! Splits an `args` string as a POSIX shell would split words: whitespace separates,
//! single quotes keep everything literally, double quotes keep everything but let a
//! backslash escape `$`, `` ` ``, `"`, `\` and newline, and a bare backslash escapes
//! the next character. No expansion of any kind happens.

pub fn split(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    // Distinguishes "no word yet" from an empty quoted word such as ''.
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(inner) => word.push(inner),
                        None => return Err("'args' has an unterminated single quote".to_string()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(escaped @ ('$' | '`' | '"' | '\\')) => word.push(escaped),
                            Some('\n') => {}
                            Some(other) => {
                                word.push('\\');
                                word.push(other);
                            }
                            None => {
                                return Err("'args' has an unterminated double quote".to_string())
                            }
                        },
                        Some(inner) => word.push(inner),
                        None => return Err("'args' has an unterminated double quote".to_string()),
                    }
                }
            }
            '\\' => match chars.next() {
                // A backslash-newline is a line continuation: it disappears.
                Some('\n') => {}
                Some(escaped) => {
                    in_word = true;
                    word.push(escaped);
                }
                None => return Err("'args' ends with a lone backslash".to_string()),
            },
            other => {
                in_word = true;
                word.push(other);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn splits_like_a_posix_shell() {
        let cases: &[(&str, &[&str])] = &[
            ("", &[]),
            ("   ", &[]),
            ("a b  c", &["a", "b", "c"]),
            ("'a b' c", &["a b", "c"]),
            ("\"a b\" c", &["a b", "c"]),
            ("a\\ b", &["a b"]),
            ("''", &[""]),
            ("x'' y", &["x", "y"]),
            ("'it'\\''s'", &["it's"]),
            ("\"say \\\"hi\\\"\"", &["say \"hi\""]),
            ("\"a\\nb\"", &["a\\nb"]),
            ("'$HOME' \"$HOME\"", &["$HOME", "$HOME"]),
            ("--flag=\"x y\"z", &["--flag=x yz"]),
            ("a\\\nb", &["ab"]),
            ("\t-v\n--n 3 ", &["-v", "--n", "3"]),
        ];
        for (text, expected) in cases {
            assert_eq!(split(text).unwrap(), *expected, "splitting {text:?}");
        }
    }

    #[test]
    fn rejects_unterminated_input() {
        for text in ["'a", "\"a", "a\\", "\"a\\"] {
            assert!(split(text).is_err(), "{text:?} should be rejected");
        }
    }
}
