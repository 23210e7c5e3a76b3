//! A timer with microsecond precision for fixed-rate senders.
//!
//! tokio's timers fire on a 1 ms wheel: a message due at `t` leaves up to 1 ms late, and at
//! a fixed offered load that lateness would be charged to the server (round trips are
//! measured from the intended send time). This timer is a Linux `timerfd` (timerfd_create(2),
//! CLOCK_MONOTONIC, the clock of [`Instant`]) awaited through tokio's reactor, with the
//! thread's timer slack lowered to 1 µs (prctl(2) `PR_SET_TIMERSLACK`; the default, 50 µs,
//! would let the kernel fire that much later).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Instant;

use tokio::io::unix::AsyncFd;

/// One re-armable deadline.
#[derive(Debug)]
pub struct PreciseTimer {
    fd: AsyncFd<OwnedFd>,
}

impl PreciseTimer {
    /// A disarmed timer registered with the current tokio runtime.
    ///
    /// # Errors
    /// `timerfd_create` failed (e.g. out of descriptors) or no runtime is running.
    pub fn new() -> io::Result<Self> {
        // SAFETY: plain system calls; the descriptor is checked and owned below.
        unsafe {
            libc::prctl(libc::PR_SET_TIMERSLACK, 1000u64);
        }
        let raw = unsafe {
            libc::timerfd_create(
                libc::CLOCK_MONOTONIC,
                libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
            )
        };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a fresh descriptor nobody else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: the `OwnedFd` is moved into the `AsyncFd` and closed only when it is
        // dropped, after being deregistered (the I/O-safety condition of `register`).
        let fd = unsafe { AsyncFd::register(fd) }.map_err(io::Error::from)?;
        Ok(PreciseTimer { fd })
    }

    /// Arms the timer to fire at `at` (at once if `at` has passed).
    ///
    /// # Errors
    /// `timerfd_settime` failed.
    pub fn set(&self, at: Instant) -> io::Result<()> {
        // At least 1 ns: a zero value would disarm the timer.
        let d = at
            .saturating_duration_since(Instant::now())
            .max(std::time::Duration::from_nanos(1));
        let spec = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: libc::timespec {
                tv_sec: d.as_secs() as libc::time_t,
                tv_nsec: d.subsec_nanos() as libc::c_long,
            },
        };
        // SAFETY: a valid timerfd and a pointer to a live itimerspec.
        let rc =
            unsafe { libc::timerfd_settime(self.fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) };
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// Waits until the armed deadline passes (forever if disarmed). Cancel safe.
    ///
    /// # Errors
    /// The reactor or the descriptor failed.
    pub async fn wait(&self) -> io::Result<()> {
        loop {
            let mut guard = self.fd.readable().await?;
            let mut expirations = [0u8; 8];
            // SAFETY: reads 8 bytes into a live buffer of 8 bytes.
            let n = unsafe {
                libc::read(
                    self.fd.as_raw_fd(),
                    expirations.as_mut_ptr().cast(),
                    expirations.len(),
                )
            };
            if n == 8 {
                return Ok(());
            }
            guard.clear_ready();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn fires_at_the_deadline_not_a_millisecond_tick() {
        let timer = PreciseTimer::new().unwrap();
        for _ in 0..20 {
            let at = Instant::now() + Duration::from_micros(300);
            timer.set(at).unwrap();
            timer.wait().await.unwrap();
            assert!(Instant::now() >= at);
        }
        // Re-armed in the past: fires at once.
        timer
            .set(Instant::now() - Duration::from_millis(5))
            .unwrap();
        tokio::time::timeout(Duration::from_secs(1), timer.wait())
            .await
            .expect("a deadline in the past fires")
            .unwrap();
    }
}
