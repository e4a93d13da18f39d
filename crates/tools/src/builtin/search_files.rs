//! `search_files`: a regex search over the workspace with ripgrep's crates, in parallel.

use std::io;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use globset::{Glob, GlobMatcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::WalkState;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{thousands, workspace};
use crate::tool::{ToolContext, ToolResult, TypedTool};
use crate::walk::walker;

/// Lines of context shown before and after each match.
pub const CONTEXT_LINES: usize = 1;
/// Most matches shown.
pub const MAX_SHOWN_MATCHES: usize = 300;
/// Most bytes of output.
pub const MAX_OUTPUT_BYTES: usize = 64 * 1024;
/// The search stops after this many matches.
pub const MAX_COLLECTED_MATCHES: usize = 10_000;
/// Longest line shown (characters); longer lines are cut.
pub const MAX_LINE_CHARS: usize = 500;

/// Arguments of `search_files`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchFilesArgs {
    /// Folder (or file) to search, relative to the workspace root (`.` for everything).
    pub path: String,
    /// Regular expression (Rust regex syntax, like ripgrep) matched against each line.
    pub regex: String,
    /// Glob selecting which files to search, e.g. `*.rs` or `src/**/*.{ts,tsx}` (default: all).
    #[serde(default)]
    pub file_pattern: Option<String>,
}

/// Searches file contents.
#[derive(Debug, Clone, Copy, Default)]
pub struct SearchFiles;

#[async_trait]
impl TypedTool for SearchFiles {
    type Args = SearchFilesArgs;

    fn name(&self) -> &'static str {
        "search_files"
    }

    fn description(&self) -> &'static str {
        "Search the files under a path for a regular expression (ripgrep syntax), optionally only files matching file_pattern (a glob like *.rs). Returns `path:line:text` for each match with a line of context (`path-line-text`), skipping ignored and binary files. Output is capped; narrow the search if it says so."
    }

    fn brief(&self) -> Option<&'static str> {
        Some("Search file contents under path for a regex; shows each matching line.")
    }

    async fn run(&self, ctx: &ToolContext, args: SearchFilesArgs) -> ToolResult {
        let ws = match workspace(ctx) {
            Ok(ws) => ws,
            Err(result) => return result,
        };
        let start = match ws.resolve(&args.path) {
            Ok(path) => path,
            Err(e) => return ToolResult::error(format!("Cannot search `{}`: {e}", args.path)),
        };
        let rel = ws.relative(&start);
        if !start.exists() {
            return ToolResult::error(format!("Path does not exist: {rel}"));
        }
        let matcher = match RegexMatcherBuilder::new()
            .line_terminator(Some(b'\n'))
            .build(&args.regex)
        {
            Ok(matcher) => matcher,
            Err(e) => {
                return ToolResult::error(format!(
                    "Invalid regex `{}`: {e}. Use Rust regex syntax (like ripgrep); escape special characters such as ( [ . * with a backslash.",
                    args.regex
                ));
            }
        };
        // A file given as the path is searched whatever the pattern says; `*` and the regex
        // `.*` that models write for "every file" select every file.
        let pattern = args
            .file_pattern
            .as_deref()
            .map(str::trim)
            .filter(|_| !start.is_file());
        let glob = match pattern {
            None | Some("" | "*" | ".*" | "**" | "**/*") => None,
            Some(pattern) => match Glob::new(pattern) {
                Ok(glob) => Some(FilePattern {
                    matcher: glob.compile_matcher(),
                    whole_path: pattern.contains('/'),
                }),
                Err(e) => {
                    return ToolResult::error(format!("Invalid file_pattern `{pattern}`: {e}"));
                }
            },
        };
        let root = ws.root().to_path_buf();
        let found =
            tokio::task::spawn_blocking(move || search(&root, &start, &matcher, glob.as_ref()))
                .await;
        let found = match found {
            Ok(found) => found,
            Err(e) => return ToolResult::error(format!("Search failed: {e}")),
        };
        render(&found, &args.regex, &rel)
    }
}

/// Which files to search.
#[derive(Debug)]
pub struct FilePattern {
    matcher: GlobMatcher,
    /// Match the workspace-relative path rather than the file name.
    whole_path: bool,
}

impl FilePattern {
    fn selects(&self, rel: &Path) -> bool {
        if self.whole_path {
            self.matcher.is_match(rel)
        } else {
            rel.file_name()
                .is_some_and(|name| self.matcher.is_match(name))
        }
    }
}

/// Matches (and context) found in one file.
#[derive(Debug, Default)]
pub struct FileHits {
    /// Workspace-relative path.
    pub path: String,
    /// Lines in order: `(is_match, formatted line)`; `--` marks a gap between groups.
    pub lines: Vec<(bool, String)>,
    /// Matching lines in the file.
    pub matches: usize,
}

/// Everything a search found.
#[derive(Debug, Default)]
pub struct Found {
    /// Files with matches, sorted by path.
    pub files: Vec<FileHits>,
    /// Matching lines in all files.
    pub matches: usize,
    /// Whether the search stopped at [`MAX_COLLECTED_MATCHES`].
    pub stopped: bool,
}

