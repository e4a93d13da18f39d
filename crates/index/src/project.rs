//! [`ProjectIndex`]: the index of one root in `.keel/index` — opened (or rebuilt when corrupt
//! or from another format, with a warning), refreshed by changed files only, and kept beside
//! a manifest of what each file was when indexed and the repo map's PageRank of each file.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use keel_repomap::{MapOptions, PathFilter, RepoMap};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use tantivy::schema::TantivyDocument;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, Term};

use crate::chunk::{Chunk, chunk_file};
use crate::embed::{EmbeddingSettings, VectorStore};
use crate::error::IndexError;
use crate::files::{self, DEFAULT_MAX_FILE_BYTES, FoundFile, SkipReason};
use crate::schema::{self, Fields};

/// Where the index lives, relative to the root.
pub const INDEX_DIR: &str = ".keel/index";
/// The on-disk format; an index written in another one is rebuilt.
const FORMAT_VERSION: u32 = 3;
/// Memory the writer may use per indexing thread.
const WRITER_MEMORY_PER_THREAD: usize = 32 * 1024 * 1024;
/// Updates of at most this many files use one writer thread.
const SMALL_UPDATE_FILES: usize = 16;
const MANIFEST: &str = "manifest.json";
const TANTIVY_DIR: &str = "tantivy";

/// How an index is built.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexOptions {
    /// Where the index lives (default: `.keel/index` under the root).
    pub index_dir: Option<PathBuf>,
    /// Files larger than this many bytes are skipped (and counted).
    pub max_file_bytes: u64,
    /// The embeddings endpoint for dense vectors, if any.
    pub embeddings: Option<EmbeddingSettings>,
}

impl Default for IndexOptions {
    fn default() -> Self {
        Self {
            index_dir: None,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            embeddings: None,
        }
    }
}

/// What a build or refresh did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IndexStats {
    /// Files in the index.
    pub files: u64,
    /// Chunks in the index.
    pub chunks: u64,
    /// Files (re)indexed by this run.
    pub indexed: u64,
    /// Files dropped because they disappeared or became skipped.
    pub removed: u64,
    /// Files skipped as binary.
    pub skipped_binary: u64,
    /// Files skipped as larger than the limit.
    pub skipped_too_large: u64,
    /// Files that could not be read.
    pub skipped_unreadable: u64,
    /// Chunks embedded by this run.
    pub embedded: u64,
    /// Whether the index was (re)built from nothing.
    pub rebuilt: bool,
    /// Wall time, in milliseconds.
    pub duration_ms: u64,
    /// Warnings: a rebuilt index, an unreachable embeddings endpoint, an unsaved cache.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct FileRecord {
    size: u64,
    mtime_ns: u64,
    hash: String,
    chunks: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct SkippedRecord {
    size: u64,
    mtime_ns: u64,
    reason: SkipReason,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Manifest {
    format: u32,
    files: BTreeMap<String, FileRecord>,
    skipped: BTreeMap<String, SkippedRecord>,
    /// The repo map's PageRank of each code file.
    pub(crate) ranks: BTreeMap<String, f64>,
}

/// A file read for indexing: its text and hash, or why it is skipped.
type Loaded = Result<(String, String), SkipReason>;

/// What a walk found changed since the manifest.
#[derive(Default)]
struct Changes {
    reindex: Vec<(FoundFile, String, String)>,
    remove: Vec<String>,
    skipped: Vec<(FoundFile, SkipReason)>,
    touched: Vec<FoundFile>,
}

impl Changes {
    fn is_empty(&self) -> bool {
        self.reindex.is_empty()
            && self.remove.is_empty()
            && self.skipped.is_empty()
            && self.touched.is_empty()
    }
}

/// Whether an update recomputes the repo map's PageRank of every file (a whole refresh) or
/// keeps the ranks it has (a watcher's few files: one edit barely moves the ranks, and the
/// whole-graph PageRank would cost more than the re-index; a new file takes the average
/// prior until the next whole refresh).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ranks {
    Recompute,
    Keep,
}

