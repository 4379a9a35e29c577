//! The capabilities the engine advertises in its `initialize` response.
//!
//! This is the one place to extend when a feature works end to end (engine and
//! debuggee); advertising anything that does not would make clients send requests
//! that fail. To advertise a feature, move its line from `NOT_YET` to `ADVERTISED`
//! (and, for exception breakpoints, fill `EXCEPTION_FILTERS`); the transcript
//! `initialize_capabilities.txt` shows the result and must be re-blessed.

use serde_json::{json, Map, Value};

/// Boolean capabilities that work end to end today.
const ADVERTISED: &[&str] = &[
    "supportsConfigurationDoneRequest",
    "supportsTerminateRequest",
    "supportsConditionalBreakpoints",
    "supportsHitConditionalBreakpoints",
    "supportsLogPoints",
    "supportsFunctionBreakpoints",
    "supportsExceptionInfoRequest",
    "supportsExceptionFilterOptions",
    "supportsBreakpointLocationsRequest",
    "supportsStepInTargetsRequest",
    "supportsGotoTargetsRequest",
];

/// Issue 3's capabilities, waiting for the lead's confirmation that each works end to
/// end with the debuggee. Kept here so the whole set is one edit away; unused until then.
#[allow(dead_code)]
const NOT_YET: &[&str] = &[
    "supportsEvaluateForHovers",
    "supportsSetVariable",
    "supportsSetExpression",
    "supportsCompletionsRequest",
    "supportsClipboardContext",
    "supportsValueFormattingOptions",
    "supportsDelayedStackTraceLoading",
    "supportsLoadedSourcesRequest",
    "supportsModulesRequest",
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
    Value::Object(body)
}
