//! The map engine: files and their tags, kept current by full refreshes (parallel, cached)
//! or targeted updates of changed paths, and rendered on request.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::cache::{self, CachedFile};
use crate::error::RepoMapError;
use crate::extract::extract;
use crate::language::Language;
use crate::rank::{Personalisation, rank};
use crate::render::{LineTokens, render};
use crate::scan::{PathFilter, ScannedFile, mtime_ns, relative, scan};
use crate::stats::BuildStats;
use crate::symbol::FileTags;
use crate::tokens;

/// Default token budget of a rendered map.
pub const DEFAULT_TOKEN_BUDGET: usize = 4096;
/// Files larger than this are skipped by default (generated code, bundles, data).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Files modified this close to the cache's writing are re-hashed rather than trusted.
const DOUBT_WINDOW_NS: u64 = 2_000_000_000;
/// How many leading bytes are checked for NUL to call a file binary.
const BINARY_SNIFF_BYTES: usize = 8000;

/// How the map is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapOptions {
    /// Files larger than this many bytes are skipped.
    pub max_file_bytes: u64,
    /// Whether to read and write the cache in `.keel/cache/` under the root.
    pub use_cache: bool,
}

impl Default for MapOptions {
    fn default() -> Self {
        Self {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            use_cache: true,
        }
    }
}

/// What to render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapRequest {
    /// Token budget of the text.
    pub token_budget: usize,
    /// Focused files (relative to the root, or absolute inside it): the ranking leans toward
    /// them and what they reference.
    pub focus: Vec<String>,
    /// Identifiers mentioned by the user: their definitions and the files defining them rise.
    pub mentions: Vec<String>,
}

impl Default for MapRequest {
    fn default() -> Self {
        Self {
            token_budget: DEFAULT_TOKEN_BUDGET,
            focus: Vec::new(),
            mentions: Vec::new(),
        }
    }
}

/// A file's place in the ranking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankedFile {
    /// Path relative to the root.
    pub path: String,
    /// PageRank (all files' ranks sum to 1).
    pub rank: f64,
}

/// A rendered map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RenderedMap {
    /// The text given to the model.
    pub text: String,
    /// Its token count (o200k); never above the request's budget.
    pub tokens: u64,
    /// Definitions shown.
    pub symbols_shown: u64,
    /// Files shown.
    pub files_shown: u64,
    /// Every file, best ranked first.
    pub files: Vec<RankedFile>,
}

#[derive(Debug, Clone)]
struct Entry {
    size: u64,
    mtime_ns: u64,
    hash: [u8; 32],
    tags: Arc<FileTags>,
}

/// The repository map of one root.
#[derive(Debug)]
pub struct RepoMap {
    root: PathBuf,
    options: MapOptions,
    entries: BTreeMap<String, Entry>,
    cache_written_ns: u64,
    files_dirty: bool,
    filter: PathFilter,
    lines: LineTokens,
    last_render: Mutex<Option<([u8; 32], RenderedMap)>>,
    render_dirty: Mutex<bool>,
}

/// Outcome of loading one file.
enum Loaded {
    Parsed(Entry),
    Unchanged(Entry),
    Skipped,
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// `stats`, logged at debug as `what`.
fn logged(what: &'static str, stats: BuildStats) -> BuildStats {
    tracing::debug!(
        files = stats.files,
        symbols = stats.symbols,
        parsed = stats.parsed,
        removed = stats.removed,
        duration_ms = stats.duration_ms,
        "{what}"
    );
    stats
}

/// Reads, hashes and (if its content changed) parses one file.
fn load_file(file: &ScannedFile, old: Option<Entry>) -> Loaded {
    let Some(language) = Language::from_path(&file.abs) else {
        return Loaded::Skipped;
    };
    let Ok(bytes) = std::fs::read(&file.abs) else {
        return Loaded::Skipped;
    };
    if bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
        return Loaded::Skipped;
    }
    let hash = *blake3::hash(&bytes).as_bytes();
    if let Some(old) = old
        && old.hash == hash
    {
        return Loaded::Unchanged(Entry {
            size: file.size,
            mtime_ns: file.mtime_ns,
            ..old
        });
    }
    match extract(language, &bytes) {
        Ok(tags) => Loaded::Parsed(Entry {
            size: file.size,
            mtime_ns: file.mtime_ns,
            hash,
            tags: Arc::new(tags),
        }),
        Err(e) => {
            tracing::warn!(path = %file.rel, "repo map skips an unparsable file: {e}");
            Loaded::Skipped
        }
    }
}

