//! Secret session tokens.
//!
//! A token only has to stop *other local users* from talking to a debuggee listener on
//! loopback: they cannot read our process environment (where the token travels), so
//! all they could do is guess. A 128-bit value drawn from xoshiro256** seeded with 256
//! bits of OS randomness (the host's `crypto.randomBytes(32)`) makes guessing hopeless,
//! and the generator is not exposed to anyone who could observe its outputs and
//! reconstruct its state. A cryptographic generator would add a dependency for no gain.

/// xoshiro256** seeded from the host's 32-byte seed.
pub struct TokenGenerator {
    state: [u64; 4],
}

impl TokenGenerator {
    /// Builds the generator from 64 hex characters.
    pub fn from_hex_seed(seed: &str) -> Result<TokenGenerator, String> {
        let seed = seed.trim();
        if seed.len() != 64 || !seed.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(
                "EngineOptions.seed must be 64 hex characters (32 random bytes)".to_string(),
            );
        }
        let mut state = [0u64; 4];
        for (index, word) in state.iter_mut().enumerate() {
            let part = &seed[index * 16..index * 16 + 16];
            *word = u64::from_str_radix(part, 16)
                .map_err(|error| format!("EngineOptions.seed is not hex: {error}"))?;
        }
        // An all-zero state would make xoshiro output zeros forever; run the words
        // through splitmix64 so that even such a seed yields a usable state.
        let mut mix = state[0]
            ^ state[1].rotate_left(17)
            ^ state[2].rotate_left(31)
            ^ state[3].rotate_left(47);
        for word in state.iter_mut() {
            *word ^= splitmix64(&mut mix);
        }
        Ok(TokenGenerator { state })
    }

    fn next_u64(&mut self) -> u64 {
        let result = self.state[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let shifted = self.state[1] << 17;
        self.state[2] ^= self.state[0];
        self.state[3] ^= self.state[1];
        self.state[1] ^= self.state[2];
        self.state[0] ^= self.state[3];
        self.state[2] ^= shifted;
        self.state[3] = self.state[3].rotate_left(45);
        result
    }

    /// A fresh 128-bit token as 32 lowercase hex characters.
    pub fn next_token(&mut self) -> String {
        format!("{:016x}{:016x}", self.next_u64(), self.next_u64())
    }
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_128_bit_hex_distinct_and_seed_dependent() {
        let mut first = TokenGenerator::from_hex_seed(&"0".repeat(64)).unwrap();
        let mut second = TokenGenerator::from_hex_seed(&"1".repeat(64)).unwrap();
        let a = first.next_token();
        let b = first.next_token();
        let c = second.next_token();
        for token in [&a, &b, &c] {
            assert_eq!(token.len(), 32);
            assert!(token.bytes().all(|byte| byte.is_ascii_hexdigit()));
        }
        assert_ne!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn rejects_bad_seeds() {
        for seed in ["", "abc", &"g".repeat(64), &"0".repeat(63)] {
            assert!(TokenGenerator::from_hex_seed(seed).is_err());
        }
    }
}
