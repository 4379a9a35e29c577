//! The debuggee's process as the session knows it, however it was started: spawned
//! by the host, started in the client's terminal (`runInTerminal`), started by a
//! parent debuggee, or started by the user (attach). Whether it runs, its pids, the
//! signal already sent, and its output streams.

use crate::utf8::Utf8Stream;
use crate::{KillTarget, ProcessId, Signal, Stream};

/// How much of the debuggee's stderr is kept to explain an early exit.
const STDERR_TAIL_BYTES: usize = 4096;
const STDERR_TAIL_LINES: usize = 10;

#[derive(Default)]
pub struct DebuggeeProcess {
    /// The process the host spawned (internalConsole).
    pub spawned: Option<ProcessId>,
    /// The spawned process's pid, as the host reported it.
    pub pid: Option<u32>,
    /// The debuggee's pid as the client reported it for a `runInTerminal` launch.
    pub terminal_pid: Option<u32>,
    /// The terminal shell's pid from `runInTerminal`: killed only when nothing better
    /// is known, because killing it closes the user's terminal.
    pub shell_pid: Option<u32>,
    /// The pid the debuggee announced in its hello.
    pub hello_pid: Option<u32>,
    /// Whether the debuggee process is believed to be running.
    alive: bool,
    /// The strongest signal already sent, so SIGKILL is not repeated.
    kill_sent: Option<Signal>,
    pub stdout: Utf8Stream,
    pub stderr: Utf8Stream,
    stderr_tail: String,
    /// The exit code the debuggee announced in `dapper/exiting`.
    pub announced_exit_code: Option<i64>,
    /// The code it exited with (a signal as 128 + its number), once it has.
    pub exit_code: Option<i64>,
}

impl DebuggeeProcess {
    /// The process runs (it was spawned, started in a terminal, or said hello).
    pub fn started(&mut self) {
        self.alive = true;
    }

    /// The process is gone, or no longer ours (detached, or never started).
    pub fn gone(&mut self) {
        self.alive = false;
    }

    /// Whether the debuggee process is believed to be running.
    pub fn is_alive(&self) -> bool {
        self.alive
    }

    /// Whether SIGKILL (or its polite equivalent for an attached program) was sent.
    pub fn is_killed(&self) -> bool {
        self.kill_sent == Some(Signal::Kill)
    }

    /// Whether the engine signalled the process at all.
    pub fn was_signalled(&self) -> bool {
        self.kill_sent.is_some()
    }

    /// Remembers a signal sent.
    pub fn signalled(&mut self, signal: Signal) {
        self.kill_sent = Some(signal);
    }

    /// What to signal to end the debuggee: the spawned process, else the best pid
    /// known (the shell's last, because killing it closes the user's terminal).
    pub fn kill_target(&self) -> Option<KillTarget> {
        let pid = self.terminal_pid.or(self.hello_pid).or(self.shell_pid);
        match (self.spawned, pid) {
            (Some(process), _) => Some(KillTarget::Process(process)),
            (None, Some(pid)) => Some(KillTarget::Pid(pid)),
            (None, None) => None,
        }
    }

    /// The text of output the process wrote on `stream`, as far as it is whole
    /// characters; stderr's is remembered to explain an early exit.
    pub fn output(&mut self, stream: Stream, bytes: &[u8]) -> String {
        match stream {
            Stream::Stdout => self.stdout.push(bytes),
            Stream::Stderr => {
                let text = self.stderr.push(bytes);
                self.remember_stderr(&text);
                text
            }
        }
    }

    pub fn remember_stderr(&mut self, text: &str) {
        self.stderr_tail.push_str(text);
        if self.stderr_tail.len() > STDERR_TAIL_BYTES {
            let mut cut = self.stderr_tail.len() - STDERR_TAIL_BYTES;
            while !self.stderr_tail.is_char_boundary(cut) {
                cut += 1;
            }
            self.stderr_tail.drain(..cut);
        }
    }

    /// The last lines of stderr, introduced, or nothing when stderr was empty.
    pub fn stderr_excerpt(&self) -> String {
        let lines: Vec<&str> = self
            .stderr_tail
            .lines()
            .filter(|line| !line.trim().is_empty())
            .collect();
        if lines.is_empty() {
            return String::new();
        }
        let start = lines.len().saturating_sub(STDERR_TAIL_LINES);
        format!(
            "\nIts last output on stderr:\n{}",
            lines[start..].join("\n")
        )
    }
}
