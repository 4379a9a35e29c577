//! `rules`: the user's own word on which code is theirs under `justMyCode`, as debugpy
//! has it. Each rule names files by a `path` glob or a `module` name and says whether
//! they are `include`d (debugged as the user's) or not; the debuggee applies the first
//! that matches before its library folders (extension/python/dapperdbg/common/
//! library_code.py). Here the shape is checked, so that a mistake is named at launch
//! and not ignored in the program.

use super::read::{get, invalid};
use crate::dap::error::DapError;
use serde_json::{Map, Value};

/// Checks the `rules` of a `request` (launch or attach) configuration.
pub(super) fn check(arguments: &Map<String, Value>, request: &str) -> Result<(), DapError> {
    let Some(rules) = get(arguments, "rules") else {
        return Ok(());
    };
    let Value::Array(rules) = rules else {
        return Err(invalid(format!(
            "The {request} configuration's 'rules' must be a list of {{\"path\": GLOB or \"module\": NAME, \"include\": true or false}}."
        )));
    };
    for (index, rule) in rules.iter().enumerate() {
        let wrong = |what: &str| {
            invalid(format!(
                "The {request} configuration's 'rules[{index}]' {what}; a rule is {{\"path\": GLOB, \"include\": BOOL}} or {{\"module\": NAME, \"include\": BOOL}}."
            ))
        };
        let Value::Object(rule) = rule else {
            return Err(wrong("is not an object"));
        };
        let named: Vec<&str> = ["path", "module"]
            .into_iter()
            .filter(|key| get(rule, key).is_some())
            .collect();
        match named.as_slice() {
            [key] => match get(rule, key) {
                Some(Value::String(text)) if !text.trim().is_empty() => {}
                _ => {
                    return Err(wrong(&format!(
                        "has a '{key}' that is not a non-empty string"
                    )))
                }
            },
            [] => return Err(wrong("names neither 'path' nor 'module'")),
            _ => return Err(wrong("names both 'path' and 'module'")),
        }
        if !matches!(get(rule, "include"), Some(Value::Bool(_))) {
            return Err(wrong("needs 'include': true or false"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rules_are_checked_with_the_index_at_fault() {
        let cases = [
            (json!({}), None),
            (json!({"rules": []}), None),
            (
                json!({"rules": [{"path": "/a/**", "include": false}, {"module": "m", "include": true}]}),
                None,
            ),
            (
                json!({"rules": {}}),
                Some("The launch configuration's 'rules' must be a list"),
            ),
            (json!({"rules": [3]}), Some("'rules[0]' is not an object")),
            (
                json!({"rules": [{"include": true}]}),
                Some("'rules[0]' names neither 'path' nor 'module'"),
            ),
            (
                json!({"rules": [{"path": "a", "module": "m", "include": true}]}),
                Some("'rules[0]' names both"),
            ),
            (
                json!({"rules": [{"path": "a", "include": true}, {"module": "", "include": true}]}),
                Some("'rules[1]' has a 'module' that is not a non-empty string"),
            ),
            (
                json!({"rules": [{"path": "a"}]}),
                Some("'rules[0]' needs 'include': true or false"),
            ),
        ];
        for (arguments, expected) in cases {
            let result = check(arguments.as_object().unwrap(), "launch");
            match (result, expected) {
                (Ok(()), None) => {}
                (Err(error), Some(part)) => assert!(
                    error.message.contains(part),
                    "{arguments}: {}",
                    error.message
                ),
                (result, expected) => panic!("{arguments}: {result:?}, expected {expected:?}"),
            }
        }
    }
}
