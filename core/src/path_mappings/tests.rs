use super::*;
use crate::dap::raw::LazyJson;
use serde_json::json;

fn mappings(pairs: &[(&str, &str)]) -> PathMappings {
    let entries: Vec<Value> = pairs
        .iter()
        .map(|(local, remote)| json!({"localRoot": local, "remoteRoot": remote}))
        .collect();
    let configuration = json!({ "pathMappings": entries });
    PathMappings::from_configuration(configuration.as_object().unwrap(), "attach").unwrap()
}

/// (mappings, local path, remote path): each row is checked both ways, unless the
/// row's direction says it only holds one way (`None` for both).
type Row = (
    &'static [(&'static str, &'static str)],
    &'static str,
    &'static str,
    Option<Direction>,
);

const CONTAINER: &[(&str, &str)] = &[("/home/me/proj", "/app")];
/// Several mappings; the longer local root (and remote root) must win.
const NESTED: &[(&str, &str)] = &[
    ("/home/me/proj", "/app"),
    (
        "/home/me/proj/vendor/lib",
        "/usr/lib/python3/site-packages/lib",
    ),
];
const TRAILING: &[(&str, &str)] = &[("/home/me/proj/", "/app///")];
const WINDOWS_TO_POSIX: &[(&str, &str)] = &[("C:\\Users\\me\\proj\\", "/app")];
const WINDOWS_FORWARD_SLASHES: &[(&str, &str)] = &[("c:/Users/me/proj", "/app")];
const POSIX_TO_WINDOWS: &[(&str, &str)] = &[("/home/me/proj", "D:\\srv\\proj")];
const ROOTS: &[(&str, &str)] = &[("/", "/mnt/host")];
const DRIVE_ROOT: &[(&str, &str)] = &[("C:\\", "/c")];
const UNC: &[(&str, &str)] = &[("\\\\server\\share\\proj", "/app")];

const ROWS: &[Row] = &[
    (CONTAINER, "/home/me/proj/main.py", "/app/main.py", None),
    (
        CONTAINER,
        "/home/me/proj/pkg/mod.py",
        "/app/pkg/mod.py",
        None,
    ),
    (CONTAINER, "/home/me/proj", "/app", None),
    // Whole components only, and paths outside every root pass unchanged.
    (
        CONTAINER,
        "/home/me/project/x.py",
        "/home/me/project/x.py",
        None,
    ),
    (
        CONTAINER,
        "/usr/lib/python3.12/os.py",
        "/usr/lib/python3.12/os.py",
        None,
    ),
    (CONTAINER, "/apple/x.py", "/apple/x.py", None),
    (CONTAINER, "<string>", "<string>", None),
    (CONTAINER, "", "", None),
    (CONTAINER, "relative/x.py", "relative/x.py", None),
    // POSIX roots are case-sensitive.
    (CONTAINER, "/HOME/me/proj/x.py", "/HOME/me/proj/x.py", None),
    (NESTED, "/home/me/proj/a.py", "/app/a.py", None),
    (
        NESTED,
        "/home/me/proj/vendor/lib/b.py",
        "/usr/lib/python3/site-packages/lib/b.py",
        None,
    ),
    (
        NESTED,
        "/home/me/proj/vendor/c.py",
        "/app/vendor/c.py",
        None,
    ),
    (TRAILING, "/home/me/proj/x.py", "/app/x.py", None),
    (TRAILING, "/home/me/proj", "/app", None),
    (
        WINDOWS_TO_POSIX,
        "C:\\Users\\me\\proj\\pkg\\m.py",
        "/app/pkg/m.py",
        None,
    ),
    (WINDOWS_TO_POSIX, "C:\\Users\\me\\proj", "/app", None),
    // The drive letter (and the rest of a Windows root) in any case, either
    // separator; the mapped part keeps the root's own spelling.
    (
        WINDOWS_TO_POSIX,
        "c:\\users\\ME\\proj\\m.py",
        "/app/m.py",
        Some(Direction::ToRemote),
    ),
    (
        WINDOWS_TO_POSIX,
        "c:/Users/me/proj/pkg/m.py",
        "/app/pkg/m.py",
        Some(Direction::ToRemote),
    ),
    (
        WINDOWS_TO_POSIX,
        "C:\\Users\\me\\project\\m.py",
        "C:\\Users\\me\\project\\m.py",
        None,
    ),
    (
        WINDOWS_FORWARD_SLASHES,
        "C:\\Users\\me\\proj\\pkg\\m.py",
        "/app/pkg/m.py",
        Some(Direction::ToRemote),
    ),
    (
        WINDOWS_FORWARD_SLASHES,
        "c:/Users/me/proj/pkg/m.py",
        "/app/pkg/m.py",
        None,
    ),
    (
        POSIX_TO_WINDOWS,
        "/home/me/proj/pkg/m.py",
        "D:\\srv\\proj\\pkg\\m.py",
        None,
    ),
    (
        POSIX_TO_WINDOWS,
        "/home/me/proj/pkg/m.py",
        "d:/SRV/proj/pkg/m.py",
        Some(Direction::ToLocal),
    ),
    (ROOTS, "/x.py", "/mnt/host/x.py", None),
    (ROOTS, "/", "/mnt/host", None),
    (DRIVE_ROOT, "C:\\x\\y.py", "/c/x/y.py", None),
    (DRIVE_ROOT, "C:\\", "/c", None),
    (UNC, "\\\\server\\share\\proj\\m.py", "/app/m.py", None),
];

