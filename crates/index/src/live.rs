//! [`LiveIndex`]: an index kept current in a running session by the repo map's watcher —
//! each debounced batch of changed files updates the map and then re-indexes those files
//! only, and a search first applies what the watcher has seen but not yet applied — so a
//! search sees a file written just before it and needs no walk of the root. Where the watcher cannot start (no inotify
//! watches left, an unsupported file system) each search refreshes by a walk instead.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use keel_repomap::{RepoMap, RepoWatcher};

use crate::error::IndexError;
use crate::project::{IndexStats, ProjectIndex};
use crate::search::{SearchOutcome, SearchRequest};

/// How long the file system must be quiet before a batch of changes is applied unasked (a
/// search applies what is pending at once).
pub const WATCH_DEBOUNCE: Duration = Duration::from_millis(100);

/// How the index was kept current for one search.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Currency {
    /// Whether the watcher keeps the index current (no walk was needed).
    pub watched: bool,
    /// What the watcher's batches applied since the last search (watched), or what this
    /// search's walk did (not watched).
    pub updates: Vec<IndexStats>,
    /// Files in the index.
    pub files: u64,
    /// Warnings: why the watcher is not running, from the updates, from opening.
    pub warnings: Vec<String>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// An index plus the repo map and watcher keeping it current; dropping it stops watching.
pub struct LiveIndex {
    index: Arc<Mutex<ProjectIndex>>,
    map: Arc<Mutex<RepoMap>>,
    /// The watcher's updates since the last search.
    pending: Arc<Mutex<Vec<IndexStats>>>,
    /// `Err(why)` when the watcher could not start.
    watcher: Result<RepoWatcher, String>,
    /// What opening did, reported with the first search.
    opened: Option<IndexStats>,
}

impl std::fmt::Debug for LiveIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveIndex")
            .field("watched", &self.watcher.is_ok())
            .finish_non_exhaustive()
    }
}

impl LiveIndex {
    /// Starts watching `index`'s root, then brings the map and the index up to date (a walk:
    /// changed files only) — in that order, so nothing edited meanwhile is missed.
    pub fn start(index: ProjectIndex, debounce: Duration) -> Result<Self, IndexError> {
        let map = Arc::new(Mutex::new(index.open_map()?));
        let index = Arc::new(Mutex::new(index));
        let pending: Arc<Mutex<Vec<IndexStats>>> = Arc::default();
        let watcher = {
            let index = index.clone();
            let pending = pending.clone();
            RepoWatcher::start_with_paths(
                map.clone(),
                debounce,
                move |map: &RepoMap, paths: &[PathBuf], _| {
                    // The index stays locked until the update is recorded, so a search sees
                    // either neither or both.
                    let mut index = lock(&index);
                    let stats = index
                        .update_paths(paths, map)
                        .unwrap_or_else(|e| IndexStats {
                            warnings: vec![format!("the index was not updated for a change: {e}")],
                            ..IndexStats::default()
                        });
                    if stats.indexed > 0 || stats.removed > 0 || !stats.warnings.is_empty() {
                        tracing::debug!(
                            indexed = stats.indexed,
                            removed = stats.removed,
                            ms = stats.duration_ms,
                            "search index updated by the watcher"
                        );
                        lock(&pending).push(stats);
                    }
                },
            )
            .map_err(|e| {
                format!("the file watcher could not start ({e}); each search walks the folder")
            })
        };
        let opened = {
            let mut map = lock(&map);
            map.refresh()?;
            let mut stats = lock(&index).refresh_using(&map)?;
            if let Err(e) = map.save() {
                stats
                    .warnings
                    .push(format!("repo map cache not saved: {e}"));
            }
            stats
        };
        Ok(LiveIndex {
            index,
            map,
            pending,
            watcher,
            opened: Some(opened),
        })
    }

    /// Whether the watcher keeps the index current.
    pub fn is_watched(&self) -> bool {
        self.watcher.is_ok()
    }

    /// Brings the index up to date (the watcher's pending changes, or a walk if nothing
    /// watches it), then answers `request`.
    pub fn search(
        &mut self,
        request: &SearchRequest,
    ) -> Result<(SearchOutcome, Currency), IndexError> {
        let mut currency = Currency {
            watched: self.watcher.is_ok(),
            ..Currency::default()
        };
        if let Some(opened) = self.opened.take() {
            currency.updates.push(opened);
        }
        // The index first: the watcher records its update while holding it.
        let index = match &self.watcher {
            Ok(watcher) => {
                // A file written just before the search is in it, debounce or not.
                watcher.flush();
                let index = lock(&self.index);
                currency.updates.append(&mut lock(&self.pending));
                index
            }
            Err(why) => {
                currency.warnings.push(why.clone());
                let mut map = lock(&self.map);
                map.refresh()?;
                let mut index = lock(&self.index);
                currency.updates.push(index.refresh_using(&map)?);
                index
            }
        };
        for update in &mut currency.updates {
            currency.warnings.append(&mut update.warnings);
        }
        currency.files = index.file_count() as u64;
        let outcome = index.search(request)?;
        Ok((outcome, currency))
    }
}
