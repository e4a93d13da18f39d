//! The Markdown summary of one evaluation: a row per task and a totals row (solved X/N, total
//! and median time, calls and tokens, the share of prompt tokens served from cache).

use std::fmt::Write as _;

use crate::result::{Outcome, TaskResult};

/// The summary table of `results`.
pub fn summary(results: &[TaskResult]) -> String {
    let mut out = String::new();
    out.push_str(
        "| task | lang | kind | solved | time | calls | prompt | cached | completion | tools (errors) | ended |\n",
    );
    out.push_str("|---|---|---|:-:|--:|--:|--:|--:|--:|--:|---|\n");
    for r in results {
        let tools = match (r.tool_calls, r.tool_errors) {
            (Some(calls), Some(errors)) => format!("{calls} ({errors})"),
            (Some(calls), None) => calls.to_string(),
            _ => "–".to_owned(),
        };
        let ended = match (r.outcome, &r.error) {
            (Outcome::Error, Some(error)) => format!("error: {error}"),
            _ => r.ended.clone().unwrap_or_default(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            cell(&r.task),
            cell(r.language.as_deref().unwrap_or("")),
            cell(r.kind.as_deref().unwrap_or("")),
            if r.solved { "✓" } else { "✗" },
            secs(r.wall_secs),
            r.model_calls,
            tokens(r.prompt_tokens),
            tokens(r.cached_tokens),
            tokens(r.completion_tokens),
            tools,
            cell(&shorten(&ended, 100)),
        );
    }
    let solved = results.iter().filter(|r| r.solved).count();
    let wall: f64 = results.iter().map(|r| r.wall_secs).sum();
    let prompt = total(results.iter().map(|r| r.prompt_tokens));
    let cached = total(results.iter().map(|r| r.cached_tokens));
    let share = match (prompt, cached) {
        (Some(p), Some(c)) if p > 0 => format!(" ({:.0} %)", c as f64 * 100.0 / p as f64),
        _ => String::new(),
    };
    let tools = total(results.iter().map(|r| r.tool_calls));
    let tool_errors = total(results.iter().map(|r| r.tool_errors));
    let tools = match (tools, tool_errors) {
        (Some(calls), Some(errors)) => format!("{calls} ({errors})"),
        _ => "–".to_owned(),
    };
    let _ = writeln!(
        out,
        "| **total** | | | **{solved}/{}** | {} (median {}) | {} | {} | {}{share} | {} | {tools} | |",
        results.len(),
        secs(wall),
        secs(median(results.iter().map(|r| r.wall_secs).collect())),
        results.iter().map(|r| r.model_calls).sum::<u64>(),
        tokens(prompt),
        tokens(cached),
        tokens(total(results.iter().map(|r| r.completion_tokens))),
    );
    out
}

/// The sum of the known values, `None` when none is known.
pub(crate) fn total(values: impl Iterator<Item = Option<u64>>) -> Option<u64> {
    values
        .flatten()
        .fold(None, |sum: Option<u64>, n| Some(sum.unwrap_or(0) + n))
}

/// The median of `values` (0 for none).
pub(crate) fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len().is_multiple_of(2) {
        (values[mid - 1] + values[mid]) / 2.0
    } else {
        values[mid]
    }
}

/// Seconds as `4.2 s`, or `3 m 07 s` from a minute on.
pub fn secs(secs: f64) -> String {
    if secs < 60.0 {
        format!("{secs:.1} s")
    } else {
        let whole = secs.round() as u64;
        format!("{} m {:02} s", whole / 60, whole % 60)
    }
}

/// A token count with thousands separators, `–` when unknown.
pub fn tokens(count: Option<u64>) -> String {
    let Some(count) = count else {
        return "–".to_owned();
    };
    let digits = count.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Text safe in a table cell: no line breaks, pipes escaped.
pub(crate) fn cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

fn shorten(text: &str, chars: usize) -> String {
    crate::proxy::excerpt(text, chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(tokens(Some(1_234_567)), "1,234,567");
        assert_eq!(tokens(Some(999)), "999");
        assert_eq!(tokens(None), "–");
        assert_eq!(secs(4.25), "4.2 s");
        assert_eq!(secs(187.4), "3 m 07 s");
        assert_eq!(median(vec![3.0, 1.0, 2.0, 10.0]), 2.5);
        assert_eq!(cell("a | b\nc"), "a \\| b c");
    }
}
