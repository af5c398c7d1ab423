//! Stage 3: the interpreter. It runs the very AST the guard approved and
//! reaches the operating system only through [`crate::system::System`].
//!
//! Guarantees: every line (including `eval` and `source` text) is parsed,
//! recorded and statically checked before any of it runs; every external
//! command's final argv is checked again ([`crate::guard::check_argv`])
//! and audited before it may exec; names resolve only in the policy's bin
//! folder; a dynamic denial aborts the rest of the top-level line.
//!
//! Aliases are stored and printed but never expanded, so the text the guard
//! checks is the text that runs.

mod arith;
pub(crate) mod arrays;
mod brace;
mod builtins;
mod completion;
mod cond;
mod exec;
mod expand;
mod history;
mod job_table;
mod jobs;
mod line_editor;
mod pattern;
mod prompt;
mod pure;
mod quote;
mod redirect;
mod session;
pub use session::Input;
mod state;
mod timing;
mod traps;
mod vars;

pub use vars::{Assoc, Value, Var, Vars};

use crate::audit::{AuditSink, Event};
use crate::guard::Deny;
use crate::policy::Policy;
use crate::syntax::ast::FunctionDef;
use crate::system::{Fd, Pid, System};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;

/// How running stopped early. `Ok(status)` is the normal case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// `break N`
    Break(u32),
    /// `continue N`
    Continue(u32),
    /// `return N` from a function or sourced file.
    Return(i32),
    /// `exit N`, or `set -e` on a failing command: the shell ends.
    Exit(i32),
    /// A denial or fatal error: the rest of the top-level line is skipped
    /// and `$?` becomes the status.
    Abort(i32),
}

/// Result of running a piece of the tree.
pub type Status = Result<i32, Flow>;

/// Shell options (`set -o`, `shopt`).
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `shopt -s lastpipe`: without job control, a pipeline's last member
    /// runs in the shell itself (`… | read v` sets `v`).
    pub lastpipe: bool,
    pub errexit: bool,
    pub nounset: bool,
    pub xtrace: bool,
    pub pipefail: bool,
    pub noclobber: bool,
    pub noglob: bool,
    pub verbose: bool,
    pub allexport: bool,
    pub nullglob: bool,
    pub dotglob: bool,
    /// `shopt -u globskipdots` (bash 5.2's default is on: dots skipped).
    pub glob_dots: bool,
    pub failglob: bool,
    pub extglob: bool,
    pub expand_aliases: bool,
    pub globstar: bool,
    pub nocaseglob: bool,
    pub login_shell: bool,
}

/// What a top-level run of some text ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Go on with the next line; `$?` is this.
    Continue(i32),
    /// The shell must exit with this status.
    Exit(i32),
}

impl Outcome {
    pub fn status(self) -> i32 {
        match self {
            Outcome::Continue(s) | Outcome::Exit(s) => s,
        }
    }
}

/// The interpreter's whole state.
pub struct Shell<'a> {
    policy: Rc<Policy>,
    sys: &'a mut dyn System,
    audit: &'a mut dyn AuditSink,
    vars: Vars,
    functions: BTreeMap<String, Rc<FunctionDef>>,
    positional: Vec<Vec<u8>>,
    arg0: Vec<u8>,
    /// `$?`
    status: i32,
    opts: Options,
    aliases: BTreeMap<String, Vec<u8>>,
    /// The traps, and whether one's action is running.
    traps: state::Traps,
    /// Background jobs, `$!` and the job table.
    jobs: state::Jobs,
    /// The lines an interactive shell read, expanded (`history`, `!!`).
    history: history::History,
    pipestatus: Vec<i32>,
    interactive: bool,
    /// How deep the shell is in loops, functions, texts, copies.
    depth: state::Depths,
    /// Whether this is a copy that runs one thing and ends.
    copy: state::CopyMode,
    /// Where the command being run is (`$LINENO`).
    position: state::Position,
    /// Names of the functions being run, innermost last (`$FUNCNAME`).
    func_names: Vec<String>,
    /// `pushd`'s folders below the working one, top first.
    dir_stack: Vec<std::path::PathBuf>,
    /// When the shell started (`$SECONDS`).
    started: std::time::Instant,
    /// The protected paths as the guard's text comparison wants them,
    /// resolved by the first line that needs them.
    protected_paths: Option<std::rc::Rc<crate::guard::ProtectedPaths>>,
    /// Running a script file (not `-c` text or standard input).
    running_script: bool,
    /// The text last given to `run_text` did not parse.
    syntax_error_seen: bool,
    /// The `NAME=(…)` operands of the declaration builtin being run, by
    /// their place in its argv: their elements, expanded.
    compound_args: Vec<(usize, Vec<arrays::ExpandedItem>)>,
    /// `$$`: the top-level shell's pid, also in subshells.
    shell_pid: Pid,
    /// Descriptors to close after the current command (process substitution).
    pending_close: Vec<Fd>,
    /// Written by a forked copy that hit a denial, read by the top level:
    /// a denial anywhere aborts the whole line.
    abort_pipe: Option<(Fd, Fd)>,
    /// The logical working folder (`$PWD`).
    cwd: PathBuf,
    /// The shell name for messages.
    name: String,
    /// Last command substitution status, for `x=$(false)`.
    subst_status: Option<i32>,
    /// Started with `-c` (shows in `$-`).
    command_mode: bool,
    /// Position inside a bundled option word, for `getopts`.
    getopts_pos: usize,
    /// Makes a fresh audit sink in a forked copy of the shell (a new
    /// session in the same log), so the parent's hash chain stays intact.
    audit_reopen: Option<AuditReopen<'a>>,
    /// The sink of a forked copy, when `audit_reopen` made one.
    child_audit: Option<Box<dyn AuditSink>>,
    /// The names the arm holds for every command, as the environment the
    /// shell imported gave them: what bash would have passed on before
    /// the line changed any (`sandbox::env::changed_held_name`).
    held_at_start: Rc<[(String, Vec<u8>)]>,
}

