//! The words Dapper uses for an interpreter it cannot debug with, written once. The
//! engine says them to every client; VS Code's extension, which checks the interpreter
//! before a launch so that it can offer a way out, says the very same through
//! extension/src/host/messages.ts, generated from this table; the troubleshooting table
//! of docs/troubleshooting.md is generated from it too. core/tests/messages.rs fails
//! when either generated file is stale (`BLESS=1` rewrites them).

/// The message: `{python}` as the user named it, `{source}` where that choice came
/// from, `{problem}` one of `PYTHON_PROBLEMS`.
pub const PYTHON_UNUSABLE: &str =
    "Dapper cannot debug with the Python interpreter \"{python}\" ({source}): it {problem}.";

/// Where the interpreter came from: a key, and how the message names it. The engine
/// knows only the first and the last; the others are VS Code's choices.
pub const PYTHON_SOURCES: &[(&str, &str)] = &[
    (
        "launch configuration",
        "set as `python` in the launch configuration",
    ),
    ("Python extension", "selected in the Python extension"),
    ("setting dapper.python", "set in the setting dapper.python"),
    (
        "python3 on PATH",
        "the default: no interpreter is selected in the Python extension or set in dapper.python",
    ),
    (
        "default",
        "the default: the launch configuration names no `python`",
    ),
];

/// One way an interpreter can be unusable.
pub struct PythonProblem {
    pub key: &'static str,
    /// The end of the message, after "it"; `{detail}` or `{version}` where given.
    pub text: &'static str,
    /// What the user can do about it, for the troubleshooting table.
    pub fix: &'static str,
}

/// Every problem, in the order the troubleshooting table lists them.
pub const PYTHON_PROBLEMS: &[PythonProblem] = &[
    PythonProblem {
        key: "notOnPath",
        text: "was not found on PATH",
        fix: "Install it, select another interpreter, or give its full path as `python`.",
    },
    PythonProblem {
        key: "missing",
        text: "does not exist",
        fix: "Fix the path in the place named in the parentheses, or select another interpreter.",
    },
    PythonProblem {
        key: "folder",
        text: "is a folder, not an interpreter (name the python executable inside it)",
        fix: "Name the executable, such as `.venv/bin/python`, not its folder.",
    },
    PythonProblem {
        key: "notExecutable",
        text: "is not executable (permission denied)",
        fix: "`chmod +x` it, or name the real interpreter.",
    },
    PythonProblem {
        key: "tooOld",
        text: "is Python {version}; Dapper needs 3.9 or newer",
        fix: "Choose Python 3.9 or newer.",
    },
    PythonProblem {
        key: "unreadableVersion",
        text: "reported the version {version}, which Dapper cannot read",
        fix: "Name a CPython interpreter.",
    },
    PythonProblem {
        key: "notPython",
        text: "is not a Python interpreter: it printed {detail}",
        fix: "Name a Python interpreter, not a script or another program.",
    },
    PythonProblem {
        key: "noAnswer",
        text: "did not print its version within {detail}",
        fix: "The interpreter hangs at start (a sitecustomize?): try it in a terminal.",
    },
    PythonProblem {
        key: "failed",
        text: "failed to run: {detail}",
        fix: "Run it in a terminal to see why; the detail is what it printed.",
    },
];

/// The text of a problem, by key; an unknown key is the general failure.
pub fn python_problem(key: &str) -> &'static str {
    PYTHON_PROBLEMS
        .iter()
        .find(|problem| problem.key == key)
        .map_or("failed to run: {detail}", |problem| problem.text)
}

/// `template` with each `{name}` replaced by its value; names not given stay as written.
/// extension/src/host/messages.ts does the same.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut text = template.to_string();
    for (name, value) in values {
        text = text.replace(&format!("{{{name}}}"), value);
    }
    text
}

