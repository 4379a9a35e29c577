//! Tests of launch-configuration validation.
use super::*;
use serde_json::json;

fn check(arguments: Value, expected: Result<Value, &str>) {
    let result = validate(&arguments, Platform::Linux, true);
    match (result, expected) {
        (Ok(config), Ok(expected)) => {
            for (key, value) in expected.as_object().unwrap() {
                assert_eq!(
                    config.normalised.get(key),
                    Some(value),
                    "key {key} of {arguments}"
                );
            }
        }
        (Err(error), Err(expected)) => assert_eq!(error.message, expected, "{arguments}"),
        (result, expected) => panic!("{arguments}: got {result:?}, expected {expected:?}"),
    }
}

#[test]
fn validates_and_normalises() {
    let cases: Vec<(Value, Result<Value, &str>)> = vec![
        (
            json!({"program": "/a.py"}),
            Ok(json!({"program": "/a.py", "args": [], "python": "python3", "console": "integratedTerminal",
                      "justMyCode": true, "stopOnEntry": false})),
        ),
        (json!({"program": "a.py", "cwd": "/w/"}), Ok(json!({"program": "/w/a.py", "cwd": "/w/"}))),
        (json!({"program": "./a.py", "cwd": "/w"}), Ok(json!({"program": "/w/a.py"}))),
        (json!({"module": "m", "args": "x 'y z'"}), Ok(json!({"args": ["x", "y z"]}))),
        (json!({"code": "print(1)", "custom": {"k": 1}}), Ok(json!({"custom": {"k": 1}}))),
        (json!({"program": "/a.py", "console": "internalConsole", "stopOnEntry": null}), Ok(json!({"console": "internalConsole", "stopOnEntry": false}))),
        (json!({}), Err("The launch configuration needs one of 'program', 'module' or 'code'; it has none.")),
        (json!({"program": "/a.py", "module": "m"}), Err("The launch configuration needs exactly one of 'program', 'module' or 'code'; it has 'program' and 'module'.")),
        (json!({"program": "/a.py", "module": "m", "code": "c"}), Err("The launch configuration needs exactly one of 'program', 'module' or 'code'; it has 'program' and 'module' and 'code'.")),
        (json!({"program": ""}), Err("The launch configuration's 'program' is empty.")),
        (json!({"program": 3}), Err("The launch configuration's 'program' must be a string.")),
        (json!({"program": "/a.py", "args": [1]}), Err("The launch configuration's 'args' must be a list of strings or a string.")),
        (json!({"program": "/a.py", "args": "'x"}), Err("The launch configuration's 'args' has an unterminated single quote.")),
        (json!({"program": "/a.py", "cwd": []}), Err("The launch configuration's 'cwd' must be a string.")),
        (json!({"program": "/a.py", "cwd": "w"}), Err("The launch configuration's 'cwd' must be an absolute path; \"w\" is relative.")),
        (json!({"program": "/a.py", "envFile": 1}), Err("The launch configuration's 'envFile' must be a string.")),
        (json!({"program": "/a.py", "envFile": " "}), Err("The launch configuration's 'envFile' is empty.")),
        (json!({"program": "/a.py", "envFile": ".env", "cwd": "/w"}), Ok(json!({"envFile": "/w/.env"}))),
        (json!({"program": "/a.py", "envFile": "/e/.env", "cwd": "/w"}), Ok(json!({"envFile": "/e/.env"}))),
        (json!({"program": "/a.py", "name": 5}), Err("The launch configuration's 'name' must be a string.")),
        (json!({"program": "/a.py", "subprocessAutoAttach": "no"}), Err("The launch configuration's 'subprocessAutoAttach' must be true or false.")),
        (json!({"program": "/a.py"}), Ok(json!({"subprocessAutoAttach": true, "noDebug": false, "redirectOutput": false}))),
        (json!({"program": "/a.py", "env": {"A": 1}}), Err("The launch configuration's 'env' value for 'A' must be a string or null.")),
        (json!({"program": "/a.py", "env": {"A=B": "1"}}), Err("The launch configuration's 'env' has the variable name \"A=B\", which no environment can hold: a name must be non-empty, without '=' or NUL.")),
        (json!({"program": "/a.py", "env": {"": "1"}}), Err("The launch configuration's 'env' has the variable name \"\", which no environment can hold: a name must be non-empty, without '=' or NUL.")),
        (json!({"program": "/a.py", "env": {"A": "x\u{0}y"}}), Err("The launch configuration's 'env' value for 'A' holds a NUL character, which no environment can hold.")),
        (json!({"program": "/a.py", "env": "A=1"}), Err("The launch configuration's 'env' must be an object whose values are strings or null.")),
        (json!({"program": "/a.py", "pythonArgs": "-X"}), Err("The launch configuration's 'pythonArgs' must be a list of strings.")),
        (json!({"program": "/a.py", "console": "tty"}), Err("The launch configuration's 'console' is \"tty\"; it must be one of 'internalConsole', 'integratedTerminal' or 'externalTerminal'.")),
        (json!({"program": "/a.py", "justMyCode": "yes"}), Err("The launch configuration's 'justMyCode' must be true or false.")),
        (json!([1]), Err("The launch arguments must be a JSON object.")),
        (json!({"program": "/a.py", "pathMappings": [{"localRoot": "/a", "remoteRoot": "/b"}]}), Ok(json!({"pathMappings": [{"localRoot": "/a", "remoteRoot": "/b"}]}))),
        (json!({"program": "/a.py", "pathMappings": [{"localRoot": "", "remoteRoot": "/b"}]}), Err("The launch configuration's 'pathMappings[0].localRoot' must be a non-empty string: the folder on this machine.")),
    ];
    for (arguments, expected) in cases {
        check(arguments, expected);
    }
}

