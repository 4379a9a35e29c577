//! `pathMappings`: where the editor's files are on the machine the program runs on (a
//! remote host, a container that mounts the sources elsewhere).
//!
//! The engine translates, not the debuggee: every path between the client and a
//! debuggee crosses the engine, which already reads the envelope of every message, so
//! one implementation serves every client and every debuggee (children included), and
//! the debuggee never learns that the editor sees its files elsewhere. Only the
//! messages that carry paths are touched (messages.rs), and only when the session has
//! mappings; everything else is forwarded as before, unparsed.
//!
//! A mapping pairs a `localRoot` (the client's side) with a `remoteRoot` (the
//! debuggee's). A path is translated by the mapping with the longest root that is a
//! prefix of it, whole components only (`/app` maps `/app/x.py`, not `/apple`); a path
//! under no root passes unchanged. A root written Windows-style (a drive letter, a UNC
//! share or a backslash) matches with either separator and without regard to ASCII
//! case; the part of the path under the root takes the other side's separator when
//! the two sides' styles differ. Trailing separators of a root do not matter.

mod messages;
#[cfg(test)]
mod tests;

use crate::dap::error::{codes, DapError};
use serde_json::{Map, Value};

/// The configuration key.
pub const KEY: &str = "pathMappings";

/// Which way a path crosses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the client to the debuggee: a local path becomes the remote one.
    ToRemote,
    /// From the debuggee to the client.
    ToLocal,
}

/// A session's mappings, each direction sorted longest root first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathMappings {
    to_remote: Vec<Mapping>,
    to_local: Vec<Mapping>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Mapping {
    from: Root,
    to: Root,
}

/// How a root writes paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    Posix,
    Windows,
}

impl Style {
    fn of(root: &str) -> Style {
        let bytes = root.as_bytes();
        let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
        if drive || root.contains('\\') {
            Style::Windows
        } else {
            Style::Posix
        }
    }

    fn is_separator(self, c: char) -> bool {
        c == '/' || (self == Style::Windows && c == '\\')
    }

    /// The separator of a root written in this style, unless it shows another.
    fn separator(self) -> char {
        match self {
            Style::Posix => '/',
            Style::Windows => '\\',
        }
    }
}

/// A mapping's root: its text without trailing separators (so `/` is empty and `C:\`
/// is `C:`), its style, and the separator it is written with (a Windows root may be
/// written with `/`), which the paths mapped under it take.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Root {
    text: String,
    style: Style,
    separator: char,
}

impl Root {
    fn new(text: &str) -> Root {
        let style = Style::of(text);
        let separator = if style == Style::Windows && text.contains('/') && !text.contains('\\') {
            '/'
        } else {
            style.separator()
        };
        Root {
            text: text.trim_end_matches(|c| style.is_separator(c)).to_string(),
            style,
            separator,
        }
    }

    /// What follows the root in `path` (empty, or starting with a separator), when
    /// the root is a prefix of the path made of whole components.
    fn strip<'p>(&self, path: &'p str) -> Option<&'p str> {
        let rest = match self.style {
            Style::Posix => path.strip_prefix(self.text.as_str())?,
            Style::Windows => {
                let mut chars = path.chars();
                for expected in self.text.chars() {
                    let actual = chars.next()?;
                    let same = actual.eq_ignore_ascii_case(&expected)
                        || (self.style.is_separator(actual) && self.style.is_separator(expected));
                    if !same {
                        return None;
                    }
                }
                chars.as_str()
            }
        };
        match rest.chars().next() {
            None => Some(rest),
            // The root itself with a trailing separator (`/app/`) is the root.
            Some(c)
                if self.style.is_separator(c)
                    && rest.chars().all(|c| self.style.is_separator(c)) =>
            {
                Some("")
            }
            Some(c) if self.style.is_separator(c) => Some(rest),
            Some(_) => None,
        }
    }

    /// The root followed by `rest` (what `strip` left of a path written in `style`).
    fn join(&self, rest: &str, style: Style) -> String {
        let mut path = String::with_capacity(self.text.len() + rest.len() + 1);
        path.push_str(&self.text);
        if rest.is_empty() {
            // The root itself: `/` and `C:\` keep their separator.
            if self.text.is_empty() || self.text.ends_with(':') {
                path.push(self.separator);
            }
        } else if style == self.style && self.style == Style::Posix {
            path.push_str(rest);
        } else {
            path.extend(rest.chars().map(|c| {
                if style.is_separator(c) {
                    self.separator
                } else {
                    c
                }
            }));
        }
        path
    }
}

