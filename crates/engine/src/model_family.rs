//! What a model's name says about it, read one way everywhere: its own name (a router's
//! `openai/gpt-4o` is `gpt-4o`) and whether it is one of OpenAI's o-series reasoning models.

/// `model`'s own name: the part after the last `/`, lower-case.
pub(crate) fn bare_name(model: &str) -> String {
    model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase()
}

/// Whether `name` (a [`bare_name`]) is one of OpenAI's o-series reasoning models: `o1`, `o3`,
/// `o4` and their versions (`o1-mini`, `o3-2025-04-16`, `o4-mini`, …).
pub(crate) fn is_o_series(name: &str) -> bool {
    ["o1", "o3", "o4"]
        .iter()
        .any(|family| name == *family || name.starts_with(&format!("{family}-")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_without_their_router_and_case() {
        assert_eq!(bare_name("openai/GPT-4o"), "gpt-4o");
        assert_eq!(bare_name("o3-mini"), "o3-mini");
        assert!(is_o_series("o1"));
        assert!(is_o_series("o4-mini"));
        assert!(!is_o_series("o10"));
        assert!(!is_o_series("gpt-4o"));
    }
}
