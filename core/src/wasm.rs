//! The wasm-bindgen shim: JSON text in, a JSON array of outputs out. This is the
//! only file of the crate that knows about wasm-bindgen.

use crate::{Engine, EngineOptions};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct WasmEngine {
    engine: Engine,
}

#[wasm_bindgen]
impl WasmEngine {
    /// Builds an engine from `EngineOptions` JSON. Throws (the host's bug, not the
    /// user's) when the options cannot be parsed or the seed is unusable.
    #[wasm_bindgen(constructor)]
    pub fn new(options_json: &str) -> Result<WasmEngine, JsError> {
        console_error_panic_hook::set_once();
        let options: EngineOptions = serde_json::from_str(options_json)
            .map_err(|error| JsError::new(&format!("Invalid EngineOptions: {error}")))?;
        let engine = Engine::new(options).map_err(|error| JsError::new(&error))?;
        Ok(WasmEngine { engine })
    }

    /// Handles one `Input` (JSON) and returns the outputs as a JSON array. Bad JSON
    /// yields a `log` output; this never throws except on a panic, which the host
    /// treats as the end of this engine.
    pub fn handle(&mut self, now_ms: f64, input_json: &str) -> String {
        self.engine
            .handle_json_to_json(clamp_clock(now_ms), input_json)
    }

    /// The host's fast path (docs/engine-io.md): `handle` with the input's JSON as
    /// UTF-8 bytes (a `Uint8Array` or `Buffer`), and the byte payload of
    /// `clientBytes`, `connectionBytes` and `processOutput` as raw bytes in `data`
    /// instead of base64 in the JSON. Bytes cross into WebAssembly as one copy, while
    /// a string crosses character by character in wasm-bindgen's glue.
    #[wasm_bindgen(js_name = handleUtf8)]
    pub fn handle_utf8(&mut self, now_ms: f64, input_json: &[u8], data: Option<Vec<u8>>) -> String {
        self.engine
            .handle_utf8_to_json(clamp_clock(now_ms), input_json, data)
    }
}

/// Clocks before the epoch or non-numbers make no sense; they become 0.
fn clamp_clock(now_ms: f64) -> u64 {
    if now_ms.is_finite() && now_ms > 0.0 {
        now_ms as u64
    } else {
        0
    }
}
