//! Anomaly detection: patterns that say the tool loop is stuck.
//!
//! Three patterns (thresholds in [`AnomalyLimits`]):
//! - **repeated call**: the same tool with the same arguments (compared as canonical JSON, key
//!   order ignored) for the `repeat`-th time in a turn;
//! - **consecutive failures**: `failures` tool calls in a row failed;
//! - **no progress**: `no_progress` iterations of a plan step without any file change.
//!
//! The first detection in a turn is a *warning* (the session emits `run.anomaly.detect`, tells
//! the model, and in plan mode emits `run.plan.replan`). Any detection after that warning is a
//! *stop*: the turn ends as failed. After a warning the no-progress count starts again; the
//! other counts go on, so one more identical call or one more failure in a row stops the turn.

use std::collections::HashMap;

use keel_events::AnomalyKind;

/// Thresholds of the detector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnomalyLimits {
    /// The same call this many times in a turn (default 3).
    pub repeat: u32,
    /// This many failed calls in a row (default 3).
    pub failures: u32,
    /// This many iterations of a step without a file change (default 8).
    pub no_progress: u32,
}

impl Default for AnomalyLimits {
    fn default() -> Self {
        Self {
            repeat: 3,
            failures: 3,
            no_progress: 8,
        }
    }
}

/// A detected pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anomaly {
    /// Which pattern.
    pub kind: AnomalyKind,
    /// What was seen, for the user and the model.
    pub message: String,
    /// Whether this detection stops the turn (it came after a warning).
    pub stop: bool,
}

/// Watches the calls and iterations of one turn.
#[derive(Debug, Clone, Default)]
pub struct AnomalyDetector {
    limits: AnomalyLimits,
    calls: HashMap<String, u32>,
    failures_in_row: u32,
    idle_iterations: u32,
    warned: bool,
}

impl AnomalyDetector {
    /// A detector with these thresholds.
    pub fn new(limits: AnomalyLimits) -> Self {
        Self {
            limits,
            ..Self::default()
        }
    }

    /// Whether a warning has been given this turn.
    pub fn warned(&self) -> bool {
        self.warned
    }

    /// Records one finished tool call; returns a detection, if any.
    pub fn record_call(
        &mut self,
        name: &str,
        arguments: &serde_json::Value,
        success: bool,
    ) -> Option<Anomaly> {
        let key = format!("{name}:{}", canonical(arguments));
        let count = self.calls.entry(key).or_insert(0);
        *count += 1;
        let count = *count;
        if success {
            self.failures_in_row = 0;
        } else {
            self.failures_in_row += 1;
        }
        if count >= self.limits.repeat.max(1) {
            return Some(self.detect(
                AnomalyKind::RepeatedCall,
                format!("`{name}` was called {count} times with the same arguments in this turn"),
            ));
        }
        if self.failures_in_row >= self.limits.failures.max(1) {
            let n = self.failures_in_row;
            return Some(self.detect(
                AnomalyKind::ConsecutiveFailures,
                format!("{n} tool calls in a row failed"),
            ));
        }
        None
    }

    /// Records the end of one iteration of a plan step, and whether it changed a file.
    pub fn record_step_iteration(&mut self, changed_files: bool) -> Option<Anomaly> {
        if changed_files {
            self.idle_iterations = 0;
            return None;
        }
        self.idle_iterations += 1;
        if self.idle_iterations >= self.limits.no_progress.max(1) {
            let n = self.idle_iterations;
            self.idle_iterations = 0;
            return Some(self.detect(
                AnomalyKind::NoProgress,
                format!("{n} iterations of this step changed no file"),
            ));
        }
        None
    }

    /// Starts a new plan step (the no-progress count is per step).
    pub fn start_step(&mut self) {
        self.idle_iterations = 0;
    }

    fn detect(&mut self, kind: AnomalyKind, message: String) -> Anomaly {
        let stop = self.warned;
        self.warned = true;
        Anomaly {
            kind,
            message,
            stop,
        }
    }
}

/// `value` as JSON text with object keys sorted at every level.
pub fn canonical(value: &serde_json::Value) -> String {
    fn sorted(value: &serde_json::Value) -> serde_json::Value {
        match value {
            serde_json::Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                let mut out = serde_json::Map::new();
                for key in keys {
                    out.insert(key.clone(), sorted(&map[key]));
                }
                serde_json::Value::Object(out)
            }
            serde_json::Value::Array(items) => {
                serde_json::Value::Array(items.iter().map(sorted).collect())
            }
            other => other.clone(),
        }
    }
    // Keys are inserted in sorted order, so the text is canonical with or without
    // serde_json's `preserve_order`.
    sorted(value).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_third_identical_call_warns_and_the_fourth_stops() {
        let mut d = AnomalyDetector::default();
        assert!(
            d.record_call("read_file", &json!({"path": "a", "start_line": 1}), true)
                .is_none()
        );
        assert!(
            d.record_call("read_file", &json!({"start_line": 1, "path": "a"}), true)
                .is_none()
        );
        let third = d
            .record_call("read_file", &json!({"path": "a", "start_line": 1}), true)
            .unwrap();
        assert_eq!(third.kind, AnomalyKind::RepeatedCall);
        assert!(!third.stop);
        let fourth = d
            .record_call("read_file", &json!({"path": "a", "start_line": 1}), true)
            .unwrap();
        assert!(fourth.stop);
    }

    #[test]
    fn different_arguments_are_different_calls() {
        let mut d = AnomalyDetector::default();
        for n in 0..10 {
            assert!(
                d.record_call("read_file", &json!({"path": format!("f{n}")}), true)
                    .is_none()
            );
        }
    }

    #[test]
    fn failures_in_a_row_warn_and_a_success_resets_them() {
        let mut d = AnomalyDetector::default();
        assert!(d.record_call("a", &json!({"n": 1}), false).is_none());
        assert!(d.record_call("a", &json!({"n": 2}), false).is_none());
        assert!(d.record_call("a", &json!({"n": 3}), true).is_none());
        assert!(d.record_call("a", &json!({"n": 4}), false).is_none());
        assert!(d.record_call("a", &json!({"n": 5}), false).is_none());
        let warn = d.record_call("a", &json!({"n": 6}), false).unwrap();
        assert_eq!(warn.kind, AnomalyKind::ConsecutiveFailures);
        assert!(!warn.stop && d.warned());
        assert!(d.record_call("a", &json!({"n": 7}), false).unwrap().stop);
    }

    #[test]
    fn no_progress_counts_idle_iterations_per_step() {
        let mut d = AnomalyDetector::new(AnomalyLimits {
            no_progress: 3,
            ..AnomalyLimits::default()
        });
        assert!(d.record_step_iteration(false).is_none());
        assert!(d.record_step_iteration(true).is_none());
        assert!(d.record_step_iteration(false).is_none());
        d.start_step();
        assert!(d.record_step_iteration(false).is_none());
        assert!(d.record_step_iteration(false).is_none());
        let warn = d.record_step_iteration(false).unwrap();
        assert_eq!(warn.kind, AnomalyKind::NoProgress);
        assert!(!warn.stop);
        assert!(d.record_step_iteration(false).is_none());
        assert!(d.record_step_iteration(false).is_none());
        assert!(d.record_step_iteration(false).unwrap().stop);
    }

    #[test]
    fn canonical_json_ignores_key_order() {
        assert_eq!(
            canonical(&json!({"b": [{"y": 1, "x": 2}], "a": null})),
            canonical(&json!({"a": null, "b": [{"x": 2, "y": 1}]}))
        );
    }
}
