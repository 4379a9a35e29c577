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

/// What a running child has sent so far, looked at as it arrives.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SentWhileRunning {
    /// Where the frames looked at end in its connection's buffer.
    reviewed: usize,
    /// One of them is for the user (a stop, output, a grandchild's announcement,
    /// anything unknown or unreadable): its session must be asked for now.
    pub to_show: bool,
    /// The exit code it announced, if it did.
    pub exit_code: Option<i64>,
}

impl SentWhileRunning {
    /// Looks at the whole frames that arrived since the last look (each frame once, so
    /// that a child that sends many costs no more than their count).
    pub fn review(&mut self, decoder: &FrameDecoder) {
        let Some((payloads, reviewed)) = decoder.waiting_payloads(self.reviewed) else {
            self.to_show = true;
            return;
        };
        self.reviewed = reviewed;
        for payload in payloads {
            let message: Value = serde_json::from_slice(payload).unwrap_or(Value::Null);
            let event = (message.get("type").and_then(Value::as_str) == Some("event"))
                .then(|| message.get("event").and_then(Value::as_str))
                .flatten();
            match event {
                Some("dapper/exiting") => {
                    self.exit_code = message
                        .get("body")
                        .and_then(|body| body.get("exitCode"))
                        .and_then(Value::as_i64);
                }
                Some(name) if OVER_WITH_THE_PROCESS.contains(&name) => {}
                _ => self.to_show = true,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::frame::{encode, FrameKind};

    /// What a child sent, each message in a chunk of its own, looked at chunk by chunk.
    fn sent(messages: &[&str]) -> (bool, Option<i64>) {
        let mut decoder = FrameDecoder::default();
        let mut sent = SentWhileRunning::default();
        for message in messages {
            decoder.push(&encode(FrameKind::FromDebuggee, message.as_bytes()));
            sent.review(&decoder);
        }
        (sent.to_show, sent.exit_code)
    }

    #[test]
    fn only_what_outlives_the_process_is_to_show() {
        let exiting = r#"{"seq":3,"type":"event","event":"dapper/exiting","body":{"exitCode":4}}"#;
        let thread =
            r#"{"seq":2,"type":"event","event":"thread","body":{"reason":"started","threadId":2}}"#;
        let output = r#"{"seq":2,"type":"event","event":"output","body":{"output":"hi\n"}}"#;
        let wanted = r#"{"seq":2,"type":"event","event":"dapper/sessionWanted"}"#;
        let response = r#"{"seq":2,"type":"response","command":"thread"}"#;
        type Case<'a> = (Vec<&'a str>, (bool, Option<i64>));
        let cases: Vec<Case> = vec![
            (vec![], (false, None)),
            (vec![thread], (false, None)),
            (vec![thread, thread, exiting], (false, Some(4))),
            (vec![output, exiting], (true, Some(4))),
            (vec![thread, output, thread], (true, None)),
            (vec![wanted], (true, None)),
            (vec![response], (true, None)),
            (vec!["not json"], (true, None)),
        ];
        for (messages, expected) in cases {
            assert_eq!(sent(&messages), expected, "{messages:?}");
        }
        let mut text = FrameDecoder::default();
        text.push(b"DBGP: {}\n");
        let mut sent = SentWhileRunning::default();
        sent.review(&text);
        assert!(sent.to_show);
    }
}
