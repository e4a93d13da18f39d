//! A question set of `eval/rag/`: the project it is about (name, version, where its source
//! distribution is downloaded and the archive's SHA-256) and its questions, each with the
//! files that answer it. Only this description is committed; the sources are fetched when the
//! evaluation runs.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// One question and the files (relative to the unpacked sdist) that answer it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// The question, in a user's words.
    pub text: String,
    /// Any of these ranked high is a hit.
    pub files: Vec<String>,
}

/// A parsed question set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionSet {
    /// The project's name (`sympy`).
    pub project: String,
    /// Its pinned version.
    pub version: String,
    /// `development` (tuned on) or `held-out` (only reported).
    pub role: String,
    /// The `pip download` requirement, when there is one.
    pub pip: Option<String>,
    /// The sdist's URL, when there is one.
    pub url: Option<String>,
    /// The sdist archive's SHA-256 (lower-case hex), when known.
    pub sha256: Option<String>,
    /// The archive's file name.
    pub archive: String,
    /// The directory the archive unpacks to.
    pub unpacked: String,
    /// The questions.
    pub questions: Vec<Question>,
}

fn string(set: &Value, key: &str) -> Option<String> {
    set[key].as_str().map(str::to_owned)
}

/// Parses a set from its JSON text and checks its shape: questions with text and relative
/// answer paths, a 64-digit hex SHA-256.
pub fn parse(text: &str) -> Result<QuestionSet> {
    let set: Value = serde_json::from_str(text)?;
    let project = string(&set, "project").context("no `project`")?;
    let version = string(&set, "version").context("no `version`")?;
    let base = format!("{project}-{version}");
    let mut questions = Vec::new();
    for q in set["questions"]
        .as_array()
        .context("no `questions` array")?
    {
        let text = q["question"]
            .as_str()
            .filter(|t| !t.trim().is_empty())
            .context("question without text")?
            .to_owned();
        let files: Vec<String> = q["files"]
            .as_array()
            .context("question without files")?
            .iter()
            .filter_map(|f| f.as_str().map(str::to_owned))
            .collect();
        if files.is_empty() {
            bail!("no answer file for `{text}`");
        }
        if let Some(bad) = files
            .iter()
            .find(|f| f.starts_with('/') || f.contains("..") || f.contains('\\'))
        {
            bail!("answer `{bad}` of `{text}` is not a plain relative path");
        }
        questions.push(Question { text, files });
    }
    if questions.is_empty() {
        bail!("the set has no questions");
    }
    let sha256 = string(&set, "sha256");
    if let Some(sum) = &sha256
        && (sum.len() != 64 || !sum.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        bail!("`sha256` is not 64 hex digits");
    }
    Ok(QuestionSet {
        role: string(&set, "role").unwrap_or_else(|| "development".to_owned()),
        pip: string(&set, "pip"),
        url: string(&set, "url"),
        sha256: sha256.map(|s| s.to_ascii_lowercase()),
        archive: string(&set, "archive").unwrap_or_else(|| format!("{base}.tar.gz")),
        unpacked: string(&set, "unpacked").unwrap_or(base),
        project,
        version,
        questions,
    })
}

/// Reads and parses the set at `path`.
pub fn load(path: &Path) -> Result<QuestionSet> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    parse(&text).with_context(|| format!("{}", path.display()))
}