/// Compiles the tags queries of `languages` and builds the tokenizer, so that the first update
/// after a map was loaded from its cache does not pay for them (the watcher does this when it
/// starts).
pub fn warm_up(languages: &[Language]) {
    for language in languages {
        // A query that does not compile reports its error when a file is parsed.
        let _ = language.tags_query();
    }
    let _ = tokens::count("");
}

/// Parses one file outside any map: its tags, or `None` when its language is not supported
/// or it is binary.
pub fn parse_file(path: &Path) -> Result<Option<FileTags>, RepoMapError> {
    let Some(language) = Language::from_path(path) else {
        return Ok(None);
    };
    let bytes = std::fs::read(path).map_err(|source| RepoMapError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
        return Ok(None);
    }
    extract(language, &bytes).map(Some)
}

impl RepoMap {
    /// A map of the repository at `root`, loaded from its cache when there is one (nothing is
    /// scanned until [`RepoMap::refresh`]).
    pub fn open(root: impl AsRef<Path>, options: MapOptions) -> Result<Self, RepoMapError> {
        let root = root.as_ref();
        let root = root.canonicalize().map_err(|source| RepoMapError::Io {
            path: root.to_path_buf(),
            source,
        })?;
        if !root.is_dir() {
            return Err(RepoMapError::NotADirectory(root));
        }
        let mut map = RepoMap {
            root,
            options,
            entries: BTreeMap::new(),
            cache_written_ns: 0,
            files_dirty: false,
            filter: PathFilter::default(),
            lines: LineTokens::default(),
            last_render: Mutex::new(None),
            render_dirty: Mutex::new(false),
        };
        if map.options.use_cache
            && let Some(data) = cache::load(&cache::cache_path(&map.root))
        {
            map.cache_written_ns = data.written_ns;
            map.entries = data
                .files
                .into_iter()
                .map(|file| {
                    (
                        file.rel,
                        Entry {
                            size: file.size,
                            mtime_ns: file.mtime_ns,
                            hash: file.hash,
                            tags: Arc::new(file.tags),
                        },
                    )
                })
                .collect();
            if let Ok(mut last) = map.last_render.lock() {
                *last = data.render;
            }
        }
        Ok(map)
    }

    /// The (canonical) root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Files in the map with their tags, in path order.
    pub fn files(&self) -> impl Iterator<Item = (&str, &FileTags)> {
        self.entries.iter().map(|(rel, e)| (rel.as_str(), &*e.tags))
    }

    /// One file's tags, by path relative to the root.
    pub fn file(&self, rel: &str) -> Option<&FileTags> {
        self.entries.get(rel).map(|e| &*e.tags)
    }

    /// The languages of the files in the map.
    pub fn languages(&self) -> Vec<Language> {
        let mut languages: Vec<Language> = self.entries.values().map(|e| e.tags.language).collect();
        languages.sort_unstable();
        languages.dedup();
        languages
    }

    /// Every file's dependencies: the other files defining names it references (see
    /// [`crate::dependencies()`]).
    pub fn dependencies(&self) -> BTreeMap<String, Vec<String>> {
        crate::dependencies::dependencies(self.files())
    }

    /// Definitions in the map.
    pub fn symbol_count(&self) -> usize {
        self.entries.values().map(|e| e.tags.symbols.len()).sum()
    }

    fn stats(&self, started: Instant, parsed: usize, removed: usize) -> BuildStats {
        BuildStats {
            files: self.entries.len() as u64,
            symbols: self.symbol_count() as u64,
            tokens: 0,
            duration_ms: elapsed_ms(started),
            cached: parsed == 0,
            parsed: parsed as u64,
            removed: removed as u64,
        }
    }

    /// Loads `work` in parallel into the entries; returns how many files were parsed.
    fn load_all(&mut self, work: Vec<(ScannedFile, Option<Entry>)>) -> (usize, usize) {
        if work.is_empty() {
            return (0, 0);
        }
        if work.len() > 1 {
            // Building the tokenizer overlaps with parsing.
            tokens::warm_up();
        }
        let results: Vec<(String, Loaded)> = work
            .into_par_iter()
            .map(|(file, old)| {
                let loaded = load_file(&file, old);
                (file.rel, loaded)
            })
            .collect();
        let mut parsed = 0;
        let mut skipped = 0;
        for (rel, loaded) in results {
            match loaded {
                Loaded::Parsed(entry) => {
                    parsed += 1;
                    self.entries.insert(rel, entry);
                }
                Loaded::Unchanged(entry) => {
                    self.entries.insert(rel, entry);
                }
                Loaded::Skipped => {
                    if self.entries.remove(&rel).is_some() {
                        skipped += 1;
                    }
                }
            }
        }
        self.files_dirty = true;
        (parsed, skipped)
    }

