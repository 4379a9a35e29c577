//! The wasm-bindgen shim: JSON text in, a JSON array of outputs out. This is the
//! only file of the crate that knows about wasm-bindgen. The engine is given no clock:
//! its only time is its timers (`setTimer`/`timerFired`, docs/engine-io.md).

use crate::boundary::IoBuffers;
use crate::{Engine, EngineOptions};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct WasmEngine {
    engine: Engine,
    buffers: IoBuffers,
}

/// The engine's memory (a `WebAssembly.Memory`), where the buffered fast path's input
/// and output buffers are. Its `buffer` is replaced whenever the memory grows, so the
/// host takes a fresh view of it after every call that may allocate.
#[wasm_bindgen(js_name = engineMemory)]
pub fn engine_memory() -> JsValue {
    wasm_bindgen::memory()
}

#[wasm_bindgen]
impl WasmEngine {
    /// Builds an engine from `EngineOptions` JSON. Throws (the host's bug, not the
    /// user's) when the options cannot be parsed or the randomness is unusable.
    #[wasm_bindgen(constructor)]
    pub fn new(options_json: &str) -> Result<WasmEngine, JsError> {
        console_error_panic_hook::set_once();
        let options: EngineOptions = serde_json::from_str(options_json)
            .map_err(|error| JsError::new(&format!("Invalid EngineOptions: {error}")))?;
        let engine = Engine::new(options).map_err(|error| JsError::new(&error))?;
        Ok(WasmEngine {
            engine,
            buffers: IoBuffers::default(),
        })
    }

    /// Handles one `Input` (JSON) and returns the outputs as a JSON array. Bad JSON
    /// yields a `log` output; this never throws except on a panic, which the host
    /// treats as the end of this engine.
    pub fn handle(&mut self, input_json: &str) -> String {
        self.engine.handle_json_to_json(input_json)
    }

    /// The buffered fast path, step one (docs/engine-io.md): makes the input buffer
    /// at least `length` bytes long and returns its address in `engineMemory()`, where
    /// the host writes the input's JSON followed by the bytes beside it.
    #[wasm_bindgen(js_name = inputBuffer)]
    pub fn input_buffer(&mut self, length: u32) -> u32 {
        address(self.buffers.input(length as usize).as_ptr())
    }

    /// Step two: handles the input in the input buffer (`json_length` bytes of JSON,
    /// then `data_length` bytes beside it, or none when absent) and returns the length
    /// of the outputs' JSON, which `outputAddress()` locates; it stays there until the
    /// next input.
    #[wasm_bindgen(js_name = handleBuffered)]
    pub fn handle_buffered(&mut self, json_length: u32, data_length: Option<u32>) -> u32 {
        let json = self.buffers.handle(
            &mut self.engine,
            json_length as usize,
            data_length.map(|length| length as usize),
        );
        // The output of one input never nears 4 GiB (inputs are limited far below it).
        u32::try_from(json.len()).unwrap_or(u32::MAX)
    }

    /// Where the outputs' JSON of the last `handleBuffered` is in `engineMemory()`.
    #[wasm_bindgen(js_name = outputAddress)]
    pub fn output_address(&self) -> u32 {
        address(self.buffers.output().as_ptr())
    }

    /// Where the bytes of the last outputs' `writeToClient`s and `send`s are in
    /// `engineMemory()`; an output's `dataRange` is relative to it.
    #[wasm_bindgen(js_name = outputBytesAddress)]
    pub fn output_bytes_address(&self) -> u32 {
        address(self.buffers.output_bytes().as_ptr())
    }
}

/// An address in the engine's memory as JavaScript indexes it (wasm32: 32 bits).
fn address(pointer: *const u8) -> u32 {
    pointer as usize as u32
}
