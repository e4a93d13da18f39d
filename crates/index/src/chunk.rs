//! Cutting a file into the units search returns: for code, each definition the repo map found
//! with its leading doc comment (a long class or impl is cut into its header and its members;
//! code between definitions becomes module chunks); for Markdown, each section under a
//! heading; for other text, windows of lines.

use keel_repomap::{FileTags, Symbol};
use serde::{Deserialize, Serialize};

/// A definition longer than this many lines is split into its header and its members.
const MAX_DEFINITION_LINES: u32 = 150;
/// Windows of plain text, module code and long sections are this many lines.
const WINDOW_LINES: u32 = 60;
/// A module doc indexed as its first chunk's doc at most, in bytes.
const MAX_MODULE_DOC: usize = 2048;
/// Text indexed per chunk, in bytes (the rest of a huge chunk is not searchable).
const MAX_CHUNK_TEXT: usize = 24 * 1024;

/// What a chunk is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChunkKind {
    /// A definition (function, class, impl, …) with its doc comment.
    Definition,
    /// Code between definitions (imports, module-level statements).
    Module,
    /// A Markdown section.
    Section,
    /// A window of another text file.
    Text,
}

impl ChunkKind {
    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            ChunkKind::Definition => "definition",
            ChunkKind::Module => "module",
            ChunkKind::Section => "section",
            ChunkKind::Text => "text",
        }
    }

    /// The kind named `name`, as [`ChunkKind::as_str`] writes it.
    pub fn parse(name: &str) -> Option<Self> {
        [
            ChunkKind::Definition,
            ChunkKind::Module,
            ChunkKind::Section,
            ChunkKind::Text,
        ]
        .into_iter()
        .find(|k| k.as_str() == name)
    }
}

/// One searchable unit of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// Path relative to the root, `/`-separated.
    pub path: String,
    /// First line (1-based).
    pub start_line: u32,
    /// Last line (1-based, inclusive).
    pub end_line: u32,
    /// What it is.
    pub kind: ChunkKind,
    /// Names it defines, with the enclosing definition's (`Middleware process_view`), or a
    /// section's heading path.
    pub symbol: String,
    /// Its doc comment or docstring's first line.
    pub doc: String,
    /// The text of its lines (capped).
    pub text: String,
}

/// Whether a line (trimmed) continues a leading doc comment, attribute or decorator.
fn is_leading_comment(line: &str) -> bool {
    let t = line.trim_start();
    !t.is_empty()
        && (t.starts_with("//")
            || t.starts_with("/*")
            || t.starts_with('*')
            || t.starts_with('#')
            || t.starts_with('@'))
}

/// The text of lines `start..=end` (1-based), capped at [`MAX_CHUNK_TEXT`].
fn lines_text(lines: &[&str], start: u32, end: u32) -> String {
    let from = (start.max(1) - 1) as usize;
    let to = (end as usize).min(lines.len());
    let mut text = String::new();
    for line in lines.get(from..to).unwrap_or(&[]) {
        if text.len() + line.len() + 1 > MAX_CHUNK_TEXT {
            break;
        }
        text.push_str(line);
        text.push('\n');
    }
    text
}

fn blank(lines: &[&str], start: u32, end: u32) -> bool {
    let from = (start.max(1) - 1) as usize;
    let to = (end as usize).min(lines.len());
    lines
        .get(from..to)
        .is_none_or(|ls| ls.iter().all(|l| l.trim().is_empty()))
}

/// Cuts `path`'s `content` into chunks: by its repo-map `tags` when it has them, by headings
/// for Markdown, by windows otherwise.
pub fn chunk_file(path: &str, content: &str, tags: Option<&FileTags>) -> Vec<Chunk> {
    let lines: Vec<&str> = content.lines().collect();
    let is_markdown =
        path.ends_with(".md") || path.ends_with(".markdown") || path.ends_with(".rst");
    match tags {
        Some(tags) if !tags.symbols.is_empty() => code_chunks(path, &lines, &tags.symbols),
        _ if is_markdown => section_chunks(path, &lines),
        _ => windows(path, &lines, 1, lines.len() as u32, ChunkKind::Text, ""),
    }
}

