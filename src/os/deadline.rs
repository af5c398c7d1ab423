//! The wall-time bound of the line being run: one absolute time on the
//! monotonic clock, process-wide, so that a forked copy of the shell keeps
//! its parent's and the waits deep in `system::real` see it without being
//! told.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// When the line must have ended, in nanoseconds of `CLOCK_MONOTONIC`;
/// 0: no bound.
static DEADLINE_NS: AtomicU64 = AtomicU64::new(0);

fn now_ns() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec we own.
    unsafe {
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now);
    }
    (now.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(now.tv_nsec as u64)
}

/// Bound the line starting now to `within` (`None`: unbounded).
pub fn set(within: Option<Duration>) {
    let at = within.map_or(0, |d| {
        now_ns().saturating_add(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
    });
    DEADLINE_NS.store(at, Ordering::SeqCst);
}

/// The time left before the bound; `None` without one, zero past it.
pub fn remaining() -> Option<Duration> {
    match DEADLINE_NS.load(Ordering::SeqCst) {
        0 => None,
        at => Some(Duration::from_nanos(at.saturating_sub(now_ns()))),
    }
}

/// Whether the line has run past its bound.
pub fn passed() -> bool {
    remaining().is_some_and(|left| left.is_zero())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bound_passes_once_its_time_is_up_and_none_never_does() {
        set(None);
        assert!(!passed());
        assert_eq!(remaining(), None);
        set(Some(Duration::from_millis(30)));
        assert!(!passed());
        std::thread::sleep(Duration::from_millis(40));
        assert!(passed());
        set(None);
        assert!(!passed());
    }
}
