//! Which DAP messages carry paths, and where in them: the arguments of a few client
//! requests (to the debuggee's paths), the bodies of a few responses and events (to
//! the client's). A message not in these tables is never parsed for paths.

use super::{Direction, PathMappings};
use crate::dap::raw::LazyJson;
use serde_json::Value;

/// What a route reaches.
#[derive(Clone, Copy, Debug)]
enum Holds {
    /// A DAP `Source`: its `path`, and the `sources` nested in it.
    Source,
    /// A path string.
    Path,
    /// `ExceptionDetails`: the files its `stackTrace` text names (Python's
    /// `File "…", line N` lines) and its `innerException`s.
    ExceptionDetails,
}

/// Where a message part holds paths: the keys to follow from the part (`*` for every
/// item of a list), and what is found there.
type Place = (&'static [&'static str], Holds);

/// Message names (commands or events) and where their part holds paths.
type Table = &'static [(&'static str, &'static [Place])];

const SOURCE: &[Place] = &[(&["source"], Holds::Source)];
const BREAKPOINTS: &[Place] = &[(&["breakpoints", "*", "source"], Holds::Source)];
/// `dapper/hotReload` answers (and its error answers) with the reloaded file's `path`.
const HOT_RELOAD_RESULT: &[Place] = &[(&["path"], Holds::Path)];

/// The arguments of client requests, translated to the debuggee's paths.
const REQUEST_ARGUMENTS: Table = &[
    ("setBreakpoints", SOURCE),
    ("breakpointLocations", SOURCE),
    ("source", SOURCE),
    ("gotoTargets", SOURCE),
    ("evaluate", SOURCE),
    ("dapper/hotReload", SOURCE),
];

/// The bodies of the debuggee's responses (by the request's command), translated to
/// the client's paths.
const RESPONSE_BODIES: Table = &[
    ("setBreakpoints", BREAKPOINTS),
    ("setFunctionBreakpoints", BREAKPOINTS),
    ("setExceptionBreakpoints", BREAKPOINTS),
    ("setDataBreakpoints", BREAKPOINTS),
    ("setInstructionBreakpoints", BREAKPOINTS),
    (
        "stackTrace",
        &[(&["stackFrames", "*", "source"], Holds::Source)],
    ),
    ("scopes", &[(&["scopes", "*", "source"], Holds::Source)]),
    ("loadedSources", &[(&["sources", "*"], Holds::Source)]),
    ("modules", &[(&["modules", "*", "path"], Holds::Path)]),
    ("locations", SOURCE),
    ("exceptionInfo", &[(&["details"], Holds::ExceptionDetails)]),
    ("dapper/hotReload", HOT_RELOAD_RESULT),
    // The asyncio tasks of each event loop, each where it waits (docs/async.md).
    (
        "dapper/tasks",
        &[(
            &["loops", "*", "tasks", "*", "location", "source"],
            Holds::Source,
        )],
    ),
];

/// The bodies of the debuggee's events, translated to the client's paths.
const EVENT_BODIES: Table = &[
    ("output", SOURCE),
    ("breakpoint", &[(&["breakpoint", "source"], Holds::Source)]),
    ("loadedSource", SOURCE),
    ("module", &[(&["module", "path"], Holds::Path)]),
    ("dapper/hotReloadResult", HOT_RELOAD_RESULT),
];

impl PathMappings {
    /// A client request's arguments as the debuggee must see them; `None` when they
    /// stay as they are (no mappings, no path in this command, no path mapped). The
    /// arguments are parsed only for a command that carries paths.
    pub fn request_arguments(&self, command: &str, arguments: &LazyJson) -> Option<Value> {
        self.rewritten(REQUEST_ARGUMENTS, command, arguments, Direction::ToRemote)
    }

    /// The body of the debuggee's response to `command` as the client must see it.
    pub fn response_body(&self, command: &str, body: &LazyJson) -> Option<Value> {
        self.rewritten(RESPONSE_BODIES, command, body, Direction::ToLocal)
    }

