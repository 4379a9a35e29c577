//! What the property tests share: a small deterministic random source, and an engine.

// Each test binary compiles this module and uses only some of it.
#![allow(dead_code)]

use dapper_core::{Engine, EngineOptions, Platform};

/// A fresh engine with fixed randomness.
pub fn engine() -> Engine {
    Engine::new(EngineOptions {
        python_package_dir: "/ext/python".to_string(),
        platform: Platform::Linux,
        randomness: "ab".repeat(32),
        adapter_version: "0.1.0".to_string(),
        working_directory: String::new(),
    })
    .expect("valid randomness")
}

/// splitmix64: tiny, deterministic, good enough to pick chunk sizes, bytes and shapes.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    pub fn bytes(&mut self, length: usize) -> Vec<u8> {
        (0..length).map(|_| self.next() as u8).collect()
    }

    /// Splits `stream` into random chunks (including empty ones).
    pub fn chunks<'a>(&mut self, stream: &'a [u8]) -> Vec<&'a [u8]> {
        let mut chunks = Vec::new();
        let mut start = 0;
        while start < stream.len() {
            let length = self.below(40).min(stream.len() - start);
            chunks.push(&stream[start..start + length]);
            start += length;
        }
        chunks
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// How many cases a property test runs: its own `default`, or the
/// `DAPPER_FUZZ_CASES` environment variable's number for a long run on demand
/// (`DAPPER_FUZZ_CASES=1000000 cargo test -p dapper-core --release --test fuzz`).
pub fn cases(default: usize) -> usize {
    std::env::var("DAPPER_FUZZ_CASES")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(default)
}
