//! Answering a query: BM25 over the chunk fields (symbol names, doc comments and paths
//! weighted above the body) and over each file's own document (its whole text); files ranked
//! by their document's score plus their best chunk's plus damped shares of their next ones,
//! times a small PageRank prior (a tie-breaker; tests and docs down-weighted); dense vectors
//! fused by reciprocal rank fusion when an embeddings endpoint is configured; at most two
//! chunks per file, a file's chunks together; snippets cut to the token budget.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, TantivyDocument, Value};
use tantivy::{DocAddress, Term};

use crate::chunk::ChunkKind;
use crate::embed::EmbeddingClient;
use crate::error::IndexError;
use crate::filedoc::FILE_KIND;
use crate::project::ProjectIndex;

/// Queries longer than this many bytes are cut (with a note).
pub const MAX_QUERY_BYTES: usize = 1024;
/// Query terms used at most.
const MAX_TERMS: usize = 64;
/// Candidates taken from each ranking before fusion and the per-file cap.
const CANDIDATES: usize = 200;
/// Chunks of one file in the results at most.
const MAX_PER_FILE: usize = 2;
/// Reciprocal rank fusion's constant.
const RRF_K: f32 = 60.0;
/// Exponent of the PageRank prior (rank relative to the mean, raised to this): small, so
/// that it breaks near-ties only. At 0.15 a central file of a 2,000-file project (100× the
/// mean rank) scored twice its text's worth and outranked the file that answers.
const PRIOR_EXPONENT: f64 = 0.03;
/// Prior factor of tests, examples, vendored code and changelogs (they mention everything).
const SECONDARY_FACTOR: f64 = 0.6;
/// Prior factor of files under `doc/` or `docs/`: prose about a feature names its words more
/// often than the code doing it, so guides would crowd out the code asked about.
const DOCS_FACTOR: f64 = 0.6;
/// Share of its score a file's `n + 1`-th best chunk adds (this raised to `n`).
const FOLLOWING_SHARE: f64 = 0.4;
/// Lines of a snippet at most.
const SNIPPET_LINES: usize = 30;

/// Field weights: symbol names and doc comments above paths above the body.
const SYMBOL_BOOST: f32 = 3.0;
const DOC_BOOST: f32 = 2.0;
const PATH_BOOST: f32 = 2.0;
const BODY_BOOST: f32 = 1.0;
/// Weight of a file's own document (path, names, docs and text in one field).
const FILE_BOOST: f32 = 3.0;

/// What to search for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchRequest {
    /// The question, in words.
    pub query: String,
    /// Chunks returned at most.
    pub limit: usize,
    /// Tokens (o200k) the rendered results may take.
    pub token_budget: usize,
}

impl SearchRequest {
    /// A request for `query` with the defaults: 8 chunks, 2000 tokens.
    pub fn new(query: impl Into<String>) -> Self {
        Self {
            query: query.into(),
            limit: 8,
            token_budget: 2000,
        }
    }
}

/// One chunk found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    /// Path relative to the root.
    pub path: String,
    /// First line.
    pub start_line: u32,
    /// Last line.
    pub end_line: u32,
    /// What the chunk is (`definition`, `module`, `section`, `text`).
    pub kind: String,
    /// The names it defines or its heading path.
    pub symbol: String,
    /// Its score (BM25 times the prior; reciprocal-rank-fused when hybrid).
    pub score: f32,
    /// The start of its text, cut to the budget.
    pub snippet: String,
}

/// The answer to a [`SearchRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchOutcome {
    /// The query as searched (after truncation).
    pub query: String,
    /// `lexical` or `hybrid`.
    pub mode: String,
    /// The chunks, best first.
    pub hits: Vec<SearchHit>,
    /// Notes for the reader: a truncated query, a down embeddings endpoint, hits left out
    /// for the budget.
    pub notes: Vec<String>,
}

