//! How sessions look in the terminal: the `sessions list` table and the `sessions show` header.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use keel_store::{Session, SessionUsage, Turn};

use keel_render::{count, usd};

/// Widest title shown in the list.
const TITLE_WIDTH: usize = 48;

/// One row of `keel sessions list`.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The session.
    pub session: Session,
    /// How many turns it has.
    pub turns: usize,
}

/// A timestamp as the tables show it (UTC, seconds).
pub fn when(ts: &DateTime<Utc>) -> String {
    ts.format("%Y-%m-%d %H:%M:%S").to_string()
}

/// `text` cut to `width` characters (with an ellipsis), on one line.
fn clip(text: &str, width: usize) -> String {
    let one_line = text.replace(['\n', '\r'], " ");
    match one_line.char_indices().nth(width.saturating_sub(1)) {
        Some((cut, _)) if one_line.chars().count() > width => format!("{}…", &one_line[..cut]),
        _ => one_line,
    }
}

/// A session's tokens, as the list shows them.
fn tokens(usage: &SessionUsage) -> String {
    count(usage.total_tokens)
}

/// A session's cost: `-` when no call had a known price, `≥` before it when some had none.
pub fn cost(usage: &SessionUsage) -> String {
    match usage.cost_usd {
        None => "-".to_owned(),
        Some(cost) if usage.unpriced_calls > 0 => format!("≥{}", usd(cost)),
        Some(cost) => usd(cost),
    }
}

