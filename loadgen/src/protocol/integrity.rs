//! Integrity counters and the bookkeeping of missing sequence numbers.

use serde::Serialize;

/// Integrity counters of one run, in messages.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Integrity {
    /// Messages never received (sequence gaps never filled, replies that never came).
    pub lost: u64,
    /// Messages with the wrong frame type, length, sequence digits or filler bytes.
    pub corrupted: u64,
    /// Messages whose sequence number had already been received.
    pub duplicated: u64,
    /// Messages received after a later sequence number had already been received.
    pub out_of_order: u64,
}

impl std::ops::AddAssign for Integrity {
    fn add_assign(&mut self, o: Self) {
        self.lost += o.lost;
        self.corrupted += o.corrupted;
        self.duplicated += o.duplicated;
        self.out_of_order += o.out_of_order;
    }
}

/// A set of missing sequence numbers, kept as half-open ranges `[start, end)`.
///
/// Gaps are rare (they only appear when a server misbehaves), so a small vector of
/// ranges with linear search is enough, and a huge gap costs one entry.
#[derive(Debug, Default, Clone)]
pub struct GapSet {
    ranges: Vec<(u64, u64)>,
}

impl GapSet {
    /// Records the numbers `start..end` as missing.
    pub fn add(&mut self, start: u64, end: u64) {
        if start < end {
            self.ranges.push((start, end));
        }
    }

    /// Removes `n` if it is missing; returns whether it was.
    pub fn take(&mut self, n: u64) -> bool {
        let Some(i) = self.ranges.iter().position(|&(s, e)| s <= n && n < e) else {
            return false;
        };
        let (s, e) = self.ranges[i];
        match (s == n, n + 1 == e) {
            (true, true) => {
                self.ranges.swap_remove(i);
            }
            (true, false) => self.ranges[i].0 = n + 1,
            (false, true) => self.ranges[i].1 = n,
            (false, false) => {
                self.ranges[i].1 = n;
                self.ranges.push((n + 1, e));
            }
        }
        true
    }

    /// Number of missing sequence numbers.
    pub fn count(&self) -> u64 {
        self.ranges.iter().map(|&(s, e)| e - s).sum()
    }

    /// True when nothing is missing.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gapset_take_splits_ranges() {
        let mut g = GapSet::default();
        g.add(10, 20);
        assert_eq!(g.count(), 10);
        assert!(g.take(15));
        assert!(!g.take(15));
        assert!(g.take(10));
        assert!(g.take(19));
        assert_eq!(g.count(), 7);
        assert!(!g.take(25));
        g.add(5, 5);
        assert_eq!(g.count(), 7);
    }
}
