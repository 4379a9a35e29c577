//! The engine's side of the IPC with debuggees (docs/ipc.md): DP frames, their text
//! form, and the hello that proves a connection belongs to a session.

pub mod frame;
pub mod hello;