/// `query` cut to at most `max` bytes at a character boundary.
pub fn truncate_query(query: &str, max: usize) -> &str {
    if query.len() <= max {
        return query;
    }
    let mut end = max;
    while !query.is_char_boundary(end) {
        end -= 1;
    }
    &query[..end]
}

/// A candidate before rendering.
struct Candidate {
    path: String,
    start: u32,
    end: u32,
    kind: String,
    symbol: String,
    body: String,
    score: f32,
}

/// Whether a path looks like tests, examples, vendored code or a changelog (ranked below the
/// code and docs themselves: they mention everything).
fn is_secondary(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let stem = name.split('.').next().unwrap_or("");
    if matches!(
        stem,
        "changes" | "changelog" | "history" | "news" | "releases"
    ) {
        return true;
    }
    path.split('/').any(|part| {
        matches!(
            part,
            "tests" | "test" | "testing" | "examples" | "example" | "benches" | "vendor"
        )
    }) || path.rsplit('/').next().is_some_and(|name| {
        name.starts_with("test_") || name.contains("_test.") || name.ends_with("_tests.rs")
    })
}

impl ProjectIndex {
    fn prior(&self, path: &str) -> f64 {
        let ranks = &self.manifest.ranks;
        let relative = ranks
            .get(path)
            .map_or(1.0, |rank| rank * ranks.len() as f64);
        let secondary = if is_secondary(path) {
            SECONDARY_FACTOR
        } else if path.split('/').any(|p| p == "doc" || p == "docs") {
            DOCS_FACTOR
        } else {
            1.0
        };
        relative.max(1e-3).powf(PRIOR_EXPONENT) * secondary
    }

    fn candidate(&self, address: DocAddress, score: f32) -> Result<Candidate, IndexError> {
        let searcher = self.reader.searcher();
        let doc: TantivyDocument = searcher
            .doc(address)
            .map_err(|source| IndexError::Tantivy {
                path: self.dir().to_path_buf(),
                source,
            })?;
        let text = |field| {
            doc.get_first(field)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_owned()
        };
        let number = |field| {
            doc.get_first(field)
                .and_then(|v| v.as_u64())
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(0)
        };
        Ok(Candidate {
            path: text(self.fields.path),
            start: number(self.fields.start),
            end: number(self.fields.end),
            kind: text(self.fields.kind),
            symbol: text(self.fields.symbol),
            body: text(self.fields.body),
            score,
        })
    }

    /// BM25 candidates for `terms`, scored with the prior, best first.
    fn lexical(&self, terms: &[String]) -> Result<Vec<Candidate>, IndexError> {
        let fields = [
            (self.fields.symbol, SYMBOL_BOOST),
            (self.fields.doc, DOC_BOOST),
            (self.fields.path_text, PATH_BOOST),
            (self.fields.body, BODY_BOOST),
            (self.fields.file_text, FILE_BOOST),
        ];
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for term in terms {
            for (field, boost) in fields {
                let query = TermQuery::new(
                    Term::from_field_text(field, term),
                    IndexRecordOption::WithFreqs,
                );
                clauses.push((
                    Occur::Should,
                    Box::new(BoostQuery::new(Box::new(query), boost)),
                ));
            }
        }
        let query = BooleanQuery::new(clauses);
        let searcher = self.reader.searcher();
        let top = searcher
            .search(&query, &TopDocs::with_limit(CANDIDATES).order_by_score())
            .map_err(|source| IndexError::Tantivy {
                path: self.dir().to_path_buf(),
                source,
            })?;
        let mut candidates = Vec::with_capacity(top.len());
        for (score, address) in top {
            candidates.push(self.candidate(address, score)?);
        }
        self.by_file(candidates)
    }