/// Every key the schema describes is read by the validator: a value of the wrong
/// type is refused with a message that names the key.
#[test]
fn the_validator_reads_every_key_of_the_schema() {
    use schema::Kind;
    for key in schema::LAUNCH_KEYS {
        let wrong = match key.kind {
            Kind::Text | Kind::TextListOrText => json!(3),
            Kind::Boolean | Kind::TextList | Kind::Environment => json!("x"),
            Kind::Choice(_) => json!("not one of them"),
            Kind::Endpoint | Kind::PathMappings | Kind::Rules => json!(3),
            Kind::ProcessId => json!(true),
        };
        let mut arguments = if key.name == "code" {
            json!({"program": "/a.py"})
        } else {
            json!({"code": "pass"})
        };
        arguments[key.name] = wrong;
        let error = validate(&arguments, Platform::Linux, true).unwrap_err();
        assert!(
            error.message.contains(&format!("'{}'", key.name)),
            "{}: {}",
            key.name,
            error.message
        );
    }
    let names: Vec<&str> = Console::ALL.iter().map(|console| console.name()).collect();
    assert_eq!(names, schema::CONSOLES);
    for key in schema::ATTACH_KEYS {
        let (mut arguments, wrong) = match key.kind {
            Kind::Text => (json!({"processId": 1}), json!(3)),
            _ => (json!({"connect": {"port": 5678}}), json!("x")),
        };
        arguments[key.name] = wrong;
        let error = match validate_attach_to_process(&arguments) {
            Some(result) => result.map(|_| ()).unwrap_err(),
            None => validate_attach(&arguments).map(|_| ()).unwrap_err(),
        };
        assert!(
            error.message.contains(&format!("'{}'", key.name)),
            "{}: {}",
            key.name,
            error.message
        );
    }
}

#[test]
fn defaults_depend_on_platform_and_client() {
    let config = validate(&json!({"program": "C:\\a.py"}), Platform::Win32, false).unwrap();
    assert_eq!(config.python, "python");
    assert_eq!(config.console, Console::Internal);
    let config = validate(
        &json!({"program": "a.py", "cwd": "C:\\w"}),
        Platform::Win32,
        false,
    )
    .unwrap();
    assert_eq!(config.target, Target::Program("C:\\w\\a.py".to_string()));
    for (path, absolute) in [
        ("C:\\x", true),
        ("c:/x", true),
        ("\\\\srv\\x", true),
        ("x\\y", false),
        ("C:x", false),
    ] {
        assert_eq!(is_absolute(path, Platform::Win32), absolute, "{path}");
    }
}

#[test]
fn the_adapter_type_is_the_configurations_type_or_dapper() {
    for (configuration, expected) in [
        (json!({"type": "python"}), "python"),
        (json!({"type": "dapper_tcp"}), "dapper_tcp"),
        (json!({"type": ""}), "dapper"),
        (json!({"type": 3}), "dapper"),
        (json!({}), "dapper"),
    ] {
        let Value::Object(configuration) = configuration else {
            unreachable!()
        };
        assert_eq!(adapter_type(&configuration), expected, "{configuration:?}");
    }
}

#[test]
fn child_configurations_inherit_only_the_allow_list() {
    let parent = validate(
        &json!({"program": "/p.py", "env": {"S": "x"}, "purpose": ["debug-test"], "justMyCode": false,
                "pathMappings": [], "args": ["a"], "stopOnEntry": true, "console": "internalConsole"}),
        Platform::Linux,
        true,
    )
    .unwrap();
    let child = child_configuration(
        &parent.normalised,
        "python",
        "ckey",
        "a.py",
        Some(7),
        Some("/w"),
    );
    let mut keys: Vec<&str> = child.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "__dapperChildSessionId",
            "asyncioTasksAsThreads",
            "console",
            "cwd",
            "django",
            "gevent",
            "jinja",
            "justMyCode",
            "keepExecSources",
            "name",
            "pathMappings",
            "processId",
            "python",
            "redirectOutput",
            "request",
            "showReturnValue",
            "stopOnEntry",
            "subprocessAutoAttach",
            "type"
        ]
    );
    assert_eq!(child["name"], json!("a.py (pid 7)"));
    assert_eq!(child["type"], json!("python"));
    assert_eq!(child["stopOnEntry"], json!(false));
    assert_eq!(child["justMyCode"], json!(false));
    let config = validate_child(&Value::Object(child), "a.py (pid 7)").unwrap();
    assert_eq!(config.target, Target::Child("a.py (pid 7)".to_string()));
    assert!(!config.normalised.contains_key(CHILD_SESSION_KEY));
    let cases = [
        (json!([1]), "The attach arguments must be a JSON object."),
        (json!({"justMyCode": 1}), "The attach configuration's 'justMyCode' must be true or false."),
        (json!({"console": "tty"}), "The launch configuration's 'console' is \"tty\"; it must be one of 'internalConsole', 'integratedTerminal' or 'externalTerminal'."),
    ];
    for (arguments, message) in cases {
        assert_eq!(
            validate_child(&arguments, "x").unwrap_err().message,
            message
        );
    }
}
