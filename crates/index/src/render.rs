//! Search results as text: one `path:start-end` header per chunk with its score, kind and
//! names, then its snippet; a query without matches says so.

use crate::search::SearchOutcome;

/// The header line of one hit.
pub(crate) fn header(
    path: &str,
    start: u32,
    end: u32,
    score: f32,
    kind: &str,
    symbol: &str,
) -> String {
    if symbol.is_empty() {
        format!("{path}:{start}-{end} (score {score:.3}, {kind})")
    } else {
        format!("{path}:{start}-{end} (score {score:.3}, {kind} `{symbol}`)")
    }
}

/// The outcome as text for a model or a terminal.
pub fn render_hits(outcome: &SearchOutcome) -> String {
    let mut out = String::new();
    for note in &outcome.notes {
        out.push_str("Note: ");
        out.push_str(note);
        out.push('\n');
    }
    if outcome.hits.is_empty() {
        out.push_str(&format!(
            "No indexed chunk matches \"{}\".\n",
            outcome.query
        ));
        return out;
    }
    for (n, hit) in outcome.hits.iter().enumerate() {
        out.push_str(&format!(
            "{}. {}\n",
            n + 1,
            header(
                &hit.path,
                hit.start_line,
                hit.end_line,
                hit.score,
                &hit.kind,
                &hit.symbol
            )
        ));
        for line in hit.snippet.lines() {
            out.push_str("   │ ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Bytes of text looked at per token of budget, at most.
const BYTES_PER_TOKEN_AT_MOST: usize = 8;

/// `text` cut to at most `budget` tokens — at the last line break when one is in the kept
/// second half, else at a character boundary — with a note saying so when it was cut.
pub fn budget_text(text: &str, budget: usize) -> (String, Option<String>) {
    // Far more bytes than the budget can hold are not counted (a token is rarely longer
    // than a word, and counting one huge word is slow).
    let mut considered = text
        .len()
        .min(budget.saturating_mul(BYTES_PER_TOKEN_AT_MOST));
    while !text.is_char_boundary(considered) {
        considered -= 1;
    }
    let total = if considered < text.len() {
        None
    } else {
        Some(keel_repomap::count_tokens(text))
    };
    if total.is_some_and(|total| total <= budget) {
        return (text.to_owned(), None);
    }
    // The longest prefix that fits: token counts grow with the prefix.
    let (mut fits, mut over) = (0usize, considered + 1);
    if keel_repomap::count_tokens(&text[..considered]) <= budget {
        fits = considered;
        over = considered;
    }
    while over - fits > 1 {
        let mut mid = fits + (over - fits) / 2;
        while !text.is_char_boundary(mid) {
            mid -= 1;
        }
        if mid <= fits {
            break;
        }
        if keel_repomap::count_tokens(&text[..mid]) <= budget {
            fits = mid;
        } else {
            over = mid;
        }
    }
    let mut cut = &text[..fits];
    if let Some(line_end) = cut.rfind('\n')
        && line_end > cut.len() / 2
    {
        cut = &cut[..line_end];
    }
    // Counts are not quite monotonic in the prefix (merges at its end): make sure.
    let mut shown = keel_repomap::count_tokens(cut);
    while shown > budget {
        let mut end = cut.len() - 1;
        while !cut.is_char_boundary(end) {
            end -= 1;
        }
        cut = &cut[..end];
        shown = keel_repomap::count_tokens(cut);
    }
    let note = match total {
        Some(total) => format!(
            "the result was {total} tokens; only its first {shown} are shown, to fit the {budget}-token budget"
        ),
        None => format!(
            "the result was {} bytes; only its first {shown} tokens are shown, to fit the {budget}-token budget",
            text.len()
        ),
    };
    (cut.to_owned(), Some(note))
}
