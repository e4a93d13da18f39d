//! A fixed-capacity ring buffer that keeps the most recent items.

mod ring;

pub use ring::Ring;

/// Keep the last `n` lines of `text`.
pub fn tail(text: &str, n: usize) -> Vec<String> {
    let mut ring = Ring::new(n.max(1));
    for line in text.lines() {
        ring.push(line.to_string());
    }
    if n == 0 {
        return Vec::new();
    }
    ring.iter().cloned().collect()
}
