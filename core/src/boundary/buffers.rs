//! The buffers of the buffered fast path (docs/engine-io.md, "The fast path").

use super::wire::{outputs_json_or_log, outputs_json_or_log_beside};
use crate::{Engine, LogLevel, Output};

/// The two buffers of the shim's buffered fast path (docs/engine-io.md): the host
/// writes an input's JSON, and the bytes beside it, into `input`, which lives in the
/// engine's memory, and reads the outputs' JSON out of `output`. Both are reused from
/// one input to the next, so only lengths and addresses cross the boundary: no
/// allocation per input on either side and no copy but the host's one write and read.
#[derive(Default)]
pub struct IoBuffers {
    input: Vec<u8>,
    output: String,
    /// The bytes of the last outputs' `writeToClient`s and `send`s, which `dataRange`
    /// locates.
    output_bytes: Vec<u8>,
}

/// A buffer that one large message grew past this is given back afterwards, so that a
/// rare 50 MB message does not keep 50 MB for the rest of the session.
const KEPT_BUFFER_BYTES: usize = 1 << 20;

impl IoBuffers {
    /// The input buffer, at least `length` bytes long, for the host to write into.
    pub fn input(&mut self, length: usize) -> &mut [u8] {
        if self.input.len() > KEPT_BUFFER_BYTES && length <= KEPT_BUFFER_BYTES {
            self.input = Vec::new();
        }
        if self.input.len() < length {
            self.input.resize(length, 0);
        }
        &mut self.input[..length]
    }

    /// The outputs' JSON of the last `handle`.
    pub fn output(&self) -> &str {
        &self.output
    }

    /// The bytes of the last outputs' `writeToClient`s and `send`s, which their
    /// `dataRange` (`[start, end]`) locates.
    pub fn output_bytes(&self) -> &[u8] {
        &self.output_bytes
    }

    /// Handles the input the host wrote into the input buffer: its JSON in the first
    /// `json_length` bytes, then, when `data_length` is given, that many bytes that
    /// stand for its `data` (as in `Engine::handle_utf8_to_json`). Returns the outputs'
    /// JSON, which stays in the output buffer until the next input. It is the JSON of
    /// `handle_utf8_to_json` but for one thing: a `writeToClient` or `send` has its bytes
    /// in `output_bytes()`, located by `"dataRange":[start,end]`, instead of base64 in
    /// `data`, so that neither side encodes or decodes what goes to a byte-stream client
    /// or a debuggee.
    pub fn handle(
        &mut self,
        engine: &mut Engine,
        json_length: usize,
        data_length: Option<usize>,
    ) -> &str {
        if self.output.capacity() > KEPT_BUFFER_BYTES {
            self.output = String::new();
        }
        if self.output_bytes.capacity() > KEPT_BUFFER_BYTES {
            self.output_bytes = Vec::new();
        }
        self.output_bytes.clear();
        let end = json_length.checked_add(data_length.unwrap_or(0));
        let Some((json, rest)) = end
            .filter(|&end| end <= self.input.len())
            .map(|_| self.input.split_at(json_length))
        else {
            let refusal = [Output::Log {
                level: LogLevel::Error,
                message: format!(
                    "Ignored an input: the host gave lengths {json_length} and {data_length:?} \
                     for an input buffer of {} bytes",
                    self.input.len()
                ),
            }];
            outputs_json_or_log(&refusal, &mut self.output);
            return &self.output;
        };
        let data = data_length.map(|length| rest[..length].to_vec());
        match std::str::from_utf8(json) {
            Ok(text) => {
                let outputs = engine.handle_json_with_bytes(text, data);
                outputs_json_or_log_beside(
                    &outputs,
                    &mut self.output,
                    Some(&mut self.output_bytes),
                );
            }
            // Rare, and worded by the unbuffered path.
            Err(_) => self.output = engine.handle_utf8_to_json(json, data),
        }
        &self.output
    }
}
