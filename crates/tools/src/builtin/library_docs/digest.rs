//! The digest: a library's overview (README opening, top-level docs) and its documented items,
//! the ones matching the topic first, cut to a token budget with a note of what was left out.

use std::fmt::Write as _;

use super::FoundLibrary;
use crate::packages::opening;

/// Characters of the README opening in a digest.
const README_CHARS: usize = 1_500;
/// Characters of the top-level (crate, module, package) docs in a digest.
const OVERVIEW_CHARS: usize = 2_000;
/// Tokens kept free for the closing note on what was left out.
const NOTE_TOKENS: usize = 40;
/// Characters of one item's docs.
const ITEM_DOC_CHARS: usize = 900;

/// One documented item: a function, type, trait, class, module or exported declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocItem {
    /// Its name (`spawn`, `Client.get`).
    pub name: String,
    /// Its signature or declaration line.
    pub signature: String,
    /// Where it is, relative to the library's folder.
    pub file: String,
    /// Its doc comment or docstring (may be empty for `.d.ts` declarations).
    pub doc: String,
}

/// What an extractor found in a library's folder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Docs {
    /// The README's text.
    pub readme: Option<String>,
    /// Top-level docs (crate `//!`, package description, module docstring).
    pub overview: Option<String>,
    /// Documented public items, in source order.
    pub items: Vec<DocItem>,
    /// Files read.
    pub files: usize,
}

/// A rendered digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryDigest {
    /// Where the library was found.
    pub library: FoundLibrary,
    /// The digest text.
    pub text: String,
    /// Its size in tokens.
    pub tokens: usize,
    /// Items shown.
    pub items_shown: usize,
    /// Items that matched the topic (all documented items when there is none).
    pub items_matched: usize,
    /// The topic asked for.
    pub topic: Option<String>,
}

impl LibraryDigest {
    /// One sentence for the model: what was read and how much of it is shown.
    pub fn summary(&self) -> String {
        let lib = &self.library;
        let version = lib.version.as_deref().unwrap_or("(unknown version)");
        let pinned = match &lib.lock_file {
            Some(lock) => format!("locked in {lock}"),
            None => "installed, not locked".to_owned(),
        };
        let topic = match &self.topic {
            Some(topic) if self.items_matched == 0 => {
                format!("; nothing matched `{topic}`, so this is the overview")
            }
            Some(topic) => format!("; {} item(s) match `{topic}`", self.items_matched),
            None => String::new(),
        };
        format!(
            "Docs of {} `{}` {version} ({pinned}): {} item(s) shown, {} tokens{topic}.",
            lib.ecosystem.name(),
            lib.name,
            self.items_shown,
            self.tokens
        )
    }
}

/// Lower-case words of a topic worth matching.
fn topic_words(topic: &str) -> Vec<String> {
    topic
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| w.len() >= 2)
        .map(str::to_lowercase)
        .collect()
}

/// How well `item` matches the topic words: a name hit counts most.
fn score(item: &DocItem, words: &[String]) -> usize {
    let name = item.name.to_lowercase();
    let file = item.file.to_lowercase();
    let text = format!("{} {}", item.signature, item.doc).to_lowercase();
    words
        .iter()
        .map(|w| {
            let mut s = 0;
            if name == *w {
                s += 8;
            } else if name.contains(w.as_str()) {
                s += 4;
            }
            if file.contains(w.as_str()) {
                s += 1;
            }
            s + text.matches(w.as_str()).count().min(3)
        })
        .sum()
}

/// One item as markdown.
fn item_block(item: &DocItem) -> String {
    let mut block = format!(
        "### `{}` ({})\n```\n{}\n```\n",
        item.name,
        item.file,
        item.signature.trim()
    );
    if !item.doc.trim().is_empty() {
        block.push_str(&opening(item.doc.trim(), ITEM_DOC_CHARS));
    }
    block.push('\n');
    block
}

