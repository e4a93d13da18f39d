//! Rendering ranked definitions as text that fits a token budget: grouped by file, each
//! definition with its line range, enclosing definitions shown for context, and `⋮` where
//! definitions were left out.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::sync::Mutex;

use crate::symbol::{FileTags, Symbol};
use crate::tokens;

/// The marker for left-out definitions.
pub const ELISION: &str = "⋮";

/// Memoised token counts of rendered lines (a line's text does not depend on its rank).
#[derive(Debug, Default)]
pub struct LineTokens {
    counts: Mutex<HashMap<String, u32>>,
}

impl LineTokens {
    fn count(&self, line: &str) -> usize {
        if let Ok(counts) = self.counts.lock()
            && let Some(&count) = counts.get(line)
        {
            return count as usize;
        }
        let count = tokens::count(line);
        if let Ok(mut counts) = self.counts.lock() {
            counts.insert(line.to_owned(), u32::try_from(count).unwrap_or(u32::MAX));
        }
        count
    }
}

/// One line for a definition, with its line range, indented by nesting.
pub fn symbol_line(symbol: &Symbol) -> String {
    let mut line = String::with_capacity(symbol.signature.len() + 16);
    for _ in 0..=symbol.depth {
        line.push_str("  ");
    }
    if symbol.end_line > symbol.start_line {
        let _ = write!(line, "{}-{}: ", symbol.start_line, symbol.end_line);
    } else {
        let _ = write!(line, "{}: ", symbol.start_line);
    }
    line.push_str(&symbol.signature);
    if let Some(doc) = &symbol.doc {
        line.push_str(" — ");
        line.push_str(doc);
    }
    line.push('\n');
    line
}

/// The rendered map.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// The text.
    pub text: String,
    /// Its exact token count.
    pub tokens: usize,
    /// Definitions shown (including enclosing ones added for context).
    pub symbols_shown: usize,
    /// Files shown.
    pub files_shown: usize,
}

/// Index of the nearest enclosing definition of each symbol.
fn parents(symbols: &[Symbol]) -> Vec<Option<usize>> {
    let mut stack: Vec<usize> = Vec::new();
    let mut parents = Vec::with_capacity(symbols.len());
    for (index, symbol) in symbols.iter().enumerate() {
        while let Some(&top) = stack.last() {
            if symbols[top].depth >= symbol.depth {
                stack.pop();
            } else {
                break;
            }
        }
        parents.push(stack.last().copied());
        stack.push(index);
    }
    parents
}

struct Layout<'a> {
    files: &'a [(&'a str, &'a FileTags)],
    ranked: &'a [(usize, usize)],
    parents: HashMap<usize, Vec<Option<usize>>>,
    lines: &'a LineTokens,
}

impl Layout<'_> {
    /// The first `n` ranked definitions (plus their enclosing ones), grouped by file in
    /// order of each file's best definition.
    fn select(&mut self, n: usize) -> Vec<(usize, BTreeSet<usize>)> {
        let mut order: Vec<usize> = Vec::new();
        let mut chosen: HashMap<usize, BTreeSet<usize>> = HashMap::new();
        for &(file, index) in &self.ranked[..n] {
            let set = chosen.entry(file).or_insert_with(|| {
                order.push(file);
                BTreeSet::new()
            });
            let symbols = &self.files[file].1.symbols;
            let parents = self.parents.entry(file).or_insert_with(|| parents(symbols));
            let mut current = Some(index);
            while let Some(i) = current {
                if !set.insert(i) {
                    break;
                }
                current = parents.get(i).copied().flatten();
            }
        }
        order
            .into_iter()
            .map(|file| (file, chosen.remove(&file).unwrap_or_default()))
            .collect()
    }

    /// Renders a selection; returns the text and the sum of its lines' token counts.
    fn render(&self, selection: &[(usize, BTreeSet<usize>)]) -> (String, usize, usize) {
        let mut text = String::new();
        let mut estimate = 0;
        let mut shown = 0;
        let elision = format!("{ELISION}\n");
        let elision_tokens = self.lines.count(&elision);
        for (file, chosen) in selection {
            let (path, tags) = self.files[*file];
            let header = format!("{path}:\n");
            estimate += self.lines.count(&header);
            text.push_str(&header);
            let mut next_expected = 0;
            for &index in chosen {
                if index != next_expected {
                    text.push_str(&elision);
                    estimate += elision_tokens;
                }
                let line = symbol_line(&tags.symbols[index]);
                estimate += self.lines.count(&line);
                text.push_str(&line);
                next_expected = index + 1;
                shown += 1;
            }
            if next_expected < tags.symbols.len() {
                text.push_str(&elision);
                estimate += elision_tokens;
            }
        }
        (text, estimate, shown)
    }
}

