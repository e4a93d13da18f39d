//! Keel's configuration, one definition for every front end: each `keel.toml` key defined once
//! ([`FileConfig`]), read the same way by the CLI and the server (whose file adds only its own
//! keys); one layering — defaults < the user's file < the project's file < environment <
//! flags, a `[profiles.NAME]` table over its file's top level ([`FileLayers`], [`Settings`]);
//! errors that name file and line, with the nearest known key for a misspelt one; old
//! spellings read with a [`Warning`]; the effective values and their origins
//! ([`show`]); and the JSON Schema editors use ([`schema`]).

mod error;
mod keys;
mod parse;
pub mod schema;
mod settings;
pub mod show;
mod source;
mod values;

pub use error::{ConfigError, Warning};
pub use keys::{
    Color, ContextConfig, FileConfig, GitConfig, HookEntry, HooksConfig, ImagesConfig,
    MemoryConfig, PriceConfig, SubagentsConfig, TelemetryConfig, UnknownColor,
};
pub use parse::{PROFILES, Parsed, Shape, invalid, parse, parse_shaped};
pub use settings::{
    DEFAULT_MAX_ITERATIONS, Origins, Settings, checkpoint_max_bytes, history_limit,
};
pub use source::{
    BASE_URL_VAR, CONFIG_FILE, Environment, FileLayers, Layer, MODEL_VAR, Origin, env_var_of,
    flag_of, read,
};
pub use values::split_models;

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
