//! Secret session tokens, made of the host's OS randomness.
//!
//! A token stops other local users from talking to a debuggee listener on loopback:
//! they cannot read our process environment (where the token travels), so all they can
//! do is guess or predict it. The engine reads no randomness of its own (it does no IO),
//! and it runs no generator either, whose outputs would tell something about the next
//! one: the host hands it bytes from its CSPRNG (`crypto.randomBytes`) when it creates
//! the engine and again whenever the engine asks (`gatherRandomness`), and each token is
//! 16 of those bytes, used once.

use std::collections::VecDeque;

/// The bytes in one token (128 bits), written as 32 lowercase hex characters.
pub const TOKEN_BYTES: usize = 16;
/// How many tokens the pool is topped up to.
pub const POOL_TOKENS: usize = 32;
/// Below this many tokens left the engine asks the host for more.
const LOW_WATER: usize = 16;

/// Unused tokens, each 16 bytes of the host's randomness.
pub struct TokenPool {
    tokens: VecDeque<String>,
    /// A `gatherRandomness` is outstanding; asking again before it is answered is noise.
    asked: bool,
}

impl TokenPool {
    /// The pool the engine starts with: `EngineOptions.randomness`.
    pub fn from_hex(hex: &str) -> Result<TokenPool, String> {
        let mut pool = TokenPool {
            tokens: VecDeque::new(),
            asked: false,
        };
        pool.add_hex(hex)
            .map_err(|error| format!("EngineOptions.randomness {error}"))?;
        if pool.tokens.is_empty() {
            return Err("EngineOptions.randomness is empty; it must hold OS randomness for the session tokens".to_string());
        }
        Ok(pool)
    }

    /// Adds the host's answer to a `gatherRandomness`: whole tokens of hex.
    pub fn add_hex(&mut self, hex: &str) -> Result<(), String> {
        self.asked = false;
        let hex = hex.trim();
        if !hex.len().is_multiple_of(2 * TOKEN_BYTES) || !hex.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return Err(format!(
                "must be hex, a multiple of {} characters ({TOKEN_BYTES} random bytes a token), not {} characters",
                2 * TOKEN_BYTES,
                hex.len()
            ));
        }
        for index in (0..hex.len()).step_by(2 * TOKEN_BYTES) {
            let token = hex[index..index + 2 * TOKEN_BYTES].to_ascii_lowercase();
            self.tokens.push_back(token);
        }
        Ok(())
    }

    /// The next unused token; None when the host has not refilled the pool in time.
    pub fn take(&mut self) -> Option<String> {
        self.tokens.pop_front()
    }

    /// How many bytes to ask the host for, once, when the pool runs low.
    pub fn refill_bytes(&mut self) -> Option<u32> {
        if self.asked || self.tokens.len() >= LOW_WATER {
            return None;
        }
        self.asked = true;
        u32::try_from((POOL_TOKENS - self.tokens.len()) * TOKEN_BYTES).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex_tokens(count: usize) -> String {
        (0..count).map(|index| format!("{index:032x}")).collect()
    }

    #[test]
    fn tokens_are_the_hosts_bytes_each_used_once() {
        let mut pool = TokenPool::from_hex(&format!(
            "{}{}",
            "AB".repeat(TOKEN_BYTES),
            "cd".repeat(TOKEN_BYTES)
        ))
        .unwrap();
        assert_eq!(pool.take().unwrap(), "ab".repeat(TOKEN_BYTES));
        assert_eq!(pool.take().unwrap(), "cd".repeat(TOKEN_BYTES));
        assert_eq!(pool.take(), None);
    }

    #[test]
    fn asks_once_for_a_refill_when_low() {
        let mut pool = TokenPool::from_hex(&hex_tokens(POOL_TOKENS)).unwrap();
        for _ in 0..POOL_TOKENS - LOW_WATER {
            pool.take().unwrap();
            assert_eq!(pool.refill_bytes(), None);
        }
        pool.take().unwrap();
        let wanted = pool.refill_bytes().unwrap() as usize;
        assert_eq!(wanted, (POOL_TOKENS - LOW_WATER + 1) * TOKEN_BYTES);
        pool.take().unwrap();
        assert_eq!(pool.refill_bytes(), None, "already asked");
        pool.add_hex(&hex_tokens(wanted / TOKEN_BYTES)).unwrap();
        assert_eq!(pool.refill_bytes(), None);
    }

    #[test]
    fn rejects_what_is_not_whole_tokens_of_hex() {
        for hex in ["", "abc", &"g".repeat(32), &"0".repeat(31), &"0".repeat(48)] {
            assert!(TokenPool::from_hex(hex).is_err(), "{hex:?}");
        }
        let mut pool = TokenPool::from_hex(&hex_tokens(1)).unwrap();
        assert!(pool.add_hex("xyz").is_err());
        assert!(pool.add_hex("").is_ok(), "an empty refill adds nothing");
    }
}
