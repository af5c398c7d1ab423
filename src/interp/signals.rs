//! Signal dispositions of the shell itself. An interactive shell ignores
//! the keyboard signals (the foreground job gets them); any shell turns
//! SIGTERM/SIGHUP into a request that ends the job it is waiting for and
//! then the shell.

use std::sync::atomic::{AtomicI32, Ordering};

static PENDING: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_termination(signal: libc::c_int) {
    PENDING.store(signal, Ordering::SeqCst);
}

/// A SIGTERM/SIGHUP that arrived, if any.
pub fn pending_termination() -> Option<i32> {
    match PENDING.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Install the shell's handlers. `interactive` also ignores SIGINT,
/// SIGQUIT, SIGTSTP, SIGTTIN and SIGTTOU.
pub fn install(interactive: bool) {
    // SAFETY: installing a handler that only stores to an atomic, without
    // SA_RESTART so a blocking wait is interrupted.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_termination as *const () as usize;
        libc::sigemptyset(&mut action.sa_mask);
        action.sa_flags = 0;
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
        libc::sigaction(libc::SIGHUP, &action, std::ptr::null_mut());
        if interactive {
            for s in [
                libc::SIGINT,
                libc::SIGQUIT,
                libc::SIGTSTP,
                libc::SIGTTIN,
                libc::SIGTTOU,
            ] {
                libc::signal(s, libc::SIG_IGN);
            }
        }
    }
}

/// Default dispositions in a forked copy of an interactive shell.
pub fn child_defaults() {
    // SAFETY: resetting dispositions to their defaults.
    unsafe {
        for s in [
            libc::SIGINT,
            libc::SIGQUIT,
            libc::SIGTSTP,
            libc::SIGTTIN,
            libc::SIGTTOU,
        ] {
            libc::signal(s, libc::SIG_DFL);
        }
    }
}
