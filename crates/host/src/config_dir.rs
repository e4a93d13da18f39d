//! The user's config folder, found the same way by every front end: `$KEEL_CONFIG_DIR`, else
//! the platform's (`~/.config/keel` on Linux). It holds the user's `keel.toml`, user-wide
//! `AGENTS.md` and the user-wide approval rules (`rules.toml`) that the terminal's "always"
//! writes and the server applies.

use std::path::PathBuf;

/// The environment variable naming the user's config folder.
pub const CONFIG_DIR_VAR: &str = "KEEL_CONFIG_DIR";

/// The user's config folder of this process: [`CONFIG_DIR_VAR`] when set (and not blank),
/// else the platform's.
pub fn user_config_dir() -> Option<PathBuf> {
    let configured = std::env::var_os(CONFIG_DIR_VAR)
        .filter(|dir| !dir.to_string_lossy().trim().is_empty())
        .map(PathBuf::from);
    user_config_dir_or(configured)
}

/// The user's config folder: `configured` (the value of [`CONFIG_DIR_VAR`]) when given, else
/// the platform's (`~/.config/keel` on Linux); `None` when the platform has none.
pub fn user_config_dir_or(configured: Option<PathBuf>) -> Option<PathBuf> {
    if configured.is_some() {
        return configured;
    }
    use etcetera::BaseStrategy as _;
    etcetera::choose_base_strategy()
        .ok()
        .map(|base| base.config_dir().join("keel"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configured_folder_wins() {
        assert_eq!(
            user_config_dir_or(Some(PathBuf::from("/cfg"))),
            Some(PathBuf::from("/cfg"))
        );
    }
}