/// The lower-case hex SHA-256 of the file at `path`.
pub fn sha256_file(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
    let digest = Sha256::digest(&bytes);
    Ok(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// Where sdists are downloaded and unpacked.
pub fn cache_dir() -> PathBuf {
    crate::codegen::repo_root().join("target/eval-rag")
}

fn fetch_archive(set: &QuestionSet, dir: &Path, archive: &Path) -> Result<()> {
    if let Some(spec) = &set.pip {
        let status = Command::new("pip")
            .args(["download", "--no-deps", "--no-binary", ":all:", spec, "-d"])
            .arg(dir)
            .status();
        if status.is_ok_and(|s| s.success()) && archive.is_file() {
            return Ok(());
        }
        eprintln!("eval-rag: pip download {spec} failed; trying the URL");
    }
    let url = set
        .url
        .as_deref()
        .context("the set names no `pip` spec or `url`; pass --source DIR")?;
    let status = Command::new("curl")
        .args(["-fsSL", "-o"])
        .arg(archive)
        .arg(url)
        .status()
        .context("running curl")?;
    if !status.success() || !archive.is_file() {
        bail!("downloading {url} failed");
    }
    Ok(())
}

/// Downloads (once), checks and unpacks the set's sdist under [`cache_dir`]; returns the
/// unpacked directory.
pub fn fetch(set: &QuestionSet) -> Result<PathBuf> {
    let dir = cache_dir();
    let unpacked = dir.join(&set.unpacked);
    if unpacked.is_dir() {
        return Ok(unpacked);
    }
    std::fs::create_dir_all(&dir)?;
    let archive = dir.join(&set.archive);
    if !archive.is_file() {
        fetch_archive(set, &dir, &archive)?;
    }
    if let Some(expected) = &set.sha256 {
        let found = sha256_file(&archive)?;
        if &found != expected {
            bail!(
                "{}: SHA-256 {found}, the set expects {expected}",
                archive.display()
            );
        }
    }
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

/// Answer files of `set` missing under `root`.
pub fn missing_answers(set: &QuestionSet, root: &Path) -> Vec<String> {
    let mut missing: Vec<String> = set
        .questions
        .iter()
        .flat_map(|q| q.files.iter())
        .filter(|f| !root.join(f).is_file())
        .cloned()
        .collect();
    missing.dedup();
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sets() -> Vec<(PathBuf, QuestionSet)> {
        let dir = crate::codegen::repo_root().join("eval/rag");
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "json") {
                match load(&path) {
                    Ok(set) => out.push((path, set)),
                    Err(e) => panic!("{}: {e:#}", path.display()),
                }
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    #[test]
    fn every_committed_set_parses_names_its_sdist_and_has_distinct_questions() {
        let sets = sets();
        assert!(sets.len() >= 3, "werkzeug, sympy and django sets expected");
        for (path, set) in &sets {
            assert!(set.sha256.is_some(), "{}: no sha256", path.display());
            assert!(set.url.is_some() || set.pip.is_some(), "{}", path.display());
            let mut texts: Vec<&str> = set.questions.iter().map(|q| q.text.as_str()).collect();
            texts.sort_unstable();
            texts.dedup();
            assert_eq!(texts.len(), set.questions.len(), "{}", path.display());
        }
        let sized = |role: &str, n: usize| {
            sets.iter()
                .any(|(_, s)| s.role == role && s.questions.len() >= n)
        };
        assert!(sized("development", 40), "a large development set");
        assert!(sized("held-out", 30), "a held-out set, only reported");
    }

    /// Checks the answers against the sdists when they have been fetched (by an earlier
    /// `cargo xtask eval-rag`); offline and before the first run there is nothing to check.
    #[test]
    fn answer_files_exist_in_fetched_sdists() {
        for (path, set) in sets() {
            let root = cache_dir().join(&set.unpacked);
            if root.is_dir() {
                let missing = missing_answers(&set, &root);
                assert!(missing.is_empty(), "{}: {missing:?}", path.display());
            }
        }
    }

    #[test]
    fn a_malformed_set_is_refused() {
        assert!(parse(r#"{"project":"p","version":"1","questions":[]}"#).is_err());
        let absolute = r#"{"project":"p","version":"1","questions":[{"question":"q","files":["/etc/passwd"]}]}"#;
        assert!(parse(absolute).is_err());
        let short_sum = r#"{"project":"p","version":"1","sha256":"abc","questions":[{"question":"q","files":["a.py"]}]}"#;
        assert!(parse(short_sum).is_err());
        let good =
            r#"{"project":"p","version":"1","questions":[{"question":"q","files":["a.py"]}]}"#;
        let set = parse(good).map_err(|e| e.to_string());
        assert_eq!(set.map(|s| s.archive), Ok("p-1.tar.gz".to_owned()));
    }

    #[test]
    fn missing_answers_are_listed() {
        let dir = std::env::temp_dir().join(format!("keel-eval-set-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("pkg")).unwrap();
        std::fs::write(dir.join("pkg/a.py"), "x = 1\n").unwrap();
        let set = parse(
            r#"{"project":"p","version":"1","questions":[{"question":"q","files":["pkg/a.py","pkg/b.py"]}]}"#,
        )
        .unwrap();
        assert_eq!(missing_answers(&set, &dir), vec!["pkg/b.py".to_owned()]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
