//! The `envFile` format: the dotenv dialect VS Code's Python users write.
//!
//! One `KEY=VALUE` a line, optionally prefixed with `export `; blank lines and lines
//! starting with `#` are ignored. A value may be bare (trailing whitespace and an
//! inline ` #comment` are dropped), in single quotes (taken literally), or in double
//! quotes (where `\n`, `\t`, `\r`, `\\` and `\"` are escapes). Variables are not
//! expanded: what the file says is what the debuggee gets.
//!
//! Written here rather than with `dotenvy` (whose parser was weighed for the text):
//! dotenvy parses from a string or reader, but always expands `$NAME` and
//! `${NAME}` in unquoted and double-quoted values, looking names it has not seen in
//! the file up in the process's own environment (`std::env::var`), with no way to
//! turn that off. In the engine that would read the outside world (natively the
//! adapter's environment, in WebAssembly none), and it would change what a file that
//! works today gives the debuggee.

/// Parses the text of an env file. An error names the file and the line at fault.
pub fn parse(path: &str, text: &str) -> Result<Vec<(String, String)>, String> {
    let mut variables = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fail = |reason: &str| format!("The envFile '{path}', line {}: {reason}.", index + 1);
        let line = line.strip_prefix("export ").map_or(line, str::trim_start);
        let Some((name, value)) = line.split_once('=') else {
            return Err(fail("expected NAME=VALUE"));
        };
        let name = name.trim();
        if !is_name(name) {
            return Err(fail(&format!(
                "{name:?} is not a variable name (letters, digits and '_', not starting with a digit)"
            )));
        }
        let value = parse_value(value.trim_start()).map_err(|reason| fail(&reason))?;
        variables.push((name.to_string(), value));
    }
    Ok(variables)
}

fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn parse_value(value: &str) -> Result<String, String> {
    if let Some(rest) = value.strip_prefix('\'') {
        let Some(end) = rest.find('\'') else {
            return Err("the single quote is never closed".to_string());
        };
        trailing_is_comment(&rest[end + 1..])?;
        return Ok(rest[..end].to_string());
    }
    if let Some(rest) = value.strip_prefix('"') {
        let mut out = String::new();
        let mut chars = rest.char_indices();
        while let Some((at, c)) = chars.next() {
            match c {
                '"' => {
                    trailing_is_comment(&rest[at + 1..])?;
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, 'n')) => out.push('\n'),
                    Some((_, 't')) => out.push('\t'),
                    Some((_, 'r')) => out.push('\r'),
                    Some((_, other)) => {
                        // Unknown escapes keep their backslash, as Windows paths
                        // written in double quotes would otherwise lose theirs.
                        if other != '\\' && other != '"' {
                            out.push('\\');
                        }
                        out.push(other);
                    }
                    None => break,
                },
                other => out.push(other),
            }
        }
        return Err("the double quote is never closed".to_string());
    }
    // A bare value ends at an inline comment, which must follow whitespace so that
    // values such as URLs with '#' fragments survive.
    let end = value
        .char_indices()
        .find(|(at, c)| *c == '#' && value[..*at].ends_with([' ', '\t']))
        .map_or(value.len(), |(at, _)| at);
    Ok(value[..end].trim_end().to_string())
}

fn trailing_is_comment(rest: &str) -> Result<(), String> {
    let rest = rest.trim();
    if rest.is_empty() || rest.starts_with('#') {
        Ok(())
    } else {
        Err(format!("unexpected {rest:?} after the quoted value"))
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    /// The variables expected from a text, or the error message.
    type Expected<'a> = Result<&'a [(&'a str, &'a str)], &'a str>;

    fn check(text: &str, expected: Expected<'_>) {
        let result = parse("/w/.env", text);
        let expected = expected.map(|pairs| {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<Vec<_>>()
        });
        assert_eq!(result, expected.map_err(str::to_string), "{text:?}");
    }

    #[test]
    fn parses_the_dotenv_dialect() {
        let cases: Vec<(&str, Expected<'_>)> = vec![
            ("A=1\nB=two words\n", Ok(&[("A", "1"), ("B", "two words")])),
            ("# comment\n\n  export A = x  \n", Ok(&[("A", "x")])),
            ("A='$HOME \\n' # note", Ok(&[("A", "$HOME \\n")])),
            ("A=\"line\\nnext \\\"q\\\" C:\\dir\"", Ok(&[("A", "line\nnext \"q\" C:\\dir")])),
            ("URL=http://x/#frag # comment", Ok(&[("URL", "http://x/#frag")])),
            ("EMPTY=\nE2=''", Ok(&[("EMPTY", ""), ("E2", "")])),
            ("A=1\r\nB=2\r\n", Ok(&[("A", "1"), ("B", "2")])),
            ("A=1\nA=2", Ok(&[("A", "1"), ("A", "2")])),
            ("A=1\nnonsense\n", Err("The envFile '/w/.env', line 2: expected NAME=VALUE.")),
            ("1A=x", Err("The envFile '/w/.env', line 1: \"1A\" is not a variable name (letters, digits and '_', not starting with a digit).")),
            ("=x", Err("The envFile '/w/.env', line 1: \"\" is not a variable name (letters, digits and '_', not starting with a digit).")),
            ("A='open", Err("The envFile '/w/.env', line 1: the single quote is never closed.")),
            ("A=\"open\\\"", Err("The envFile '/w/.env', line 1: the double quote is never closed.")),
            ("A='x' y", Err("The envFile '/w/.env', line 1: unexpected \"y\" after the quoted value.")),
        ];
        for (text, expected) in cases {
            check(text, expected);
        }
    }
}
