//! One DAP client's session: the state machine of the DAP overview, from
//! `initialize` through launch, configuration, running and stopping, to the end.
//!
//! `state.rs` holds the `Session` type and the client side (framing, seq numbering,
//! request and timer dispatch). Its sub-states own their files: the client link, the
//! timer table, the pending table, the lifecycle (open, stopping, finished), and the
//! program it debugs with its stage, process and connection. Each way to a program
//! (launch, attach by connect, listen or process id, child) is the program's methods in
//! the file named after it, which decide and report; the session acts on what they
//! report. `impl Session` is in five files: state.rs, starting.rs (the start and the
//! host's answers), binding.rs (a child process bound to its session), debuggee.rs
//! (the connected debuggee) and termination.rs (the end).
//! No file here imports this one.

mod attach;
mod binding;
mod child;
mod client;
mod connect;
mod connection;
mod debuggee;
mod facts;
mod inheritance;
mod inject;
mod launch;
mod lifecycle;
mod listen_attach;
mod output_lines;
mod pending;
mod process;
mod program;
mod stage;
mod starting;
mod state;
mod termination;
mod timers;

pub use child::ChildBinding;
pub use connection::debuggee_frame;
pub use inheritance::{ClientKind, Inheritance, LastBreakpoints};
pub use state::Session;
