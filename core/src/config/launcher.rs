//! The launcher's command line and environment (docs/ipc.md).

use super::types::{LaunchConfig, Target};
use crate::contract::{Address, Platform};
use serde_json::{Map, Value};

/// The launcher's script, relative to the Python package directory. A program (a script)
/// runs under it, by its path: `-m dapperdbg.launcher` would import runpy, which costs a
/// start 1-2 ms of CPU (3.12, 3.13) to 6 ms (3.10, 3.11) and 17 ms (3.9) that a plain
/// `python script.py` does not pay. Code runs under `-c` `LAUNCHER_CODE`, which imports no
/// runpy either, and a module under `-m dapperdbg.launcher`, as plain: not under the
/// script, because after a script Python flushes stdout and stderr, which it does not
/// after `-m` or `-c`, and a program that replaced them would see the difference. Where
/// the interpreter ignores `PYTHONPATH` (`-E`, `-I`), neither can find the package: a
/// module or code then runs under `-c` code that puts the package on `sys.path` itself
/// (the launcher takes it off again). The children's hooks choose the same way
/// (extension/python/dapperdbg/children/commands.py).
const LAUNCHER_SCRIPT: [&str; 3] = ["dapperdbg", "launcher", "__main__.py"];

/// The `-c` code that runs the launcher for a code target, the package found through
/// `PYTHONPATH`.
const LAUNCHER_CODE: &str = "from dapperdbg.launcher import run_as_main; run_as_main()";

/// The path of the launcher's script in `package_dir`, with the platform's separator.
fn launcher_script(package_dir: &str, platform: Platform) -> String {
    let separator = if platform.is_windows() { "\\" } else { "/" };
    let mut path = package_dir.trim_end_matches(['/', '\\']).to_string();
    for part in LAUNCHER_SCRIPT {
        path.push_str(separator);
        path.push_str(part);
    }
    path
}

/// The `-c` code that runs the launcher where `PYTHONPATH` is ignored.
fn launcher_bootstrap(package_dir: &str) -> String {
    let directory = python_literal(package_dir);
    format!("import sys; sys.path.insert(0, {directory}); {LAUNCHER_CODE}")
}

/// A Python string literal of `text`, whatever its characters, in single quotes and with
/// no double quote in it: in a terminal, Windows PowerShell (5.1, the default shell of
/// VS Code on Windows, and PowerShell 7.0 to 7.2) hands a program the double quotes inside
/// an argument unescaped, which would cut the code apart there.
fn python_literal(text: &str) -> String {
    let mut literal = String::with_capacity(text.len() + 2);
    literal.push('\'');
    for character in text.chars() {
        match character {
            '\\' => literal.push_str("\\\\"),
            '\'' => literal.push_str("\\'"),
            '"' => literal.push_str("\\x22"),
            control if control.is_control() => {
                literal.push_str(&format!("\\u{:04x}", u32::from(control)));
            }
            other => literal.push(other),
        }
    }
    literal.push('\'');
    literal
}

