//! The child environment: the parent's, minus anything that looks like a provider secret.

use std::ffi::OsString;

/// Names removed whatever their shape.
const KNOWN_SECRETS: &[&str] = &[
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "DEEPSEEK_API_KEY",
    "OPENROUTER_API_KEY",
    "MISTRAL_API_KEY",
    "GROQ_API_KEY",
    "XAI_API_KEY",
    "COHERE_API_KEY",
    "API_KEY",
    "APIKEY",
];

/// Whether an environment variable's name marks it as a secret: it ends with `_API_KEY`,
/// `_APIKEY` or `_TOKEN`, contains `_SECRET` or starts with `SECRET`, ends with `_PASSWORD`,
/// or is a known provider key (all case-insensitive).
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.ends_with("_API_KEY")
        || upper.ends_with("_APIKEY")
        || upper.ends_with("_TOKEN")
        || upper.contains("_SECRET")
        || upper.starts_with("SECRET")
        || upper.ends_with("_PASSWORD")
        || KNOWN_SECRETS.contains(&upper.as_str())
}

/// `vars` without the secrets ([`is_secret_name`]).
pub fn scrubbed_env(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
) -> Vec<(OsString, OsString)> {
    vars.into_iter()
        .filter(|(name, _)| !is_secret_name(&name.to_string_lossy()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_recognised() {
        for name in [
            "OPENAI_API_KEY",
            "anthropic_api_key",
            "GITHUB_TOKEN",
            "hf_token",
            "AWS_SECRET_ACCESS_KEY",
            "MY_SECRET",
            "SECRET_KEY_BASE",
            "DB_PASSWORD",
            "API_KEY",
            "Custom_Provider_Api_Key",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in [
            "PATH",
            "HOME",
            "LANG",
            "CARGO_HOME",
            "RUST_LOG",
            "TOKENIZERS_PARALLELISM",
            "SECRETARY",
        ] {
            if name == "SECRETARY" {
                // Starts with SECRET: removed on purpose (better one variable too many).
                assert!(is_secret_name(name));
            } else {
                assert!(!is_secret_name(name), "{name}");
            }
        }
    }

    #[test]
    fn scrub_keeps_the_rest() {
        let vars = vec![
            (OsString::from("PATH"), OsString::from("/bin")),
            (OsString::from("OPENAI_API_KEY"), OsString::from("sk-x")),
            (OsString::from("NPM_TOKEN"), OsString::from("t")),
        ];
        let kept = scrubbed_env(vars);
        assert_eq!(kept, vec![(OsString::from("PATH"), OsString::from("/bin"))]);
    }
}
