//! What a child process runs on while its client's session for it starts: its
//! parent session's configuration and last breakpoints.
//!
//! A child's own session comes from its client: `startDebugging`, a new connection,
//! `initialize`, `attach`, then the configuration's requests. A child that waited for
//! all of that before its first line would wait for the client's round trips on every
//! start (VS Code's go through its extension host). Clients give every session the
//! same breakpoints, so the ones its parent was last given are the child's too: when the
//! engine asks the client for the child's session, it sends the child one
//! `dapper/inherit` (its configuration as `dapper/configure` would say it, and its
//! parent's breakpoint requests as they were forwarded), and the child runs on it. The
//! client's own configuration is the authority once it comes: the debuggee applies
//! what differs and drops what the client did not send again, and holds the events it
//! has for the client until then (docs/ipc.md). The engine sends it only for a client
//! seen to give a child its parent's breakpoints: in the child's own tree, or, before
//! that tree's first child is configured, in an earlier tree of a client of the same
//! kind (`ClientKind`).

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The sources with breakpoints a session remembers for its children. Past it, its
/// children wait for their client's configuration, as they would without it.
pub const MOST_SOURCES: usize = 4096;

/// The last breakpoint requests a session forwarded to its debuggee: `setBreakpoints`
/// by source path (sources without breakpoints left out), and the last
/// `setFunctionBreakpoints` and `setExceptionBreakpoints`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LastBreakpoints {
    sources: BTreeMap<String, Value>,
    functions: Option<Value>,
    exceptions: Option<Value>,
    /// More sources than `MOST_SOURCES` came: the record is no longer whole.
    overflowed: bool,
}

impl LastBreakpoints {
    /// Notes a request forwarded to the debuggee with these (path-mapped) arguments;
    /// any other request is no breakpoint request and is not kept.
    pub fn record(&mut self, command: &str, arguments: &Value) {
        match command {
            "setBreakpoints" => self.record_source(arguments),
            "setFunctionBreakpoints" => self.functions = Some(arguments.clone()),
            "setExceptionBreakpoints" => self.exceptions = Some(arguments.clone()),
            _ => {}
        }
    }

    fn record_source(&mut self, arguments: &Value) {
        // A source the client names by reference exists only in this session.
        let Some(path) = arguments
            .pointer("/source/path")
            .and_then(Value::as_str)
            .filter(|path| !path.is_empty())
        else {
            return;
        };
        let listed = |key: &str| {
            arguments
                .get(key)
                .and_then(Value::as_array)
                .is_some_and(|items| !items.is_empty())
        };
        if !listed("breakpoints") && !listed("lines") {
            self.sources.remove(path);
        } else if self.sources.contains_key(path) || self.sources.len() < MOST_SOURCES {
            self.sources.insert(path.to_string(), arguments.clone());
        } else {
            self.overflowed = true;
        }
    }

    /// The requests that give a child these breakpoints, in the order a client
    /// configures a session; `None` once the record is not whole.
    fn requests(&self) -> Option<Vec<Value>> {
        if self.overflowed {
            return None;
        }
        let sources = self
            .sources
            .values()
            .map(|arguments| request("setBreakpoints", arguments.clone()));
        let functions = self
            .functions
            .iter()
            .map(|arguments| request("setFunctionBreakpoints", arguments.clone()));
        let exceptions = self
            .exceptions
            .iter()
            .map(|arguments| request("setExceptionBreakpoints", arguments.clone()));
        Some(sources.chain(functions).chain(exceptions).collect())
    }
}

fn request(command: &str, arguments: Value) -> Value {
    json!({ "command": command, "arguments": arguments })
}

/// What kind of client a tree's root session has: the `clientID` its `initialize` said
/// and the adapter type the session was started as. Clients of one kind treat their
/// sessions' breakpoints alike (a client that keeps one set for every session does so
/// in every tree), so what one tree showed of its client holds for the next tree of a
/// client of the same kind (router/child_table.rs).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ClientKind {
    client_id: String,
    adapter_type: String,
}

impl ClientKind {
    /// The longest `clientID` remembered: a longer one is no client's name.
    pub const LONGEST_ID: usize = 128;

    /// The kind of a client that said `initialize_arguments`; `None` for one that gave
    /// no `clientID` (or an empty or overlong one), which is not told apart from others.
    pub fn of(initialize_arguments: Option<&Value>, adapter_type: &str) -> Option<ClientKind> {
        let client_id = initialize_arguments?.get("clientID")?.as_str()?;
        if client_id.is_empty() || client_id.len() > Self::LONGEST_ID {
            return None;
        }
        Some(ClientKind {
            client_id: client_id.to_string(),
            adapter_type: adapter_type.to_string(),
        })
    }
}

