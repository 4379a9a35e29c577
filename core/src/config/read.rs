//! Reading the keys of a configuration's JSON, with errors that name the key and
//! the request (`launch` or `attach`) that carried it.

use super::schema;
use crate::dap::error::{codes, DapError};
use serde_json::{Map, Value};

/// Puts every boolean key of the schema into `normalised`: the configuration's value when
/// it is a boolean, the default when it is absent; any other value is an error naming the
/// key and which request (`launch` or `attach`) carried it.
pub(super) fn fill_boolean_defaults(
    arguments: &Map<String, Value>,
    normalised: &mut Map<String, Value>,
    request: &str,
    keys: &'static [schema::Key],
) -> Result<(), DapError> {
    for (key, default) in schema::boolean_defaults_of(keys) {
        let value = match get(arguments, key) {
            None => default,
            Some(Value::Bool(value)) => *value,
            Some(_) => {
                return Err(invalid(format!(
                    "The {request} configuration's '{key}' must be true or false."
                )))
            }
        };
        normalised.insert(key.to_string(), Value::Bool(value));
    }
    Ok(())
}

pub(super) fn invalid(message: String) -> DapError {
    DapError::user(codes::INVALID_CONFIGURATION, message)
}

/// Reads an optional key; JSON `null` counts as absent, as VS Code writes it for
/// unset variables.
pub(super) fn get<'a>(arguments: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    arguments.get(key).filter(|value| !value.is_null())
}

/// Reads an optional string key of the `request` (launch or attach) configuration.
pub(super) fn optional_string_of(
    arguments: &Map<String, Value>,
    key: &str,
    request: &str,
) -> Result<Option<String>, DapError> {
    match get(arguments, key) {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(invalid(format!(
            "The {request} configuration's '{key}' must be a string."
        ))),
    }
}
