//! Dense vectors: an OpenAI-compatible `/v1/embeddings` client and the vectors of the
//! indexed chunks, stored beside the index (`vectors.bin`) and searched by cosine similarity.
//!
//! The client is blocking: call it off any async runtime's worker threads.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::chunk::Chunk;
use crate::error::IndexError;

const VECTORS: &str = "vectors.bin";
/// Chunks per request.
const BATCH: usize = 64;
/// Characters of a chunk sent to be embedded.
const MAX_INPUT_CHARS: usize = 2000;

/// Where dense vectors come from (`[rag] embeddings_base_url`, `embeddings_model`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddingSettings {
    /// The API base, e.g. `http://localhost:11434/v1`; `/embeddings` is appended.
    pub base_url: String,
    /// The embedding model.
    pub model: String,
    /// A bearer token, if the endpoint wants one.
    pub api_key: Option<String>,
}

/// A client of one embeddings endpoint.
#[derive(Debug, Clone)]
pub struct EmbeddingClient {
    settings: EmbeddingSettings,
    http: reqwest::blocking::Client,
}

#[derive(Serialize)]
struct EmbeddingRequest<'a> {
    model: &'a str,
    input: &'a [String],
}

#[derive(Deserialize)]
struct EmbeddingResponse {
    data: Vec<EmbeddingDatum>,
}

#[derive(Deserialize)]
struct EmbeddingDatum {
    embedding: Vec<f32>,
    #[serde(default)]
    index: Option<usize>,
}

impl EmbeddingClient {
    /// A client for `settings` (10 s time-out per request).
    pub fn new(settings: EmbeddingSettings) -> Result<Self, IndexError> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| IndexError::Embeddings {
                url: settings.base_url.clone(),
                message: e.to_string(),
            })?;
        Ok(Self { settings, http })
    }

    fn url(&self) -> String {
        format!(
            "{}/embeddings",
            self.settings.base_url.trim_end_matches('/')
        )
    }

    fn error(&self, message: impl Into<String>) -> IndexError {
        IndexError::Embeddings {
            url: self.url(),
            message: message.into(),
        }
    }

    /// One vector per input, in order.
    pub fn embed(&self, inputs: &[String]) -> Result<Vec<Vec<f32>>, IndexError> {
        let mut request = self.http.post(self.url()).json(&EmbeddingRequest {
            model: &self.settings.model,
            input: inputs,
        });
        if let Some(key) = &self.settings.api_key {
            request = request.bearer_auth(key);
        }
        let response = request.send().map_err(|e| self.error(e.to_string()))?;
        let status = response.status();
        if !status.is_success() {
            let body = response.text().unwrap_or_default();
            return Err(self.error(format!("HTTP {status}: {}", body.trim())));
        }
        let body: EmbeddingResponse = response
            .json()
            .map_err(|e| self.error(format!("unreadable answer: {e}")))?;
        if body.data.len() != inputs.len() {
            return Err(self.error(format!(
                "{} vectors for {} inputs",
                body.data.len(),
                inputs.len()
            )));
        }
        let mut data = body.data;
        if data.iter().all(|d| d.index.is_some()) {
            data.sort_by_key(|d| d.index);
        }
        Ok(data.into_iter().map(|d| normalised(d.embedding)).collect())
    }
}

fn normalised(mut vector: Vec<f32>) -> Vec<f32> {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in &mut vector {
            *x /= norm;
        }
    }
    vector
}

/// The text of `chunk` sent to be embedded.
fn embedding_input(chunk: &Chunk) -> String {
    let text = format!(
        "{}\n{}\n{}\n{}",
        chunk.path, chunk.symbol, chunk.doc, chunk.text
    );
    text.chars().take(MAX_INPUT_CHARS).collect()
}

/// One chunk's vector.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct StoredVector {
    pub(crate) start: u32,
    pub(crate) end: u32,
    pub(crate) vector: Vec<f32>,
}

/// The vectors of the indexed chunks, by file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct VectorStore {
    model: String,
    pub(crate) files: BTreeMap<String, Vec<StoredVector>>,
    #[serde(skip)]
    dirty: bool,
}

impl VectorStore {
    /// The stored vectors when they were made by `settings`' model; empty otherwise (a
    /// different model's vectors are dropped with a warning).
    pub(crate) fn load(
        dir: &Path,
        settings: Option<&EmbeddingSettings>,
        warnings: &mut Vec<String>,
    ) -> Self {
        let Some(settings) = settings else {
            return Self::default();
        };
        let empty = Self {
            model: settings.model.clone(),
            ..Self::default()
        };
        let Ok(bytes) = std::fs::read(dir.join(VECTORS)) else {
            return empty;
        };
        match postcard::from_bytes::<VectorStore>(&bytes) {
            Ok(store) if store.model == settings.model => store,
            Ok(store) => {
                warnings.push(format!(
                    "stored vectors were made by {}, not {}; re-embedding changed files only",
                    store.model, settings.model
                ));
                Self {
                    dirty: true,
                    ..empty
                }
            }
            Err(e) => {
                warnings.push(format!("stored vectors are unreadable ({e}); dropped"));
                Self {
                    dirty: true,
                    ..empty
                }
            }
        }
    }

    /// Whether any vectors are stored.
    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Drops `rel`'s vectors.
    pub(crate) fn forget(&mut self, rel: &str) {
        if self.files.remove(rel).is_some() {
            self.dirty = true;
        }
    }

    /// Embeds `chunks` and stores their vectors; returns how many.
    pub(crate) fn embed_chunks(
        &mut self,
        settings: &EmbeddingSettings,
        chunks: &[Chunk],
    ) -> Result<u64, IndexError> {
        if chunks.is_empty() {
            return Ok(0);
        }
        let client = EmbeddingClient::new(settings.clone())?;
        let mut embedded = 0;
        for batch in chunks.chunks(BATCH) {
            let inputs: Vec<String> = batch.iter().map(embedding_input).collect();
            let vectors = client.embed(&inputs)?;
            for (chunk, vector) in batch.iter().zip(vectors) {
                self.files
                    .entry(chunk.path.clone())
                    .or_default()
                    .push(StoredVector {
                        start: chunk.start_line,
                        end: chunk.end_line,
                        vector,
                    });
                embedded += 1;
            }
            self.dirty = true;
        }
        Ok(embedded)
    }

    /// The `limit` chunks nearest `query` (a normalised vector): path, start, end, similarity.
    pub(crate) fn nearest(&self, query: &[f32], limit: usize) -> Vec<(String, u32, u32, f32)> {
        let mut scored: Vec<(String, u32, u32, f32)> = self
            .files
            .iter()
            .flat_map(|(path, vectors)| {
                vectors
                    .iter()
                    .filter(|v| v.vector.len() == query.len())
                    .map(|v| {
                        let similarity = v.vector.iter().zip(query).map(|(a, b)| a * b).sum();
                        (path.clone(), v.start, v.end, similarity)
                    })
            })
            .collect();
        scored.sort_by(|a, b| b.3.total_cmp(&a.3));
        scored.truncate(limit);
        scored
    }

    /// Writes the vectors beside the index when they changed.
    pub(crate) fn save(&mut self, dir: &Path) -> Result<(), IndexError> {
        if !self.dirty {
            return Ok(());
        }
        let path = dir.join(VECTORS);
        let bytes = postcard::to_allocvec(self).map_err(|e| IndexError::Io {
            path: path.clone(),
            source: std::io::Error::other(e),
        })?;
        std::fs::write(&path, bytes).map_err(|source| IndexError::Io { path, source })?;
        self.dirty = false;
        Ok(())
    }
}
