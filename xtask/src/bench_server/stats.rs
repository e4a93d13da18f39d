//! Figures from the subscribers' logs: percentiles, and the losses, duplicates and disorder
//! of each subscriber's sequence against the run's `first..=last` seqs.

/// The nearest-rank percentile `p` (0–100) of sorted `values`; `None` when there are none.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// p50, p99 and max of `values` (sorted here), in the same unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest.
    pub max: f64,
}

impl Spread {
    /// The spread of `values`; `None` when there are none.
    pub fn of(mut values: Vec<f64>) -> Option<Self> {
        values.sort_by(f64::total_cmp);
        Some(Self {
            p50: percentile(&values, 50.0)?,
            p99: percentile(&values, 99.0)?,
            max: *values.last()?,
        })
    }
}

/// How one subscriber's received seqs compare with the expected `first..=last`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SequenceCheck {
    /// Expected seqs never received.
    pub missing: u64,
    /// Receipts of a seq already received.
    pub duplicates: u64,
    /// Receipts of a seq lower than the one before it.
    pub out_of_order: u64,
    /// Receipts of a seq outside `first..=last`.
    pub unexpected: u64,
}

impl SequenceCheck {
    /// Checks `seqs`, in the order received, against `first..=last`.
    pub fn of(seqs: impl IntoIterator<Item = u64>, first: u64, last: u64) -> Self {
        let span = last.saturating_sub(first).saturating_add(1);
        let mut seen = vec![false; usize::try_from(span).unwrap_or(0)];
        let mut check = Self::default();
        let mut previous: Option<u64> = None;
        for seq in seqs {
            if previous.is_some_and(|p| seq < p) {
                check.out_of_order += 1;
            }
            previous = Some(seq);
            let slot = seq
                .checked_sub(first)
                .and_then(|i| usize::try_from(i).ok())
                .and_then(|i| seen.get_mut(i));
            match slot {
                None => check.unexpected += 1,
                Some(slot) if *slot => check.duplicates += 1,
                Some(slot) => *slot = true,
            }
        }
        check.missing = seen.iter().filter(|s| !**s).count() as u64;
        check
    }

    /// Whether the subscriber saw exactly `first..=last`, each once, in order.
    pub fn is_clean(&self) -> bool {
        *self == Self::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let values: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&values, 50.0), Some(50.0));
        assert_eq!(percentile(&values, 99.0), Some(99.0));
        assert_eq!(percentile(&values, 100.0), Some(100.0));
        assert_eq!(percentile(&values, 0.0), Some(1.0));
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn a_spread_sorts_its_values() {
        let spread = Spread::of(vec![3.0, 1.0, 2.0]).unwrap();
        assert_eq!(
            spread,
            Spread {
                p50: 2.0,
                p99: 3.0,
                max: 3.0
            }
        );
        assert_eq!(Spread::of(Vec::new()), None);
    }

    #[test]
    fn a_complete_sequence_is_clean() {
        let check = SequenceCheck::of(5..=9, 5, 9);
        assert!(check.is_clean(), "{check:?}");
    }

    #[test]
    fn gaps_duplicates_disorder_and_strays_are_counted() {
        let check = SequenceCheck::of([1, 2, 2, 4, 3, 9], 1, 5);
        assert_eq!(
            check,
            SequenceCheck {
                missing: 1,
                duplicates: 1,
                out_of_order: 1,
                unexpected: 1,
            }
        );
        assert!(!check.is_clean());
        assert_eq!(SequenceCheck::of([], 1, 3).missing, 3);
    }
}
