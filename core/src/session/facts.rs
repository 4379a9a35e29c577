//! Interpreting the host's answers to a launch's fact queries: the program, the
//! working directory, the Python interpreter (cached per executable) and the host's
//! PYTHONPATH.

use crate::config::{dotenv, LaunchConfig};
use crate::context::{PythonInfo, SessionContext};
use crate::dap::error::{codes, DapError};
use crate::messages;
use crate::{FactAnswer, LogLevel, Platform};

/// The oldest Python the debuggee package supports.
const MINIMUM_PYTHON: (u32, u32) = (3, 9);

/// What each fact query was for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FactRole {
    Program,
    Cwd,
    Python,
    HostPythonPath,
    EnvFile,
}

/// What the answers gave the launch besides a verdict.
#[derive(Debug, Default)]
pub struct Checked {
    pub host_pythonpath: Option<String>,
    /// The envFile's variables, in file order.
    pub env_file: Vec<(String, String)>,
}

fn parse_version(version: &str) -> Option<(u32, u32)> {
    let mut parts = version.split('.');
    let major = parts.next()?.trim().parse().ok()?;
    let minor_text: String = parts
        .next()?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    Some((major, minor_text.parse().ok()?))
}

/// Interprets the host's answers; returns what they gave on success.
pub fn check_facts(
    ctx: &mut SessionContext<'_>,
    config: &LaunchConfig,
    roles: &[FactRole],
    facts: &[FactAnswer],
) -> Result<Checked, DapError> {
    if roles.len() != facts.len() {
        return Err(DapError::internal(
            codes::LAUNCH_FAILED,
            format!(
                "The host answered {} facts to {} questions.",
                facts.len(),
                roles.len()
            ),
        ));
    }
    let mut checked = Checked::default();
    for (role, fact) in roles.iter().zip(facts) {
        match (role, fact) {
            (
                FactRole::Program,
                FactAnswer::Path {
                    path,
                    exists,
                    is_file,
                    ..
                },
            ) => {
                if !exists {
                    return Err(DapError::user(
                        codes::PROGRAM_NOT_FOUND,
                        format!("The program '{path}' does not exist."),
                    ));
                }
                if !is_file {
                    return Err(DapError::user(
                        codes::PROGRAM_NOT_FOUND,
                        format!("The program '{path}' is not a file."),
                    ));
                }
            }
            (
                FactRole::Cwd,
                FactAnswer::Path {
                    path,
                    exists,
                    is_directory,
                    ..
                },
            ) => {
                if !exists {
                    return Err(DapError::user(
                        codes::CWD_NOT_FOUND,
                        format!("The working directory '{path}' does not exist."),
                    ));
                }
                if !is_directory {
                    return Err(DapError::user(
                        codes::CWD_NOT_FOUND,
                        format!("The working directory '{path}' is not a directory."),
                    ));
                }
            }
            (
                FactRole::Python,
                FactAnswer::Python {
                    ok,
                    version,
                    path,
                    problem,
                    error,
                    ..
                },
            ) => {
                let python = &config.python;
                let unusable = |problem: &str, values: &[(&str, &str)]| {
                    DapError::user(
                        codes::PYTHON_UNUSABLE,
                        messages::python_unusable(python, config.python_source, problem, values),
                    )
                };
                if !ok {
                    let detail = error.as_deref().unwrap_or("no reason given");
                    let problem = match problem.as_deref().unwrap_or("failed") {
                        // A bare command is looked up on PATH; a path simply is not there.
                        "missing" if is_bare_command(python, ctx.options.platform) => "notOnPath",
                        problem => problem,
                    };
                    return Err(unusable(problem, &[("detail", detail)]));
                }
                let version = version.clone().unwrap_or_default();
                match parse_version(&version) {
                    Some(found) if found >= MINIMUM_PYTHON => {
                        let path = path.clone().unwrap_or_else(|| python.clone());
                        ctx.log(
                            LogLevel::Info,
                            format!(
                                "The Python interpreter '{python}' is Python {version} at {path}."
                            ),
                        );
                        ctx.python_cache
                            .insert(python.clone(), PythonInfo { version, path });
                    }
                    Some(_) => return Err(unusable("tooOld", &[("version", &version)])),
                    None => {
                        let quoted = format!("{version:?}");
                        return Err(unusable("unreadableVersion", &[("version", &quoted)]));
                    }
                }
            }
            (FactRole::HostPythonPath, FactAnswer::Env { value, .. }) => {
                checked.host_pythonpath = value.clone()
            }
            (
                FactRole::EnvFile,
                FactAnswer::File {
                    path,
                    ok,
                    text,
                    error,
                },
            ) => {
                if !ok && config.env_file_optional {
                    let reason = error.as_deref().unwrap_or("no reason given");
                    ctx.log(
                        LogLevel::Info,
                        format!("Skipped the envFile '{path}' of a debugpy configuration, which could not be read: {reason}"),
                    );
                    continue;
                }
                if !ok {
                    let reason = error.as_deref().unwrap_or("no reason given");
                    return Err(DapError::user(
                        codes::INVALID_CONFIGURATION,
                        format!("The envFile '{path}' could not be read: {reason}"),
                    ));
                }
                checked.env_file = dotenv::parse(path, text.as_deref().unwrap_or_default())
                    .map_err(|message| DapError::user(codes::INVALID_CONFIGURATION, message))?;
            }
            (role, fact) => {
                return Err(DapError::internal(
                    codes::LAUNCH_FAILED,
                    format!("The host answered {fact:?} where Dapper asked about {role:?}."),
                ))
            }
        }
    }
    Ok(checked)
}

/// Whether an interpreter is named as a command to look up on PATH, not as a path.
fn is_bare_command(python: &str, platform: Platform) -> bool {
    let separator = python.contains('/') || (platform.is_windows() && python.contains('\\'));
    !separator
}

#[cfg(test)]
mod tests {
    use super::parse_version;

    #[test]
    fn parses_python_versions() {
        let cases = [
            ("3.12.1", Some((3, 12))),
            ("3.9.0rc1", Some((3, 9))),
            ("3.13.0a2", Some((3, 13))),
            ("3.10", Some((3, 10))),
            ("3", None),
            ("", None),
            ("x.y", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_version(text), expected, "{text}");
        }
    }
}