    /// Ranks `candidates` (scored by BM25 alone) by their files: a file scores its own
    /// document's match plus its best chunk plus damped shares of its next ones, times the
    /// prior; each chunk takes its file's score, and a file's chunks stay together, best
    /// first. A file found by its own document alone is shown by its first chunk.
    fn by_file(&self, mut candidates: Vec<Candidate>) -> Result<Vec<Candidate>, IndexError> {
        candidates.sort_by(|a, b| b.score.total_cmp(&a.score));
        let mut files: HashMap<String, (f64, usize)> = HashMap::new();
        let mut whole_only: Vec<(String, u32)> = Vec::new();
        let share = FOLLOWING_SHARE;
        for c in &candidates {
            let (sum, seen) = files.entry(c.path.clone()).or_insert((0.0, 0));
            if c.kind == FILE_KIND {
                *sum += f64::from(c.score);
            } else {
                *sum += f64::from(c.score) * share.powi(*seen as i32);
                *seen += 1;
            }
        }
        for c in &candidates {
            if c.kind == FILE_KIND && files.get(&c.path).is_some_and(|(_, seen)| *seen == 0) {
                whole_only.push((c.path.clone(), c.start));
            }
        }
        candidates.retain(|c| c.kind != FILE_KIND);
        for (path, start) in whole_only {
            if let Some(mut first) = self.chunk_at(&path, start)? {
                first.score = 0.0;
                candidates.push(first);
            }
        }
        for (path, (sum, _)) in &mut files {
            *sum *= self.prior(path);
        }
        for c in &mut candidates {
            c.score = files.get(&c.path).map_or(0.0, |(s, _)| *s as f32);
        }
        // Stable: within a file the chunks keep their BM25 order.
        candidates.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.path.cmp(&b.path)));
        Ok(candidates)
    }

    /// The chunk of `path` starting at `start`, looked up for a vector-only hit.
    fn chunk_at(&self, path: &str, start: u32) -> Result<Option<Candidate>, IndexError> {
        let query = BooleanQuery::new(vec![
            (
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_text(self.fields.path, path),
                    IndexRecordOption::Basic,
                )) as Box<dyn Query>,
            ),
            (
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_u64(self.fields.start, u64::from(start)),
                    IndexRecordOption::Basic,
                )),
            ),
            (
                Occur::MustNot,
                Box::new(TermQuery::new(
                    Term::from_field_text(self.fields.kind, FILE_KIND),
                    IndexRecordOption::Basic,
                )),
            ),
        ]);
        let searcher = self.reader.searcher();
        let top = searcher
            .search(&query, &TopDocs::with_limit(1).order_by_score())
            .map_err(|source| IndexError::Tantivy {
                path: self.dir().to_path_buf(),
                source,
            })?;
        top.first()
            .map(|(_, address)| self.candidate(*address, 0.0))
            .transpose()
    }

    /// Fuses `lexical` with the vector ranking of `query` (reciprocal rank fusion): the mode
    /// and the ranking, which is `lexical` unchanged (with a note) when the endpoint fails.
    fn hybrid(
        &self,
        query: &str,
        lexical: Vec<Candidate>,
        notes: &mut Vec<String>,
    ) -> Result<(&'static str, Vec<Candidate>), IndexError> {
        let Some(settings) = &self.options.embeddings else {
            return Ok(("lexical", lexical));
        };
        if self.vectors.is_empty() {
            notes.push("no stored vectors yet: lexical results only".to_owned());
            return Ok(("lexical", lexical));
        }
        let vector = match EmbeddingClient::new(settings.clone())
            .and_then(|client| client.embed(&[query.to_owned()]))
        {
            Ok(mut vectors) if !vectors.is_empty() => vectors.swap_remove(0),
            Ok(_) => return Ok(("lexical", lexical)),
            Err(e) => {
                notes.push(format!("{e}: lexical results only"));
                return Ok(("lexical", lexical));
            }
        };
        let mut fused: HashMap<(String, u32), (f32, Option<Candidate>)> = HashMap::new();
        for (rank, candidate) in lexical.into_iter().enumerate() {
            let key = (candidate.path.clone(), candidate.start);
            let entry = fused.entry(key).or_insert((0.0, None));
            entry.0 += 1.0 / (RRF_K + rank as f32 + 1.0);
            entry.1 = Some(candidate);
        }
        for (rank, (path, start, _, _)) in self
            .vectors
            .nearest(&vector, CANDIDATES)
            .into_iter()
            .enumerate()
        {
            let entry = fused.entry((path, start)).or_insert((0.0, None));
            entry.0 += 1.0 / (RRF_K + rank as f32 + 1.0);
        }
        let mut out = Vec::with_capacity(fused.len());
        for ((path, start), (score, candidate)) in fused {
            let candidate = match candidate {
                Some(candidate) => Some(candidate),
                None => self.chunk_at(&path, start)?,
            };
            if let Some(mut candidate) = candidate {
                candidate.score = score;
                out.push(candidate);
            }
        }
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.path.cmp(&b.path)));
        Ok(("hybrid", out))
    }

    /// Searches the index (as it is: call [`ProjectIndex::refresh`] first to bring it up to
    /// date). Blocking when embeddings are configured.
    pub fn search(&self, request: &SearchRequest) -> Result<SearchOutcome, IndexError> {
        let mut notes = Vec::new();
        let query = truncate_query(&request.query, MAX_QUERY_BYTES);
        if query.len() < request.query.len() {
            notes.push(format!(
                "the query was {} bytes; only its first {} were searched",
                request.query.len(),
                query.len()
            ));
        }
        let terms = crate::tokenize::query_terms(query, MAX_TERMS);
        let lexical = if terms.is_empty() {
            notes.push("the query has no searchable words".to_owned());
            Vec::new()
        } else {
            self.lexical(&terms)?
        };
        let (mode, ranked) = self.hybrid(query, lexical, &mut notes)?;
        let mut per_file: HashMap<String, usize> = HashMap::new();
        let chosen: Vec<Candidate> = ranked
            .into_iter()
            .filter(|c| {
                let n = per_file.entry(c.path.clone()).or_insert(0);
                *n += 1;
                *n <= MAX_PER_FILE
            })
            .take(request.limit.max(1))
            .collect();
        let hits = budgeted(chosen, request.token_budget, &mut notes);
        Ok(SearchOutcome {
            query: query.to_owned(),
            mode: mode.to_owned(),
            hits,
            notes,
        })
    }
}

