//! Keeping a map current from file-system events: a debounced watcher on the root whose
//! batches of changed paths are applied with [`RepoMap::update_paths`] and then handed to
//! whoever keeps something else current from the same changes (the search index).

use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

use crate::error::RepoMapError;
use crate::map::{RepoMap, warm_up};
use crate::stats::BuildStats;

/// A running watcher; dropping it stops watching.
pub struct RepoWatcher {
    debouncer: Option<Debouncer<notify::RecommendedWatcher, RecommendedCache>>,
    worker: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for RepoWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RepoWatcher").finish_non_exhaustive()
    }
}

fn is_internal(path: &std::path::Path, root: &std::path::Path) -> bool {
    path.strip_prefix(root)
        .ok()
        .and_then(|rel| rel.components().next())
        .is_some_and(|first| {
            let first = first.as_os_str();
            first == ".keel" || first == ".git"
        })
}

/// Whether an event can change what a file holds: not a read (opening, reading or closing a
/// file unwritten — the map's and the index's own reads would otherwise feed back as changes).
fn changes_content(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

impl RepoWatcher {
    /// Watches the map's root. After each debounced batch of events (quiet for `debounce`),
    /// the changed paths are updated in the map, the cache is saved, and `on_update` is
    /// called with the update's figures.
    pub fn start(
        map: Arc<Mutex<RepoMap>>,
        debounce: Duration,
        mut on_update: impl FnMut(&BuildStats) + Send + 'static,
    ) -> Result<Self, RepoMapError> {
        Self::start_with_paths(map, debounce, move |_, _, stats| on_update(stats))
    }

    /// [`RepoWatcher::start`], calling `on_update` with the updated map (still locked), the
    /// batch's changed paths (absolute; any file, not only the map's languages) and the
    /// update's figures — so another index can follow the same changes, changed files only.
    pub fn start_with_paths(
        map: Arc<Mutex<RepoMap>>,
        debounce: Duration,
        mut on_update: impl FnMut(&RepoMap, &[PathBuf], &BuildStats) + Send + 'static,
    ) -> Result<Self, RepoMapError> {
        let root = map.lock().map_or_else(
            |poisoned| poisoned.into_inner().root().to_path_buf(),
            |m| m.root().to_path_buf(),
        );
        let (sender, receiver) = mpsc::channel::<DebounceEventResult>();
        let mut debouncer = new_debouncer(debounce, None, sender)?;
        debouncer.watch(&root, RecursiveMode::Recursive)?;
        let worker_root = root.clone();
        let worker = std::thread::Builder::new()
            .name("keel-repomap-watch".into())
            .spawn(move || {
                let languages = match map.lock() {
                    Ok(map) => map.languages(),
                    Err(poisoned) => poisoned.into_inner().languages(),
                };
                warm_up(&languages);
                while let Ok(result) = receiver.recv() {
                    let events = match result {
                        Ok(events) => events,
                        Err(errors) => {
                            for e in errors {
                                tracing::warn!("repo map watcher: {e}");
                            }
                            continue;
                        }
                    };
                    let mut paths: Vec<PathBuf> = events
                        .into_iter()
                        .filter(|event| changes_content(&event.event.kind))
                        .flat_map(|event| event.event.paths)
                        .filter(|path| !is_internal(path, &worker_root))
                        .collect();
                    paths.sort();
                    paths.dedup();
                    if paths.is_empty() {
                        continue;
                    }
                    let mut map = match map.lock() {
                        Ok(map) => map,
                        Err(poisoned) => poisoned.into_inner(),
                    };
                    match map.update_paths(&paths) {
                        Ok(stats) => {
                            if (stats.parsed > 0 || stats.removed > 0)
                                && let Err(e) = map.save()
                            {
                                // A failed save only costs a re-parse next time.
                                tracing::warn!("repo map cache not saved: {e}");
                            }
                            on_update(&map, &paths, &stats);
                        }
                        Err(e) => tracing::warn!("repo map update failed: {e}"),
                    }
                }
            })
            .map_err(|source| RepoMapError::Io { path: root, source })?;
        Ok(RepoWatcher {
            debouncer: Some(debouncer),
            worker: Some(worker),
        })
    }
}

impl Drop for RepoWatcher {
    fn drop(&mut self) {
        if let Some(debouncer) = self.debouncer.take() {
            debouncer.stop();
        }
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}
