//! Latency histograms, their JSON summary, and the process's own CPU time.

use std::sync::Mutex;
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;

/// Highest recordable duration, in nanoseconds (1 hour); larger values are clamped.
const MAX_NS: u64 = 3_600_000_000_000;

/// A histogram of durations recorded in nanoseconds with 3 significant digits.
///
/// It starts at 16 KiB and grows to the largest value recorded (about 150 KiB for
/// latencies of 100 ms): too much for one per connection at 10,000 connections, which
/// is why connections share a [`SharedHist`].
#[derive(Debug, Clone)]
pub struct Hist(Histogram<u64>);

impl Default for Hist {
    fn default() -> Self {
        let mut h = Histogram::new(3).expect("valid histogram precision");
        h.auto(true);
        Hist(h)
    }
}

impl Hist {
    /// Records one duration.
    #[inline]
    pub fn record(&mut self, d: Duration) {
        let ns = (d.as_nanos() as u64).clamp(1, MAX_NS);
        // Cannot fail: auto-resizing and clamped to MAX_NS.
        let _ = self.0.record(ns);
    }

    /// Adds all values of `other`.
    pub fn merge(&mut self, other: &Hist) {
        // Same bounds on both sides, so adding cannot fail.
        let _ = self.0.add(&other.0);
    }

    /// Number of recorded values.
    pub fn len(&self) -> u64 {
        self.0.len()
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Percentile summary in microseconds (all zero when empty).
    pub fn summary_us(&self) -> Summary {
        let h = &self.0;
        if h.is_empty() {
            return Summary::default();
        }
        let us = |ns: u64| ns as f64 / 1000.0;
        Summary {
            p50: us(h.value_at_quantile(0.50)),
            p90: us(h.value_at_quantile(0.90)),
            p99: us(h.value_at_quantile(0.99)),
            p99_9: us(h.value_at_quantile(0.999)),
            max: us(h.max()),
            min: us(h.min()),
            mean: h.mean() / 1000.0,
            stdev: h.stdev() / 1000.0,
            count: h.len(),
        }
    }
}

/// One histogram shared by many connections, split into shards (one per runtime worker
/// thread), each behind its own lock: connection `i` records into shard `i % shards`.
///
/// Memory stays that of a few histograms however many connections there are; a
/// histogram per connection cost 1.4 GiB of page faults at 10,000 connections and made
/// the load generator the bottleneck. An uncontended lock costs tens of nanoseconds per
/// recorded round trip.
#[derive(Debug)]
pub struct SharedHist {
    shards: Vec<Mutex<Hist>>,
}

impl SharedHist {
    /// `shards` histograms (at least 1).
    pub fn new(shards: usize) -> Self {
        SharedHist {
            shards: (0..shards.max(1)).map(|_| Mutex::default()).collect(),
        }
    }

    /// Records one duration for connection `i`.
    #[inline]
    pub fn record(&self, i: usize, d: Duration) {
        let shard = &self.shards[i % self.shards.len()];
        // A poisoned lock only means another connection task panicked mid-record; the
        // histogram itself is still consistent.
        shard.lock().unwrap_or_else(|e| e.into_inner()).record(d);
    }

    /// All shards merged into one histogram.
    pub fn merged(&self) -> Hist {
        let mut all = Hist::default();
        for shard in &self.shards {
            all.merge(&shard.lock().unwrap_or_else(|e| e.into_inner()));
        }
        all
    }
}

/// Distribution summary; every value in microseconds except `count`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    /// Median, µs.
    pub p50: f64,
    /// 90th percentile, µs.
    pub p90: f64,
    /// 99th percentile, µs.
    pub p99: f64,
    /// 99.9th percentile, µs.
    pub p99_9: f64,
    /// Largest value, µs.
    pub max: f64,
    /// Smallest value, µs.
    pub min: f64,
    /// Arithmetic mean, µs.
    pub mean: f64,
    /// Standard deviation (population), µs.
    pub stdev: f64,
    /// Number of values.
    pub count: u64,
}

/// User plus system CPU time consumed so far by this process (all threads), in seconds.
pub fn cpu_time_s() -> f64 {
    // SAFETY: getrusage only writes into the zero-initialised struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    if rc != 0 {
        return 0.0;
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_in_microseconds() {
        let mut h = Hist::default();
        for us in 1..=1000u64 {
            h.record(Duration::from_micros(us));
        }
        let s = h.summary_us();
        assert_eq!(s.count, 1000);
        assert!((s.p50 - 500.0).abs() < 1.0, "{s:?}");
        assert!((s.max - 1000.0).abs() < 1.0, "{s:?}");
        assert_eq!(Hist::default().summary_us(), Summary::default());
    }

    #[test]
    fn shared_histogram_merges_every_shard() {
        let shared = SharedHist::new(3);
        for i in 0..10usize {
            shared.record(i, Duration::from_micros(100 * (i as u64 + 1)));
        }
        let s = shared.merged().summary_us();
        assert_eq!(s.count, 10);
        assert!((s.max - 1000.0).abs() < 1.0, "{s:?}");
        assert!((s.mean - 550.0).abs() < 1.0, "{s:?}");
        assert_eq!(SharedHist::new(0).merged().summary_us(), Summary::default());
    }
}
