//! Whole numbers in decimal, written by hand: the formatting machinery is slow in
//! WebAssembly, and every message to a client passes here (Content-Length headers, the
//! ids in the outputs' JSON).

/// The decimal digits of `number`, written into the end of `buffer`.
pub fn digits(number: u64, buffer: &mut [u8; 20]) -> &[u8] {
    let mut at = buffer.len();
    let mut rest = number;
    loop {
        at -= 1;
        buffer[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    &buffer[at..]
}

/// Appends `number` in decimal to `text`.
pub fn push(text: &mut String, number: u64) {
    for &digit in digits(number, &mut [0; 20]) {
        text.push(char::from(digit));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbers_read_as_rust_writes_them() {
        for number in [0, 7, 10, 99, 4_294_967_295, u64::MAX] {
            let mut text = String::new();
            super::push(&mut text, number);
            assert_eq!(text, number.to_string());
        }
    }
}
