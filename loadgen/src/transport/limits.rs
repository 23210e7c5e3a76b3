//! The open-file limit (`RLIMIT_NOFILE`): raised at start-up, reported, and checked
//! against the connections a run asks for.
//!
//! Every connection of the load generator holds one descriptor (its socket). A run of
//! 10,000 connections needs more than the usual soft limit of 1024, so every subcommand
//! first raises the soft limit to the hard limit ([`raise_nofile_limit`]); a run that
//! still cannot fit fails at once with a usage error naming the limit
//! ([`check_fits`]) instead of counting thousands of `other` errors.

use std::io;

/// Descriptors each connection holds (its socket).
pub const FDS_PER_CONNECTION: u64 = 1;

/// Descriptors kept free beyond the connections: standard streams, the runtime's epoll
/// and wake-up descriptors, signal handling, a reference server's listener.
pub const FD_MARGIN: u64 = 64;

fn getrlimit() -> io::Result<libc::rlimit> {
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes into the struct we pass.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) };
    if rc == 0 {
        Ok(rl)
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The current soft limit on open files (descriptors); `u64::MAX` when unlimited or
/// unknown.
pub fn nofile_limit() -> u64 {
    match getrlimit() {
        Ok(rl) if rl.rlim_cur != libc::RLIM_INFINITY => {
            // `rlim_t` is u64 on 64-bit Linux, narrower elsewhere.
            let soft: libc::rlim_t = rl.rlim_cur;
            soft as u64
        }
        _ => u64::MAX,
    }
}

/// Raises the soft limit on open files to the hard limit (best effort: if the system
/// refuses, e.g. an unlimited hard limit above `fs.nr_open`, the soft limit stays) and
/// returns the resulting soft limit, descriptors (see [`nofile_limit`]).
pub fn raise_nofile_limit() -> u64 {
    if let Ok(rl) = getrlimit() {
        if rl.rlim_cur < rl.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: rl.rlim_max,
                rlim_max: rl.rlim_max,
            };
            // SAFETY: setrlimit only reads the struct we pass.
            let _ = unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) };
        }
    }
    nofile_limit()
}

/// Descriptors a run of `connections` simultaneous connections needs:
/// `connections × FDS_PER_CONNECTION + FD_MARGIN`.
pub fn needed(connections: u64) -> u64 {
    connections
        .saturating_mul(FDS_PER_CONNECTION)
        .saturating_add(FD_MARGIN)
}

/// Checks that `connections` simultaneous connections (asked for with the option `flag`,
/// e.g. `--connections`) fit in the open-file limit `limit`. The error is one sentence
/// naming the limit and how to raise it.
pub fn check_fits(flag: &str, connections: u64, limit: u64) -> Result<(), String> {
    let need = needed(connections);
    if need <= limit {
        return Ok(());
    }
    Err(format!(
        "{flag} {connections} needs {need} open files ({FDS_PER_CONNECTION} per connection \
         + {FD_MARGIN}), but the open-file limit (RLIMIT_NOFILE) is {limit} even with the soft \
         limit raised to the hard limit; ask for at most {} or raise the hard limit \
         (ulimit -Hn, systemd LimitNOFILE)",
        (limit.saturating_sub(FD_MARGIN)) / FDS_PER_CONNECTION
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_with_the_margin() {
        assert_eq!(needed(10_000), 10_000 + FD_MARGIN);
        assert!(check_fits("--connections", 10_000, 20_000).is_ok());
        assert!(check_fits("--connections", 1024 - FD_MARGIN, 1024).is_ok());
        let e = check_fits("--workers", 1024 - FD_MARGIN + 1, 1024).unwrap_err();
        assert!(e.contains("--workers 961"), "{e}");
        assert!(e.contains("is 1024"), "{e}");
        assert!(e.contains("at most 960"), "{e}");
        assert!(check_fits("--connections", u64::MAX, u64::MAX).is_ok());
    }

    #[test]
    fn raising_never_lowers_the_limit() {
        let before = nofile_limit();
        let after = raise_nofile_limit();
        assert!(after >= before, "{before} -> {after}");
        assert_eq!(after, nofile_limit());
    }
}