/// Whether the interpreter options include `-E` or `-I` (alone or in a group such as
/// `-IB`), with which Python ignores `PYTHONPATH`. The value of `-W` or `-X` is no flag.
fn ignores_environment(python_args: &[String]) -> bool {
    let mut words = python_args.iter();
    while let Some(word) = words.next() {
        let Some(letters) = word.strip_prefix('-') else {
            return false; // The options end where the target begins.
        };
        if letters.starts_with('-') || letters.is_empty() {
            continue; // A long option (`--check-hash-based-pycs` takes its value joined).
        }
        for (index, letter) in letters.char_indices() {
            match letter {
                'E' | 'I' => return true,
                'W' | 'X' => {
                    if index + 1 == letters.len() {
                        words.next(); // The value is the next word.
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    false
}

/// Builds `python [pythonArgs…] LAUNCHER --ipc … --session-id … [--no-debug] (--program P
/// | --module M | --code C) [-- args…]`, where LAUNCHER is the launcher's script (for a
/// program), `-c LAUNCHER_CODE` (for code), `-m dapperdbg.launcher` (for a module), or the
/// `-c` bootstrap (LAUNCHER_SCRIPT says when).
/// `None` for a child session's configuration, which starts no launcher.
pub fn launcher_argv(
    config: &LaunchConfig,
    address: &Address,
    session_id: &str,
    package_dir: &str,
    platform: Platform,
) -> Option<Vec<String>> {
    let mut argv = Vec::new();
    if config.sudo {
        // -E keeps the environment, where the session's token travels; sudo still drops
        // PYTHONPATH, so a module or code starts through the bootstrap, which needs none.
        argv.extend(["sudo", "-E", "--"].map(str::to_string));
    }
    argv.push(config.python.clone());
    argv.extend(config.python_args.iter().cloned());
    let ipc = match address {
        Address::Tcp { host, port } => format!("tcp:{host}:{port}"),
        Address::Unix { path } => format!("unix:{path}"),
    };
    if let Target::Program(_) = config.target {
        argv.push(launcher_script(package_dir, platform));
    } else if config.sudo || ignores_environment(&config.python_args) {
        argv.push("-c".to_string());
        argv.push(launcher_bootstrap(package_dir));
    } else if let Target::Code(_) = config.target {
        argv.push("-c".to_string());
        argv.push(LAUNCHER_CODE.to_string());
    } else {
        argv.extend(["-m", "dapperdbg.launcher"].map(str::to_string));
    }
    argv.push("--ipc".to_string());
    argv.push(ipc);
    argv.push("--session-id".to_string());
    argv.push(session_id.to_string());
    if config.no_debug {
        argv.push("--no-debug".to_string());
    }
    let (flag, value) = match &config.target {
        Target::Program(path) => ("--program", path),
        Target::Module(name) => ("--module", name),
        Target::Code(text) => ("--code", text),
        Target::Child(_) => return None,
    };
    argv.push(flag.to_string());
    argv.push(value.clone());
    if !config.args.is_empty() {
        // The separator keeps program arguments that look like launcher options
        // (say "--ipc") from being read as such.
        argv.push("--".to_string());
        argv.extend(config.args.iter().cloned());
    }
    Some(argv)
}

/// What the environment overlay is built from, besides the configuration.
pub struct LauncherEnv<'a> {
    pub platform: Platform,
    pub python_package_dir: &'a str,
    /// The host's own `PYTHONPATH`, from a fact query.
    pub host_pythonpath: Option<&'a str>,
    pub token: &'a str,
    /// Whether the host captures stdout/stderr (internalConsole): the debuggee then
    /// line-buffers its stdout, as a terminal would, so that output arrives by lines.
    pub output_captured: bool,
}

/// The overlay applied over the host's environment: string = set, null = remove.
pub fn launcher_env(config: &LaunchConfig, context: &LauncherEnv<'_>) -> Map<String, Value> {
    // Windows's variable names ignore case: the user's `PythonPath` is PYTHONPATH there,
    // and the host would let only one of two spellings through.
    let windows = context.platform.is_windows();
    let is_pythonpath =
        |name: &str| name == "PYTHONPATH" || (windows && name.eq_ignore_ascii_case("PYTHONPATH"));
    let mut env = Map::new();
    for (name, value) in &config.env {
        if is_pythonpath(name) {
            continue; // Joined with the package's folder below.
        }
        env.insert(
            name.clone(),
            value.clone().map_or(Value::Null, Value::String),
        );
    }
    // The user's own PYTHONPATH wins over the host's, and `null` removes it.
    let existing = match config
        .env
        .iter()
        .rev()
        .find(|(name, _)| is_pythonpath(name))
    {
        Some((_, value)) => value.clone(),
        None => context.host_pythonpath.map(str::to_string),
    };
    let separator = if windows { ";" } else { ":" };
    let pythonpath = match existing.filter(|value| !value.is_empty()) {
        Some(existing) => format!("{}{separator}{existing}", context.python_package_dir),
        None => context.python_package_dir.to_string(),
    };
    env.insert("PYTHONPATH".to_string(), Value::String(pythonpath));
    env.insert(
        "DAPPER_PYTHONPATH_ENTRY".to_string(),
        Value::String(context.python_package_dir.to_string()),
    );
    env.insert(
        "DAPPER_SESSION_TOKEN".to_string(),
        Value::String(context.token.to_string()),
    );
    if context.output_captured {
        env.insert(
            "DAPPER_CAPTURED_OUTPUT".to_string(),
            Value::String("1".to_string()),
        );
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::validate;
    use serde_json::json;

    #[test]
    fn the_bootstraps_literal_holds_any_directory_without_a_double_quote() {
        let cases = [
            ("/pkg", "'/pkg'"),
            (
                "C:\\Users\\me\\.vscode\\extensions\\dapper\\python",
                "'C:\\\\Users\\\\me\\\\.vscode\\\\extensions\\\\dapper\\\\python'",
            ),
            ("C:\\Users\\O'Brien", "'C:\\\\Users\\\\O\\'Brien'"),
            ("/srv/say \"hi\"", "'/srv/say \\x22hi\\x22'"),
            ("/tmp/tab\there\u{1b}", "'/tmp/tab\\u0009here\\u001b'"),
            ("/home/zoë/日本", "'/home/zoë/日本'"),
        ];
        for (directory, expected) in cases {
            let literal = python_literal(directory);
            assert_eq!(literal, expected, "{directory}");
            assert!(!literal.contains('"'), "{literal}");
        }
    }

    #[test]
    fn builds_argv_for_each_target() {
        let unix = Address::Unix {
            path: "/t/s.sock".to_string(),
        };
        let tcp = Address::Tcp {
            host: "127.0.0.1".to_string(),
            port: 5,
        };
        let cases = [
            (
                json!({"program": "/a.py"}),
                &unix,
                "python3 /pkg/dapperdbg/launcher/__main__.py --ipc unix:/t/s.sock --session-id s1 --program /a.py",
            ),
            (
                json!({"module": "m", "args": ["-x", "y"], "python": "/py", "pythonArgs": ["-X", "dev"]}),
                &tcp,
                "/py -X dev -m dapperdbg.launcher --ipc tcp:127.0.0.1:5 --session-id s1 --module m -- -x y",
            ),
            (
                json!({"code": "print(1)", "noDebug": true}),
                &unix,
                "python3 -c from dapperdbg.launcher import run_as_main; run_as_main() --ipc unix:/t/s.sock --session-id s1 --no-debug --code print(1)",
            ),
            // PYTHONPATH ignored: a module or code comes through the -c bootstrap, a
            // program through the script still, which needs no PYTHONPATH.
            (
                json!({"module": "m", "pythonArgs": ["-X", "dev", "-I"]}),
                &unix,
                "python3 -X dev -I -c import sys; sys.path.insert(0, '/pkg'); from dapperdbg.launcher import run_as_main; run_as_main() --ipc unix:/t/s.sock --session-id s1 --module m",
            ),
            (
                json!({"code": "print(1)", "pythonArgs": ["-bE"]}),
                &unix,
                "python3 -bE -c import sys; sys.path.insert(0, '/pkg'); from dapperdbg.launcher import run_as_main; run_as_main() --ipc unix:/t/s.sock --session-id s1 --code print(1)",
            ),
            (
                json!({"program": "/a.py", "pythonArgs": ["-I"]}),
                &unix,
                "python3 -I /pkg/dapperdbg/launcher/__main__.py --ipc unix:/t/s.sock --session-id s1 --program /a.py",
            ),
            // sudo: the environment kept, and the bootstrap for a module (sudo drops
            // PYTHONPATH).
            (
                json!({"program": "/a.py", "sudo": true}),
                &unix,
                "sudo -E -- python3 /pkg/dapperdbg/launcher/__main__.py --ipc unix:/t/s.sock --session-id s1 --program /a.py",
            ),
            (
                json!({"module": "m", "sudo": true}),
                &unix,
                "sudo -E -- python3 -c import sys; sys.path.insert(0, '/pkg'); from dapperdbg.launcher import run_as_main; run_as_main() --ipc unix:/t/s.sock --session-id s1 --module m",
            ),
            // -W's and -X's values are not flags.
            (
                json!({"module": "m", "pythonArgs": ["-WIgnore", "-X", "E", "-XI"]}),
                &unix,
                "python3 -WIgnore -X E -XI -m dapperdbg.launcher --ipc unix:/t/s.sock --session-id s1 --module m",
            ),
        ];
        for (arguments, address, expected) in cases {
            let config = validate(&arguments, Platform::Linux, false).unwrap();
            assert_eq!(
                launcher_argv(&config, address, "s1", "/pkg", Platform::Linux)
                    .unwrap_or_default()
                    .join(" "),
                expected
            );
        }
    }

    #[test]
    fn the_launcher_script_is_in_the_package_directory() {
        let cases = [
            (
                "/ext/python",
                Platform::Linux,
                "/ext/python/dapperdbg/launcher/__main__.py",
            ),
            (
                "/ext/python/",
                Platform::Darwin,
                "/ext/python/dapperdbg/launcher/__main__.py",
            ),
            (
                "C:\\ext\\python",
                Platform::Win32,
                "C:\\ext\\python\\dapperdbg\\launcher\\__main__.py",
            ),
        ];
        for (package_dir, platform, expected) in cases {
            assert_eq!(launcher_script(package_dir, platform), expected);
        }
    }

    #[test]
    fn builds_the_environment_overlay() {
        let cases = [
            (json!({}), Some("/host"), Platform::Linux, "/pkg:/host"),
            (json!({}), None, Platform::Linux, "/pkg"),
            (json!({}), Some(""), Platform::Linux, "/pkg"),
            (
                json!({"PYTHONPATH": "/mine"}),
                Some("/host"),
                Platform::Linux,
                "/pkg:/mine",
            ),
            (
                json!({"PYTHONPATH": null}),
                Some("/host"),
                Platform::Linux,
                "/pkg",
            ),
            (json!({}), Some("C:\\h"), Platform::Win32, "/pkg;C:\\h"),
            // Windows: the user's PYTHONPATH in any case; elsewhere another variable.
            (
                json!({"PythonPath": "C:\\mine"}),
                Some("C:\\h"),
                Platform::Win32,
                "/pkg;C:\\mine",
            ),
            (
                json!({"pythonpath": null}),
                Some("C:\\h"),
                Platform::Win32,
                "/pkg",
            ),
            (
                json!({"PythonPath": "/other"}),
                Some("/host"),
                Platform::Darwin,
                "/pkg:/host",
            ),
        ];
        for (user_env, host, platform, expected) in cases {
            let config = validate(
                &json!({"program": "/a.py", "env": user_env}),
                platform,
                false,
            )
            .unwrap();
            let context = LauncherEnv {
                platform,
                python_package_dir: "/pkg",
                host_pythonpath: host,
                token: "t",
                output_captured: true,
            };
            let env = launcher_env(&config, &context);
            assert_eq!(env["PYTHONPATH"], json!(expected), "{user_env} {host:?}");
            // One spelling only where names ignore case; the user's other variables stay.
            let spellings: Vec<&String> = env
                .keys()
                .filter(|name| name.eq_ignore_ascii_case("PYTHONPATH"))
                .collect();
            let kept_apart =
                usize::from(!platform.is_windows() && user_env.get("PythonPath").is_some());
            assert_eq!(spellings.len(), 1 + kept_apart, "{user_env}: {spellings:?}");
            assert_eq!(env["DAPPER_PYTHONPATH_ENTRY"], json!("/pkg"));
            assert_eq!(env["DAPPER_SESSION_TOKEN"], json!("t"));
            // The user's buffering is kept: the debuggee line-buffers captured output.
            assert_eq!(env.get("PYTHONUNBUFFERED"), None);
            assert_eq!(env["DAPPER_CAPTURED_OUTPUT"], json!("1"));
        }
    }
}