#[test]
fn maps_paths_both_ways_by_the_longest_root() {
    for (pairs, local, remote, only) in ROWS {
        let mappings = mappings(pairs);
        if *only != Some(Direction::ToLocal) {
            assert_eq!(
                mappings.translated(Direction::ToRemote, local),
                *remote,
                "{pairs:?}: {local} to the remote side"
            );
        }
        if *only != Some(Direction::ToRemote) {
            assert_eq!(
                mappings.translated(Direction::ToLocal, remote),
                *local,
                "{pairs:?}: {remote} to the local side"
            );
        }
    }
}

#[test]
fn of_equally_long_roots_the_first_written_wins() {
    let mappings = mappings(&[("/a", "/one"), ("/b", "/one"), ("/c", "/two")]);
    assert_eq!(mappings.translated(Direction::ToLocal, "/one/x"), "/a/x");
    assert_eq!(mappings.translated(Direction::ToLocal, "/two/x"), "/c/x");
}

#[test]
fn validates_with_one_error_per_mistake() {
    let cases: Vec<(Value, Result<bool, &str>)> = vec![
        (json!({}), Ok(true)),
        (json!({"pathMappings": null}), Ok(true)),
        (json!({"pathMappings": []}), Ok(true)),
        (
            json!({"pathMappings": [{"localRoot": "/a", "remoteRoot": "/b", "extra": 1}]}),
            Ok(false),
        ),
        (
            json!({"pathMappings": {"localRoot": "/a", "remoteRoot": "/b"}}),
            Err("The attach configuration's 'pathMappings' must be a list like [{\"localRoot\": \"${workspaceFolder}\", \"remoteRoot\": \"/app\"}]."),
        ),
        (
            json!({"pathMappings": ["/a:/b"]}),
            Err("The attach configuration's 'pathMappings[0]' must be an object like {\"localRoot\": \"${workspaceFolder}\", \"remoteRoot\": \"/app\"}."),
        ),
        (
            json!({"pathMappings": [{"localRoot": "/a", "remoteRoot": "/b"}, {"remoteRoot": "/b"}]}),
            Err("The attach configuration's 'pathMappings[1].localRoot' must be a non-empty string: the folder on this machine."),
        ),
        (
            json!({"pathMappings": [{"localRoot": "/a", "remoteRoot": " "}]}),
            Err("The attach configuration's 'pathMappings[0].remoteRoot' must be a non-empty string: the folder on the machine the program runs on."),
        ),
        (
            json!({"pathMappings": [{"localRoot": "/a", "remoteRoot": 3}]}),
            Err("The attach configuration's 'pathMappings[0].remoteRoot' must be a non-empty string: the folder on the machine the program runs on."),
        ),
    ];
    for (configuration, expected) in cases {
        let result = PathMappings::from_configuration(configuration.as_object().unwrap(), "attach");
        match (result, expected) {
            (Ok(mappings), Ok(empty)) => assert_eq!(mappings.is_empty(), empty, "{configuration}"),
            (Err(error), Err(message)) => {
                assert_eq!(error.message, message, "{configuration}");
                assert_eq!(error.id, codes::INVALID_CONFIGURATION);
            }
            (result, expected) => panic!("{configuration}: got {result:?}, expected {expected:?}"),
        }
    }
}

/// (kind, name, part as the sender wrote it, part as the receiver must get it, or
/// `None` when it passes unchanged).
type MessageRow = (&'static str, &'static str, Value, Option<Value>);

