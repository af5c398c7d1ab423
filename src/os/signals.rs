//! Signal dispositions of the shell itself. An interactive shell ignores
//! the keyboard signals (the foreground job gets them); any shell turns an
//! untrapped SIGTERM/SIGHUP into a request that ends the job it is waiting
//! for and then the shell. A signal with a `trap` action is only recorded by
//! the handler; the action runs later at a safe point (between commands),
//! never inside the handler.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Signals received and not yet handled, one bit per signal number.
static RECEIVED: AtomicU64 = AtomicU64::new(0);
/// Signals that have a `trap` action.
static TRAPPED: AtomicU64 = AtomicU64::new(0);
/// Signals a non-interactive shell found ignored when it started: POSIX
/// says they cannot be trapped or reset, so they stay ignored for the shell
/// and everything it starts (`nohup guard-sh -c …` keeps SIGHUP away from
/// the commands, as with bash).
static IGNORED_AT_ENTRY: AtomicU64 = AtomicU64::new(0);
static INTERACTIVE: AtomicBool = AtomicBool::new(false);

/// A signal guard-sh knows by name.
#[derive(Debug, Clone, Copy)]
pub struct NamedSignal {
    /// The name without `SIG`.
    pub name: &'static str,
    /// Its number on this system.
    pub number: i32,
    /// Whether guard-sh runs a `trap` action for it (KILL and STOP cannot
    /// be caught; CONT is left to job control).
    pub trappable: bool,
}

/// The signals whose `trap` action guard-sh can run, in number order, and
/// the three no action can be set for (`kill` sends any signal of
/// [`number_of_any`]). A fault (SEGV, BUS, …) is left out: the shell's own
/// fault must not return to the instruction that faulted.
pub const NAMED: &[NamedSignal] = &[
    signal("HUP", libc::SIGHUP, true),
    signal("INT", libc::SIGINT, true),
    signal("QUIT", libc::SIGQUIT, true),
    signal("KILL", libc::SIGKILL, false),
    signal("USR1", libc::SIGUSR1, true),
    signal("USR2", libc::SIGUSR2, true),
    signal("PIPE", libc::SIGPIPE, true),
    signal("ALRM", libc::SIGALRM, true),
    signal("TERM", libc::SIGTERM, true),
    signal("CONT", libc::SIGCONT, false),
    signal("STOP", libc::SIGSTOP, false),
    signal("URG", libc::SIGURG, true),
    signal("XCPU", libc::SIGXCPU, true),
    signal("XFSZ", libc::SIGXFSZ, true),
    signal("VTALRM", libc::SIGVTALRM, true),
    signal("PROF", libc::SIGPROF, true),
    signal("WINCH", libc::SIGWINCH, true),
    signal("IO", libc::SIGIO, true),
    signal("PWR", libc::SIGPWR, true),
    signal("SYS", libc::SIGSYS, true),
];

const fn signal(name: &'static str, number: i32, trappable: bool) -> NamedSignal {
    NamedSignal {
        name,
        number,
        trappable,
    }
}

/// The first real-time signal as glibc, and so bash, numbers it: the
/// kernel's 32 and 33 are glibc's own (musl keeps 34 too, but guard-sh
/// numbers signals as bash does whatever C library it is built on).
const RTMIN: i32 = 34;
/// The last real-time signal.
const RTMAX: i32 = 64;

/// Every signal of this system by number, as `kill -l` and `trap -l` list
/// them in bash: five to a line, `N) SIGNAME`, the real-time ones as
/// `SIGRTMIN+K` / `SIGRTMAX-K` (the numbers glibc keeps for itself are
/// left out).
pub fn table() -> String {
    let entries = every_signal();
    let mut out = String::new();
    for (k, (n, name)) in entries.iter().enumerate() {
        out.push_str(&format!("{n:2}) {name}"));
        out.push(if (k + 1) % 5 == 0 { '\n' } else { '\t' });
    }
    if entries.len() % 5 != 0 {
        out.push('\n');
    }
    out
}