/// Cuts snippets so that the rendered hits fit `budget` tokens; drops what does not fit.
fn budgeted(chosen: Vec<Candidate>, budget: usize, notes: &mut Vec<String>) -> Vec<SearchHit> {
    let mut used = 0usize;
    let mut hits = Vec::new();
    let total = chosen.len();
    for candidate in chosen {
        let header = crate::render::header(
            &candidate.path,
            candidate.start,
            candidate.end,
            candidate.score,
            &candidate.kind,
            &candidate.symbol,
        );
        let header_tokens = keel_repomap::count_tokens(&header) + 4;
        if used + header_tokens > budget {
            break;
        }
        let mut lines: Vec<&str> = candidate.body.lines().take(SNIPPET_LINES).collect();
        let mut snippet = lines.join("\n");
        let mut tokens = keel_repomap::count_tokens(&snippet);
        while used + header_tokens + tokens > budget && !lines.is_empty() {
            let keep = lines.len() / 2;
            lines.truncate(keep);
            snippet = lines.join("\n");
            tokens = keel_repomap::count_tokens(&snippet);
        }
        used += header_tokens + tokens;
        let kind = ChunkKind::parse(&candidate.kind).map_or("text", ChunkKind::as_str);
        hits.push(SearchHit {
            path: candidate.path,
            start_line: candidate.start,
            end_line: candidate.end,
            kind: kind.to_owned(),
            symbol: candidate.symbol,
            score: candidate.score,
            snippet,
        });
    }
    if hits.len() < total {
        notes.push(format!(
            "{} more hits left out to fit the {budget}-token budget",
            total - hits.len()
        ));
    }
    hits
}