/// What a child is sent to run on: the arguments of `dapper/inherit`, and the
/// breakpoints in them, which its session starts from (its own children inherit them
/// if they start before its client has configured it).
pub struct Inheritance {
    pub arguments: Value,
    pub breakpoints: LastBreakpoints,
}

/// The arguments of `dapper/inherit` for a child: `dapper/configure`'s own arguments
/// (`configure`, as its session would send them, with the parent's client's
/// `initialize`), then the parent's breakpoint requests. `None` when the parent's
/// record is not whole: the child then waits for its client.
pub fn inherit_arguments(configure: Map<String, Value>, last: &LastBreakpoints) -> Option<Value> {
    let mut requests = vec![request("dapper/configure", Value::Object(configure))];
    requests.extend(last.requests()?);
    Some(json!({ "requests": requests }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(path: &str, lines: &[u64]) -> Value {
        let breakpoints: Vec<Value> = lines.iter().map(|line| json!({"line": line})).collect();
        json!({"source": {"path": path}, "breakpoints": breakpoints})
    }

    fn commands(arguments: &Value) -> Vec<String> {
        arguments["requests"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|request| request["command"].as_str().unwrap_or("").to_string())
            .collect()
    }

    #[test]
    fn a_client_kind_needs_a_client_id_of_a_sensible_length() {
        let said = |id: Value| json!({"clientID": id, "adapterID": "dapper"});
        let vscode = ClientKind::of(Some(&said(json!("vscode"))), "dapper");
        assert!(vscode.is_some());
        assert_eq!(
            vscode,
            ClientKind::of(Some(&said(json!("vscode"))), "dapper")
        );
        assert_ne!(
            vscode,
            ClientKind::of(Some(&said(json!("vscode"))), "debugpy")
        );
        assert_ne!(
            vscode,
            ClientKind::of(Some(&said(json!("neovim"))), "dapper")
        );
        assert_eq!(ClientKind::of(None, "dapper"), None);
        assert_eq!(ClientKind::of(Some(&json!({})), "dapper"), None);
        assert_eq!(ClientKind::of(Some(&said(json!(""))), "dapper"), None);
        assert_eq!(ClientKind::of(Some(&said(json!(7))), "dapper"), None);
        let long = "x".repeat(ClientKind::LONGEST_ID + 1);
        assert_eq!(ClientKind::of(Some(&said(json!(long))), "dapper"), None);
    }

    #[test]
    fn the_last_request_of_each_source_is_kept_and_cleared_sources_are_dropped() {
        let mut last = LastBreakpoints::default();
        last.record("setBreakpoints", &source("/w/a.py", &[3]));
        last.record("setBreakpoints", &source("/w/b.py", &[1]));
        last.record("setBreakpoints", &source("/w/a.py", &[4, 5]));
        last.record("setBreakpoints", &source("/w/b.py", &[]));
        last.record("setExceptionBreakpoints", &json!({"filters": ["uncaught"]}));
        last.record("continue", &json!({"threadId": 1}));
        let arguments = inherit_arguments(Map::new(), &last).expect("a whole record");
        assert_eq!(
            commands(&arguments),
            [
                "dapper/configure",
                "setBreakpoints",
                "setExceptionBreakpoints"
            ]
        );
        assert_eq!(
            arguments["requests"][1]["arguments"],
            source("/w/a.py", &[4, 5])
        );
    }

    #[test]
    fn sources_named_by_reference_are_not_kept() {
        let mut last = LastBreakpoints::default();
        last.record(
            "setBreakpoints",
            &json!({"source": {"sourceReference": 7}, "breakpoints": [{"line": 1}]}),
        );
        last.record("setBreakpoints", &json!("not an object"));
        let arguments = inherit_arguments(Map::new(), &last).expect("a whole record");
        assert_eq!(commands(&arguments), ["dapper/configure"]);
    }

    #[test]
    fn a_record_past_its_bound_gives_children_nothing_to_run_on() {
        let mut last = LastBreakpoints::default();
        for index in 0..MOST_SOURCES {
            last.record("setBreakpoints", &source(&format!("/w/{index}.py"), &[1]));
        }
        // A source already kept may change; a new one is past the bound.
        last.record("setBreakpoints", &source("/w/0.py", &[2]));
        assert!(inherit_arguments(Map::new(), &last).is_some());
        last.record("setBreakpoints", &source("/w/new.py", &[1]));
        assert!(inherit_arguments(Map::new(), &last).is_none());
        assert!(last.sources.len() == MOST_SOURCES);
    }
}
