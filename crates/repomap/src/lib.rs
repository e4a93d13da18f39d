//! The repository map (after Aider): tree-sitter definitions and references for many languages,
//! files ranked by PageRank over the reference graph, rendered to fit a token budget.
//!
//! [`RepoMap`] walks a root honouring `.gitignore`, parses files in parallel, caches their
//! tags in `.keel/cache/` (so an unchanged repository maps without parsing), and updates only
//! changed paths — by hand with [`RepoMap::update_paths`] or from a [`RepoWatcher`]. Rendering
//! groups definitions by file with their line ranges, marks left-out definitions with `⋮`,
//! and never exceeds the token budget (o200k tokens). [`RepoMap::dependencies`] gives each
//! file's dependencies on the others (seed 002 §10).

mod allocator;
mod cache;
mod dependencies;
mod error;
mod extract;
mod language;
mod map;
mod queries;
mod rank;
mod render;
mod scan;
mod signature;
mod stats;
mod symbol;
mod tokens;
mod watch;

pub use allocator::allocate_trees_with_mimalloc;
pub use dependencies::{MAX_DEFINERS, dependencies};
pub use error::RepoMapError;
pub use extract::extract;
pub use language::Language;
pub use map::{
    DEFAULT_MAX_FILE_BYTES, DEFAULT_TOKEN_BUDGET, MapOptions, MapRequest, RankedFile, RenderedMap,
    RepoMap, parse_file, warm_up,
};
pub use render::{ELISION, symbol_line};
pub use scan::{PathFilter, mtime_ns, relative};
pub use stats::BuildStats;
pub use symbol::{FileTags, Symbol, SymbolKind};
pub use tokens::count as count_tokens;
pub use watch::RepoWatcher;

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
