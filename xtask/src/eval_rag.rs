//! `cargo xtask eval-rag`: the search index's quality on a real project — hit@1, hit@5 and
//! MRR of `use_rag_tool`'s ranking (files in the order their chunks come) beside a
//! whole-file BM25 baseline — and its build time and warm query latency.
//!
//! The question set (`eval/rag/*.json`) names the project, its pinned version and the files
//! answering each question. Without `--source DIR` the project's source distribution is
//! downloaded with `pip download --no-binary :all:` into `target/eval-rag/` and unpacked.
//! The index is written to a temporary directory, never into the source.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use keel_index::{IndexOptions, ProjectIndex, SearchRequest, WholeFileBaseline};
use serde_json::Value;

/// How deep rankings are compared (a miss scores 0 in MRR).
const DEPTH: usize = 20;

struct Question {
    text: String,
    files: Vec<String>,
}

fn load_set(path: &Path) -> Result<(Value, Vec<Question>)> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    let set: Value = serde_json::from_str(&text).with_context(|| format!("{}", path.display()))?;
    let mut questions = Vec::new();
    for q in set["questions"]
        .as_array()
        .context("no `questions` array")?
    {
        questions.push(Question {
            text: q["question"]
                .as_str()
                .context("question without text")?
                .to_owned(),
            files: q["files"]
                .as_array()
                .context("question without files")?
                .iter()
                .filter_map(|f| f.as_str().map(str::to_owned))
                .collect(),
        });
    }
    Ok((set, questions))
}

/// Downloads and unpacks the set's pinned source distribution; returns its directory.
fn download(set: &Value) -> Result<PathBuf> {
    let spec = set["pip"]
        .as_str()
        .context("the set names no `pip` spec; pass --source DIR")?;
    let project = set["project"].as_str().unwrap_or("project");
    let version = set["version"].as_str().unwrap_or("");
    let dir = crate::codegen::repo_root().join("target/eval-rag");
    let unpacked = dir.join(format!("{project}-{version}"));
    if unpacked.is_dir() {
        return Ok(unpacked);
    }
    std::fs::create_dir_all(&dir)?;
    let status = Command::new("pip")
        .args(["download", "--no-deps", "--no-binary", ":all:", spec, "-d"])
        .arg(&dir)
        .status()
        .context("running pip")?;
    if !status.success() {
        bail!("pip download {spec} failed");
    }
    let archive = dir.join(format!("{project}-{version}.tar.gz"));
    let status = Command::new("tar")
        .arg("xzf")
        .arg(&archive)
        .arg("-C")
        .arg(&dir)
        .status()
        .context("running tar")?;
    if !status.success() || !unpacked.is_dir() {
        bail!("unpacking {} failed", archive.display());
    }
    Ok(unpacked)
}

/// 1-based rank of the first expected file in `ranked`.
fn first_hit(ranked: &[String], expected: &[String]) -> Option<usize> {
    ranked
        .iter()
        .position(|p| expected.contains(p))
        .map(|i| i + 1)
}

#[derive(Default)]
struct Score {
    hit1: usize,
    hit5: usize,
    rr: f64,
}

impl Score {
    fn add(&mut self, rank: Option<usize>) {
        if let Some(rank) = rank {
            self.hit1 += usize::from(rank == 1);
            self.hit5 += usize::from(rank <= 5);
            self.rr += 1.0 / rank as f64;
        }
    }

    fn row(&self, name: &str, n: usize) -> String {
        let pct = |k: usize| 100.0 * k as f64 / n as f64;
        format!(
            "| {name} | {:.0} % ({}/{n}) | {:.0} % ({}/{n}) | {:.3} |",
            pct(self.hit1),
            self.hit1,
            pct(self.hit5),
            self.hit5,
            self.rr / n as f64
        )
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(at).copied().unwrap_or_default()
}

/// Runs the evaluation.
pub fn run(args: &[String]) -> Result<()> {
    let mut set_path = crate::codegen::repo_root().join("eval/rag/werkzeug-3.1.3.json");
    let mut source: Option<PathBuf> = None;
    let mut verbose = false;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--set" => set_path = PathBuf::from(it.next().context("--set needs a file")?),
            "--source" => source = Some(PathBuf::from(it.next().context("--source needs a dir")?)),
            "--verbose" => verbose = true,
            other => bail!("unknown argument `{other}`"),
        }
    }
    let (set, questions) = load_set(&set_path)?;
    let source = match source {
        Some(dir) => dir,
        None => download(&set)?,
    };
    let index_dir = tempfile_dir()?;
    let started = Instant::now();
    let mut index = ProjectIndex::open(
        &source,
        IndexOptions {
            index_dir: Some(index_dir.clone()),
            ..IndexOptions::default()
        },
    )?;
    let stats = index.refresh()?;
    let build = started.elapsed();
    let started = Instant::now();
    let baseline = WholeFileBaseline::build(&source, keel_index::DEFAULT_MAX_FILE_BYTES)?;
    let baseline_build = started.elapsed();

    let mut ours = Score::default();
    let mut theirs = Score::default();
    let mut latencies = Vec::new();
    for q in &questions {
        let request = SearchRequest {
            query: q.text.clone(),
            limit: 40,
            token_budget: 1_000_000,
        };
        let started = Instant::now();
        let outcome = index.search(&request)?;
        latencies.push(started.elapsed());
        let mut files: Vec<String> = Vec::new();
        for hit in &outcome.hits {
            if !files.contains(&hit.path) {
                files.push(hit.path.clone());
            }
        }
        files.truncate(DEPTH);
        let rank = first_hit(&files, &q.files);
        ours.add(rank);
        let base = baseline.search(&q.text, DEPTH)?;
        let base_rank = first_hit(&base, &q.files);
        theirs.add(base_rank);
        if verbose || rank.is_none_or(|r| r > 5) {
            println!(
                "{} rank {:?} (baseline {:?}): {}",
                if rank.is_some_and(|r| r <= 5) {
                    "  "
                } else {
                    "✗ "
                },
                rank,
                base_rank,
                q.text
            );
            if verbose || rank.is_none_or(|r| r > 5) {
                for f in files.iter().take(5) {
                    println!("      {f}");
                }
            }
        }
    }
    latencies.sort();
    let n = questions.len();
    println!();
    println!(
        "{} {} — {n} questions; index: {} files, {} chunks, built in {:.2} s (baseline {:.2} s); skipped {} binary, {} too large",
        set["project"].as_str().unwrap_or("?"),
        set["version"].as_str().unwrap_or("?"),
        stats.files,
        stats.chunks,
        build.as_secs_f64(),
        baseline_build.as_secs_f64(),
        stats.skipped_binary,
        stats.skipped_too_large,
    );
    println!();
    println!("| ranking | hit@1 | hit@5 | MRR |");
    println!("|---|---|---|---|");
    println!("{}", ours.row("use_rag_tool (chunks, lexical)", n));
    println!("{}", theirs.row("whole-file BM25 baseline", n));
    println!();
    println!(
        "warm query latency in-process: p50 {:.1} ms, p99 {:.1} ms",
        percentile(&latencies, 0.5).as_secs_f64() * 1000.0,
        percentile(&latencies, 0.99).as_secs_f64() * 1000.0
    );
    let _ = std::fs::remove_dir_all(&index_dir);
    Ok(())
}

fn tempfile_dir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("keel-eval-rag-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