/// Windows of [`WINDOW_LINES`] over `start..=end`, blank ones dropped.
fn windows(
    path: &str,
    lines: &[&str],
    start: u32,
    end: u32,
    kind: ChunkKind,
    symbol: &str,
) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut from = start.max(1);
    while from <= end {
        let to = (from + WINDOW_LINES - 1).min(end);
        if !blank(lines, from, to) {
            chunks.push(Chunk {
                path: path.to_owned(),
                start_line: from,
                end_line: to,
                kind,
                symbol: symbol.to_owned(),
                doc: String::new(),
                text: lines_text(lines, from, to),
            });
        }
        from = to + 1;
    }
    chunks
}

/// A symbol's first line extended upward over its doc comment and attributes, never above
/// `floor`; and the comment's text.
fn with_leading_comment(lines: &[&str], symbol: &Symbol, floor: u32) -> (u32, String) {
    let mut start = symbol.start_line;
    while start > floor + 1 {
        let above = lines.get((start - 2) as usize).copied().unwrap_or("");
        if is_leading_comment(above) {
            start -= 1;
        } else {
            break;
        }
    }
    let mut doc: Vec<String> = (start..symbol.start_line)
        .filter_map(|n| lines.get((n - 1) as usize))
        .map(|l| {
            l.trim()
                .trim_start_matches(['/', '*', '#', '!', ' '])
                .to_owned()
        })
        .filter(|l| !l.is_empty() && !l.starts_with('['))
        .collect();
    if let Some(first) = &symbol.doc
        && !doc.iter().any(|d| d == first)
    {
        doc.push(first.clone());
    }
    (start, doc.join(" "))
}

/// The text of a file's own doc — a Python module docstring or Rust `//!` lines at its top —
/// joined into one line, capped at [`MAX_MODULE_DOC`] bytes; empty when there is none.
fn module_doc(lines: &[&str]) -> String {
    let mut body = lines
        .iter()
        .map(|l| l.trim())
        .skip_while(|l| l.is_empty() || (l.starts_with('#') && !l.starts_with("#[")));
    let Some(first) = body.next() else {
        return String::new();
    };
    let mut words: Vec<&str> = Vec::new();
    if let Some(rest) = first.strip_prefix("//!") {
        words.push(rest);
        words.extend(body.map_while(|l| l.strip_prefix("//!")));
    } else {
        let opened = first.trim_start_matches(['r', 'R', 'u', 'U']);
        let Some(quote) = ["\"\"\"", "'''"]
            .into_iter()
            .find(|q| opened.starts_with(q))
        else {
            return String::new();
        };
        let rest = &opened[quote.len()..];
        match rest.find(quote) {
            Some(end) => words.push(&rest[..end]),
            None => {
                words.push(rest);
                for line in body {
                    match line.find(quote) {
                        Some(end) => {
                            words.push(&line[..end]);
                            break;
                        }
                        None => words.push(line),
                    }
                }
            }
        }
    }
    let mut doc = String::new();
    for word in words.iter().map(|w| w.trim()).filter(|w| !w.is_empty()) {
        if doc.len() + word.len() + 1 > MAX_MODULE_DOC {
            break;
        }
        if !doc.is_empty() {
            doc.push(' ');
        }
        doc.push_str(word);
    }
    doc
}

fn code_chunks(path: &str, lines: &[&str], symbols: &[Symbol]) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let total = lines.len() as u32;
    let top: Vec<usize> = (0..symbols.len())
        .filter(|&i| symbols[i].depth == 0)
        .collect();
    let mut covered_to = 0u32;
    for &i in &top {
        let symbol = &symbols[i];
        if symbol.start_line <= covered_to {
            continue;
        }
        let (start, _) = with_leading_comment(lines, symbol, covered_to);
        if start > covered_to + 1 {
            chunks.extend(windows(
                path,
                lines,
                covered_to + 1,
                start - 1,
                ChunkKind::Module,
                "",
            ));
        }
        definition_chunks(path, lines, symbols, i, "", covered_to, &mut chunks);
        covered_to = covered_to.max(symbol.end_line);
    }
    if covered_to < total {
        chunks.extend(windows(
            path,
            lines,
            covered_to + 1,
            total,
            ChunkKind::Module,
            "",
        ));
    }
    if let Some(first) = chunks.first_mut()
        && first.kind == ChunkKind::Module
        && first.start_line == 1
    {
        first.doc = module_doc(lines);
    }
    chunks
}