/// Makes the audit sink of a forked copy of the shell.
pub type AuditReopen<'a> = Box<dyn Fn() -> Result<Box<dyn AuditSink>, String> + 'a>;

/// How guard-sh was started, as its command line said: given to the
/// shell once, before it runs anything ([`Shell::start`]).
pub struct Startup<'a> {
    /// Reading a terminal (`-i`, or stdin and stderr are terminals).
    pub interactive: bool,
    /// Started with `-c` (shows in `$-`; `wait -n` as bash's `-c`).
    pub command_mode: bool,
    /// `-l`/`--login`.
    pub login_shell: bool,
    /// `$0`.
    pub arg0: Vec<u8>,
    /// `$1`…
    pub positional: Vec<Vec<u8>>,
    /// Makes the audit sink of each forked copy.
    pub audit_reopen: AuditReopen<'a>,
}

/// Deepest `eval`/`source`/function nesting before the shell refuses.
pub const MAX_NESTING: u32 = 200;

impl<'a> Shell<'a> {
    /// Take what the command line said (see [`Startup`]). Fails when the
    /// shell has no abort pipe: without it a denial inside a subshell
    /// could not stop the rest of its line, so nothing may run.
    pub fn start(&mut self, startup: Startup<'a>) -> Result<(), &'static str> {
        self.interactive = startup.interactive;
        self.command_mode = startup.command_mode;
        self.opts.login_shell = startup.login_shell;
        self.arg0 = startup.arg0;
        self.positional = startup.positional;
        // `$_` starts as the shell's name, as bash's starts as its path
        // (set before the first command: `set -u` finds it set).
        if !self.vars.is_set("_") {
            self.vars.set_internal("_", self.arg0.clone());
        }
        self.audit_reopen = Some(startup.audit_reopen);
        match self.abort_pipe {
            Some(_) => Ok(()),
            None => Err("cannot create the abort pipe: no command can run safely"),
        }
    }

    /// Run the `EXIT` trap, `$?` being `status` (what the input's last
    /// command left); the shell's exit status.
    pub fn finish(&mut self, status: i32) -> i32 {
        self.status = status;
        self.run_exit_trap()
    }

    /// A shell over `sys`, recording to `audit`, with variables imported
    /// from `environ` (the process environment at start-up).
    pub fn new(
        policy: Rc<Policy>,
        sys: &'a mut dyn System,
        audit: &'a mut dyn AuditSink,
        environ: Vec<(Vec<u8>, Vec<u8>)>,
    ) -> Self {
        let shell_pid = sys.getpid();
        let cwd = sys.current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        let abort_pipe = sys.private_pipe();
        let held_at_start = environ
            .iter()
            .filter_map(|(n, v)| {
                let name = std::str::from_utf8(n).ok()?;
                policy
                    .env
                    .held_by_arm(name)
                    .then(|| (name.to_string(), v.clone()))
            })
            .collect();
        let mut shell = Shell {
            policy,
            sys,
            audit,
            vars: Vars::default(),
            functions: BTreeMap::new(),
            positional: Vec::new(),
            arg0: b"guard-sh".to_vec(),
            status: 0,
            opts: Options::default(),
            aliases: BTreeMap::new(),
            history: history::History::default(),
            // Empty until a pipeline has run, as in bash.
            pipestatus: Vec::new(),
            interactive: false,
            traps: state::Traps::default(),
            jobs: state::Jobs::new(shell_pid),
            depth: state::Depths::default(),
            copy: state::CopyMode::default(),
            position: state::Position::default(),
            func_names: Vec::new(),
            dir_stack: Vec::new(),
            started: std::time::Instant::now(),
            protected_paths: None,
            running_script: false,
            syntax_error_seen: false,
            compound_args: Vec::new(),
            shell_pid,
            pending_close: Vec::new(),
            abort_pipe,
            cwd,
            name: "guard-sh".into(),
            subst_status: None,
            command_mode: false,
            getopts_pos: 0,
            audit_reopen: None,
            child_audit: None,
            held_at_start,
        };
        shell.vars.import(environ);
        shell.init_vars();
        shell
    }

    /// A copy of this shell over the same system and audit sink, for a
    /// system that runs a forked copy in this process
    /// ([`crate::system::Forked::Simulated`]): what a real `fork` gives the
    /// child, while this shell, the parent, stays as it was. Every field
    /// is named, so a new one cannot be left out unnoticed.
    fn simulated_copy(&mut self) -> Shell<'_> {
        let audit: &mut dyn AuditSink = match &mut self.child_audit {
            Some(sink) => &mut **sink,
            None => &mut *self.audit,
        };
        let audit_reopen = self
            .audit_reopen
            .as_ref()
            .map(|reopen| Box::new(reopen) as AuditReopen<'_>);
        Shell {
            policy: self.policy.clone(),
            sys: &mut *self.sys,
            audit,
            vars: self.vars.clone(),
            functions: self.functions.clone(),
            positional: self.positional.clone(),
            arg0: self.arg0.clone(),
            status: self.status,
            opts: self.opts.clone(),
            aliases: self.aliases.clone(),
            history: self.history.clone(),
            pipestatus: self.pipestatus.clone(),
            interactive: self.interactive,
            traps: self.traps.clone(),
            jobs: self.jobs.clone(),
            depth: self.depth,
            copy: self.copy.for_copy(),
            position: self.position.clone(),
            func_names: self.func_names.clone(),
            dir_stack: self.dir_stack.clone(),
            started: self.started,
            protected_paths: self.protected_paths.clone(),
            running_script: self.running_script,
            syntax_error_seen: self.syntax_error_seen,
            compound_args: self.compound_args.clone(),
            shell_pid: self.shell_pid,
            pending_close: self.pending_close.clone(),
            abort_pipe: self.abort_pipe,
            cwd: self.cwd.clone(),
            name: self.name.clone(),
            subst_status: self.subst_status,
            command_mode: self.command_mode,
            getopts_pos: self.getopts_pos,
            audit_reopen,
            child_audit: None,
            held_at_start: self.held_at_start.clone(),
        }
    }

    fn init_vars(&mut self) {
        use std::os::unix::ffi::OsStrExt;
        let pwd_ok = self
            .vars
            .get("PWD")
            .and_then(|p| {
                self.sys
                    .real_path(std::path::Path::new(std::ffi::OsStr::from_bytes(p)))
                    .ok()
            })
            .zip(self.sys.real_path(&self.cwd).ok())
            .is_some_and(|(a, b)| a == b);
        if pwd_ok {
            if let Some(p) = self.vars.get("PWD") {
                self.cwd = PathBuf::from(std::ffi::OsStr::from_bytes(p));
            }
        } else {
            // No `PWD` naming the folder: the folder as the kernel names it
            // (a new shell started in a linked folder without `PWD`).
            if let Ok(real) = self.sys.real_path(&self.cwd) {
                self.cwd = real;
            }
            let cwd = self.cwd.as_os_str().as_bytes().to_vec();
            self.vars.set_internal("PWD", cwd);
        }
        // bash exports the working folder to every command (its value is
        // the shell's own, not the harness's).
        self.vars.export("PWD", true);
        if let Some(pwd) = self.vars.get_var_mut("PWD") {
            pwd.inherited = false;
        }
        self.vars.set_default("IFS", b" \t\n".to_vec());
        self.vars.set_default("PS1", b"$ ".to_vec());
        self.vars.set_default("PS2", b"> ".to_vec());
        self.vars.set_default("PS4", b"+ ".to_vec());
        // bash's own variables of the machine (set, not exported).
        self.vars.set_default("OSTYPE", b"linux-gnu".to_vec());
        if let Some(name) = self.sys.host_name() {
            self.vars.set_default("HOSTNAME", name);
        }
        self.vars.set_internal("OPTIND", b"1".to_vec());
        self.vars.set_internal(
            "GUARD_SH_VERSION",
            env!("CARGO_PKG_VERSION").as_bytes().to_vec(),
        );
        self.vars
            .set_internal("BASH_VERSION", b"5.2.0(1)-guard-sh".to_vec());
        let machine = machine_type();
        let versinfo = [
            b"5".as_slice(),
            b"2",
            b"0",
            b"1",
            b"guard-sh",
            machine.as_bytes(),
        ];
        self.vars.set_value(
            "BASH_VERSINFO",
            Value::Indexed((0..).zip(versinfo.map(<[u8]>::to_vec)).collect()),
        );
        self.vars.set_default("MACHTYPE", machine.into_bytes());
    }

    /// Whether this process is a forked copy of the shell.
    fn in_child(&self) -> bool {
        self.depth.copies > 0
    }

    /// Write `guard-sh: MESSAGE` to stderr.
    pub fn error(&mut self, message: &str) {
        let line = format!("{}: {}\n", self.name, message);
        let _ = self.sys.write_all(2, line.as_bytes());
    }

    /// Write bytes to a descriptor, ignoring a closed reader.
    pub fn out(&mut self, fd: Fd, data: &[u8]) -> bool {
        self.sys.write_all(fd, data).is_ok()
    }

    /// The system and the sink this process records to, at once: waiting
    /// and spawning record the supervised calls they answer.
    pub(crate) fn sys_and_sink(&mut self) -> (&mut dyn System, &mut dyn AuditSink) {
        let sink: &mut dyn AuditSink = match &mut self.child_audit {
            Some(sink) => sink.as_mut(),
            None => &mut *self.audit,
        };
        (&mut *self.sys, sink)
    }

    /// The sink this process records to.
    pub fn sink(&mut self) -> &mut dyn AuditSink {
        self.sys_and_sink().1
    }

    /// Record an audit event; on failure say so. Returns whether it was recorded.
    pub fn record(&mut self, event: Event) -> bool {
        match self.sink().record(event) {
            Ok(()) => true,
            Err(message) => {
                self.error(&format!("audit log unavailable: {message}"));
                false
            }
        }
    }

    /// Report a dynamic denial: message, audit record, and the abort.
    pub fn deny(&mut self, deny: &Deny, argv: &[Vec<u8>]) -> Flow {
        self.error(&format!("denied: {}", deny.reason));
        self.record_denial(deny, argv);
        self.signal_abort();
        Flow::Abort(126)
    }

    /// A name that is no command anywhere (a typo): said in bash's words,
    /// recorded as a denial, and only this command fails (127).
    pub fn not_found(&mut self, deny: &Deny, argv: &[Vec<u8>]) -> i32 {
        self.error(&deny.reason);
        self.record_denial(deny, argv);
        127
    }

    fn record_denial(&mut self, deny: &Deny, argv: &[Vec<u8>]) {
        let argv = argv
            .iter()
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let _ = self.sink().record(Event::Denied {
            rule: deny.rule.to_string(),
            reason: deny.reason.clone(),
            argv,
        });
    }

    /// Tell the top-level shell (if this is a forked copy) to abort its line.
    fn signal_abort(&mut self) {
        if self.in_child() {
            if let Some((_, w)) = self.abort_pipe {
                let _ = self.sys.write_all(w, b"!");
            }
        }
    }

    /// Did a forked copy report a denial since the last check? A copy
    /// that takes the report passes it on, so a denial in a copy of a copy
    /// (`$( ( … ) )`) still ends the top-level shell's line.
    fn take_child_abort(&mut self) -> bool {
        let Some((r, _)) = self.abort_pipe.filter(|_| self.copy.forked_a_copy) else {
            return false;
        };
        let mut found = false;
        let mut buf = [0u8; 64];
        // The pipe is non-blocking: an empty one ends the loop (EAGAIN).
        while let Ok(n) = self.sys.read(r, &mut buf) {
            if n == 0 {
                break;
            }
            found = true;
        }
        if found {
            self.signal_abort();
        }
        found
    }

    /// The names of the functions defined so far (for the static check).
    pub fn function_names(&self) -> Vec<Vec<u8>> {
        self.functions
            .keys()
            .map(|k| k.as_bytes().to_vec())
            .collect()
    }
}

/// A sink that refuses everything (a forked copy whose log could not be reopened).
pub struct RefusingSink(pub String);

impl AuditSink for RefusingSink {
    fn record(&mut self, _event: Event) -> Result<(), String> {
        Err(self.0.clone())
    }
}

/// Bytes as text for a message, invalid UTF-8 replaced.
pub(crate) fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// bash's `$MACHTYPE` for this machine (`x86_64-pc-linux-gnu`).
fn machine_type() -> String {
    let arch = std::env::consts::ARCH;
    let vendor = if arch == "x86_64" { "pc" } else { "unknown" };
    format!("{arch}-{vendor}-linux-gnu")
}
