//! What a child that runs on its inheritance, before its client was asked for its
//! session, has sent for that session: whether any of it is for the user to see.

use crate::ipc::frame::FrameDecoder;
use serde_json::Value;

/// Events that tell of a process's state, over once the process has ended: a session
/// made after the end would show nothing of them.
const OVER_WITH_THE_PROCESS: &[&str] = &[
    "thread",
    "module",
    "loadedSource",
    "breakpoint",
    "continued",
    "dapper/exiting",
];

/// The frames that wait in a running child's connection, looked at in place.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SentWhileRunning {
    /// One of them is for the user (a stop, output, a grandchild's announcement,
    /// anything unknown or unreadable): its session must be asked for now.
    pub to_show: bool,
    /// The exit code it announced, if it did.
    pub exit_code: Option<i64>,
}

impl SentWhileRunning {
    pub fn of(decoder: &FrameDecoder) -> Self {
        let Some(payloads) = decoder.waiting_payloads() else {
            return SentWhileRunning {
                to_show: true,
                exit_code: None,
            };
        };
        let mut sent = SentWhileRunning::default();
        for payload in payloads {
            let message: Value = serde_json::from_slice(payload).unwrap_or(Value::Null);
            let event = (message.get("type").and_then(Value::as_str) == Some("event"))
                .then(|| message.get("event").and_then(Value::as_str))
                .flatten();
            match event {
                Some("dapper/exiting") => {
                    sent.exit_code = message
                        .get("body")
                        .and_then(|body| body.get("exitCode"))
                        .and_then(Value::as_i64);
                }
                Some(name) if OVER_WITH_THE_PROCESS.contains(&name) => {}
                _ => sent.to_show = true,
            }
        }
        sent
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::frame::{encode, FrameKind};

    fn sent(messages: &[&str]) -> SentWhileRunning {
        let mut decoder = FrameDecoder::default();
        for message in messages {
            decoder.push(&encode(FrameKind::FromDebuggee, message.as_bytes()));
        }
        SentWhileRunning::of(&decoder)
    }

    #[test]
    fn only_what_outlives_the_process_is_to_show() {
        let exiting = r#"{"seq":3,"type":"event","event":"dapper/exiting","body":{"exitCode":4}}"#;
        let thread =
            r#"{"seq":2,"type":"event","event":"thread","body":{"reason":"started","threadId":2}}"#;
        let quiet = |code| SentWhileRunning {
            to_show: false,
            exit_code: code,
        };
        let cases: Vec<(Vec<&str>, SentWhileRunning)> = vec![
            (vec![], quiet(None)),
            (vec![thread], quiet(None)),
            (vec![thread, exiting], quiet(Some(4))),
            (
                vec![
                    r#"{"seq":2,"type":"event","event":"output","body":{"output":"hi\n"}}"#,
                    exiting,
                ],
                SentWhileRunning {
                    to_show: true,
                    exit_code: Some(4),
                },
            ),
            (
                vec![r#"{"seq":2,"type":"event","event":"dapper/sessionWanted"}"#],
                SentWhileRunning {
                    to_show: true,
                    exit_code: None,
                },
            ),
            (
                vec![r#"{"seq":2,"type":"response","command":"thread"}"#],
                SentWhileRunning {
                    to_show: true,
                    exit_code: None,
                },
            ),
            (
                vec!["not json"],
                SentWhileRunning {
                    to_show: true,
                    exit_code: None,
                },
            ),
        ];
        for (messages, expected) in cases {
            assert_eq!(sent(&messages), expected, "{messages:?}");
        }
        let mut text = FrameDecoder::default();
        text.push(b"DBGP: {}\n");
        assert!(SentWhileRunning::of(&text).to_show);
    }
}
