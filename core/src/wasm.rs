//! The wasm-bindgen shim: JSON text in, a JSON array of outputs out. This is the
//! only file of the crate that knows about wasm-bindgen.

use crate::{Engine, EngineOptions, LogLevel, Output};
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
        // Clocks before the epoch or non-numbers make no sense; clamp them to 0.
        let now = if now_ms.is_finite() && now_ms > 0.0 {
            now_ms as u64
        } else {
            0
        };
        let outputs = self.engine.handle_json(now, input_json);
        serde_json::to_string(&outputs).unwrap_or_else(|error| {
            let fallback = vec![Output::Log {
                level: LogLevel::Error,
                message: format!("The engine could not serialise its outputs: {error}"),
            }];
            serde_json::to_string(&fallback).unwrap_or_else(|_| "[]".to_string())
        })
    }
}
