//! The engine's JSON boundary: the entry points the host calls with an `Input` as
//! JSON text (or UTF-8 bytes), optionally with its byte payload beside it, and that
//! answer with the outputs as JSON. `wire` reads the hot inputs and writes the
//! outputs without serde's detours; `buffers` is the buffered fast path, whose
//! input and output live in the engine's memory. `wasm` exposes them to JavaScript.

mod buffers;
mod wire;

pub use buffers::IoBuffers;

use crate::{Engine, Input, LogLevel, Output};

impl Engine {
    /// Parses one `Input` from JSON text and handles it. Text that is not a valid
    /// `Input` yields a single `log` output at level `error` and changes nothing.
    pub fn handle_json(&mut self, input_json: &str) -> Vec<Output> {
        self.handle_json_with_bytes(input_json, None)
    }

    /// `handle_json` of an input whose byte payload (`data`) comes beside its JSON
    /// rather than in it as base64 (docs/engine-io.md, "The fast path").
    pub fn handle_json_with_bytes(
        &mut self,
        input_json: &str,
        data: Option<Vec<u8>>,
    ) -> Vec<Output> {
        match wire::parse_input(input_json, data) {
            Ok(input) => self.handle(input),
            Err(error) => vec![unparsable(error)],
        }
    }

    /// `handle_json` with the outputs as a JSON array: the whole work of the
    /// WebAssembly shim, JSON text in and out.
    pub fn handle_json_to_json(&mut self, input_json: &str) -> String {
        let outputs = self.handle_json(input_json);
        outputs_json(&outputs)
    }

    /// `handle_json_to_json` of the input's JSON as UTF-8 bytes, its byte payload
    /// beside it or not (see `handle_json_with_bytes`). JSON that is not UTF-8 is
    /// answered like any unparsable input.
    pub fn handle_utf8_to_json(&mut self, input_json: &[u8], data: Option<Vec<u8>>) -> String {
        match std::str::from_utf8(input_json) {
            Ok(text) => {
                let outputs = self.handle_json_with_bytes(text, data);
                outputs_json(&outputs)
            }
            Err(_) => {
                let error = serde_json::from_slice::<Input>(input_json)
                    .err()
                    .map_or_else(|| "the input is not UTF-8".to_string(), |e| e.to_string());
                outputs_json(&[unparsable(error)])
            }
        }
    }
}

/// The one output an input the engine cannot parse gets.
fn unparsable(error: impl std::fmt::Display) -> Output {
    Output::Log {
        level: LogLevel::Error,
        message: format!("Ignored an input the engine could not parse: {error}"),
    }
}

fn outputs_json(outputs: &[Output]) -> String {
    let mut json = String::new();
    wire::outputs_json_or_log(outputs, &mut json);
    json
}