#[test]
fn rewrites_the_messages_that_carry_paths() {
    let mappings = mappings(NESTED);
    let rows: Vec<MessageRow> = vec![
        (
            "request",
            "setBreakpoints",
            json!({"source": {"name": "a.py", "path": "/home/me/proj/a.py"}, "breakpoints": [{"line": 3}]}),
            Some(
                json!({"source": {"name": "a.py", "path": "/app/a.py"}, "breakpoints": [{"line": 3}]}),
            ),
        ),
        (
            "request",
            "breakpointLocations",
            json!({"source": {"path": "/home/me/proj/vendor/lib/b.py"}, "line": 1}),
            Some(json!({"source": {"path": "/usr/lib/python3/site-packages/lib/b.py"}, "line": 1})),
        ),
        (
            "request",
            "source",
            json!({"source": {"path": "/home/me/proj/a.py", "sourceReference": 0}, "sourceReference": 0}),
            Some(
                json!({"source": {"path": "/app/a.py", "sourceReference": 0}, "sourceReference": 0}),
            ),
        ),
        (
            "request",
            "gotoTargets",
            json!({"source": {"path": "/home/me/proj/a.py"}, "line": 9}),
            Some(json!({"source": {"path": "/app/a.py"}, "line": 9})),
        ),
        (
            "request",
            "dapper/hotReload",
            json!({"source": {"path": "/home/me/proj/a.py"}}),
            Some(json!({"source": {"path": "/app/a.py"}})),
        ),
        (
            "request",
            "setBreakpoints",
            json!({"source": {"path": "/elsewhere/a.py"}, "breakpoints": []}),
            None,
        ),
        ("request", "setBreakpoints", json!(null), None),
        (
            "request",
            "setBreakpoints",
            json!({"source": {"path": 7}}),
            None,
        ),
        (
            "request",
            "evaluate",
            json!({"expression": "x", "frameId": 1}),
            None,
        ),
        (
            "request",
            "threads",
            json!({"source": {"path": "/home/me/proj/a.py"}}),
            None,
        ),
        (
            "response",
            "setBreakpoints",
            json!({"breakpoints": [
                {"id": 1, "verified": true, "line": 3, "source": {"path": "/app/a.py"}},
                {"id": 2, "verified": false, "message": "no code"}]}),
            Some(json!({"breakpoints": [
                {"id": 1, "verified": true, "line": 3, "source": {"path": "/home/me/proj/a.py"}},
                {"id": 2, "verified": false, "message": "no code"}]})),
        ),
        (
            "response",
            "dapper/tasks",
            json!({"loops": [{"threadId": 1, "threadName": "MainThread", "tasks": [
                {"id": 2, "name": "main", "location": {"name": "main", "line": 4, "source": {"path": "/app/a.py"}}},
                {"id": 3, "name": "idle"}]}]}),
            Some(
                json!({"loops": [{"threadId": 1, "threadName": "MainThread", "tasks": [
                {"id": 2, "name": "main", "location": {"name": "main", "line": 4, "source": {"path": "/home/me/proj/a.py"}}},
                {"id": 3, "name": "idle"}]}]}),
            ),
        ),
        (
            "response",
            "setFunctionBreakpoints",
            json!({"breakpoints": [{"id": 1, "verified": true, "source": {"path": "/app/a.py"}}]}),
            Some(
                json!({"breakpoints": [{"id": 1, "verified": true, "source": {"path": "/home/me/proj/a.py"}}]}),
            ),
        ),
        (
            "response",
            "stackTrace",
            json!({"stackFrames": [
                {"id": 1, "name": "f", "line": 2, "column": 1, "source": {"name": "a.py", "path": "/app/a.py"}},
                {"id": 2, "name": "g", "line": 2, "column": 1, "source": {"name": "os.py", "path": "/usr/lib/os.py"}},
                {"id": 3, "name": "<module>", "line": 1, "column": 1}], "totalFrames": 3}),
            Some(json!({"stackFrames": [
                {"id": 1, "name": "f", "line": 2, "column": 1, "source": {"name": "a.py", "path": "/home/me/proj/a.py"}},
                {"id": 2, "name": "g", "line": 2, "column": 1, "source": {"name": "os.py", "path": "/usr/lib/os.py"}},
                {"id": 3, "name": "<module>", "line": 1, "column": 1}], "totalFrames": 3})),
        ),
        (
            "response",
            "loadedSources",
            json!({"sources": [{"path": "/app/a.py", "sources": [{"path": "/app/b.py"}]}, {"path": "/usr/lib/os.py"}]}),
            Some(
                json!({"sources": [{"path": "/home/me/proj/a.py", "sources": [{"path": "/home/me/proj/b.py"}]}, {"path": "/usr/lib/os.py"}]}),
            ),
        ),
        (
            "response",
            "scopes",
            json!({"scopes": [{"name": "Locals", "source": {"path": "/app/a.py"}}]}),
            Some(json!({"scopes": [{"name": "Locals", "source": {"path": "/home/me/proj/a.py"}}]})),
        ),
        (
            "response",
            "modules",
            json!({"modules": [{"id": 1, "name": "a", "path": "/app/a.py"}, {"id": 2, "name": "sys"}]}),
            Some(
                json!({"modules": [{"id": 1, "name": "a", "path": "/home/me/proj/a.py"}, {"id": 2, "name": "sys"}]}),
            ),
        ),
        (
            "response",
            "exceptionInfo",
            json!({"exceptionId": "ValueError", "details": {
                "stackTrace": "Traceback (most recent call last):\n  File \"/app/a.py\", line 3, in <module>\n    f()\n  File \"/usr/lib/x.py\", line 1, in f\nValueError: File \"/app/q\"\n",
                "innerException": [{"stackTrace": "  File \"/app/vendor/c.py\", line 9"}]}}),
            Some(json!({"exceptionId": "ValueError", "details": {
                "stackTrace": "Traceback (most recent call last):\n  File \"/home/me/proj/a.py\", line 3, in <module>\n    f()\n  File \"/usr/lib/x.py\", line 1, in f\nValueError: File \"/home/me/proj/q\"\n",
                "innerException": [{"stackTrace": "  File \"/home/me/proj/vendor/c.py\", line 9"}]}})),
        ),
        (
            "response",
            "dapper/hotReload",
            json!({"path": "/app/a.py", "reloadedModule": "a"}),
            Some(json!({"path": "/home/me/proj/a.py", "reloadedModule": "a"})),
        ),
        (
            "response",
            "variables",
            json!({"variables": [{"name": "p", "value": "'/app/a.py'", "variablesReference": 0}]}),
            None,
        ),
        (
            "event",
            "output",
            json!({"category": "stdout", "output": "hi\n", "source": {"path": "/app/a.py"}, "line": 4}),
            Some(
                json!({"category": "stdout", "output": "hi\n", "source": {"path": "/home/me/proj/a.py"}, "line": 4}),
            ),
        ),
        (
            "event",
            "output",
            json!({"category": "stdout", "output": "/app/a.py\n"}),
            None,
        ),
        (
            "event",
            "breakpoint",
            json!({"reason": "changed", "breakpoint": {"id": 1, "verified": true, "source": {"path": "/usr/lib/python3/site-packages/lib/b.py"}}}),
            Some(
                json!({"reason": "changed", "breakpoint": {"id": 1, "verified": true, "source": {"path": "/home/me/proj/vendor/lib/b.py"}}}),
            ),
        ),
        (
            "event",
            "loadedSource",
            json!({"reason": "new", "source": {"name": "a.py", "path": "/app/a.py"}}),
            Some(
                json!({"reason": "new", "source": {"name": "a.py", "path": "/home/me/proj/a.py"}}),
            ),
        ),
        (
            "event",
            "module",
            json!({"reason": "new", "module": {"id": 1, "name": "a", "path": "/app/a.py"}}),
            Some(
                json!({"reason": "new", "module": {"id": 1, "name": "a", "path": "/home/me/proj/a.py"}}),
            ),
        ),
        (
            "event",
            "dapper/hotReloadResult",
            json!({"path": "/app/a.py"}),
            Some(json!({"path": "/home/me/proj/a.py"})),
        ),
        (
            "event",
            "stopped",
            json!({"reason": "breakpoint", "threadId": 1}),
            None,
        ),
    ];
    let none = PathMappings::default();
    for (kind, name, part, expected) in rows {
        let lazy = LazyJson::from_value(part.clone());
        let rewrite = |mappings: &PathMappings| match kind {
            "request" => mappings.request_arguments(name, &lazy),
            "response" => mappings.response_body(name, &lazy),
            _ => mappings.event_body(name, &lazy),
        };
        assert_eq!(rewrite(&mappings), expected, "{kind} {name}: {part}");
        assert_eq!(rewrite(&none), None, "{kind} {name} without mappings");
    }
}