/// Renders `docs` of `library` for `topic` within `budget_tokens`.
pub fn render(
    library: &FoundLibrary,
    docs: Docs,
    topic: Option<&str>,
    budget_tokens: usize,
) -> LibraryDigest {
    let topic = topic.map(str::trim).filter(|t| !t.is_empty());
    let requested = budget_tokens;
    let budget_tokens = budget_tokens.saturating_sub(NOTE_TOKENS);
    let words = topic.map(topic_words).unwrap_or_default();
    let version = library.version.as_deref().unwrap_or("(unknown version)");
    let mut text = format!(
        "# {} {version} ({}{})\nSource: {}\n\n",
        library.name,
        library.ecosystem.name(),
        library
            .lock_file
            .as_deref()
            .map(|l| format!(", locked in {l}"))
            .unwrap_or_else(|| ", installed, not locked".to_owned()),
        library.source.display()
    );
    let mut ranked: Vec<(usize, usize, &DocItem)> = docs
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| (score(item, &words), i, item))
        .collect();
    let matched = if words.is_empty() {
        ranked.len()
    } else {
        ranked.retain(|(s, _, _)| *s > 0);
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        ranked.len()
    };
    // Without a topic (or when nothing matches) the overview leads; with matches, the items.
    let overview_first = words.is_empty() || matched == 0;
    let mut overview = String::new();
    if let Some(readme) = &docs.readme {
        let _ = write!(
            overview,
            "## README (opening)\n{}\n",
            opening(readme, README_CHARS)
        );
    }
    if let Some(top) = &docs.overview {
        let _ = write!(overview, "## Overview\n{}\n", opening(top, OVERVIEW_CHARS));
    }
    let mut used = keel_repomap::count_tokens(&text);
    if overview_first && !overview.is_empty() {
        let cost = keel_repomap::count_tokens(&overview);
        if used + cost <= budget_tokens {
            text.push_str(&overview);
        }
    }
    if let Some(topic) = topic {
        if matched == 0 {
            let _ = writeln!(text, "Nothing in the docs matches `{topic}`.\n");
        } else {
            let _ = writeln!(text, "## Items matching `{topic}`\n");
        }
    } else if !ranked.is_empty() {
        text.push_str("## Public items\n\n");
    }
    used = keel_repomap::count_tokens(&text);
    let mut shown = 0;
    let mut omitted = 0;
    for (_, _, item) in &ranked {
        let block = item_block(item);
        let cost = keel_repomap::count_tokens(&block);
        if used + cost > budget_tokens {
            omitted += 1;
            continue;
        }
        text.push_str(&block);
        used += cost;
        shown += 1;
    }
    if !overview_first && !overview.is_empty() {
        let cost = keel_repomap::count_tokens(&overview);
        if used + cost <= budget_tokens {
            text.push_str(&overview);
        }
    }
    if omitted > 0 {
        let _ = writeln!(
            text,
            "[… {omitted} more item(s) left out for the {requested}-token budget; give a narrower topic]"
        );
    }
    if docs.items.is_empty() && docs.readme.is_none() && docs.overview.is_none() {
        let _ = writeln!(
            text,
            "No documentation found in {} file(s) of the package.",
            docs.files
        );
    }
    let tokens = keel_repomap::count_tokens(&text);
    LibraryDigest {
        library: library.clone(),
        text,
        tokens,
        items_shown: shown,
        items_matched: matched,
        topic: topic.map(str::to_owned),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packages::Ecosystem;

    fn item(name: &str, doc: &str) -> DocItem {
        DocItem {
            name: name.to_owned(),
            signature: format!("pub fn {name}()"),
            file: "src/lib.rs".to_owned(),
            doc: doc.to_owned(),
        }
    }

    fn library() -> FoundLibrary {
        FoundLibrary {
            ecosystem: Ecosystem::Cargo,
            name: "demo".to_owned(),
            version: Some("1.0.0".to_owned()),
            source: "/reg/demo-1.0.0".into(),
            lock_file: Some("Cargo.lock".to_owned()),
        }
    }

    #[test]
    fn topic_matches_lead_and_the_budget_holds() {
        let docs = Docs {
            readme: Some("# demo\nA demo crate.".to_owned()),
            overview: None,
            items: (0..200)
                .map(|i| item(&format!("helper_{i}"), "Does a thing with some words."))
                .chain([item("spawn", "Spawns a task.")])
                .collect(),
            files: 1,
        };
        let digest = render(&library(), docs.clone(), Some("spawn"), 300);
        assert!(digest.text.contains("### `spawn`"), "{}", digest.text);
        assert_eq!(digest.items_matched, 1);
        let all = render(&library(), docs, None, 500);
        assert!(all.tokens <= 500, "{}", all.tokens);
        assert!(all.text.contains("more item(s) left out"), "{}", all.text);
        assert!(all.text.contains("A demo crate."));
    }
}
