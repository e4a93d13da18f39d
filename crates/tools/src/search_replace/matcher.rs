//! Finding where a SEARCH block's lines are in a file, from strictest to most tolerant.

/// How a block's lines were matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Line for line, byte for byte.
    Exact,
    /// Ignoring trailing whitespace.
    TrailingWhitespace,
    /// Ignoring indentation (the replacement is re-indented by the same offset).
    Indentation,
    /// Unicode punctuation folded to ASCII (dashes, curly quotes, odd spaces), ignoring
    /// indentation and trailing whitespace.
    UnicodeFolded,
}

impl Strategy {
    /// Every strategy, strictest first.
    pub const ALL: [Strategy; 4] = [
        Strategy::Exact,
        Strategy::TrailingWhitespace,
        Strategy::Indentation,
        Strategy::UnicodeFolded,
    ];

    /// A short description for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Strategy::Exact => "exactly",
            Strategy::TrailingWhitespace => "ignoring trailing whitespace",
            Strategy::Indentation => "ignoring indentation",
            Strategy::UnicodeFolded => "after folding Unicode punctuation to ASCII",
        }
    }

    /// Whether `file` and `search` are the same line under this strategy.
    fn same(self, file: &str, search: &str) -> bool {
        match self {
            Strategy::Exact => file == search,
            Strategy::TrailingWhitespace => file.trim_end() == search.trim_end(),
            Strategy::Indentation => file.trim() == search.trim(),
            Strategy::UnicodeFolded => fold(file.trim()) == fold(search.trim()),
        }
    }

    /// Whether the replacement is re-indented after a match with this strategy.
    pub fn reindents(self) -> bool {
        matches!(self, Strategy::Indentation | Strategy::UnicodeFolded)
    }
}

/// Maps Unicode dashes, quotes, spaces and the ellipsis to ASCII.
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{FE58}' | '\u{FE63}' | '\u{FF0D}' => {
                out.push('-')
            }
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{FF07}' => {
                out.push('\'')
            }
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{FF02}' => {
                out.push('"')
            }
            '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => {
                out.push(' ')
            }
            '\u{200B}' | '\u{FEFF}' => {}
            '\u{2026}' => out.push_str("..."),
            _ => out.push(c),
        }
    }
    out
}

/// Whether `search` matches `lines` starting at `at` under `strategy`.
pub fn matches_at(lines: &[String], at: usize, search: &[String], strategy: Strategy) -> bool {
    at + search.len() <= lines.len()
        && lines[at..at + search.len()]
            .iter()
            .zip(search)
            .all(|(f, s)| strategy.same(f, s))
}

/// The first match of `search` at or after `from`.
pub fn find_from(
    lines: &[String],
    from: usize,
    search: &[String],
    strategy: Strategy,
) -> Option<usize> {
    if search.is_empty() || search.len() > lines.len() {
        return None;
    }
    let first = &search[0];
    (from..=lines.len() - search.len())
        .find(|&at| strategy.same(&lines[at], first) && matches_at(lines, at, search, strategy))
}

/// Where a block matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// First matched line (0-based).
    pub at: usize,
    /// How.
    pub strategy: Strategy,
}

/// Finds `search` in `lines`: each strategy at or after `from` in turn, then an exact match
/// anywhere (a block given out of order).
pub fn locate(lines: &[String], from: usize, search: &[String]) -> Option<Found> {
    for strategy in Strategy::ALL {
        if let Some(at) = find_from(lines, from, search, strategy) {
            return Some(Found { at, strategy });
        }
    }
    find_from(lines, 0, search, Strategy::Exact).map(|at| Found {
        at,
        strategy: Strategy::Exact,
    })
}

fn leading_ws(s: &str) -> &str {
    &s[..s.len() - s.trim_start().len()]
}

/// Re-indents `replace` by the offset between the file's matched lines and the SEARCH lines:
/// the first non-blank SEARCH line's indentation is swapped for its matched line's.
pub fn reindent(matched: &[String], search: &[String], replace: &[String]) -> Vec<String> {
    let Some(i) = search.iter().position(|l| !l.trim().is_empty()) else {
        return replace.to_vec();
    };
    let from = leading_ws(&search[i]);
    let to = leading_ws(&matched[i]);
    if from == to {
        return replace.to_vec();
    }
    replace
        .iter()
        .map(|line| {
            if line.trim().is_empty() {
                line.clone()
            } else if let Some(rest) = line.strip_prefix(from) {
                format!("{to}{rest}")
            } else if to.len() < from.len() {
                // Less indented than the SEARCH base: remove what we can.
                let removed = from.len() - to.len();
                let ws = leading_ws(line);
                let keep = ws.len().saturating_sub(removed);
                format!("{}{}", ws.get(..keep).unwrap_or(""), line.trim_start())
            } else {
                format!("{}{line}", to.get(from.len()..).unwrap_or(""))
            }
        })
        .collect()
}

/// The window of `lines` most like `search` (by its first non-blank line), as
/// `(first line index, line count)`.
pub fn closest(lines: &[String], search: &[String]) -> Option<(usize, usize)> {
    if lines.is_empty() {
        return None;
    }
    let offset = search.iter().position(|l| !l.trim().is_empty())?;
    let probe: String = fold(search[offset].trim()).chars().take(200).collect();
    let mut best: Option<(f32, usize)> = None;
    for (i, line) in lines.iter().enumerate() {
        let candidate: String = fold(line.trim()).chars().take(200).collect();
        if candidate.is_empty() {
            continue;
        }
        let ratio = similar::TextDiff::from_chars(probe.as_str(), candidate.as_str()).ratio();
        if best.is_none_or(|(b, _)| ratio > b) {
            best = Some((ratio, i));
        }
    }
    let (_, hit) = best?;
    let start = hit.saturating_sub(offset);
    let len = search.len().max(1).min(lines.len() - start);
    Some((start, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn tolerance_order() {
        let file = v(&["fn a() {", "    x = 1;  ", "}"]);
        assert_eq!(
            locate(&file, 0, &v(&["    x = 1;"])).unwrap().strategy,
            Strategy::TrailingWhitespace
        );
        assert_eq!(
            locate(&file, 0, &v(&["x = 1;"])).unwrap().strategy,
            Strategy::Indentation
        );
        let quoted = v(&["say(\u{201C}hi\u{201D}) \u{2014} ok"]);
        assert_eq!(
            locate(&quoted, 0, &v(&["say(\"hi\") - ok"]))
                .unwrap()
                .strategy,
            Strategy::UnicodeFolded
        );
    }

    #[test]
    fn reindents_both_ways() {
        let out = reindent(
            &v(&["        a"]),
            &v(&["    a"]),
            &v(&["    b", "        c"]),
        );
        assert_eq!(out, v(&["        b", "            c"]));
        let out = reindent(&v(&["a"]), &v(&["    a"]), &v(&["    b", "        c"]));
        assert_eq!(out, v(&["b", "    c"]));
    }
}
