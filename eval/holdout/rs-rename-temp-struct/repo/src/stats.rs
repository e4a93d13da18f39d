//! Summaries of reading series.

use crate::{Temp, Unit};

/// Minimum, maximum and mean of a series, all in one unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub min: Temp,
    pub max: Temp,
    pub mean: Temp,
}

/// Summarise `readings` in `unit`; `None` for an empty series.
pub fn summary(readings: &[Temp], unit: Unit) -> Option<Summary> {
    let values: Vec<f64> = readings.iter().map(|t| t.to(unit).value()).collect();
    if values.is_empty() {
        return None;
    }
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    Some(Summary {
        min: Temp::new(min, unit),
        max: Temp::new(max, unit),
        mean: Temp::new((mean * 10.0).round() / 10.0, unit),
    })
}
