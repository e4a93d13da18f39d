//! Keeping a map current from file-system events: a watcher on the root whose batches of
//! changed paths (gathered until the folder is quiet for the debounce, or on demand with
//! [`RepoWatcher::flush`]) are applied with [`RepoMap::update_paths`] and then handed to
//! whoever keeps something else current from the same changes (the search index).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use crate::error::RepoMapError;
use crate::map::{RepoMap, warm_up};
use crate::stats::BuildStats;

/// A batch waits at most this many debounces after its first event, so a folder that is
/// never quiet (a build writing files) still gets updated.
const MAX_DELAY_DEBOUNCES: u32 = 10;
/// How long [`RepoWatcher::flush`] waits for the worker before giving up.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(30);

/// What the worker thread is told.
enum Message {
    /// An event from the OS watcher.
    Event(notify::Result<Event>),
    /// Apply what is pending now, then answer.
    Flush(mpsc::SyncSender<()>),
}

/// A running watcher; dropping it stops watching.
pub struct RepoWatcher {
    watcher: Option<RecommendedWatcher>,
    sender: mpsc::Sender<Message>,
    worker: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for RepoWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RepoWatcher").finish_non_exhaustive()
    }
}

fn is_internal(path: &Path, root: &Path) -> bool {
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

/// The paths changed since the last batch, and when the first of them arrived.
#[derive(Default)]
struct Pending {
    paths: BTreeSet<PathBuf>,
    since: Option<Instant>,
    last: Option<Instant>,
}

impl Pending {
    fn add(&mut self, event: Event, root: &Path) {
        if !changes_content(&event.kind) {
            return;
        }
        let now = Instant::now();
        for path in event.paths {
            if !is_internal(&path, root) {
                self.paths.insert(path);
                self.since.get_or_insert(now);
                self.last = Some(now);
            }
        }
    }

    /// How long to wait for more events before applying the batch (`None`: nothing pending).
    fn wait(&self, debounce: Duration) -> Option<Duration> {
        let (since, last) = (self.since?, self.last?);
        let quiet = (last + debounce).saturating_duration_since(Instant::now());
        let cap =
            (since + debounce * MAX_DELAY_DEBOUNCES).saturating_duration_since(Instant::now());
        Some(quiet.min(cap))
    }

    fn take(&mut self) -> Vec<PathBuf> {
        self.since = None;
        self.last = None;
        std::mem::take(&mut self.paths).into_iter().collect()
    }
}

/// Applies one batch to the map, then hands it on.
fn apply(
    map: &Mutex<RepoMap>,
    paths: &[PathBuf],
    on_update: &mut impl FnMut(&RepoMap, &[PathBuf], &BuildStats),
) {
    if paths.is_empty() {
        return;
    }
    let mut map = match map.lock() {
        Ok(map) => map,
        Err(poisoned) => poisoned.into_inner(),
    };
    match map.update_paths(paths) {
        Ok(stats) => {
            if (stats.parsed > 0 || stats.removed > 0)
                && let Err(e) = map.save()
            {
                // A failed save only costs a re-parse next time.
                tracing::warn!("repo map cache not saved: {e}");
            }
            on_update(&map, paths, &stats);
        }
        Err(e) => tracing::warn!("repo map update failed: {e}"),
    }
}

/// The worker: gathers events into batches and applies each when the folder has been quiet
/// for `debounce`, or at once when flushed.
fn run(
    map: &Mutex<RepoMap>,
    root: &Path,
    debounce: Duration,
    receiver: &mpsc::Receiver<Message>,
    mut on_update: impl FnMut(&RepoMap, &[PathBuf], &BuildStats),
) {
    let mut pending = Pending::default();
    loop {
        let message = match pending.wait(debounce) {
            None => match receiver.recv() {
                Ok(message) => message,
                Err(_) => return,
            },
            Some(wait) => match receiver.recv_timeout(wait) {
                Ok(message) => message,
                Err(RecvTimeoutError::Timeout) => {
                    apply(map, &pending.take(), &mut on_update);
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => return,
            },
        };
        match message {
            Message::Event(Ok(event)) => pending.add(event, root),
            Message::Event(Err(e)) => tracing::warn!("repo map watcher: {e}"),
            Message::Flush(done) => {
                // Events already delivered belong to this flush too.
                while let Ok(message) = receiver.try_recv() {
                    match message {
                        Message::Event(Ok(event)) => pending.add(event, root),
                        Message::Event(Err(e)) => tracing::warn!("repo map watcher: {e}"),
                        Message::Flush(other) => {
                            let _ = other.send(());
                        }
                    }
                }
                apply(map, &pending.take(), &mut on_update);
                let _ = done.send(());
            }
        }
    }
}

impl RepoWatcher {
    /// Watches the map's root. After each batch of events (the folder quiet for `debounce`,
    /// at most ten debounces after the batch's first event), the changed paths are updated in
    /// the map, the cache is saved, and `on_update` is called with the update's figures.
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
        on_update: impl FnMut(&RepoMap, &[PathBuf], &BuildStats) + Send + 'static,
    ) -> Result<Self, RepoMapError> {
        let root = map.lock().map_or_else(
            |poisoned| poisoned.into_inner().root().to_path_buf(),
            |m| m.root().to_path_buf(),
        );
        let (sender, receiver) = mpsc::channel::<Message>();
        let events = sender.clone();
        let mut watcher = notify::recommended_watcher(move |event| {
            let _ = events.send(Message::Event(event));
        })?;
        watcher.watch(&root, RecursiveMode::Recursive)?;
        let worker_root = root.clone();
        let worker = std::thread::Builder::new()
            .name("keel-repomap-watch".into())
            .spawn(move || {
                let languages = match map.lock() {
                    Ok(map) => map.languages(),
                    Err(poisoned) => poisoned.into_inner().languages(),
                };
                warm_up(&languages);
                run(&map, &worker_root, debounce, &receiver, on_update);
            })
            .map_err(|source| RepoMapError::Io { path: root, source })?;
        Ok(RepoWatcher {
            watcher: Some(watcher),
            sender,
            worker: Some(worker),
        })
    }

    /// Applies the changes seen so far without waiting for the debounce, and returns once
    /// they are in the map (and handed on): what a search calls so that it sees a file
    /// written just before it. Must not be called while holding a lock `on_update` takes.
    pub fn flush(&self) {
        let (done, wait) = mpsc::sync_channel(1);
        if self.sender.send(Message::Flush(done)).is_ok() {
            let _ = wait.recv_timeout(FLUSH_TIMEOUT);
        }
    }
}

impl Drop for RepoWatcher {
    fn drop(&mut self) {
        // Dropping the OS watcher drops its sender; ours goes with `self`, ending the worker.
        drop(self.watcher.take());
        let (sender, _) = mpsc::channel();
        drop(std::mem::replace(&mut self.sender, sender));
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}