/// The `keel sessions list` table: id, status, title, turns, tokens, cost, updated (UTC).
pub fn table(rows: &[Row]) -> String {
    const COLUMNS: usize = 7;
    let header = [
        "ID", "STATUS", "TITLE", "TURNS", "TOKENS", "COST", "UPDATED",
    ];
    // Numbers are right-aligned.
    let right = [false, false, false, true, true, true, false];
    let cells: Vec<[String; COLUMNS]> = rows
        .iter()
        .map(|row| {
            [
                row.session.id.clone(),
                row.session.status.to_string(),
                clip(&row.session.title, TITLE_WIDTH),
                row.turns.to_string(),
                tokens(&row.session.usage),
                cost(&row.session.usage),
                when(&row.session.updated_at),
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &cells {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: [&str; COLUMNS]| {
        let mut text = String::new();
        for ((cell, width), right) in cells.iter().zip(widths).zip(right) {
            if right {
                let _ = write!(text, "{cell:>width$}  ");
            } else {
                let _ = write!(text, "{cell:<width$}  ");
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(header);
    for row in &cells {
        line(std::array::from_fn(|i| row[i].as_str()));
    }
    out
}

/// The `keel sessions show` header: the session's metadata and its turns.
pub fn header(session: &Session, turns: &[Turn], events: u64) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Session {}", session.id);
    let field = |out: &mut String, name: &str, value: &str| {
        let _ = writeln!(out, "  {name:<9}{value}");
    };
    field(&mut out, "title", &session.title);
    field(&mut out, "status", session.status.as_str());
    field(&mut out, "project", &session.project_id);
    field(&mut out, "root", &session.root.display().to_string());
    if let Some(model) = &session.model {
        field(&mut out, "model", model);
    }
    if let Some(mode) = &session.mode {
        field(&mut out, "mode", mode);
    }
    field(&mut out, "created", &when(&session.created_at));
    field(&mut out, "updated", &when(&session.updated_at));
    field(&mut out, "events", &events.to_string());
    let usage = &session.usage;
    field(
        &mut out,
        "usage",
        &format!(
            "{} tokens ({} in, {} out, {} cached) in {} model calls, cost {}",
            count(usage.total_tokens),
            count(usage.prompt_tokens),
            count(usage.completion_tokens),
            count(usage.cached_tokens),
            count(usage.model_calls),
            cost(usage)
        ),
    );
    let _ = writeln!(out, "\nTurns ({}):", turns.len());
    for (n, turn) in turns.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {}. {:<9} {}  {}  {}",
            n + 1,
            turn.status.as_str(),
            when(&turn.started_at),
            turn.id,
            clip(&turn.input, TITLE_WIDTH)
        );
        if let Some(error) = &turn.error {
            let _ = writeln!(out, "     {error}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone as _;
    use keel_store::{SessionStatus, TurnStatus};
    use serde_json::Map;

    use super::*;

    fn session(id: &str, title: &str, status: SessionStatus) -> Session {
        let ts = Utc.with_ymd_and_hms(2026, 11, 22, 9, 30, 0).unwrap();
        Session {
            id: id.to_owned(),
            project_id: "sample-project".to_owned(),
            root: "/work/sample-project".into(),
            title: title.to_owned(),
            status,
            model: Some("scripted".to_owned()),
            mode: Some("auto".to_owned()),
            metadata: Map::new(),
            created_at: ts,
            updated_at: ts,
            usage: SessionUsage::default(),
        }
    }

    fn used(tokens: u64, cost: Option<f64>, unpriced: u64) -> SessionUsage {
        SessionUsage {
            prompt_tokens: tokens - tokens / 10,
            completion_tokens: tokens / 10,
            cached_tokens: 0,
            total_tokens: tokens,
            model_calls: 3,
            unpriced_calls: unpriced,
            cost_usd: cost,
        }
    }

    #[test]
    fn the_list_is_an_aligned_table() {
        let with = |mut session: Session, usage| {
            session.usage = usage;
            session
        };
        let rows = [
            Row {
                session: with(
                    session(
                        "0193a1b2-0000-7000-8000-000000000001",
                        "Fix the failing test",
                        SessionStatus::Completed,
                    ),
                    used(48_210, Some(0.0312), 0),
                ),
                turns: 2,
            },
            Row {
                session: with(
                    session(
                        "0193a1b2-0000-7000-8000-000000000002",
                        "A very long task description that goes on and on\nover two lines",
                        SessionStatus::Cancelled,
                    ),
                    used(1_203_400, Some(12.5), 1),
                ),
                turns: 11,
            },
            Row {
                session: with(
                    session(
                        "0193a1b2-0000-7000-8000-000000000003",
                        "Offline run with a local model",
                        SessionStatus::Failed,
                    ),
                    used(900, None, 3),
                ),
                turns: 1,
            },
        ];
        insta::assert_snapshot!(table(&rows));
    }

    #[test]
    fn an_empty_list_is_just_the_header() {
        assert_eq!(
            table(&[]),
            "ID  STATUS  TITLE  TURNS  TOKENS  COST  UPDATED\n"
        );
    }

    #[test]
    fn costs_say_when_they_are_unknown_or_partial() {
        assert_eq!(cost(&used(10, None, 1)), "-");
        assert_eq!(cost(&used(10, Some(0.5), 0)), "$0.5000");
        assert_eq!(cost(&used(10, Some(0.5), 2)), "≥$0.5000");
        assert_eq!(cost(&SessionUsage::default()), "-");
    }

    #[test]
    fn the_header_lists_the_turns() {
        let ts = Utc.with_ymd_and_hms(2026, 11, 22, 9, 31, 0).unwrap();
        let turn = |n: u32, status: TurnStatus, error: Option<&str>| Turn {
            id: format!("turn_{n}"),
            session_id: "s".to_owned(),
            request_id: None,
            input: format!("task {n}"),
            status,
            error: error.map(str::to_owned),
            started_at: ts,
            ended_at: Some(ts),
            owner: None,
            lease_until: None,
        };
        let text = header(
            &session("s", "task 1", SessionStatus::Cancelled),
            &[
                turn(1, TurnStatus::Completed, None),
                turn(
                    2,
                    TurnStatus::Cancelled,
                    Some("interrupted: Ctrl-C pressed twice"),
                ),
            ],
            42,
        );
        insta::assert_snapshot!(text);
    }
}