/// Whether definitions lie strictly between `before` and `after` (`None`: the file's start or
/// end) in a file of `len` definitions, i.e. whether an elision marker goes there.
fn gap(before: Option<usize>, after: Option<usize>, len: usize) -> bool {
    match (before, after) {
        (None, None) => len > 0,
        (None, Some(b)) => b > 0,
        (Some(a), None) => a + 1 < len,
        (Some(a), Some(b)) => b > a + 1,
    }
}

/// How many of the ranked definitions fit in `budget` by the per-line estimate: adds them in
/// rank order (each with its enclosing definitions, a file header when the file is new, and
/// the change in elision markers) and stops before the first that does not fit.
fn fitting_prefix(layout: &mut Layout<'_>, budget: usize) -> usize {
    let elision_tokens = layout.lines.count(&format!("{ELISION}\n")) as i64;
    let budget = budget as i64;
    let mut chosen: HashMap<usize, BTreeSet<usize>> = HashMap::new();
    let mut total: i64 = 0;
    for (n, &(file, index)) in layout.ranked.iter().enumerate() {
        let (path, tags) = layout.files[file];
        let symbols = &tags.symbols;
        let parents = layout
            .parents
            .entry(file)
            .or_insert_with(|| parents(symbols));
        let set = chosen.entry(file).or_default();
        let mut delta: i64 = 0;
        if set.is_empty() {
            delta += layout.lines.count(&format!("{path}:\n")) as i64;
        }
        let mut added = Vec::new();
        let mut current = Some(index);
        while let Some(i) = current {
            if set.contains(&i) || added.contains(&i) {
                break;
            }
            added.push(i);
            current = parents.get(i).copied().flatten();
        }
        for &i in &added {
            delta += layout.lines.count(&symbol_line(&symbols[i])) as i64;
            let before = set.range(..i).next_back().copied();
            let after = set.range(i + 1..).next().copied();
            let was = if set.is_empty() {
                0
            } else {
                i64::from(gap(before, after, symbols.len()))
            };
            let now = i64::from(gap(before, Some(i), symbols.len()))
                + i64::from(gap(Some(i), after, symbols.len()));
            delta += (now - was) * elision_tokens;
            set.insert(i);
        }
        if total + delta > budget {
            return n;
        }
        total += delta;
    }
    layout.ranked.len()
}

/// Renders as many of the `ranked` definitions of `files` as fit in `budget` tokens: the
/// longest prefix of the ranking whose memoised per-line counts fit, then an exact count of
/// the text, shrinking the prefix until the exact count fits too.
pub fn render(
    files: &[(&str, &FileTags)],
    ranked: &[(usize, usize)],
    budget: usize,
    lines: &LineTokens,
) -> Rendered {
    let mut layout = Layout {
        files,
        ranked,
        parents: HashMap::new(),
        lines,
    };
    let mut n = fitting_prefix(&mut layout, budget);
    loop {
        if n == 0 {
            return Rendered {
                text: String::new(),
                tokens: 0,
                symbols_shown: 0,
                files_shown: 0,
            };
        }
        let selection = layout.select(n);
        let (text, _, shown) = layout.render(&selection);
        let exact = tokens::count(&text);
        if exact <= budget {
            return Rendered {
                text,
                tokens: exact,
                symbols_shown: shown,
                files_shown: selection.len(),
            };
        }
        // Exact counts can exceed the sum of the lines' counts where lines meet: shrink in
        // proportion to the overshoot, by at least one definition.
        n = (n * budget / exact.max(1)).min(n - 1);
    }
}
