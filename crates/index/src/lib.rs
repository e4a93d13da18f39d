//! Search by meaning over a project: a tantivy index in `.keel/index` of chunks that follow code
//! structure (a definition with its doc comment, a Markdown section, a window of other text)
//! plus one document per file, files ranked by BM25 with code-aware tokenising (identifiers
//! split at `snake_case`, `camelCase` and path separators) over their own document and their
//! best chunks, symbol names and doc comments weighted, the repo map's PageRank as a
//! tie-breaking prior, and — when an OpenAI-compatible `/v1/embeddings` endpoint is configured — dense
//! vectors fused with the lexical ranks by reciprocal rank fusion.
//!
//! [`ProjectIndex`] builds the index on first use, refreshes only changed files, rebuilds a
//! corrupt or outdated one with a warning, and answers [`SearchRequest`]s with token-budgeted
//! [`SearchHit`]s; a [`LiveIndex`] is kept current in a running session by the repo map's
//! watcher (changed files only).

mod baseline;
mod chunk;
mod config;
mod embed;
mod error;
mod filedoc;
mod files;
mod live;
mod project;
mod render;
mod schema;
mod search;
mod tokenize;

pub use baseline::{BaselineTokenizer, WholeFileBaseline};
pub use chunk::{Chunk, ChunkKind, chunk_file};
pub use config::{
    DEFAULT_QUERY_ARGUMENT, PROJECT_SERVER, RagConfig, RagSection, RagServer, ServerSource,
};
pub use embed::{EmbeddingClient, EmbeddingSettings};
pub use error::IndexError;
pub use files::{DEFAULT_MAX_FILE_BYTES, SkipReason};
pub use live::{Currency, LiveIndex, WATCH_DEBOUNCE};
pub use project::{INDEX_DIR, IndexOptions, IndexStats, ProjectIndex};
pub use render::{budget_text, render_hits};
pub use search::{MAX_QUERY_BYTES, SearchHit, SearchOutcome, SearchRequest, truncate_query};
pub use tokenize::{CODE_TOKENIZER, code_terms, query_terms, split_identifier};

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