/// `kill -l SPEC`: a signal's name (without `SIG`) for its number or an
/// exit status of 128+N, its number for its name; `None` for neither.
pub fn look_up(spec: &str) -> Option<String> {
    if let Ok(n) = spec.parse::<libc::c_int>() {
        let n = if n > 128 { n - 128 } else { n };
        return every_signal()
            .iter()
            .find(|(m, _)| *m == n)
            .map(|(_, name)| name.trim_start_matches("SIG").to_string());
    }
    let upper = spec.to_uppercase();
    number_of_any(upper.trim_start_matches("SIG")).map(|n| n.to_string())
}

/// What a job ended by `signal` is said to have met, as bash says it
/// (the C library's description: `Hangup`, `Killed`, `User defined
/// signal 1`).
pub fn description(signal: i32) -> String {
    // SAFETY: strsignal returns a NUL-terminated string the C library
    // keeps (or null); it is copied at once, on the shell's one thread.
    let text = unsafe { libc::strsignal(signal) };
    if text.is_null() {
        return format!("Signal {signal}");
    }
    // SAFETY: non-null, NUL-terminated, as above.
    unsafe { std::ffi::CStr::from_ptr(text) }
        .to_string_lossy()
        .into_owned()
}

/// The number of any signal of this system, named without `SIG`.
pub fn number_of_any(name: &str) -> Option<i32> {
    every_signal()
        .into_iter()
        .find(|(_, full)| full.strip_prefix("SIG") == Some(name))
        .map(|(n, _)| n)
}

/// Every signal of this system as (number, `SIGNAME`), by number.
fn every_signal() -> Vec<(libc::c_int, String)> {
    const STANDARD: [(&str, libc::c_int); 31] = [
        ("HUP", libc::SIGHUP),
        ("INT", libc::SIGINT),
        ("QUIT", libc::SIGQUIT),
        ("ILL", libc::SIGILL),
        ("TRAP", libc::SIGTRAP),
        ("ABRT", libc::SIGABRT),
        ("BUS", libc::SIGBUS),
        ("FPE", libc::SIGFPE),
        ("KILL", libc::SIGKILL),
        ("USR1", libc::SIGUSR1),
        ("SEGV", libc::SIGSEGV),
        ("USR2", libc::SIGUSR2),
        ("PIPE", libc::SIGPIPE),
        ("ALRM", libc::SIGALRM),
        ("TERM", libc::SIGTERM),
        ("STKFLT", libc::SIGSTKFLT),
        ("CHLD", libc::SIGCHLD),
        ("CONT", libc::SIGCONT),
        ("STOP", libc::SIGSTOP),
        ("TSTP", libc::SIGTSTP),
        ("TTIN", libc::SIGTTIN),
        ("TTOU", libc::SIGTTOU),
        ("URG", libc::SIGURG),
        ("XCPU", libc::SIGXCPU),
        ("XFSZ", libc::SIGXFSZ),
        ("VTALRM", libc::SIGVTALRM),
        ("PROF", libc::SIGPROF),
        ("WINCH", libc::SIGWINCH),
        ("IO", libc::SIGIO),
        ("PWR", libc::SIGPWR),
        ("SYS", libc::SIGSYS),
    ];
    let mut entries: Vec<(libc::c_int, String)> = STANDARD
        .iter()
        .map(|(name, n)| (*n, format!("SIG{name}")))
        .collect();
    entries.sort();
    for n in RTMIN..=RTMAX {
        let name = if n - RTMIN <= (RTMAX - RTMIN) / 2 {
            match n - RTMIN {
                0 => "SIGRTMIN".to_string(),
                k => format!("SIGRTMIN+{k}"),
            }
        } else {
            match RTMAX - n {
                0 => "SIGRTMAX".to_string(),
                k => format!("SIGRTMAX-{k}"),
            }
        };
        entries.push((n, name));
    }
    entries
}

