//! The order the timeline's phase records keep, checked: per task, a phase exits before the
//! next one enters and none is entered or exited twice in a row. The `debugger` is the one
//! phase that nests, inside an open `coder` (a repair happens while coding).

use std::collections::HashMap;

use super::TimelineEvent;
use super::timeline_event::{AgentPhase, PhaseAction, TimelinePayload};

/// Every place where `records` (in stream order) break the phase order, one sentence each;
/// empty when the order holds. A phase still open when the records end is not a break (a turn
/// that failed or was cancelled stops where it is).
pub fn phase_order_violations(records: &[TimelineEvent]) -> Vec<String> {
    // Per task: the open outer phase, and whether a debugger is open inside it.
    let mut open: HashMap<&str, (Option<AgentPhase>, bool)> = HashMap::new();
    let mut violations = Vec::new();
    for record in records {
        let TimelinePayload::AgentPhase(p) = &record.payload else {
            continue;
        };
        let (outer, debugging) = open.entry(record.task_id.as_str()).or_default();
        let mut fail = |what: String| {
            violations.push(format!(
                "task {:?}, record {}: {what}",
                record.task_id, record.id
            ))
        };
        match (p.phase, p.action) {
            (AgentPhase::Debugger, PhaseAction::Enter) => {
                if *debugging {
                    fail("debugger entered twice".into());
                }
                *debugging = true;
            }
            (AgentPhase::Debugger, PhaseAction::Exit) => {
                if !*debugging {
                    fail("debugger exited without entering".into());
                }
                *debugging = false;
            }
            (phase, PhaseAction::Enter) => {
                match *outer {
                    Some(current) if current == phase => fail(format!("{phase:?} entered twice")),
                    Some(current) => fail(format!("{phase:?} entered before {current:?} exited")),
                    None => {}
                }
                if *debugging {
                    fail(format!("{phase:?} entered inside the debugger"));
                }
                *outer = Some(phase);
            }
            (phase, PhaseAction::Exit) => {
                if *outer != Some(phase) {
                    fail(format!("{phase:?} exited while {outer:?} was open"));
                }
                if *debugging {
                    fail(format!("{phase:?} exited inside the debugger"));
                }
                *outer = None;
            }
        }
    }
    violations
}
