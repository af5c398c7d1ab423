//! The shell's state in named parts. A forked or simulated copy of the
//! shell clones each part whole; what a copy starts with differently is
//! said here, once ([`CopyMode::for_copy`]).

use super::job_table::JobTable;
use crate::system::Pid;
use std::collections::BTreeMap;
use std::rc::Rc;

/// How deep the shell is in constructs that nest; each is bounded or read
/// by a rule.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Depths {
    /// Loops being run: `break N` and `continue N` count against it.
    pub(super) loops: u32,
    /// Function calls: the DEBUG and ERR traps do not fire inside one.
    pub(super) functions: u32,
    /// Files being read by `source`.
    pub(super) sources: u32,
    /// `eval`, `source` and trap texts being run inside one another,
    /// bounded by [`super::MAX_NESTING`].
    pub(super) texts: u32,
    /// Array subscripts being evaluated inside one another (a value that
    /// names an element of itself is stopped).
    pub(super) subscripts: u32,
    /// Conditions (`if`, `while`, `&&`, `!`) where `set -e` is off.
    pub(super) errexit_off: u32,
    /// Copies of the shell this process is below the shell itself.
    pub(super) copies: u32,
    /// How many of those copies came before the new shell (`bash -c`)
    /// this one is: `$BASH_SUBSHELL` counts from there.
    pub(super) copies_before_shell: u32,
}

/// Where the command being run is, for `$LINENO` and the prompt.
#[derive(Debug, Clone, Default)]
pub(super) struct Position {
    /// `$LINENO`: the line of the simple command being run, counted in the
    /// text being run (`line_starts`: offsets where its lines 2, 3, …
    /// start) after `line_base` lines read before it (standard input).
    pub(super) lineno: usize,
    pub(super) line_base: usize,
    pub(super) line_starts: Rc<Vec<usize>>,
    /// Each function's lines: those of the text it was defined in, which
    /// its body's offsets refer to.
    pub(super) function_lines: BTreeMap<String, (Rc<Vec<usize>>, usize)>,
    /// Complete commands read from the input so far (a prompt's `\#`).
    pub(super) commands_read: usize,
    /// Inside `eval` text, whose offsets are not the script's: `$LINENO`
    /// stays the line of the `eval`.
    pub(super) frozen: u32,
}

/// What kind of process this shell is: the shell itself or a copy that
/// runs one thing and ends.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct CopyMode {
    /// A background job's copy that runs one simple command: once that
    /// command is spawned, the copy needs none of the line's descriptors
    /// (it only waits and records the exit), so it closes them, as bash,
    /// which execs such a command in place, holds none (a pipe the job's
    /// output was redirected away from then ends).
    pub(super) drop_descriptors_after_spawn: bool,
    /// The same for a background job that is one pipeline: once its
    /// members are started, the job's copy only waits for them.
    pub(super) drop_descriptors_after_pipeline: bool,
    /// A background job's copy running one compound command: its
    /// redirections are made for good (no copy of what they replace is
    /// kept to put back: the copy ends with the command), as bash does, so
    /// a pipe the job's output was redirected away from ends at once.
    pub(super) redirects_for_good: bool,
    /// Set by `exec` without a command: its redirections stay.
    pub(super) keep_redirects: bool,
    /// This process has forked a copy of the shell: only then can the
    /// abort pipe hold a report, so a line of builtins never reads it.
    pub(super) forked_a_copy: bool,
}

impl CopyMode {
    /// What a new copy of a shell in this mode starts with: the modes of
    /// a one-command copy are set by whoever makes it, for itself.
    pub(super) fn for_copy(self) -> CopyMode {
        CopyMode {
            keep_redirects: self.keep_redirects,
            forked_a_copy: self.forked_a_copy,
            ..CopyMode::default()
        }
    }
}

/// The shell's jobs: background commands and process substitutions.
#[derive(Debug, Clone)]
pub(super) struct Jobs {
    /// `$!`.
    pub(super) last_bg: Option<Pid>,
    /// Started and not yet reaped.
    pub(super) running: Vec<Pid>,
    /// Statuses of those that ended before `wait` asked for them.
    pub(super) done: BTreeMap<Pid, EndedJob>,
    /// Job control: the jobs `jobs`, `fg`, `bg` and `%N` name.
    pub(super) table: JobTable,
    /// The shell's own process group (job control).
    pub(super) shell_pgid: Pid,
    /// The shells that started this one with `bash`/`sh`, outermost
    /// first: a line may signal them as it may its own shell.
    pub(super) outer_shells: Vec<Pid>,
}

impl Jobs {
    /// No jobs yet, for a shell in process group `shell_pgid`.
    pub(super) fn new(shell_pgid: Pid) -> Jobs {
        Jobs {
            last_bg: None,
            running: Vec::new(),
            done: BTreeMap::new(),
            table: JobTable::default(),
            shell_pgid,
            outer_shells: Vec::new(),
        }
    }
}

/// A background job that ended before `wait` asked for it.
#[derive(Debug, Clone, Copy)]
pub(super) struct EndedJob {
    pub(super) status: i32,
    /// `wait -n` returned it already (`wait PID` still can).
    pub(super) told: bool,
}

/// The traps and what running them needs.
#[derive(Debug, Clone, Default)]
pub(super) struct Traps {
    /// Each trapped condition's action.
    pub(super) actions: BTreeMap<String, Vec<u8>>,
    /// In a forked copy, until it sets a trap: the parent's traps, which
    /// `trap -p` still lists (bash's, so `$(trap -p)` saves them).
    pub(super) listed: Option<BTreeMap<String, Vec<u8>>>,
    /// A trap action is running (ERR does not fire inside one, and
    /// `$BASH_COMMAND` keeps naming the command it interrupted).
    pub(super) running: bool,
    /// `$BASH_COMMAND` is kept: some text the shell took in spells it (a
    /// line, a trap's action). Naming every command costs a copy of it,
    /// paid only once something may read it.
    pub(super) names_commands: bool,
}