/// The chunks of symbol `i` (and its members when it is long).
fn definition_chunks(
    path: &str,
    lines: &[&str],
    symbols: &[Symbol],
    i: usize,
    parent: &str,
    floor: u32,
    out: &mut Vec<Chunk>,
) {
    let symbol = &symbols[i];
    let (start, doc) = with_leading_comment(lines, symbol, floor);
    let name = if parent.is_empty() {
        symbol.name.clone()
    } else {
        format!("{parent} {}", symbol.name)
    };
    let children: Vec<usize> = (i + 1..symbols.len())
        .take_while(|&j| {
            symbols[j].depth > symbol.depth && symbols[j].start_line <= symbol.end_line
        })
        .filter(|&j| symbols[j].depth == symbol.depth + 1)
        .collect();
    let long = symbol.end_line.saturating_sub(start) + 1 > MAX_DEFINITION_LINES;
    if !long || children.is_empty() {
        out.push(Chunk {
            path: path.to_owned(),
            start_line: start,
            end_line: symbol.end_line,
            kind: ChunkKind::Definition,
            symbol: name,
            doc,
            text: lines_text(lines, start, symbol.end_line),
        });
        return;
    }
    let first_child = symbols[children[0]].start_line;
    let (first_start, _) = with_leading_comment(lines, &symbols[children[0]], start);
    let header_end = first_start.min(first_child).saturating_sub(1).max(start);
    out.push(Chunk {
        path: path.to_owned(),
        start_line: start,
        end_line: header_end,
        kind: ChunkKind::Definition,
        symbol: name.clone(),
        doc,
        text: lines_text(lines, start, header_end),
    });
    let mut covered_to = header_end;
    for &j in &children {
        if symbols[j].start_line <= covered_to {
            continue;
        }
        definition_chunks(path, lines, symbols, j, &symbol.name, covered_to, out);
        covered_to = covered_to.max(symbols[j].end_line);
    }
}

/// Whether `line` opens or closes a fenced code block.
fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

fn section_chunks(path: &str, lines: &[&str]) -> Vec<Chunk> {
    let total = lines.len() as u32;
    let mut headings: Vec<(u32, usize, String)> = Vec::new();
    let mut in_fence = false;
    for (n, line) in lines.iter().enumerate() {
        if is_fence(line) {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let level = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&level) && line[level..].starts_with(' ') {
            headings.push((n as u32 + 1, level, line[level..].trim().to_owned()));
        } else if n > 0
            && !line.is_empty()
            && line.chars().all(|c| c == '=' || c == '-')
            && line.len() >= 3
            && !lines[n - 1].trim().is_empty()
        {
            // A setext (or reStructuredText) underline: the heading is the line above.
            let level = if line.starts_with('=') { 1 } else { 2 };
            headings.push((n as u32, level, lines[n - 1].trim().to_owned()));
        }
    }
    let mut chunks = Vec::new();
    if headings.first().is_none_or(|h| h.0 > 1) {
        let end = headings.first().map_or(total, |h| h.0 - 1);
        chunks.extend(windows(path, lines, 1, end, ChunkKind::Section, ""));
    }
    let mut trail: Vec<(usize, String)> = Vec::new();
    for (k, (line, level, title)) in headings.iter().enumerate() {
        trail.retain(|(l, _)| l < level);
        trail.push((*level, title.clone()));
        let end = headings.get(k + 1).map_or(total, |h| h.0 - 1);
        let heading_path = trail
            .iter()
            .map(|(_, t)| t.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        chunks.extend(windows(
            path,
            lines,
            *line,
            end.max(*line),
            ChunkKind::Section,
            &heading_path,
        ));
    }
    chunks
}