struct Collect<'a> {
    hits: FileHits,
    /// Workspace-relative path, turned into display text at the first line kept.
    rel: &'a Path,
}

impl Collect<'_> {
    fn push(&mut self, is_match: bool, sep: char, n: u64, line: &[u8]) {
        if self.hits.path.is_empty() {
            self.hits.path = self.rel.to_string_lossy().replace('\\', "/");
        }
        let text = format!("{}{sep}{n}{sep}{}", self.hits.path, shown_line(line));
        self.hits.lines.push((is_match, text));
    }
}

fn shown_line(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let text = String::from_utf8_lossy(bytes);
    if text.chars().count() > MAX_LINE_CHARS {
        let cut: String = text.chars().take(MAX_LINE_CHARS).collect();
        format!("{cut}…")
    } else {
        text.into_owned()
    }
}

impl Sink for Collect<'_> {
    type Error = io::Error;

    fn matched(&mut self, _searcher: &Searcher, m: &SinkMatch<'_>) -> Result<bool, io::Error> {
        let first = m.line_number().unwrap_or(0);
        for (i, line) in m.lines().enumerate() {
            self.push(true, ':', first + i as u64, line);
            self.hits.matches += 1;
        }
        Ok(true)
    }

    fn context(&mut self, _searcher: &Searcher, c: &SinkContext<'_>) -> Result<bool, io::Error> {
        self.push(false, '-', c.line_number().unwrap_or(0), c.bytes());
        Ok(true)
    }

    fn context_break(&mut self, _searcher: &Searcher) -> Result<bool, io::Error> {
        self.hits.lines.push((false, "--".to_owned()));
        Ok(true)
    }
}

/// Searches every file under `start` (inside `root`) in parallel.
pub fn search(
    root: &Path,
    start: &Path,
    matcher: &RegexMatcher,
    glob: Option<&FilePattern>,
) -> Found {
    let results: Mutex<Vec<FileHits>> = Mutex::new(Vec::new());
    let total = AtomicUsize::new(0);
    walker(start).build_parallel().run(|| {
        let mut searcher = SearcherBuilder::new()
            .line_number(true)
            .before_context(CONTEXT_LINES)
            .after_context(CONTEXT_LINES)
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .build();
        let results = &results;
        let total = &total;
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
            if glob.is_some_and(|g| !g.selects(rel)) {
                return WalkState::Continue;
            }
            let mut sink = Collect {
                hits: FileHits::default(),
                rel,
            };
            if searcher
                .search_path(matcher, entry.path(), &mut sink)
                .is_err()
            {
                return WalkState::Continue;
            }
            if sink.hits.matches == 0 {
                return WalkState::Continue;
            }
            let so_far = total.fetch_add(sink.hits.matches, Ordering::Relaxed) + sink.hits.matches;
            results
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(sink.hits);
            if so_far >= MAX_COLLECTED_MATCHES {
                WalkState::Quit
            } else {
                WalkState::Continue
            }
        })
    });
    let mut files = results.into_inner().unwrap_or_else(|p| p.into_inner());
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let matches = total.into_inner();
    Found {
        files,
        matches,
        stopped: matches >= MAX_COLLECTED_MATCHES,
    }
}

/// The tool result for a search: capped `path:line:text` output and a message saying how much.
pub fn render(found: &Found, regex: &str, rel: &str) -> ToolResult {
    if found.matches == 0 {
        return ToolResult::ok(format!("No matches for `{regex}` in `{rel}`."));
    }
    let mut out = String::new();
    let mut shown = 0usize;
    let mut capped = false;
    'files: for (i, file) in found.files.iter().enumerate() {
        if i > 0 {
            out.push_str("--\n");
        }
        for (is_match, line) in &file.lines {
            if *is_match
                && (shown == MAX_SHOWN_MATCHES || out.len() + line.len() + 1 > MAX_OUTPUT_BYTES)
            {
                capped = true;
                break 'files;
            }
            if out.len() + line.len() + 1 > MAX_OUTPUT_BYTES {
                capped = true;
                break 'files;
            }
            out.push_str(line);
            out.push('\n');
            if *is_match {
                shown += 1;
            }
        }
    }
    let files = found.files.len();
    let file_word = if files == 1 { "file" } else { "files" };
    let mut message = if found.stopped {
        format!(
            "Found at least {} matches in {} {file_word} for `{regex}` in `{rel}` (the search stopped there)",
            thousands(found.matches),
            thousands(files)
        )
    } else {
        format!(
            "Found {} matches in {} {file_word} for `{regex}` in `{rel}`",
            thousands(found.matches),
            thousands(files)
        )
    };
    if capped || found.stopped {
        message.push_str(&format!(
            "; showing the first {} (output is capped at {MAX_SHOWN_MATCHES} matches / {} KiB). Narrow the regex, path or file_pattern to see the rest.",
            thousands(shown),
            MAX_OUTPUT_BYTES / 1024
        ));
    } else {
        message.push('.');
    }
    ToolResult::ok_with(message, out)
}