    /// Brings the whole map up to date: walks the root (honouring `.gitignore`), re-parses
    /// files whose size or modification time changed (or whose content hash differs when
    /// those are in doubt), drops files that are gone. Parses in parallel.
    pub fn refresh(&mut self) -> Result<BuildStats, RepoMapError> {
        let started = Instant::now();
        let scanned = scan(&self.root, &self.root, self.options.max_file_bytes);
        let trusted_before = self.cache_written_ns.saturating_sub(DOUBT_WINDOW_NS);
        let mut previous = std::mem::take(&mut self.entries);
        let mut work = Vec::new();
        for file in scanned {
            match previous.remove(&file.rel) {
                Some(entry)
                    if entry.size == file.size
                        && entry.mtime_ns == file.mtime_ns
                        && file.mtime_ns < trusted_before =>
                {
                    self.entries.insert(file.rel, entry);
                }
                old => work.push((file, old)),
            }
        }
        let mut removed = previous.len();
        if removed > 0 {
            self.files_dirty = true;
        }
        let (parsed, skipped) = self.load_all(work);
        removed += skipped;
        Ok(logged(
            "repo map refreshed",
            self.stats(started, parsed, removed),
        ))
    }

    /// Updates only the given paths (absolute, or relative to the root): changed files are
    /// re-parsed if their content differs, new ones added, deleted or newly ignored ones
    /// dropped, directories scanned. A changed `.gitignore` triggers a full refresh.
    pub fn update_paths(&mut self, paths: &[PathBuf]) -> Result<BuildStats, RepoMapError> {
        let started = Instant::now();
        let mut work: Vec<(ScannedFile, Option<Entry>)> = Vec::new();
        let mut removed = 0;
        let mut seen: HashSet<String> = HashSet::new();
        for path in paths {
            let abs = if path.is_absolute() {
                path.clone()
            } else {
                self.root.join(path)
            };
            let Some(rel) = relative(&self.root, &abs) else {
                continue;
            };
            if !seen.insert(rel.clone()) {
                continue;
            }
            let name = abs.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name == ".gitignore" || name == ".ignore" {
                self.filter.clear();
                return self.refresh();
            }
            let Ok(metadata) = std::fs::metadata(&abs) else {
                removed += self.remove_under(&rel);
                continue;
            };
            if metadata.is_dir() {
                if self.filter.is_ignored(&self.root, &rel, true) {
                    removed += self.remove_under(&rel);
                    continue;
                }
                for file in scan(&self.root, &abs, self.options.max_file_bytes) {
                    if seen.insert(file.rel.clone()) {
                        let old = self.entries.get(&file.rel).cloned();
                        work.push((file, old));
                    }
                }
                continue;
            }
            if Language::from_path(&abs).is_none() {
                continue;
            }
            if metadata.len() > self.options.max_file_bytes
                || self.filter.is_ignored(&self.root, &rel, false)
            {
                removed += self.remove_under(&rel);
                continue;
            }
            let old = self.entries.get(&rel).cloned();
            work.push((
                ScannedFile {
                    rel,
                    abs,
                    size: metadata.len(),
                    mtime_ns: mtime_ns(&metadata),
                },
                old,
            ));
        }
        let (parsed, skipped) = self.load_all(work);
        Ok(logged(
            "repo map updated",
            self.stats(started, parsed, removed + skipped),
        ))
    }

    /// Drops `rel` and everything under it; returns how many files were dropped.
    fn remove_under(&mut self, rel: &str) -> usize {
        let prefix = format!("{rel}/");
        let before = self.entries.len();
        self.entries
            .retain(|path, _| path != rel && !path.starts_with(&prefix));
        let removed = before - self.entries.len();
        if removed > 0 {
            self.files_dirty = true;
        }
        removed
    }

    fn normalise_focus(&self, focus: &str) -> String {
        let path = Path::new(focus);
        if path.is_absolute() {
            let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
            relative(&self.root, &canonical).unwrap_or_else(|| focus.to_owned())
        } else {
            focus.trim_start_matches("./").replace('\\', "/")
        }
    }

    fn render_key(&self, request: &MapRequest, focus: &[String]) -> [u8; 32] {
        let mut hasher = blake3::Hasher::new();
        for (rel, entry) in &self.entries {
            hasher.update(rel.as_bytes());
            hasher.update(&[0]);
            hasher.update(&entry.hash);
        }
        hasher.update(&(request.token_budget as u64).to_le_bytes());
        let mut mentions = request.mentions.clone();
        mentions.sort();
        for item in focus.iter().chain([String::new()].iter()).chain(&mentions) {
            hasher.update(item.as_bytes());
            hasher.update(&[0]);
        }
        *hasher.finalize().as_bytes()
    }

