//! `cargo xtask eval-rag`: the search index's quality on a real project — hit@1, hit@5 and
//! MRR of `use_rag_tool`'s ranking (files in the order their chunks come) beside whole-file
//! BM25 baselines (tantivy's default tokenizer and the index's code-aware one) — and its build
//! time and warm query latency (p50/p95, in-process).
//!
//! The question sets (`eval/rag/*.json`, see [`set`]) name the project, its pinned version,
//! where its sdist is downloaded and the archive's SHA-256; without `--source DIR` the sdist
//! is fetched into `target/eval-rag/`, checked and unpacked. The index is written to a
//! temporary directory, never into the source.

mod set;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use keel_index::{BaselineTokenizer, IndexOptions, ProjectIndex, SearchRequest, WholeFileBaseline};

use set::{Question, QuestionSet};

/// How deep rankings are compared (a miss scores 0 in MRR).
const DEPTH: usize = 20;
/// Timed passes over the questions after the warm-up pass.
const TIMED_PASSES: usize = 3;

/// 1-based rank of the first expected file in `ranked`.
fn first_hit(ranked: &[String], expected: &[String]) -> Option<usize> {
    ranked
        .iter()
        .position(|p| expected.contains(p))
        .map(|i| i + 1)
}

/// One ranking's results over a set.
#[derive(Default)]
struct Score {
    hit1: usize,
    hit5: usize,
    rr: f64,
    latencies: Vec<Duration>,
}

impl Score {
    fn add(&mut self, rank: Option<usize>) {
        if let Some(rank) = rank {
            self.hit1 += usize::from(rank == 1);
            self.hit5 += usize::from(rank <= 5);
            self.rr += 1.0 / rank as f64;
        }
    }

    fn row(&mut self, name: &str, n: usize) -> String {
        let pct = |k: usize| 100.0 * k as f64 / n as f64;
        self.latencies.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        format!(
            "| {name} | {:.0} % ({}/{n}) | {:.0} % ({}/{n}) | {:.3} | {:.1} / {:.1} ms |",
            pct(self.hit1),
            self.hit1,
            pct(self.hit5),
            self.hit5,
            self.rr / n as f64,
            ms(percentile(&self.latencies, 0.5)),
            ms(percentile(&self.latencies, 0.95)),
        )
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(at).copied().unwrap_or_default()
}

/// The distinct files of the index's ranking for `question`, best first.
fn ranked_files(index: &ProjectIndex, question: &str) -> Result<Vec<String>> {
    let request = SearchRequest {
        query: question.to_owned(),
        limit: 40,
        token_budget: 1_000_000,
    };
    let outcome = index.search(&request)?;
    let mut files: Vec<String> = Vec::new();
    for hit in outcome.hits {
        if !files.contains(&hit.path) {
            files.push(hit.path);
        }
    }
    files.truncate(DEPTH);
    Ok(files)
}

/// A ranking's score, each question's rank of its first answer, and the rankings.
type Measured = (Score, Vec<Option<usize>>, Vec<Vec<String>>);

/// Runs `rank` on every question once untimed, then [`TIMED_PASSES`] times timed; scores the
/// first pass's rankings.
fn measure(
    questions: &[Question],
    mut rank: impl FnMut(&str) -> Result<Vec<String>>,
) -> Result<Measured> {
    let mut score = Score::default();
    let mut ranks = Vec::new();
    let mut rankings = Vec::new();
    for q in questions {
        let files = rank(&q.text)?;
        let at = first_hit(&files, &q.files);
        score.add(at);
        ranks.push(at);
        rankings.push(files);
    }
    for _ in 0..TIMED_PASSES {
        for q in questions {
            let started = Instant::now();
            rank(&q.text)?;
            score.latencies.push(started.elapsed());
        }
    }
    Ok((score, ranks, rankings))
}

struct Args {
    set: PathBuf,
    source: Option<PathBuf>,
    verbose: bool,
}

fn parse_args(args: &[String]) -> Result<Args> {
    let mut parsed = Args {
        set: crate::codegen::repo_root().join("eval/rag/werkzeug-3.1.3.json"),
        source: None,
        verbose: false,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--set" => parsed.set = PathBuf::from(it.next().context("--set needs a file")?),
            "--source" => {
                parsed.source = Some(PathBuf::from(it.next().context("--source needs a dir")?));
            }
            "--verbose" => parsed.verbose = true,
            other => bail!("unknown argument `{other}`"),
        }
    }
    Ok(parsed)
}

fn open_index(source: &Path, index_dir: &Path) -> Result<(ProjectIndex, String)> {
    let started = Instant::now();
    let mut index = ProjectIndex::open(
        source,
        IndexOptions {
            index_dir: Some(index_dir.to_path_buf()),
            ..IndexOptions::default()
        },
    )?;
    let stats = index.refresh()?;
    let summary = format!(
        "index: {} files, {} chunks, built in {:.2} s; skipped {} binary, {} too large",
        stats.files,
        stats.chunks,
        started.elapsed().as_secs_f64(),
        stats.skipped_binary,
        stats.skipped_too_large,
    );
    Ok((index, summary))
}

/// Runs the evaluation.
pub fn run(args: &[String]) -> Result<()> {
    let args = parse_args(args)?;
    let set: QuestionSet = set::load(&args.set)?;
    let source = match args.source {
        Some(dir) => dir,
        None => set::fetch(&set)?,
    };
    let missing = set::missing_answers(&set, &source);
    if !missing.is_empty() {
        bail!(
            "answer files missing from {}: {missing:?}",
            source.display()
        );
    }
    let index_dir = tempfile_dir()?;
    let (index, summary) = open_index(&source, &index_dir)?;
    let max = keel_index::DEFAULT_MAX_FILE_BYTES;
    let plain = WholeFileBaseline::build_with(&source, max, BaselineTokenizer::Default)?;
    let code = WholeFileBaseline::build_with(&source, max, BaselineTokenizer::Code)?;

    let questions = &set.questions;
    let (mut ours, ranks, rankings) = measure(questions, |q| ranked_files(&index, q))?;
    let (mut theirs, base_ranks, _) = measure(questions, |q| Ok(plain.search(q, DEPTH)?))?;
    let (mut code_theirs, _, _) = measure(questions, |q| Ok(code.search(q, DEPTH)?))?;
    for (i, q) in questions.iter().enumerate() {
        let rank = ranks[i];
        let hit = rank.is_some_and(|r| r <= 5);
        if args.verbose || !hit {
            let mark = if hit { "  " } else { "✗ " };
            println!(
                "{mark}rank {rank:?} (baseline {:?}): {}",
                base_ranks[i], q.text
            );
            for f in rankings[i].iter().take(5) {
                println!("      {f}");
            }
        }
    }
    let n = questions.len();
    println!();
    println!(
        "{} {} ({}) — {n} questions; {summary}",
        set.project, set.version, set.role
    );
    println!();
    println!("| ranking | hit@1 | hit@5 | MRR | warm query p50 / p95 |");
    println!("|---|---|---|---|---|");
    println!("{}", ours.row("keel search (chunks → files, lexical)", n));
    println!("{}", theirs.row("whole-file BM25, default tokenizer", n));
    println!(
        "{}",
        code_theirs.row("whole-file BM25, code-aware tokenizer", n)
    );
    let _ = std::fs::remove_dir_all(&index_dir);
    Ok(())
}

fn tempfile_dir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("keel-eval-rag-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
