//! One DAP client's session: the state machine of the DAP overview, from
//! `initialize` through launch, configuration, running and stopping, to the end.
//!
//! `state.rs` holds the `Session` type and the client side (framing, seq numbering,
//! request dispatch); its sub-states own their files (the client link, the timer
//! table, the pending table, the debuggee's stage, process and connection), and the
//! launch sequence, attach, child sessions, the debuggee's messages and termination
//! are its handlers in the files named after them. No file here imports this one.

mod attach;
mod child;
mod client;
mod connect;
mod connection;
mod debuggee;
mod facts;
mod inject;
mod launch;
mod lifecycle;
mod listen_attach;
mod pending;
mod process;
mod program;
mod stage;
mod starting;
mod state;
mod termination;
mod timers;

pub use child::ChildBinding;
pub use state::Session;
