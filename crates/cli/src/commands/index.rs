//! `keel index` and `keel search`: build or refresh a folder's search index
//! (`.keel/index`), and search it by meaning from the command line.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use keel_index::{IndexOptions, ProjectIndex, RagConfig, SearchRequest, render_hits};
use serde::Serialize;

/// Files indexed before a progress bar is worth showing.
const PROGRESS_FROM: u64 = 200;

/// Flags of `keel index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// The folder to index.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Flags of `keel search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The folder whose index is searched (built or refreshed first).
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Chunks to print at most.
    #[arg(long, default_value_t = 8)]
    pub limit: usize,
    /// Tokens the printed results may take.
    #[arg(long, default_value_t = 4000)]
    pub tokens: usize,
    /// Print the hits as JSON.
    #[arg(long)]
    pub json: bool,
    /// What to find, in words.
    pub query: String,
}

/// Opens the index of `root` with the embeddings of its `keel.toml`.
fn open(root: &PathBuf, command: &str) -> Result<ProjectIndex, ExitCode> {
    let config = RagConfig::load(root).map_err(|e| {
        eprintln!("keel {command}: {e}");
        ExitCode::from(super::EXIT_USAGE)
    })?;
    let options = IndexOptions {
        embeddings: config.rag.embeddings(),
        ..IndexOptions::default()
    };
    ProjectIndex::open(root, options).map_err(|e| {
        eprintln!("keel {command}: {e}");
        ExitCode::from(super::EXIT_USAGE)
    })
}

/// Refreshes `index`, with a progress bar on a terminal for long runs; prints warnings.
fn refresh(
    index: &mut ProjectIndex,
    quiet: bool,
    command: &str,
) -> Result<keel_index::IndexStats, ExitCode> {
    let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("indexing {bar:30} {pos}/{len} files {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    let progress = |done: u64, total: u64| {
        if let Some(bar) = &bar
            && total >= PROGRESS_FROM
        {
            bar.set_length(total);
            bar.set_position(done);
        }
    };
    let stats = index.refresh_reporting(&progress);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let stats = stats.map_err(|e| {
        eprintln!("keel {command}: {e}");
        ExitCode::FAILURE
    })?;
    for warning in &stats.warnings {
        eprintln!("keel {command}: warning: {warning}");
    }
    Ok(stats)
}

#[derive(Serialize)]
struct IndexJson<'a> {
    root: String,
    index: String,
    #[serde(flatten)]
    stats: &'a keel_index::IndexStats,
}

/// Runs `keel index`.
pub fn run_index(args: IndexArgs) -> ExitCode {
    let mut index = match open(&args.root, "index") {
        Ok(index) => index,
        Err(code) => return code,
    };
    let stats = match refresh(&mut index, args.json, "index") {
        Ok(stats) => stats,
        Err(code) => return code,
    };
    if args.json {
        let json = IndexJson {
            root: index.root().display().to_string(),
            index: index.dir().display().to_string(),
            stats: &stats,
        };
        match serde_json::to_string_pretty(&json) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("keel index: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        println!(
            "{} files, {} chunks in {} ({} indexed, {} removed; skipped {} binary, {} too large, {} unreadable) in {} ms",
            stats.files,
            stats.chunks,
            index.dir().display(),
            stats.indexed,
            stats.removed,
            stats.skipped_binary,
            stats.skipped_too_large,
            stats.skipped_unreadable,
            stats.duration_ms
        );
    }
    ExitCode::SUCCESS
}

/// Runs `keel search`.
pub fn run_search(args: SearchArgs) -> ExitCode {
    let mut index = match open(&args.root, "search") {
        Ok(index) => index,
        Err(code) => return code,
    };
    if let Err(code) = refresh(&mut index, args.json, "search") {
        return code;
    }
    let request = SearchRequest {
        query: args.query,
        limit: args.limit.max(1),
        token_budget: args.tokens,
    };
    let outcome = match index.search(&request) {
        Ok(outcome) => outcome,
        Err(e) => {
            eprintln!("keel search: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.json {
        match serde_json::to_string_pretty(&outcome) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("keel search: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        print!("{}", render_hits(&outcome));
    }
    ExitCode::SUCCESS
}
