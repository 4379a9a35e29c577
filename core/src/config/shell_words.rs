//! Splits an `args` string as a POSIX shell would split words, with the
//! `shell-words` crate: whitespace separates, single quotes keep everything
//! literally, double quotes keep everything but let a backslash escape `$`, `` ` ``,
//! `"`, `\` and newline, a bare backslash escapes the next character (and stays at
//! the very end), and a `#` that starts a word starts a comment. No expansion of any
//! kind happens.

/// The words of `text`, or why it cannot be split, as the end of a sentence that
/// starts with "The launch configuration's ".
pub fn split(text: &str) -> Result<Vec<String>, String> {
    shell_words::split(text).map_err(|_| unterminated(text).to_string())
}

/// What is left open at the end of `text`, which `shell-words` does not say: only
/// the right closing character makes the text splittable. Runs on errors only.
fn unterminated(text: &str) -> &'static str {
    if shell_words::split(&format!("{text}'")).is_ok() {
        "'args' has an unterminated single quote"
    } else {
        "'args' has an unterminated double quote"
    }
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
            ("a #b c", &["a"]),
            ("a#b", &["a#b"]),
            // A backslash with nothing after it stays, as the crate has it.
            ("a\\", &["a\\"]),
        ];
        for (text, expected) in cases {
            assert_eq!(split(text).unwrap(), *expected, "splitting {text:?}");
        }
    }

    #[test]
    fn rejects_unterminated_input_and_says_what_is_open() {
        let cases = [
            ("'a", "'args' has an unterminated single quote"),
            ("\"a", "'args' has an unterminated double quote"),
            ("\"a\\", "'args' has an unterminated double quote"),
            ("\"it's", "'args' has an unterminated double quote"),
        ];
        for (text, expected) in cases {
            assert_eq!(split(text), Err(expected.to_string()), "{text:?}");
        }
    }
}