    /// Every file's PageRank over the reference graph with no focus or mentions (the ranks
    /// sum to 1), in path order: what other consumers use as a prior.
    pub fn file_ranks(&self) -> Vec<RankedFile> {
        let files: Vec<(&str, &FileTags)> = self.files().collect();
        let ranking = rank(&files, &Personalisation::default());
        files
            .iter()
            .zip(&ranking.file_rank)
            .map(|((path, _), rank)| RankedFile {
                path: (*path).to_owned(),
                rank: *rank,
            })
            .collect()
    }

    /// Ranks the files and renders the map within the request's token budget. The result is
    /// remembered (and cached on [`RepoMap::save`]) for as long as nothing changes.
    pub fn render(&self, request: &MapRequest) -> RenderedMap {
        let mut focus: Vec<String> = request
            .focus
            .iter()
            .map(|f| self.normalise_focus(f))
            .collect();
        focus.sort();
        focus.dedup();
        let key = self.render_key(request, &focus);
        if let Ok(last) = self.last_render.lock()
            && let Some((last_key, map)) = last.as_ref()
            && *last_key == key
        {
            tracing::debug!("repo map render cache hit");
            return map.clone();
        }

        let files: Vec<(&str, &FileTags)> = self.files().collect();
        let focus_set: HashSet<&str> = focus.iter().map(String::as_str).collect();
        let personal = Personalisation {
            focus: files
                .iter()
                .enumerate()
                .filter(|(_, (rel, _))| focus_set.contains(rel))
                .map(|(i, _)| i)
                .collect(),
            mentions: request.mentions.iter().map(String::as_str).collect(),
        };
        let ranking = rank(&files, &personal);
        let rendered = render(&files, &ranking.symbols, request.token_budget, &self.lines);
        let mut ranked_files: Vec<RankedFile> = files
            .iter()
            .zip(&ranking.file_rank)
            .map(|((path, _), rank)| RankedFile {
                path: (*path).to_owned(),
                rank: *rank,
            })
            .collect();
        ranked_files.sort_by(|a, b| b.rank.total_cmp(&a.rank).then(a.path.cmp(&b.path)));
        let map = RenderedMap {
            text: rendered.text,
            tokens: rendered.tokens as u64,
            symbols_shown: rendered.symbols_shown as u64,
            files_shown: rendered.files_shown as u64,
            files: ranked_files,
        };
        if let Ok(mut last) = self.last_render.lock() {
            *last = Some((key, map.clone()));
        }
        if let Ok(mut dirty) = self.render_dirty.lock() {
            *dirty = true;
        }
        map
    }

    /// Writes the cache if anything changed since it was loaded or last written (a no-op
    /// when caching is off).
    pub fn save(&mut self) -> Result<(), RepoMapError> {
        let render_dirty = self.render_dirty.lock().map(|d| *d).unwrap_or(true);
        if !self.options.use_cache || !(self.files_dirty || render_dirty) {
            return Ok(());
        }
        let path = cache::cache_path(&self.root);
        let written_ns = now_ns();
        let files = self
            .entries
            .iter()
            .map(|(rel, e)| CachedFile {
                rel: rel.clone(),
                size: e.size,
                mtime_ns: e.mtime_ns,
                hash: e.hash,
                tags: &*e.tags,
            })
            .collect();
        let last = self.last_render.lock().ok();
        let render = last
            .as_ref()
            .and_then(|l| l.as_ref())
            .map(|(key, map)| (*key, map));
        cache::save(&path, written_ns, files, render)
            .map_err(|source| RepoMapError::Io { path, source })?;
        drop(last);
        self.cache_written_ns = written_ns;
        self.files_dirty = false;
        if let Ok(mut dirty) = self.render_dirty.lock() {
            *dirty = false;
        }
        Ok(())
    }

    /// Refreshes, renders and saves the cache in one go: what a turn's preparation does.
    /// The stats carry the rendered map's token count and the whole wall time.
    pub fn build(
        &mut self,
        request: &MapRequest,
    ) -> Result<(RenderedMap, BuildStats), RepoMapError> {
        let started = Instant::now();
        let mut stats = self.refresh()?;
        let map = self.render(request);
        self.save()?;
        stats.tokens = map.tokens;
        stats.duration_ms = elapsed_ms(started);
        Ok((map, stats))
    }
}
