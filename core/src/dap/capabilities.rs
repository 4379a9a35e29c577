//! The capabilities the engine advertises in its `initialize` response.
//!
//! This is the one place to extend when a feature works end to end (engine and
//! debuggee); advertising anything that does not would make clients send requests
//! that fail. A new feature adds its line to `ADVERTISED` (or its filter to
//! `EXCEPTION_FILTERS`) in the change that makes it work; the transcripts'
//! record of the result, core/tests/transcripts/capabilities.json, must be
//! re-blessed (`BLESS=1`), and no transcript else changes.

use serde_json::{json, Map, Value};

/// Boolean capabilities that work end to end today.
const ADVERTISED: &[&str] = &[
    "supportsConfigurationDoneRequest",
    "supportsTerminateRequest",
    // `disconnect {terminateDebuggee}` on attach too: VS Code then offers Stop beside
    // Disconnect for an attached program (a terminal's program under auto-attach).
    "supportTerminateDebuggee",
    "supportsConditionalBreakpoints",
    "supportsHitConditionalBreakpoints",
    "supportsLogPoints",
    "supportsFunctionBreakpoints",
    "supportsExceptionInfoRequest",
    "supportsExceptionFilterOptions",
    "supportsBreakpointLocationsRequest",
    "supportsStepInTargetsRequest",
    "supportsGotoTargetsRequest",
    "supportsEvaluateForHovers",
    "supportsSetVariable",
    "supportsSetExpression",
    "supportsCompletionsRequest",
    "supportsClipboardContext",
    "supportsValueFormattingOptions",
    "supportsDelayedStackTraceLoading",
    "supportsLoadedSourcesRequest",
    "supportsModulesRequest",
    "supportsRestartFrame",
    // "Break When Value Changes": writes only (docs/data-breakpoints.md).
    "supportsDataBreakpoints",
    // Dapper's own: the `dapper/hotReload` request (docs/hot-reload.md).
    "supportsHotReload",
];

/// Exception breakpoint filters: (filter, label, description, default). Each takes a
/// condition (`supportsExceptionFilterOptions`): exception type names, comma-separated;
/// a type matches its subclasses.
const EXCEPTION_FILTERS: &[(&str, &str, &str, bool)] = &[
    (
        "raised",
        "Raised Exceptions",
        "Stop whenever an exception is raised, even if the code catches it.",
        false,
    ),
    (
        "uncaught",
        "Uncaught Exceptions",
        "Stop when an exception is about to end the program or a thread.",
        true,
    ),
    (
        "userUnhandled",
        "User Uncaught Exceptions",
        "Stop when an exception leaves your code for library code that does not handle it either.",
        false,
    ),
];

const EXCEPTION_CONDITION_DESCRIPTION: &str =
    "Exception types, comma-separated (e.g. ValueError, KeyError)";

pub fn capabilities() -> Value {
    let mut body: Map<String, Value> = ADVERTISED
        .iter()
        .map(|name| (name.to_string(), Value::Bool(true)))
        .collect();
    if !EXCEPTION_FILTERS.is_empty() {
        let filters: Vec<Value> = EXCEPTION_FILTERS
            .iter()
            .map(|(filter, label, description, default)| {
                json!({"filter": filter, "label": label, "description": description,
                       "default": default, "supportsCondition": true,
                       "conditionDescription": EXCEPTION_CONDITION_DESCRIPTION})
            })
            .collect();
        body.insert(
            "exceptionBreakpointFilters".to_string(),
            Value::Array(filters),
        );
    }
    // The debug console asks for completions as the user types a dot.
    body.insert("completionTriggerCharacters".to_string(), json!(["."]));
    Value::Object(body)
}
