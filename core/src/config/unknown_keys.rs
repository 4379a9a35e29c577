//! Keys of a user's configuration that Dapper does not read. They are kept and passed on
//! (another tool may use them), so they never refuse a launch; but a misspelt option
//! would otherwise be ignored without a word, so the session names each one in the
//! debug console, with the known key it most likely meant.

use super::schema::Key;
use crate::path_mappings;
use serde_json::Value;

/// Keys that clients put into every configuration for themselves (VS Code's task and
/// console settings, the names that pick the adapter), which Dapper rightly ignores.
const CLIENT_KEYS: &[&str] = &[
    "name",
    "type",
    "request",
    "noDebug",
    "preLaunchTask",
    "postDebugTask",
    "internalConsoleOptions",
    "debugServer",
    "presentation",
    "suppressMultipleSessionWarning",
    "serverReadyAction",
    // The Python extension's: which of its commands a configuration is for (Debug Test).
    "purpose",
];

/// One key the configuration has and Dapper does not read, with the known key whose
/// name is nearest, when one is near enough to be a likely misspelling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownKey {
    pub key: String,
    pub nearest: Option<&'static str>,
}

/// The keys of `arguments` that neither `keys` nor a client's own keys name, in
/// alphabetical order. Keys that start with `__` are private to a client or to the
/// engine (VS Code's `__sessionId`, the engine's child-session key) and never listed.
pub fn unknown_keys(arguments: &Value, keys: &[Key]) -> Vec<UnknownKey> {
    let Value::Object(arguments) = arguments else {
        return Vec::new();
    };
    let known: Vec<&'static str> = keys
        .iter()
        .map(|key| key.name)
        .chain([path_mappings::KEY])
        .collect();
    arguments
        .keys()
        .filter(|key| !key.starts_with("__"))
        .filter(|key| !known.contains(&key.as_str()) && !CLIENT_KEYS.contains(&key.as_str()))
        .map(|key| UnknownKey {
            key: key.clone(),
            nearest: nearest(key, &known),
        })
        .collect()
}

/// The debug console's note about the unknown keys of a `request` (launch or attach)
/// configuration, one line a key; `None` when every key is known.
pub fn unknown_keys_notice(arguments: &Value, request: &str, keys: &[Key]) -> Option<String> {
    let unknown = unknown_keys(arguments, keys);
    if unknown.is_empty() {
        return None;
    }
    let mut text = String::new();
    for UnknownKey { key, nearest } in unknown {
        let hint = match nearest {
            Some(known) => format!(" (did you mean '{known}'?)"),
            None => String::new(),
        };
        text.push_str(&format!(
            "Dapper does not know the {request} configuration's key '{key}'{hint}; it is passed on untouched.\n"
        ));
    }
    Some(text)
}

/// The known key nearest to `key` by edit distance, ignoring case, if it is close enough
/// to be a slip of the keyboard: at most a third of the key's length, and at least one.
fn nearest(key: &str, known: &[&'static str]) -> Option<&'static str> {
    let wanted = key.to_lowercase();
    let limit = (wanted.chars().count() / 3).max(1);
    known
        .iter()
        .map(|name| (edit_distance(&wanted, &name.to_lowercase()), *name))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

/// Levenshtein distance, with a transposition of two neighbours counted as one edit.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows: two back (for transpositions), one back, and the current one.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut current = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let substitution = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + substitution);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            current[j] = best;
        }
        before = std::mem::replace(&mut previous, current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::{unknown_keys, UnknownKey};
    use crate::config::schema::{ATTACH_KEYS, LAUNCH_KEYS};
    use serde_json::json;

    fn unknown(key: &str, nearest: Option<&'static str>) -> UnknownKey {
        UnknownKey {
            key: key.to_string(),
            nearest,
        }
    }

    #[test]
    fn unknown_keys_are_named_with_the_nearest_known_one() {
        let cases = [
            (
                json!({"program": "a.py", "stopOnEntri": true}),
                LAUNCH_KEYS,
                vec![unknown("stopOnEntri", Some("stopOnEntry"))],
            ),
            (
                json!({"program": "a.py", "justMyCdoe": false}),
                LAUNCH_KEYS,
                vec![unknown("justMyCdoe", Some("justMyCode"))],
            ),
            (
                json!({"program": "a.py", "ENV": {}}),
                LAUNCH_KEYS,
                vec![unknown("ENV", Some("env"))],
            ),
            // Debug Test reads it from a dapper configuration (docs/debugpy.md).
            (
                json!({"program": "a.py", "purpose": ["debug-test"]}),
                LAUNCH_KEYS,
                vec![],
            ),
            (
                json!({"program": "a.py", "flavour": "mild"}),
                LAUNCH_KEYS,
                vec![unknown("flavour", None)],
            ),
            (
                json!({"module": "m", "pathMapping": []}),
                LAUNCH_KEYS,
                vec![unknown("pathMapping", Some("pathMappings"))],
            ),
            (
                json!({"connect": {"port": 1}, "pathMappings": [], "stopOnEntry": true}),
                ATTACH_KEYS,
                vec![unknown("stopOnEntry", None)],
            ),
            (
                json!({"connect": {"port": 1}, "procesId": 7}),
                ATTACH_KEYS,
                vec![unknown("procesId", Some("processId"))],
            ),
            // Every key known, a client's own, or private: nothing to say.
            (
                json!({"name": "n", "type": "dapper", "request": "launch", "program": "a.py", "preLaunchTask": "build", "__sessionId": "x", "pathMappings": []}),
                LAUNCH_KEYS,
                vec![],
            ),
            (json!(null), LAUNCH_KEYS, vec![]),
        ];
        for (arguments, keys, expected) in cases {
            assert_eq!(unknown_keys(&arguments, keys), expected, "{arguments}");
        }
    }

    #[test]
    fn the_notice_names_each_key_on_its_own_line() {
        let arguments = json!({"program": "a.py", "stopOnEntri": true, "flavour": []});
        assert_eq!(
            super::unknown_keys_notice(&arguments, "launch", LAUNCH_KEYS).as_deref(),
            Some(
                "Dapper does not know the launch configuration's key 'flavour'; it is passed on untouched.\n\
                 Dapper does not know the launch configuration's key 'stopOnEntri' (did you mean 'stopOnEntry'?); it is passed on untouched.\n"
            )
        );
        assert_eq!(
            super::unknown_keys_notice(&json!({"program": "a.py"}), "launch", LAUNCH_KEYS),
            None
        );
    }
}