impl PathMappings {
    /// The mappings of a launch or attach configuration (`request` names which, for
    /// the errors), with one clear error per mistake.
    pub fn from_configuration(
        configuration: &Map<String, Value>,
        request: &str,
    ) -> Result<PathMappings, DapError> {
        let invalid = |message: String| DapError::user(codes::INVALID_CONFIGURATION, message);
        let entries = match configuration.get(KEY) {
            None | Some(Value::Null) => return Ok(PathMappings::default()),
            Some(Value::Array(entries)) => entries,
            Some(_) => {
                return Err(invalid(format!(
                    "The {request} configuration's '{KEY}' must be a list like [{{\"localRoot\": \"${{workspaceFolder}}\", \"remoteRoot\": \"/app\"}}]."
                )))
            }
        };
        let mut mappings = Vec::with_capacity(entries.len());
        for (index, entry) in entries.iter().enumerate() {
            let Value::Object(entry) = entry else {
                return Err(invalid(format!(
                    "The {request} configuration's '{KEY}[{index}]' must be an object like {{\"localRoot\": \"${{workspaceFolder}}\", \"remoteRoot\": \"/app\"}}."
                )));
            };
            let root = |key: &str, whose: &str| {
                match entry.get(key) {
                Some(Value::String(text)) if !text.trim().is_empty() => Ok(Root::new(text)),
                _ => Err(invalid(format!(
                    "The {request} configuration's '{KEY}[{index}].{key}' must be a non-empty string: the folder on {whose}."
                ))),
            }
            };
            let local = root("localRoot", "this machine")?;
            let remote = root("remoteRoot", "the machine the program runs on")?;
            mappings.push((local, remote));
        }
        Ok(PathMappings::new(mappings))
    }

    /// Mappings from (local root, remote root) pairs, in the user's order.
    fn new(pairs: Vec<(Root, Root)>) -> PathMappings {
        let longest_first = |mut mappings: Vec<Mapping>| {
            // Stable: of two equally long roots, the one written first wins.
            mappings.sort_by_key(|mapping| std::cmp::Reverse(mapping.from.text.len()));
            mappings
        };
        let to_remote = pairs
            .iter()
            .map(|(local, remote)| Mapping {
                from: local.clone(),
                to: remote.clone(),
            })
            .collect();
        let to_local = pairs
            .into_iter()
            .map(|(local, remote)| Mapping {
                from: remote,
                to: local,
            })
            .collect();
        PathMappings {
            to_remote: longest_first(to_remote),
            to_local: longest_first(to_local),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.to_remote.is_empty()
    }

    /// The path on the other side, or `None` when no mapping's root holds it (the
    /// path then passes unchanged).
    pub fn translate(&self, direction: Direction, path: &str) -> Option<String> {
        let mappings = match direction {
            Direction::ToRemote => &self.to_remote,
            Direction::ToLocal => &self.to_local,
        };
        mappings.iter().find_map(|mapping| {
            let rest = mapping.from.strip(path)?;
            Some(mapping.to.join(rest, mapping.from.style))
        })
    }

    /// `translate`, giving the path itself when no mapping holds it.
    pub fn translated(&self, direction: Direction, path: &str) -> String {
        self.translate(direction, path)
            .unwrap_or_else(|| path.to_string())
    }
}