/// The signals whose `trap` action guard-sh runs, as (name, number). It
/// allocates nothing, so a forked child may call it.
pub fn trappable() -> impl Iterator<Item = (&'static str, i32)> {
    NAMED
        .iter()
        .filter(|s| s.trappable)
        .map(|s| (s.name, s.number))
}

/// The name (without `SIG`) of trappable signal `number`.
pub fn trappable_name(number: i32) -> Option<&'static str> {
    trappable().find(|(_, s)| *s == number).map(|(n, _)| n)
}

/// The number of a trappable signal named without `SIG`.
pub fn number(name: &str) -> Option<i32> {
    trappable().find(|(n, _)| *n == name).map(|(_, s)| s)
}

fn bit(signal: i32) -> u64 {
    1u64 << (signal as u32 & 63)
}

extern "C" fn on_signal(signal: libc::c_int) {
    RECEIVED.fetch_or(bit(signal), Ordering::SeqCst);
}

fn catch(signal: i32) {
    // A handler that only updates an atomic, without SA_RESTART so a
    // blocking wait or read is interrupted.
    set_action(signal, on_signal as *const () as usize);
}

/// Give `signal` the handler or disposition (`SIG_DFL`, `SIG_IGN`)
/// `handler`, no flags, nothing blocked while it runs. Only a system call:
/// safe in a child before it execs.
pub fn set_action(signal: i32, handler: usize) {
    // SAFETY: a zeroed sigaction with a handler that is SIG_DFL, SIG_IGN or
    // one of this module's (which only update atomics).
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = handler;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(signal, &action, std::ptr::null_mut());
    }
}

/// The disposition the shell has for `signal` when no trap is set.
fn shell_default(signal: i32) {
    if signal == libc::SIGTERM || signal == libc::SIGHUP {
        catch(signal);
    } else if INTERACTIVE.load(Ordering::SeqCst)
        && (signal == libc::SIGINT || signal == libc::SIGQUIT)
    {
        set_action(signal, libc::SIG_IGN);
    } else {
        set_action(signal, libc::SIG_DFL);
    }
}

/// An untrapped SIGTERM/SIGHUP that arrived, if any.
pub fn pending_termination() -> Option<i32> {
    let pending = RECEIVED.load(Ordering::SeqCst) & !TRAPPED.load(Ordering::SeqCst);
    [libc::SIGTERM, libc::SIGHUP]
        .into_iter()
        .find(|s| pending & bit(*s) != 0)
}

/// Did a trapped signal arrive that has not been handled yet?
pub fn trap_pending() -> bool {
    RECEIVED.load(Ordering::SeqCst) & TRAPPED.load(Ordering::SeqCst) != 0
}

/// Take the trapped signals that arrived, lowest number first.
pub fn take_trapped() -> Vec<i32> {
    let trapped = TRAPPED.load(Ordering::SeqCst);
    let taken = RECEIVED.fetch_and(!trapped, Ordering::SeqCst) & trapped;
    (1..64).filter(|s| taken & bit(*s) != 0).collect()
}

/// What `trap` asks for one signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disposition {
    /// `trap ACTION SIG`: record it, run ACTION at the next safe point.
    Catch,
    /// `trap '' SIG`
    Ignore,
    /// `trap - SIG`
    Default,
}

/// Whether `signal` was ignored when this non-interactive shell started
/// (then `trap` leaves it alone).
pub fn ignored_at_entry(signal: i32) -> bool {
    IGNORED_AT_ENTRY.load(Ordering::SeqCst) & bit(signal) != 0
}

/// Whether `signal` is ignored right now.
fn is_ignored(signal: i32) -> bool {
    // SAFETY: a query only (null new action); `old` is a plain struct.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    }
}

