//! Whether a model accepts images: the `vision` setting when given, else judged from the
//! model's name. A turn with images for a model that does not accept them is refused before
//! anything is sent (see `AgentSession::run_turn`), never sent without them.

/// Names (lower-cased, the part after the last `/`) containing one of these are vision
/// models: OpenAI's GPT-4o, GPT-4.1, GPT-4 Turbo and GPT-5 families, Claude 3 and later,
/// Gemini, and the open vision models (LLaVA, Qwen-VL, Pixtral, Llama 3.2 Vision and Llama 4,
/// MiniCPM-V, Moondream, InternVL, Gemma 3, and any name with `vision` or `-vl`).
const VISION_NAMES: &[&str] = &[
    "gpt-4o",
    "gpt-4.1",
    "gpt-4-turbo",
    "gpt-4-vision",
    "gpt-5",
    "claude-3",
    "claude-sonnet-4",
    "claude-opus-4",
    "claude-haiku-4",
    "claude-4",
    "gemini",
    "llava",
    "qwen-vl",
    "qwen2-vl",
    "qwen2.5-vl",
    "qwen3-vl",
    "qvq",
    "pixtral",
    "llama-3.2-vision",
    "llama3.2-vision",
    "llama-4",
    "llama4",
    "minicpm-v",
    "moondream",
    "internvl",
    "gemma-3",
    "gemma3",
    "vision",
    "-vl",
];

/// Whether `model` accepts images: `configured` (the `vision` key) when set, else
/// [`vision_by_name`].
pub fn accepts_images(model: &str, configured: Option<bool>) -> bool {
    configured.unwrap_or_else(|| vision_by_name(model))
}

/// Whether `model`'s name says it is a vision model: one of [`VISION_NAMES`]' families, or
/// OpenAI's `o1`, `o3` and `o4-mini` reasoning models (not `o1-mini` or `o3-mini`). Anything
/// else (e.g. `qwen2.5-coder-1.5b-instruct`, `gpt-3.5-turbo`, `deepseek-coder`) is not.
pub fn vision_by_name(model: &str) -> bool {
    let name = crate::model_family::bare_name(model);
    let reasoning = crate::model_family::is_o_series(&name)
        && !name.starts_with("o1-mini")
        && !name.starts_with("o3-mini");
    reasoning || VISION_NAMES.iter().any(|family| name.contains(family))
}

/// The refusal a turn with images gets from a model that does not accept them.
pub fn refusal(model: &str, images: usize) -> String {
    let what = if images == 1 {
        "an image".to_owned()
    } else {
        format!("{images} images")
    };
    format!(
        "{model} does not accept images; set vision = true if it does. The request had {what} and was not sent."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vision_families_are_known_by_name() {
        for model in [
            "gpt-4o",
            "gpt-4o-mini",
            "openai/gpt-4.1-mini",
            "gpt-5",
            "o3",
            "o4-mini",
            "claude-3-5-sonnet-latest",
            "claude-sonnet-4-20250514",
            "gemini-2.5-flash",
            "llava:13b",
            "Qwen/Qwen2.5-VL-7B-Instruct",
            "qwen2-vl-2b",
            "pixtral-12b",
            "llama3.2-vision:11b",
            "minicpm-v",
        ] {
            assert!(vision_by_name(model), "{model}");
        }
        for model in [
            "qwen2.5-coder-1.5b-instruct",
            "gpt-3.5-turbo",
            "o3-mini",
            "o1-mini",
            "deepseek-coder-v2",
            "llama-3.1-8b-instruct",
            "scripted",
        ] {
            assert!(!vision_by_name(model), "{model}");
        }
    }

    #[test]
    fn the_setting_beats_the_name() {
        assert!(accepts_images("my-local-model", Some(true)));
        assert!(!accepts_images("gpt-4o", Some(false)));
        assert!(accepts_images("gpt-4o", None));
        assert_eq!(
            refusal("qwen2.5-coder-1.5b-instruct", 1),
            "qwen2.5-coder-1.5b-instruct does not accept images; set vision = true if it does. The request had an image and was not sent."
        );
    }
}
