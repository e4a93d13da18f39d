//! What a build or update of the map did.

use keel_events::PrepareRepomapBuild;
use serde::{Deserialize, Serialize};

/// Figures for one build, refresh or update of the map.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildStats {
    /// Files in the map.
    pub files: u64,
    /// Definitions in the map.
    pub symbols: u64,
    /// Tokens of the rendered map (0 until rendered).
    pub tokens: u64,
    /// Wall time, in milliseconds.
    pub duration_ms: u64,
    /// True when nothing needed re-parsing.
    pub cached: bool,
    /// Files parsed by this build (0 on a fully cached one).
    pub parsed: u64,
    /// Files dropped because they disappeared or became ignored.
    pub removed: u64,
}

impl From<BuildStats> for PrepareRepomapBuild {
    fn from(stats: BuildStats) -> Self {
        PrepareRepomapBuild {
            files: stats.files,
            symbols: stats.symbols,
            tokens: stats.tokens,
            duration_ms: stats.duration_ms,
            cached: stats.cached,
        }
    }
}
