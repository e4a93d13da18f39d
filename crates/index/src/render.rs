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