    /// The body of a debuggee's event as the client must see it.
    pub fn event_body(&self, event: &str, body: &LazyJson) -> Option<Value> {
        self.rewritten(EVENT_BODIES, event, body, Direction::ToLocal)
    }

    fn rewritten(
        &self,
        table: Table,
        name: &str,
        part: &LazyJson,
        direction: Direction,
    ) -> Option<Value> {
        if self.is_empty() {
            return None;
        }
        let places = places(table, name)?;
        let mut copy = Value::clone(part);
        let mut changed = false;
        for (route, holds) in places {
            changed |= self.rewrite_at(&mut copy, route, *holds, direction);
        }
        changed.then_some(copy)
    }

    /// Follows `route` from `value` and rewrites what it reaches; returns whether
    /// anything changed.
    fn rewrite_at(
        &self,
        value: &mut Value,
        route: &[&str],
        holds: Holds,
        direction: Direction,
    ) -> bool {
        let Some((step, rest)) = route.split_first() else {
            return self.rewrite(value, holds, direction);
        };
        match (*step, value) {
            ("*", Value::Array(items)) => items.iter_mut().fold(false, |changed, item| {
                self.rewrite_at(item, rest, holds, direction) | changed
            }),
            (key, Value::Object(object)) => object
                .get_mut(key)
                .is_some_and(|member| self.rewrite_at(member, rest, holds, direction)),
            _ => false,
        }
    }

    fn rewrite(&self, value: &mut Value, holds: Holds, direction: Direction) -> bool {
        match (holds, value) {
            (Holds::Path, value) => self.rewrite_path(value, direction),
            (Holds::Source, Value::Object(source)) => {
                let mut changed = source
                    .get_mut("path")
                    .is_some_and(|path| self.rewrite_path(path, direction));
                if let Some(Value::Array(nested)) = source.get_mut("sources") {
                    for nested in nested {
                        changed |= self.rewrite(nested, Holds::Source, direction);
                    }
                }
                changed
            }
            (Holds::ExceptionDetails, Value::Object(details)) => {
                let mut changed = false;
                if let Some(Value::String(text)) = details.get_mut("stackTrace") {
                    if let Some(mapped) = self.traceback(text, direction) {
                        *text = mapped;
                        changed = true;
                    }
                }
                if let Some(Value::Array(inner)) = details.get_mut("innerException") {
                    for inner in inner {
                        changed |= self.rewrite(inner, Holds::ExceptionDetails, direction);
                    }
                }
                changed
            }
            _ => false,
        }
    }

    fn rewrite_path(&self, value: &mut Value, direction: Direction) -> bool {
        let Value::String(path) = value else {
            return false;
        };
        match self.translate(direction, path) {
            Some(mapped) => {
                *path = mapped;
                true
            }
            None => false,
        }
    }

    /// A Python traceback with the files of its `File "…"` lines translated; `None`
    /// when none of them is mapped.
    fn traceback(&self, text: &str, direction: Direction) -> Option<String> {
        const OPEN: &str = "File \"";
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        let mut changed = false;
        while let Some(start) = rest.find(OPEN) {
            let after = start + OPEN.len();
            let Some(length) = rest[after..].find(['"', '\n']) else {
                break;
            };
            out.push_str(&rest[..after]);
            let path = &rest[after..after + length];
            match self.translate(direction, path) {
                Some(mapped) => {
                    out.push_str(&mapped);
                    changed = true;
                }
                None => out.push_str(path),
            }
            rest = &rest[after + length..];
        }
        out.push_str(rest);
        changed.then_some(out)
    }
}

fn places(table: Table, name: &str) -> Option<&'static [Place]> {
    table
        .iter()
        .find(|(entry, _)| *entry == name)
        .map(|(_, places)| *places)
}