/// The search index of one root.
pub struct ProjectIndex {
    pub(crate) root: PathBuf,
    dir: PathBuf,
    pub(crate) options: IndexOptions,
    pub(crate) index: Index,
    pub(crate) reader: IndexReader,
    pub(crate) fields: Fields,
    pub(crate) manifest: Manifest,
    pub(crate) vectors: VectorStore,
    opened_warnings: Vec<String>,
    rebuilt: bool,
    /// `.gitignore` rules for single paths handed to [`ProjectIndex::update_paths`].
    filter: PathFilter,
}

impl std::fmt::Debug for ProjectIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProjectIndex")
            .field("root", &self.root)
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> IndexError + '_ {
    move |source| IndexError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Empties `dir` (which may not exist) and creates it.
fn wipe(dir: &Path) -> Result<(), IndexError> {
    match std::fs::remove_dir_all(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(dir)(e)),
    }
    std::fs::create_dir_all(dir).map_err(io(dir))
}

/// The manifest in `dir`: `Ok(None)` when there is none, `Err(warning)` when it is unusable.
fn load_manifest(dir: &Path) -> Result<Option<Manifest>, String> {
    let path = dir.join(MANIFEST);
    let text = match std::fs::read(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let manifest: Manifest = serde_json::from_slice(&text).map_err(|e| {
        format!(
            "the search index at {} is corrupt ({e}); rebuilding it",
            dir.display()
        )
    })?;
    if manifest.format != FORMAT_VERSION {
        return Err(format!(
            "the search index at {} has format {}, this keel writes {FORMAT_VERSION}; rebuilding it",
            dir.display(),
            manifest.format
        ));
    }
    Ok(Some(manifest))
}

impl ProjectIndex {
    /// Opens the index of `root`, creating it empty when there is none and rebuilding it
    /// (with a warning in the next [`IndexStats`]) when it is corrupt or from another format.
    /// Nothing is indexed until [`ProjectIndex::refresh`].
    pub fn open(root: impl AsRef<Path>, options: IndexOptions) -> Result<Self, IndexError> {
        let root = root.as_ref();
        let root = root.canonicalize().map_err(io(root))?;
        if !root.is_dir() {
            return Err(IndexError::NotADirectory(root));
        }
        let dir = options
            .index_dir
            .clone()
            .unwrap_or_else(|| root.join(INDEX_DIR));
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let tantivy_dir = dir.join(TANTIVY_DIR);
        let (schema, fields) = schema::schema();
        let mut warnings = Vec::new();
        let manifest = match load_manifest(&dir) {
            Ok(manifest) => manifest,
            Err(warning) => {
                warnings.push(warning);
                None
            }
        };
        let opened = match &manifest {
            Some(_) => match Index::open_in_dir(&tantivy_dir) {
                Ok(index) if index.schema() == schema => Some(index),
                Ok(_) => {
                    warnings.push(format!(
                        "the search index at {} has another schema; rebuilding it",
                        dir.display()
                    ));
                    None
                }
                Err(e) => {
                    warnings.push(format!(
                        "the search index at {} is corrupt ({e}); rebuilding it",
                        dir.display()
                    ));
                    None
                }
            },
            None => None,
        };
        let rebuilt = opened.is_none();
        let (index, manifest) = match (opened, manifest) {
            (Some(index), Some(manifest)) => (index, manifest),
            _ => {
                wipe(&dir)?;
                std::fs::create_dir_all(&tantivy_dir).map_err(io(&tantivy_dir))?;
                let index = Index::create_in_dir(&tantivy_dir, schema).map_err(|source| {
                    IndexError::Tantivy {
                        path: tantivy_dir.clone(),
                        source,
                    }
                })?;
                let manifest = Manifest {
                    format: FORMAT_VERSION,
                    ..Manifest::default()
                };
                (index, manifest)
            }
        };
        for warning in &warnings {
            tracing::warn!("{warning}");
        }
        schema::register(&index);
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(|source| IndexError::Tantivy {
                path: tantivy_dir.clone(),
                source,
            })?;
        let vectors = VectorStore::load(&dir, options.embeddings.as_ref(), &mut warnings);
        Ok(ProjectIndex {
            root,
            dir,
            options,
            index,
            reader,
            fields,
            manifest,
            vectors,
            opened_warnings: warnings,
            rebuilt,
            filter: PathFilter::default(),
        })
    }

    /// The (canonical) root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The index directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Files in the index.
    pub fn file_count(&self) -> usize {
        self.manifest.files.len()
    }

    /// Whether nothing has been indexed yet.
    pub fn is_empty(&self) -> bool {
        self.manifest.files.is_empty()
    }

    fn tantivy_error(&self, source: tantivy::TantivyError) -> IndexError {
        IndexError::Tantivy {
            path: self.dir.join(TANTIVY_DIR),
            source,
        }
    }

    /// Compares `found` with the manifest: what to re-index, drop, record as skipped.
    fn diff(&self, found: Vec<FoundFile>, all: bool) -> Changes {
        let mut changes = Changes::default();
        let mut seen: HashSet<String> = HashSet::new();
        let max = self.options.max_file_bytes;
        let read: Vec<(FoundFile, Option<Loaded>)> = found
            .into_par_iter()
            .map(|file| {
                let same = |size: u64, mtime: u64| size == file.size && mtime == file.mtime_ns;
                if let Some(record) = self.manifest.files.get(&file.rel)
                    && same(record.size, record.mtime_ns)
                {
                    return (file, None);
                }
                if let Some(record) = self.manifest.skipped.get(&file.rel)
                    && same(record.size, record.mtime_ns)
                {
                    return (file, None);
                }
                let loaded = files::read_text(&file, max).map(|text| {
                    let hash = blake3::hash(text.as_bytes()).to_hex().to_string();
                    (text, hash)
                });
                (file, Some(loaded))
            })
            .collect();
        for (file, loaded) in read {
            seen.insert(file.rel.clone());
            match loaded {
                None => {}
                Some(Ok((text, hash))) => {
                    if self
                        .manifest
                        .files
                        .get(&file.rel)
                        .is_some_and(|r| r.hash == hash)
                    {
                        changes.touched.push(file);
                    } else {
                        changes.reindex.push((file, text, hash));
                    }
                }
                Some(Err(reason)) => changes.skipped.push((file, reason)),
            }
        }
        if all {
            changes.remove = self
                .manifest
                .files
                .keys()
                .chain(self.manifest.skipped.keys())
                .filter(|rel| !seen.contains(*rel))
                .cloned()
                .collect();
        }
        changes
    }

    /// Brings the whole index up to date: walks the root, re-indexes changed files, drops
    /// deleted ones. Builds (and caches) the repo map only when something changed.
    pub fn refresh(&mut self) -> Result<IndexStats, IndexError> {
        self.refresh_reporting(&|_, _| {})
    }

    /// [`ProjectIndex::refresh`], calling `progress(done, total)` as files are indexed (for a
    /// progress bar on long runs).
    pub fn refresh_reporting(
        &mut self,
        progress: &dyn Fn(u64, u64),
    ) -> Result<IndexStats, IndexError> {
        let started = Instant::now();
        let found = files::walk(&self.root);
        let changes = self.diff(found, true);
        let mut stats = self.stats_base();
        if !changes.is_empty() {
            let mut map = self.open_map()?;
            map.refresh()?;
            if let Err(e) = map.save() {
                stats
                    .warnings
                    .push(format!("repo map cache not saved: {e}"));
            }
            self.apply(changes, &map, &mut stats, progress, Ranks::Recompute)?;
        }
        self.finish(stats, started)
    }

    /// The repo map of this index's root, opened from its cache (a map of a folder indexed
    /// elsewhere is not cached, leaving the folder untouched). Not yet refreshed.
    pub fn open_map(&self) -> Result<RepoMap, IndexError> {
        Ok(RepoMap::open(
            &self.root,
            MapOptions {
                max_file_bytes: self.options.max_file_bytes,
                use_cache: self.options.index_dir.is_none(),
            },
        )?)
    }

    /// [`ProjectIndex::refresh`] with `map` — already refreshed — for definitions and ranks:
    /// walks the root, re-indexes changed files, drops deleted ones.
    pub fn refresh_using(&mut self, map: &RepoMap) -> Result<IndexStats, IndexError> {
        let started = Instant::now();
        let found = files::walk(&self.root);
        let changes = self.diff(found, true);
        let mut stats = self.stats_base();
        if !changes.is_empty() {
            self.apply(changes, map, &mut stats, &|_, _| {}, Ranks::Recompute)?;
        }
        self.finish(stats, started)
    }

    /// Re-indexes only `paths` (absolute or relative to the root; deleted ones are dropped,
    /// directories are walked), using `map` — already updated for them — for definitions and
    /// ranks: what the repo map's watcher calls after each batch of changes.
    pub fn update_paths(
        &mut self,
        paths: &[PathBuf],
        map: &RepoMap,
    ) -> Result<IndexStats, IndexError> {
        let started = Instant::now();
        let mut found = Vec::new();
        let mut gone = Vec::new();
        for path in paths {
            let abs = if path.is_absolute() {
                path.clone()
            } else {
                self.root.join(path)
            };
            let Some(rel) = files::relative(&self.root, &abs) else {
                continue;
            };
            if files::is_internal(&rel) {
                continue;
            }
            let name = abs.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name == ".gitignore" || name == ".ignore" {
                // What is ignored changed: only a whole walk knows what that adds or drops.
                self.filter.clear();
                return self.refresh_using(map);
            }
            let metadata = std::fs::metadata(&abs);
            let is_dir = metadata.as_ref().is_ok_and(std::fs::Metadata::is_dir);
            if metadata.is_ok() && self.filter.is_ignored(&self.root, &rel, is_dir) {
                gone.extend(self.known_under(&rel));
                continue;
            }
            match metadata {
                Ok(metadata) if metadata.is_dir() => {
                    let prefix = format!("{rel}/");
                    found.extend(
                        files::walk(&self.root)
                            .into_iter()
                            .filter(|f| f.rel.starts_with(&prefix)),
                    );
                }
                Ok(metadata) => found.push(FoundFile {
                    rel,
                    abs,
                    size: metadata.len(),
                    mtime_ns: files::mtime_ns(&metadata),
                }),
                Err(_) => gone.extend(self.known_under(&rel)),
            }
        }
        let mut changes = self.diff(found, false);
        changes.remove = gone;
        let mut stats = self.stats_base();
        if !changes.is_empty() {
            self.apply(changes, map, &mut stats, &|_, _| {}, Ranks::Keep)?;
        }
        self.finish(stats, started)
    }

    /// The indexed or skipped files at `rel` or under it.
    fn known_under(&self, rel: &str) -> Vec<String> {
        let prefix = format!("{rel}/");
        self.manifest
            .files
            .keys()
            .chain(self.manifest.skipped.keys())
            .filter(|known| *known == rel || known.starts_with(&prefix))
            .cloned()
            .collect()
    }

    fn stats_base(&mut self) -> IndexStats {
        IndexStats {
            rebuilt: std::mem::take(&mut self.rebuilt),
            warnings: std::mem::take(&mut self.opened_warnings),
            ..IndexStats::default()
        }
    }

    fn finish(&self, mut stats: IndexStats, started: Instant) -> Result<IndexStats, IndexError> {
        stats.files = self.manifest.files.len() as u64;
        stats.chunks = self
            .manifest
            .files
            .values()
            .map(|r| u64::from(r.chunks))
            .sum();
        for record in self.manifest.skipped.values() {
            match record.reason {
                SkipReason::Binary => stats.skipped_binary += 1,
                SkipReason::TooLarge => stats.skipped_too_large += 1,
                SkipReason::Unreadable => stats.skipped_unreadable += 1,
            }
        }
        stats.duration_ms = elapsed_ms(started);
        Ok(stats)
    }

    /// Writes `changes` into the index and the manifest.
    fn apply(
        &mut self,
        changes: Changes,
        map: &RepoMap,
        stats: &mut IndexStats,
        progress: &dyn Fn(u64, u64),
        ranks: Ranks,
    ) -> Result<(), IndexError> {
        let chunked: Vec<(FoundFile, String, Vec<Chunk>, String)> = changes
            .reindex
            .into_par_iter()
            .map(|(file, text, hash)| {
                let chunks = chunk_file(&file.rel, &text, map.file(&file.rel));
                let whole = crate::filedoc::file_text(&file.rel, &text, &chunks);
                (file, hash, chunks, whole)
            })
            .collect();
        // A few files (the watcher's batch) are written by one thread with a small arena:
        // starting more costs more than they save.
        let threads = if chunked.len() <= SMALL_UPDATE_FILES {
            1
        } else {
            std::thread::available_parallelism()
                .map(usize::from)
                .unwrap_or(1)
                .clamp(1, 4)
        };
        let mut writer: IndexWriter<TantivyDocument> = self
            .index
            .writer_with_num_threads(threads, threads * WRITER_MEMORY_PER_THREAD)
            .map_err(|e| self.tantivy_error(e))?;
        let fields = self.fields;
        let path_term = |rel: &str| Term::from_field_text(fields.path, rel);
        for rel in &changes.remove {
            writer.delete_term(path_term(rel));
            if self.manifest.files.remove(rel).is_some() {
                stats.removed += 1;
            }
            self.manifest.skipped.remove(rel);
            self.vectors.forget(rel);
        }
        for (file, reason) in &changes.skipped {
            writer.delete_term(path_term(&file.rel));
            if self.manifest.files.remove(&file.rel).is_some() {
                stats.removed += 1;
            }
            self.vectors.forget(&file.rel);
            self.manifest.skipped.insert(
                file.rel.clone(),
                SkippedRecord {
                    size: file.size,
                    mtime_ns: file.mtime_ns,
                    reason: *reason,
                },
            );
        }
        for file in &changes.touched {
            if let Some(record) = self.manifest.files.get_mut(&file.rel) {
                record.size = file.size;
                record.mtime_ns = file.mtime_ns;
            }
        }
        let mut new_chunks: Vec<Chunk> = Vec::new();
        let total = chunked.len() as u64;
        for (file, hash, chunks, whole) in chunked {
            progress(stats.indexed, total);
            writer.delete_term(path_term(&file.rel));
            self.vectors.forget(&file.rel);
            for chunk in &chunks {
                let mut doc = TantivyDocument::default();
                doc.add_text(fields.path, &chunk.path);
                doc.add_text(fields.path_text, &chunk.path);
                doc.add_text(fields.symbol, &chunk.symbol);
                doc.add_text(fields.doc, &chunk.doc);
                doc.add_text(fields.body, &chunk.text);
                doc.add_u64(fields.start, u64::from(chunk.start_line));
                doc.add_u64(fields.end, u64::from(chunk.end_line));
                doc.add_text(fields.kind, chunk.kind.as_str());
                writer
                    .add_document(doc)
                    .map_err(|e| self.tantivy_error(e))?;
            }
            if let Some(doc) = crate::filedoc::document(&fields, &file.rel, &chunks, &whole) {
                writer
                    .add_document(doc)
                    .map_err(|e| self.tantivy_error(e))?;
            }
            self.manifest.skipped.remove(&file.rel);
            self.manifest.files.insert(
                file.rel.clone(),
                FileRecord {
                    size: file.size,
                    mtime_ns: file.mtime_ns,
                    hash,
                    chunks: chunks.len() as u32,
                },
            );
            stats.indexed += 1;
            new_chunks.extend(chunks);
        }
        writer.commit().map_err(|e| self.tantivy_error(e))?;
        drop(writer);
        self.reader.reload().map_err(|e| self.tantivy_error(e))?;
        if ranks == Ranks::Recompute {
            self.manifest.ranks = map
                .file_ranks()
                .into_iter()
                .map(|r| (r.path, r.rank))
                .collect();
        } else {
            for rel in &changes.remove {
                self.manifest.ranks.remove(rel);
            }
        }
        if let Some(settings) = self.options.embeddings.clone() {
            match self.vectors.embed_chunks(&settings, &new_chunks) {
                Ok(embedded) => stats.embedded = embedded,
                Err(e) => stats.warnings.push(format!(
                    "{e}; the index is lexical only until the endpoint answers"
                )),
            }
        }
        if let Err(e) = self.vectors.save(&self.dir) {
            stats.warnings.push(format!("vectors not saved: {e}"));
        }
        self.save_manifest()
    }

    fn save_manifest(&self) -> Result<(), IndexError> {
        let path = self.dir.join(MANIFEST);
        let tmp = self.dir.join(format!("{MANIFEST}.tmp"));
        let bytes = serde_json::to_vec(&self.manifest).map_err(|e| IndexError::Io {
            path: path.clone(),
            source: std::io::Error::other(e),
        })?;
        std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
        std::fs::rename(&tmp, &path).map_err(io(&path))
    }
}