/// The whole message for an interpreter named `python`, chosen by `source` (a key of
/// `PYTHON_SOURCES`), with the problem `problem` (a key of `PYTHON_PROBLEMS`) and the
/// values it names.
pub fn python_unusable(
    python: &str,
    source: &str,
    problem: &str,
    values: &[(&str, &str)],
) -> String {
    let source = PYTHON_SOURCES
        .iter()
        .find(|(key, _)| *key == source)
        .map_or(source, |(_, text)| text);
    let problem = fill(python_problem(problem), values);
    fill(
        PYTHON_UNUSABLE,
        &[
            ("python", python),
            ("source", source),
            ("problem", &problem),
        ],
    )
}

/// extension/src/host/messages.ts.
pub fn typescript() -> String {
    let quote = |text: &str| serde_json::Value::String(text.to_string()).to_string();
    let mut text = String::from(
        "// GENERATED from core/src/messages.rs: do not edit. `BLESS=1 cargo test -p dapper-core\n\
         // --test messages` rewrites it after the table changes; the engine's tests fail while it\n\
         // is stale.\n\
         //\n\
         // The words for an interpreter Dapper cannot debug with, the same as the engine's.\n\n",
    );
    text.push_str(&format!(
        "export const PYTHON_UNUSABLE = {};\n\n",
        quote(PYTHON_UNUSABLE)
    ));
    text.push_str("export const PYTHON_SOURCES = {\n");
    for (key, source) in PYTHON_SOURCES {
        text.push_str(&format!("  {}: {},\n", quote(key), quote(source)));
    }
    text.push_str("} as const;\n\nexport const PYTHON_PROBLEMS = {\n");
    for problem in PYTHON_PROBLEMS {
        text.push_str(&format!("  {}: {},\n", problem.key, quote(problem.text)));
    }
    text.push_str(
        "} as const;\n\n\
         export type PythonProblem = keyof typeof PYTHON_PROBLEMS;\n\n\
         /** `template` with each `{name}` replaced by its value; names not given stay as written. */\n\
         export function fill(template: string, values: Record<string, string>): string {\n\
         \x20 return template.replace(/\\{(\\w+)\\}/g, (whole, name: string) => values[name] ?? whole);\n\
         }\n",
    );
    text
}

/// The rows of docs/troubleshooting.md's interpreter table, in Markdown.
pub fn troubleshooting_markdown() -> String {
    let mut text = String::from("| message | what to do |\n|---|---|\n");
    for problem in PYTHON_PROBLEMS {
        // The one figure worth showing is the too old version; the rest vary.
        let version = if problem.key == "tooOld" {
            "3.8.10"
        } else {
            "…"
        };
        let problem_text = fill(problem.text, &[("version", version), ("detail", "…")]);
        let message = fill(
            PYTHON_UNUSABLE,
            &[("python", "…"), ("source", "…"), ("problem", &problem_text)],
        );
        text.push_str(&format!("| `{message}` | {} |\n", problem.fix));
    }
    text
}

#[cfg(test)]
mod tests {
    #[test]
    fn messages_name_the_interpreter_its_source_and_the_problem() {
        let cases = [
            ("python9.9", "launch configuration", "notOnPath", vec![], "Dapper cannot debug with the Python interpreter \"python9.9\" (set as `python` in the launch configuration): it was not found on PATH."),
            ("python3", "default", "tooOld", vec![("version", "3.8.10")], "Dapper cannot debug with the Python interpreter \"python3\" (the default: the launch configuration names no `python`): it is Python 3.8.10; Dapper needs 3.9 or newer."),
            ("/x", "launch configuration", "no such key", vec![("detail", "boom")], "Dapper cannot debug with the Python interpreter \"/x\" (set as `python` in the launch configuration): it failed to run: boom."),
        ];
        for (python, source, problem, values, expected) in cases {
            assert_eq!(
                super::python_unusable(python, source, problem, &values),
                expected
            );
        }
    }
}
