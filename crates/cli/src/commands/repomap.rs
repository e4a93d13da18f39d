//! `keel repomap`: print the repository map of a directory.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use keel_repomap::{MapOptions, MapRequest, RepoMap, Symbol};
use serde::Serialize;

/// Flags of `keel repomap`.
#[derive(Debug, Args)]
pub struct RepomapArgs {
    /// Root of the repository to map.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Token budget of the map (o200k tokens).
    #[arg(long, default_value_t = keel_repomap::DEFAULT_TOKEN_BUDGET)]
    pub tokens: usize,
    /// A focused file, relative to the root (repeatable): the ranking leans toward it.
    #[arg(long)]
    pub focus: Vec<String>,
    /// An identifier mentioned by the user (repeatable): its definitions rise.
    #[arg(long)]
    pub mention: Vec<String>,
    /// Print JSON: every file with its rank and symbols, the map text, the build figures and
    /// each file's dependencies.
    #[arg(long)]
    pub json: bool,
    /// Neither read nor write the cache in `.keel/cache/`.
    #[arg(long)]
    pub no_cache: bool,
}

#[derive(Serialize)]
struct JsonFile<'a> {
    path: &'a str,
    rank: f64,
    language: &'static str,
    symbols: &'a [Symbol],
}

#[derive(Serialize)]
struct JsonOutput<'a> {
    root: String,
    tokens: u64,
    map: &'a str,
    stats: &'a keel_repomap::BuildStats,
    files: Vec<JsonFile<'a>>,
    /// Every mapped file → the files defining names it references.
    dependencies: BTreeMap<String, Vec<String>>,
}

/// Runs `keel repomap`.
pub fn run(args: RepomapArgs) -> ExitCode {
    let options = MapOptions {
        use_cache: !args.no_cache,
        ..MapOptions::default()
    };
    let mut map = match RepoMap::open(&args.root, options) {
        Ok(map) => map,
        Err(e) => {
            eprintln!("keel repomap: {e}");
            return ExitCode::from(super::EXIT_USAGE);
        }
    };
    let request = MapRequest {
        token_budget: args.tokens,
        focus: args.focus,
        mentions: args.mention,
    };
    let (rendered, stats) = match map.build(&request) {
        Ok(built) => built,
        Err(e) => {
            eprintln!("keel repomap: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.json {
        let files = rendered
            .files
            .iter()
            .filter_map(|ranked| {
                let tags = map.file(&ranked.path)?;
                Some(JsonFile {
                    path: &ranked.path,
                    rank: ranked.rank,
                    language: tags.language.name(),
                    symbols: &tags.symbols,
                })
            })
            .collect();
        let output = JsonOutput {
            root: map.root().display().to_string(),
            tokens: rendered.tokens,
            map: &rendered.text,
            stats: &stats,
            files,
            dependencies: map.dependencies(),
        };
        match serde_json::to_string_pretty(&output) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("keel repomap: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        print!("{}", rendered.text);
    }
    eprintln!(
        "repomap: {} files, {} symbols, {} tokens, {} ms, {} parsed{}",
        stats.files,
        stats.symbols,
        stats.tokens,
        stats.duration_ms,
        stats.parsed,
        if stats.cached { " (cached)" } else { "" }
    );
    ExitCode::SUCCESS
}
