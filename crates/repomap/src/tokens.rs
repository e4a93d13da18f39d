//! Token counting with the o200k encoding. The encoder is built once per process (it takes a
//! noticeable fraction of a second) and shared.

use tiktoken_rs::CoreBPE;

fn encoder() -> &'static CoreBPE {
    tiktoken_rs::o200k_base_singleton()
}

/// Tokens in `text` (o200k).
pub fn count(text: &str) -> usize {
    encoder().encode_ordinary(text).len()
}

/// Builds the encoder on a background thread so the first render does not wait for it.
pub fn warm_up() {
    std::thread::spawn(|| {
        let _ = encoder();
    });
}
