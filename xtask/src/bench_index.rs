//! `cargo xtask bench-index DIR [--keel PATH]`: the search index's build time and peak memory
//! on a copy of DIR, cold and after one edit (a whole refresh; the watcher's path — the repo
//! map and the index updated for the one file — in its two parts; and in a running
//! `LiveIndex`, write → a search finding it), and query latency p50/p99 warm in one process and as
//! whole `keel search` processes.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use keel_index::{IndexOptions, LiveIndex, ProjectIndex, SearchRequest, WATCH_DEBOUNCE};
use keel_repomap::{MapOptions, RepoMap};

/// Queries timed (each several times).
const QUERIES: &[&str] = &[
    "where is a forged cross-site POST rejected?",
    "how are passwords hashed before they are stored?",
    "where is the request body parsed",
    "how does the file watcher keep the map current",
    "database connection pool",
    "render the template with a context",
    "retry with back-off after a failed request",
    "session cookie signing",
];

/// Edits timed through a [`LiveIndex`].
const LIVE_EDITS: usize = 11;

/// In a running session's [`LiveIndex`] over `index`: the median time from writing `edited`
/// (with a definition of a word found nowhere else) to a search finding it, searching at once
/// and again every 2 ms, over [`LIVE_EDITS`] edits. A search applies the watcher's pending
/// changes, so the debounce is not part of it; unasked, the watcher applies them after it.
fn live_edit(index: ProjectIndex, edited: &Path, addition: &[u8]) -> Result<Duration> {
    let original = std::fs::read(edited)?;
    let mut live = LiveIndex::start(index, WATCH_DEBOUNCE)?;
    if !live.is_watched() {
        bail!("the file watcher could not start");
    }
    let mut times = Vec::new();
    for n in 0..LIVE_EDITS {
        let word = format!("zanzibarquokka{n}");
        let mut text = original.clone();
        text.extend_from_slice(
            &String::from_utf8_lossy(addition)
                .replace("keel_bench_added", &word)
                .into_bytes(),
        );
        let request = SearchRequest::new(word.clone());
        std::fs::write(edited, &text)?;
        let started = Instant::now();
        loop {
            let (outcome, _) = live.search(&request)?;
            if outcome.hits.iter().any(|h| h.symbol.contains(&word)) {
                break;
            }
            if started.elapsed() > Duration::from_secs(30) {
                bail!("the edit never became searchable");
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        times.push(started.elapsed());
        // Let the watcher settle before the next edit.
        std::thread::sleep(WATCH_DEBOUNCE * 3);
    }
    std::fs::write(edited, &original)?;
    times.sort();
    Ok(times[times.len() / 2])
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(at).copied().unwrap_or_default()
}

fn peak_rss_mib() -> f64 {
    nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_SELF)
        .map(|u| u.max_rss() as f64 / 1024.0)
        .unwrap_or(0.0)
}

/// The first source file to edit: the largest `.py` or `.rs` file.
fn file_to_edit(root: &Path) -> Option<PathBuf> {
    let mut best: Option<(u64, PathBuf)> = None;
    for entry in ignore::Walk::new(root).flatten() {
        let path = entry.path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if ext == "py" || ext == "rs" {
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            if best.as_ref().is_none_or(|(s, _)| size > *s) && size < 200_000 {
                best = Some((size, path.to_path_buf()));
            }
        }
    }
    best.map(|(_, p)| p)
}

/// Runs the benchmark.
pub fn run(args: &[String]) -> Result<()> {
    let mut dir: Option<PathBuf> = None;
    let mut keel: Option<PathBuf> = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--keel" => keel = Some(PathBuf::from(it.next().context("--keel needs a path")?)),
            other => dir = Some(PathBuf::from(other)),
        }
    }
    let source = dir.context("usage: cargo xtask bench-index DIR [--keel PATH]")?;
    let copy = std::env::temp_dir().join(format!("keel-bench-index-{}", std::process::id()));
    let status = Command::new("cp")
        .arg("-r")
        .arg(&source)
        .arg(&copy)
        .status()?;
    if !status.success() {
        bail!("copying {} failed", source.display());
    }
    let _ = std::fs::remove_dir_all(copy.join(".keel"));

    let started = Instant::now();
    let mut index = ProjectIndex::open(&copy, IndexOptions::default())?;
    let stats = index.refresh()?;
    let cold = started.elapsed();
    let cold_rss = peak_rss_mib();

    let started = Instant::now();
    let mut index = ProjectIndex::open(&copy, IndexOptions::default())?;
    index.refresh()?;
    let warm = started.elapsed();

    let edited = file_to_edit(&copy).context("no .py or .rs file to edit")?;
    let original = std::fs::read(&edited)?;
    let mut text = original.clone();
    let addition: &[u8] = if edited.extension().is_some_and(|e| e == "rs") {
        b"\n\n/// Added by the benchmark.\npub fn keel_bench_added() -> u32 { 1 }\n"
    } else {
        b"\n\ndef keel_bench_added():\n    \"\"\"Added by the benchmark.\"\"\"\n    return 1\n"
    };
    text.extend_from_slice(addition);
    std::fs::write(&edited, &text)?;
    let started = Instant::now();
    let edit_stats = index.refresh()?;
    let edit_refresh = started.elapsed();

    // The watcher's path: the map is in memory; only the edited file is updated.
    let mut map = RepoMap::open(&copy, MapOptions::default())?;
    map.refresh()?;
    std::fs::write(&edited, &original)?;
    let started = Instant::now();
    map.update_paths(std::slice::from_ref(&edited))?;
    let map_part = started.elapsed();
    let one = index.update_paths(std::slice::from_ref(&edited), &map)?;
    let edit_watch = started.elapsed();
    let index_part = edit_watch - map_part;
    if one.indexed != 1 || edit_stats.indexed != 1 {
        bail!(
            "expected one re-indexed file, got {} and {}",
            edit_stats.indexed,
            one.indexed
        );
    }

    let live = live_edit(index, &edited, addition)?;
    let index = ProjectIndex::open(&copy, IndexOptions::default())?;

    let mut warm_latencies = Vec::new();
    for _ in 0..5 {
        for query in QUERIES {
            let started = Instant::now();
            index.search(&SearchRequest::new(*query))?;
            warm_latencies.push(started.elapsed());
        }
    }
    warm_latencies.sort();

    let mut process_latencies = Vec::new();
    let keel = keel.or_else(|| {
        let root = crate::codegen::repo_root();
        let target =
            std::env::var_os("CARGO_TARGET_DIR").map_or(root.join("target"), PathBuf::from);
        ["release", "debug"]
            .iter()
            .map(|p| target.join(p).join("keel"))
            .find(|p| p.is_file())
    });
    if let Some(keel) = &keel {
        for query in QUERIES.iter().cycle().take(20) {
            let started = Instant::now();
            let status = Command::new(keel)
                .args(["search", "--root"])
                .arg(&copy)
                .arg(query)
                .stdout(Stdio::null())
                .status()?;
            process_latencies.push(started.elapsed());
            if !status.success() {
                bail!("keel search failed");
            }
        }
        process_latencies.sort();
    }

    println!(
        "one edited file through the watcher's path: repo map {:.1} ms + index {:.1} ms; in a LiveIndex, write → a search finding it {:.0} ms, median of {} (unasked, the watcher applies an edit after its {} ms debounce)",
        ms(map_part),
        ms(index_part),
        ms(live),
        LIVE_EDITS,
        WATCH_DEBOUNCE.as_millis(),
    );
    println!(
        "| {} | {} files, {} chunks | {:.2} s, {:.0} MiB peak | {:.0} ms | {:.0} ms | {:.1} ms | {:.1} / {:.1} ms | {} |",
        source.display(),
        stats.files,
        stats.chunks,
        cold.as_secs_f64(),
        cold_rss,
        ms(warm),
        ms(edit_refresh),
        ms(edit_watch),
        ms(percentile(&warm_latencies, 0.5)),
        ms(percentile(&warm_latencies, 0.99)),
        match &keel {
            Some(k) => format!(
                "{:.0} / {:.0} ms ({})",
                ms(percentile(&process_latencies, 0.5)),
                ms(percentile(&process_latencies, 0.99)),
                k.display()
            ),
            None => "no keel binary".to_owned(),
        }
    );
    let _ = std::fs::remove_dir_all(&copy);
    Ok(())
}
