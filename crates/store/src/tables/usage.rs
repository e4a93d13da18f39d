//! Sessions' running token and cost totals: what a batch of events adds to each session (its
//! `run.usage.report` events), for the backends' appends to apply in the same transaction, and
//! reading the totals back.

use keel_events::EventKind;

use crate::columns::{ReadColumns, StoredRow};
use crate::error::StoreResult;
use crate::session::SessionUsage;
use crate::tables::events::EventRow;

/// Billionths of a dollar in one dollar: costs are summed as integers, so adding many small
/// costs loses nothing.
const NANOS_PER_USD: f64 = 1e9;

/// The session columns of the totals, in the order [`read`] reads them.
macro_rules! usage_columns {
    () => {
        "prompt_tokens, completion_tokens, cached_tokens, total_tokens, model_calls, \
         unpriced_calls, cost_nanousd"
    };
}

pub(crate) use usage_columns;

/// What one batch adds to one session's totals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct UsageDelta {
    /// The session.
    pub session_id: String,
    /// Prompt tokens.
    pub prompt_tokens: i64,
    /// Completion tokens.
    pub completion_tokens: i64,
    /// Cached prompt tokens.
    pub cached_tokens: i64,
    /// All tokens.
    pub total_tokens: i64,
    /// Usage reports.
    pub model_calls: i64,
    /// Usage reports without a cost.
    pub unpriced_calls: i64,
    /// Summed cost of the reports with one, in billionths of a dollar (`None`: none had one).
    pub cost_nanousd: Option<i64>,
}

fn clamp(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The totals the usage reports among `rows` add, one delta per session (in order of first
/// appearance); empty when the batch has none.
pub(crate) fn usage_deltas(rows: &[EventRow<'_>]) -> Vec<UsageDelta> {
    let mut deltas: Vec<UsageDelta> = Vec::new();
    for row in rows {
        let EventKind::RunUsageReport(report) = &row.event.kind else {
            continue;
        };
        let session_id = &row.event.session_id;
        let index = match deltas.iter().position(|d| d.session_id == *session_id) {
            Some(index) => index,
            None => {
                deltas.push(UsageDelta {
                    session_id: session_id.clone(),
                    ..UsageDelta::default()
                });
                deltas.len() - 1
            }
        };
        let d = &mut deltas[index];
        d.prompt_tokens = d.prompt_tokens.saturating_add(clamp(report.prompt_tokens));
        d.completion_tokens = d
            .completion_tokens
            .saturating_add(clamp(report.completion_tokens));
        d.cached_tokens = d
            .cached_tokens
            .saturating_add(clamp(report.cached_tokens.unwrap_or(0)));
        d.total_tokens = d.total_tokens.saturating_add(clamp(report.total_tokens));
        d.model_calls += 1;
        match report.cost_usd.filter(|c| c.is_finite() && *c >= 0.0) {
            Some(cost) => {
                // A float beyond i64 saturates in the cast.
                let nanos = (cost * NANOS_PER_USD).round() as i64;
                d.cost_nanousd = Some(d.cost_nanousd.unwrap_or(0).saturating_add(nanos));
            }
            None => d.unpriced_calls += 1,
        }
    }
    deltas
}

/// The totals of a session row selected with [`usage_columns`].
pub(crate) fn read<R: ReadColumns>(row: &StoredRow<'_, R>) -> StoreResult<SessionUsage> {
    let count = |column| -> StoreResult<u64> {
        Ok(row
            .opt_int(column)?
            .and_then(|n| u64::try_from(n).ok())
            .unwrap_or(0))
    };
    Ok(SessionUsage {
        prompt_tokens: count("prompt_tokens")?,
        completion_tokens: count("completion_tokens")?,
        cached_tokens: count("cached_tokens")?,
        total_tokens: count("total_tokens")?,
        model_calls: count("model_calls")?,
        unpriced_calls: count("unpriced_calls")?,
        cost_usd: row
            .opt_int("cost_nanousd")?
            .map(|nanos| nanos as f64 / NANOS_PER_USD),
    })
}

#[cfg(test)]
mod tests {
    use keel_events::{Event, RunUsageReport, Sequencer, SystemStatus, Usage};

    use super::*;
    use crate::tables::events::event_rows;

    fn report(cost: Option<f64>, cached: Option<u64>) -> RunUsageReport {
        RunUsageReport {
            prompt_tokens: 100,
            completion_tokens: 10,
            total_tokens: 110,
            cached_tokens: cached,
            cumulative: Usage::default(),
            model: Some("m".to_owned()),
            cost_usd: cost,
            purpose: None,
        }
    }

    #[test]
    fn a_batch_adds_its_usage_reports_per_session() {
        let a = Sequencer::new("a", "p");
        let b = Sequencer::new("b", "p");
        let events: Vec<Event> = vec![
            a.stamp(None, report(Some(0.000_001_5), Some(40))),
            a.stamp(None, SystemStatus::line("x")),
            b.stamp(None, report(None, None)),
            a.stamp(None, report(Some(0.25), None)),
            a.stamp(None, report(None, None)),
        ];
        let refs: Vec<&Event> = events.iter().collect();
        let rows = event_rows(&refs).unwrap();
        let deltas = usage_deltas(&rows);
        assert_eq!(
            deltas,
            [
                UsageDelta {
                    session_id: "a".to_owned(),
                    prompt_tokens: 300,
                    completion_tokens: 30,
                    cached_tokens: 40,
                    total_tokens: 330,
                    model_calls: 3,
                    unpriced_calls: 1,
                    cost_nanousd: Some(250_001_500),
                },
                UsageDelta {
                    session_id: "b".to_owned(),
                    prompt_tokens: 100,
                    completion_tokens: 10,
                    cached_tokens: 0,
                    total_tokens: 110,
                    model_calls: 1,
                    unpriced_calls: 1,
                    cost_nanousd: None,
                },
            ]
        );
        assert!(usage_deltas(&rows[1..2]).is_empty());
    }
}
