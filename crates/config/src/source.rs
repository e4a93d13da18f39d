//! Where settings come from: the layers (defaults < user file < project file < environment <
//! flags, a profile over its file's top level), what each is called in `keel config show
//! --origin`, and the environment variables that take part.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::{ConfigError, Warning};
use crate::keys::FileConfig;
use crate::parse::{Parsed, parse};

/// The name of the settings file, in the project root and in the user's config folder.
pub const CONFIG_FILE: &str = "keel.toml";

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The built-in default.
    Default,
    /// The user's `keel.toml`.
    User(PathBuf),
    /// The project's `keel.toml`.
    Project(PathBuf),
    /// `[profiles.NAME]` of a file.
    Profile {
        /// The profile.
        name: String,
        /// The file defining it.
        path: PathBuf,
    },
    /// The project's `.mcp.json` (MCP servers only).
    McpJson(PathBuf),
    /// The server's configuration file.
    ServerFile(PathBuf),
    /// An environment variable (`KEEL_MODEL`, `KEEL_BASE_URL`).
    Env,
    /// A command-line flag (for the server, also the environment variable standing for it).
    Flag,
}

impl Origin {
    /// Where `key`'s value came from, in words: `default`, `user file PATH`, `project file
    /// PATH`, `profile NAME in PATH`, `env KEEL_MODEL`, `flag --model`.
    pub fn describe(&self, key: &str) -> String {
        match self {
            Origin::Default => "default".to_owned(),
            Origin::User(path) => format!("user file {}", path.display()),
            Origin::Project(path) => format!("project file {}", path.display()),
            Origin::Profile { name, path } => format!("profile {name} in {}", path.display()),
            Origin::McpJson(path) => format!("{}", path.display()),
            Origin::ServerFile(path) => format!("server file {}", path.display()),
            Origin::Env => format!("env {}", env_var_of(key).unwrap_or("?")),
            Origin::Flag => format!("flag {}", flag_of(key)),
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(""))
    }
}

/// The environment variable standing for `key`, when one does.
pub fn env_var_of(key: &str) -> Option<&'static str> {
    match key {
        "model" => Some(MODEL_VAR),
        "base_url" => Some(BASE_URL_VAR),
        _ => None,
    }
}

/// The flag standing for `key` (`test_command` → `--test-cmd`, `auto_test` →
/// `--no-auto-test`, else the key with `-` for `_`).
pub fn flag_of(key: &str) -> String {
    match key {
        "test_command" => "--test-cmd".to_owned(),
        "auto_test" => "--no-auto-test".to_owned(),
        "verbose" => "-v".to_owned(),
        other => format!("--{}", other.replace('_', "-")),
    }
}

/// `KEEL_MODEL`: the model chain.
pub const MODEL_VAR: &str = "KEEL_MODEL";
/// `KEEL_BASE_URL`: the API's base URL.
pub const BASE_URL_VAR: &str = "KEEL_BASE_URL";

/// One source of settings: its keys and where they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// Where.
    pub origin: Origin,
    /// The keys it sets.
    pub config: FileConfig,
}

impl Layer {
    /// A layer of `config` from `origin`, a relative `scripted:` provider taken from `dir`
    /// (the folder of the file it was read from).
    pub fn new(origin: Origin, mut config: FileConfig, dir: Option<&Path>) -> Self {
        if let (Some(provider), Some(dir)) = (&config.provider, dir)
            && let Some(file) = provider.strip_prefix("scripted:")
            && Path::new(file).is_relative()
        {
            config.provider = Some(format!("scripted:{}", dir.join(file).display()));
        }
        Self { origin, config }
    }
}

/// The environment variables that take part in the settings (besides `OPENAI_API_KEY` and
/// `OPENAI_BASE_URL`, which the OpenAI provider reads itself).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment {
    /// `KEEL_MODEL`.
    pub model: Option<String>,
    /// `KEEL_BASE_URL`.
    pub base_url: Option<String>,
    /// `KEEL_CONFIG_DIR`: the folder holding the user's `keel.toml`.
    pub config_dir: Option<PathBuf>,
}

impl Environment {
    /// The variables of this process (empty values count as unset).
    pub fn from_process() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        Self {
            model: var(MODEL_VAR),
            base_url: var(BASE_URL_VAR),
            config_dir: var(keel_host::CONFIG_DIR_VAR).map(PathBuf::from),
        }
    }

    /// The user's config folder: `$KEEL_CONFIG_DIR`, else the platform's (`~/.config/keel` on
    /// Linux). It holds the user's `keel.toml`, user-wide `AGENTS.md` and `rules.toml`.
    pub fn user_config_dir(&self) -> Option<PathBuf> {
        keel_host::user_config_dir_or(self.config_dir.clone())
    }

    /// Where the user's `keel.toml` is: in [`Self::user_config_dir`].
    pub fn user_config_file(&self) -> Option<PathBuf> {
        self.user_config_dir().map(|dir| dir.join(CONFIG_FILE))
    }

    /// The layer these variables make (`KEEL_MODEL`, `KEEL_BASE_URL`).
    pub fn layer(&self) -> Layer {
        Layer::new(
            Origin::Env,
            FileConfig {
                model: self.model.as_deref().map(crate::values::split_models),
                base_url: self.base_url.clone(),
                ..FileConfig::default()
            },
            None,
        )
    }
}

/// Reads `path`; a missing file is empty.
pub fn read(path: &Path) -> Result<Parsed, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse(path, &text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Parsed::default()),
        Err(source) => Err(ConfigError::Read {
            path: path.to_owned(),
            source,
        }),
    }
}

/// The file layers of a project, highest first: the project's profile, the project's file,
/// the user's profile, the user's file — and the warnings the files earned.
#[derive(Debug, Clone, Default)]
pub struct FileLayers {
    /// The layers, highest first.
    pub layers: Vec<Layer>,
    /// Old spellings met.
    pub warnings: Vec<Warning>,
}

impl FileLayers {
    /// Reads `root`'s `keel.toml` and the user's (`user_file`, when there is one), with
    /// `profile`'s tables over each file's top level. A profile neither file defines is an
    /// error.
    pub fn load(
        root: &Path,
        user_file: Option<&Path>,
        profile: Option<&str>,
    ) -> Result<Self, ConfigError> {
        let project_file = root.join(CONFIG_FILE);
        let mut files = vec![(Origin::Project(project_file.clone()), project_file)];
        if let Some(user) = user_file {
            files.push((Origin::User(user.to_owned()), user.to_owned()));
        }
        let mut out = FileLayers::default();
        let mut found = false;
        let mut known = Vec::new();
        let mut searched = Vec::new();
        for (origin, path) in files {
            let mut parsed = read(&path)?;
            if path.exists() {
                searched.push(path.clone());
            }
            let dir = path.parent();
            if let Some(name) = profile {
                known.extend(parsed.profiles.keys().cloned());
                if let Some(config) = parsed.profiles.remove(name) {
                    found = true;
                    let origin = Origin::Profile {
                        name: name.to_owned(),
                        path: path.clone(),
                    };
                    out.layers.push(Layer::new(origin, config, dir));
                }
            }
            out.layers.push(Layer::new(origin, parsed.config, dir));
            out.warnings.extend(parsed.warnings);
        }
        if let Some(name) = profile
            && !found
        {
            known.sort();
            known.dedup();
            return Err(ConfigError::UnknownProfile {
                name: name.to_owned(),
                searched,
                known,
            });
        }
        Ok(out)
    }
}
