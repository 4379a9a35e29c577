//! `dapper-core`: the sans-IO engine of the Dapper Python debugger.
//!
//! The engine owns every decision of a debug session (DAP state machines, routing,
//! framing, launch configuration) and performs no IO at all and reads no clock. The
//! host feeds it facts (`Input`) and carries out its commands (`Output`); the
//! `contract` module is that contract and docs/engine-io.md describes it. The JSON
//! entry points the host calls are in `boundary` (and `wasm`, its wasm-bindgen shim).
//!
//! No input may panic the engine: outside tests, `unwrap`, `expect`, `panic!`,
//! `unreachable!`, `todo!` and `unimplemented!` are refused by clippy, so that every
//! failure is an error value that says who is to blame.

#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

pub mod boundary;
mod config;
mod context;
mod contract;
pub mod dap;
pub mod input_budget;
pub mod ipc;
pub mod messages;
mod path_mappings;
mod router;
mod session;
mod token;
mod utf8;
#[cfg(feature = "wasm")]
pub mod wasm;

/// The launch configuration's keys, for package.json's schema and docs/options.md.
pub use config::debugpy;
pub use config::normalised::normalised_configuration;
pub use config::schema;
pub use contract::*;

/// The whole engine: one per extension host, seeing every session and process.
pub struct Engine {
    router: router::Router,
}

impl Engine {
    /// Builds an engine. Fails only when the options themselves are unusable (randomness
    /// that is not whole 16-byte tokens of hex), which is a host bug rather than user input.
    pub fn new(options: EngineOptions) -> Result<Engine, String> {
        Ok(Engine {
            router: router::Router::new(options)?,
        })
    }

    /// Feeds one fact to the engine and returns the commands it produced, in order.
    pub fn handle(&mut self, input: Input) -> Vec<Output> {
        self.router.handle(input)
    }
}