/// Apply a `trap` for `signal` (the caller leaves out one ignored at
/// entry, see [`ignored_at_entry`]).
pub fn set(signal: i32, disposition: Disposition) {
    match disposition {
        Disposition::Catch => {
            TRAPPED.fetch_or(bit(signal), Ordering::SeqCst);
            catch(signal);
        }
        Disposition::Ignore => {
            TRAPPED.fetch_and(!bit(signal), Ordering::SeqCst);
            set_action(signal, libc::SIG_IGN);
        }
        Disposition::Default => {
            TRAPPED.fetch_and(!bit(signal), Ordering::SeqCst);
            RECEIVED.fetch_and(!bit(signal), Ordering::SeqCst);
            shell_default(signal);
        }
    }
}

/// Signals an interactive shell ignores (job control and the keyboard).
const KEYBOARD_SIGNALS: [libc::c_int; 5] = [
    libc::SIGINT,
    libc::SIGQUIT,
    libc::SIGTSTP,
    libc::SIGTTIN,
    libc::SIGTTOU,
];

/// Install the shell's handlers. `interactive` also ignores SIGINT,
/// SIGQUIT, SIGTSTP, SIGTTIN and SIGTTOU.
pub fn install(interactive: bool) {
    INTERACTIVE.store(interactive, Ordering::SeqCst);
    if !interactive {
        let ignored = trappable()
            .filter(|(_, s)| is_ignored(*s))
            .fold(0, |mask, (_, s)| mask | bit(s));
        IGNORED_AT_ENTRY.store(ignored, Ordering::SeqCst);
    }
    for s in [libc::SIGTERM, libc::SIGHUP] {
        if !ignored_at_entry(s) {
            catch(s);
        }
    }
    if interactive {
        for s in KEYBOARD_SIGNALS {
            set_action(s, libc::SIG_IGN);
        }
    }
}

/// In a forked copy of the shell: caught signals go back to the shell's
/// defaults (a subshell does not inherit trap actions), and an interactive
/// shell's ignored keyboard signals to their defaults.
pub fn child_defaults(was_interactive: bool) {
    let trapped = TRAPPED.swap(0, Ordering::SeqCst);
    INTERACTIVE.store(false, Ordering::SeqCst);
    for (_, s) in trappable() {
        if trapped & bit(s) != 0 {
            shell_default(s);
        }
    }
    if was_interactive {
        for s in KEYBOARD_SIGNALS {
            set_action(s, libc::SIG_DFL);
        }
    }
}

/// End this process by `signal` (after the EXIT trap ran), so the parent
/// sees the same death as for bash. Falls back to `128+signal`.
pub fn die_by(signal: i32) -> i32 {
    set_action(signal, libc::SIG_DFL);
    // SAFETY: unblocking and raising a signal in the calling process.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal);
        libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(signal);
    }
    128 + signal
}

extern "C" fn on_child(_signal: libc::c_int) {}

/// Make a child's end, or its stop (Ctrl-Z, for job control), interrupt a
/// sleep in `ppoll` (SIGCHLD is ignored by default). SA_RESTART keeps
/// other calls from failing with EINTR.
pub fn wake_on_child_exit() {
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Ordering::SeqCst) {
        return;
    }
    // SAFETY: installing a handler that does nothing.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_child as *const () as usize;
        libc::sigemptyset(&mut action.sa_mask);
        action.sa_flags = libc::SA_RESTART;
        libc::sigaction(libc::SIGCHLD, &action, std::ptr::null_mut());
    }
}

/// The signals a `trap` catches, one bit per number (read without
/// allocating or locking: a spawned child calls it before exec).
pub fn trapped_mask() -> u64 {
    TRAPPED.load(Ordering::SeqCst)
}

/// In a new forked copy (signals still held): what the shell received
/// before the fork is the shell's to handle, not the copy's.
pub fn forget_received() {
    RECEIVED.store(0, Ordering::SeqCst);
}

/// The lowest trapped signal that arrived and is not handled yet.
pub fn first_trapped_pending() -> Option<i32> {
    let pending = RECEIVED.load(Ordering::SeqCst) & TRAPPED.load(Ordering::SeqCst);
    (1..64).find(|s| pending & bit(*s) != 0)
}
