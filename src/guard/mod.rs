//! Stage 2: AST × policy → verdict, before anything runs.
//!
//! The static check ([`check_list`]) visits every command the line can reach
//! and refuses the whole line if any is foreign. The dynamic checks
//! ([`check_argv`], [`check_assignment`], [`check_write_target`]) are called
//! by the interpreter at run time on final, expanded values; they are
//! authoritative, so a name the static walk could not know (`$X`, a glob, a
//! `source`d file) is still refused before it runs.

pub mod builtins;
mod reasons;
pub mod verdict;
mod walk;
pub mod words;

pub use verdict::{Deny, Reached, ReachedKind, Rule, Verdict};
pub use walk::writes_file;

use crate::os::real_path::{RealPaths, bytes_within, is_plain, is_within};
use crate::policy::{CommandRule, Policy};
use crate::syntax::{self, SyntaxError, ast::List};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// Static check of a parsed line. `known_functions` are the functions the
/// session has defined before this line (their bodies were checked then).
pub fn check_list_with(
    policy: &Policy,
    list: &List,
    known_functions: impl IntoIterator<Item = Vec<u8>>,
) -> Verdict {
    let mut walker = walk::Walker::new(policy, known_functions);
    walker.line(list);
    walker.finish()
}

/// The names of the functions `list` defines, at any depth: known to the
/// lines after it (`--explain` of a script, one command at a time).
pub fn functions_defined(list: &List) -> Vec<Vec<u8>> {
    walk::functions_defined(list)
}

/// [`check_list_with`] for a reader of many lines, which resolves the
/// protected paths once ([`ProtectedPaths`]).
/// `on_system` tells a typo (a name that is no program anywhere on this
/// system: [`Rule::NotFound`]) from a refused program.
pub fn check_list_in<'p>(
    policy: &'p Policy,
    list: &List,
    known_functions: impl IntoIterator<Item = Vec<u8>>,
    protected: &std::rc::Rc<ProtectedPaths>,
    on_system: &'p dyn Fn(&str) -> bool,
) -> Verdict {
    let mut walker = walk::Walker::new(policy, known_functions);
    walker.protected = Some(protected.clone());
    walker.on_system = on_system;
    walker.line(list);
    walker.finish()
}

/// Static check of a parsed line in a session with no functions defined.
pub fn check_list(policy: &Policy, list: &List) -> Verdict {
    check_list_with(policy, list, [])
}

/// Parse and statically check `source` (what `--explain` does).
pub fn check_source(policy: &Policy, source: &[u8]) -> Result<Verdict, SyntaxError> {
    syntax::parse(source).map(|list| check_list(policy, &list))
}

/// Dynamic check of a final argv before an external command is spawned.
/// Builtins and functions never come here. Returns the command's rule;
/// `on_system` tells a typo from a refused program, as in
/// [`check_list_in`].
pub fn check_argv<'p>(
    policy: &'p Policy,
    cwd: &Path,
    argv: &[Vec<u8>],
    on_system: &dyn Fn(&str) -> bool,
) -> Result<&'p CommandRule, Deny> {
    let Some(name) = argv.first() else {
        return Err(Deny::new(Rule::EmptyCommand, "the command name is empty"));
    };
    let text = String::from_utf8_lossy(name);
    if let Some(deny) = refuse_by_name(policy, &text) {
        return Err(deny);
    }
    let rule = command_rule(policy, &text, on_system)?;
    let args: Vec<&[u8]> = argv[1..].iter().map(Vec::as_slice).collect();
    check_arguments(rule, &args)?;
    check_path_arguments(policy, cwd, &args)?;
    Ok(rule)
}

/// What a command's name alone refuses, before functions and builtins are
/// looked at: an arm without a shell refuses every name, and a name holding
/// a `/` is a path. The static walk and the check before a spawn share it.
pub(crate) fn refuse_by_name(policy: &Policy, name: &str) -> Option<Deny> {
    if !policy.shell {
        return Some(Deny::new(
            Rule::ShellDisabled,
            reasons::shell_disabled(policy),
        ));
    }
    if name.contains('/') {
        return Some(Deny::new(
            Rule::PathQualified,
            reasons::path_qualified(name),
        ));
    }
    None
}

/// The arm's rule for the program `name`, or the refusal of a foreign
/// command: [`Rule::NotFound`] for a name that `on_system` finds nowhere
/// and that no family of dangerous programs holds (an interpreter is
/// refused as one whether or not this machine has it).
pub(crate) fn command_rule<'p>(
    policy: &'p Policy,
    name: &str,
    on_system: &dyn Fn(&str) -> bool,
) -> Result<&'p CommandRule, Deny> {
    if let Some(rule) = policy.commands.get(name) {
        return Ok(rule);
    }
    if !reasons::in_a_family(name) && !on_system(name) {
        return Err(Deny::new(Rule::NotFound, reasons::not_found(name)));
    }
    Err(Deny::new(
        Rule::ForeignCommand,
        reasons::foreign_command(policy, name),
    ))
}

/// The folders a system's programs live in, besides those of the `PATH`
/// guard-sh started with.
const SYSTEM_PROGRAM_FOLDERS: [&str; 7] = [
    "/usr/local/sbin",
    "/usr/local/bin",
    "/usr/sbin",
    "/usr/bin",
    "/sbin",
    "/bin",
    "/usr/games",
];

/// Whether `name` is a program in one of [`SYSTEM_PROGRAM_FOLDERS`] or
/// of the folders of `path` (the `PATH` the shell started with): only
/// then is a name outside the arm refused as a program rather than
/// reported as not found.
pub fn on_this_system(name: &str, path: &[PathBuf]) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && SYSTEM_PROGRAM_FOLDERS
            .iter()
            .map(Path::new)
            .chain(
                path.iter()
                    .map(PathBuf::as_path)
                    .filter(|p| p.is_absolute()),
            )
            .any(|folder| folder.join(name).is_file())
}

/// The command's argument rules over `args` (`argv[1..]`).
pub fn check_arguments(rule: &CommandRule, args: &[&[u8]]) -> Result<(), Deny> {
    match rule.deny.iter().find(|r| r.matches(args)) {
        Some(matched) => Err(Deny::new(Rule::ArgumentRule, matched.reason())),
        None => Ok(()),
    }
}

/// No argument of a command may name the guard's own files (policy, bin
/// folder, audit log), a program of the arm's exec plan or a tool's private
/// folder: `tee`, `mkdir`, `sort -o` and a tool's output flags write their
/// operands. Reads are refused too; there is nothing an agent needs there.
/// Without the program's option table every reading is tried: the whole
/// argument (an operand may start with `-`), a `--opt=VALUE` value, every
/// tail of a short-option bundle (`-uoFILE` → `oFILE`, `FILE`), a
/// `file://` URL's path, and the fixed prefix of a curl output pattern
/// (`../#1/x`, `{a,b}`, `[1-3]`). `cwd` resolves relative paths (the
/// shell's own, which may have been removed).
pub fn check_path_arguments(policy: &Policy, cwd: &Path, args: &[&[u8]]) -> Result<(), Deny> {
    // Resolved once for all the arguments (and only when one may be a
    // path), not once per argument; the folders the arguments name (the
    // cwd first) are resolved once for this command's check.
    let mut protected = None;
    let mut folders = RealPaths::new();
    for arg in args {
        let reached = any_path_reading(arg, |candidate, pattern| {
            let path = Path::new(std::ffi::OsStr::from_bytes(candidate));
            let absolute = cwd.join(path);
            let protected = protected.get_or_insert_with(|| protected_reals(policy));
            if pattern {
                // A folder the pattern may write anywhere beneath.
                protected_beneath(protected, &absolute, &mut folders).is_some()
            } else {
                protected_root_among(protected, &absolute, &mut folders).is_some()
            }
        });
        if reached {
            return Err(protected_argument(arg));
        }
    }
    Ok(())
}

/// The protected paths as the static check compares them: each by its
/// name and its real path, resolved once per line (the kernel is asked
/// once per protected path, never per argument word).
pub struct StaticPaths {
    cwd: PathBuf,
    protected: std::rc::Rc<ProtectedPaths>,
    /// The working folder lies in a protected path: every relative
    /// reading reaches it.
    cwd_protected: bool,
    /// The first component, below the working folder, of each protected
    /// path there (`bin` for `CWD/bin/jq`); with `exact`, whether the
    /// path is that entry itself. A plain name (no `/`) reaches a
    /// protected path only through these: no path is built for it.
    below_cwd: Vec<(Vec<u8>, bool)>,
}

/// Each protected path's name and real path, `.` and `..` applied, as
/// bytes (compared a byte at a time, never component by component). The
/// kernel is asked once per protected path; a reader of many lines keeps
/// one ([`check_list_in`]).
#[derive(Debug, Clone)]
pub struct ProtectedPaths(Vec<Vec<u8>>);

impl ProtectedPaths {
    /// The policy's protected paths, as named and as resolved now.
    pub fn new(policy: &Policy) -> ProtectedPaths {
        let mut protected: Vec<Vec<u8>> = protected_reals(policy)
            .into_iter()
            .flat_map(|(named, real)| [lexical_bytes(named), lexical_bytes(&real)])
            .collect();
        protected.sort();
        protected.dedup();
        ProtectedPaths(protected)
    }
}

impl StaticPaths {
    /// Paths judged from the current folder.
    pub fn new(protected: std::rc::Rc<ProtectedPaths>) -> StaticPaths {
        let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
        StaticPaths::at(&cwd, protected)
    }

    /// The static paths seen from the working folder `cwd`.
    fn at(cwd: &Path, protected: std::rc::Rc<ProtectedPaths>) -> StaticPaths {
        let cwd = lexical(cwd);
        let here = cwd.as_os_str().as_bytes();
        let cwd_protected = protected.0.iter().any(|p| bytes_within(here, p));
        let below_cwd = protected
            .0
            .iter()
            .filter_map(|p| {
                let rest = p.strip_prefix(here)?;
                let rest = if here == b"/" {
                    rest
                } else {
                    rest.strip_prefix(b"/")?
                };
                let first = rest.split(|&b| b == b'/').next()?;
                (!first.is_empty()).then(|| (first.to_vec(), first.len() == rest.len()))
            })
            .collect();
        StaticPaths {
            cwd,
            protected,
            cwd_protected,
            below_cwd,
        }
    }

    /// Does the reading `text` (relative to the working folder or
    /// absolute) reach a protected path, as [`StaticPaths::reaches`]?
    fn reaches_text(&self, text: &[u8], pattern: bool) -> bool {
        let plain_name = !text.contains(&b'/') && text != b"." && text != b"..";
        if !plain_name {
            let absolute = self.absolute(Path::new(std::ffi::OsStr::from_bytes(text)));
            return self.reaches(&absolute, pattern);
        }
        // `CWD/NAME` lies in a protected path when the working folder
        // does or the path is `CWD/NAME` itself; for a pattern's folder, a
        // protected path beneath `CWD/NAME` counts too.
        self.cwd_protected
            || self
                .below_cwd
                .iter()
                .any(|(first, exact)| first == text && (*exact || pattern))
    }

    /// `path` made absolute against the working folder, as text.
    fn absolute(&self, path: &Path) -> PathBuf {
        lexical(&self.cwd.join(path))
    }

    /// Does the absolute `path` lie in a protected path (or, for a
    /// pattern's folder, contain one), compared as text?
    fn reaches(&self, path: &Path, pattern: bool) -> bool {
        let path = path.as_os_str().as_bytes();
        self.protected
            .0
            .iter()
            .any(|p| bytes_within(path, p) || (pattern && bytes_within(p, path)))
    }
}

/// The static check of the arguments fixed in the text, before anything
/// runs: [`check_path_arguments`]'s readings, compared as text (`.` and
/// `..` applied) with each protected path's name and real path. No system
/// call per word: a spelling through a symbolic link is caught where the
/// command is spawned ([`check_argv`] resolves every reading) and by the
/// kernel's rules.
pub fn check_path_arguments_lexically(paths: &StaticPaths, args: &[&[u8]]) -> Result<(), Deny> {
    for arg in args {
        if any_path_reading(arg, |candidate, pattern| {
            paths.reaches_text(candidate, pattern)
        }) {
            return Err(protected_argument(arg));
        }
    }
    Ok(())
}

/// The static check of a redirection's fixed target: compared as text, as
/// [`check_path_arguments_lexically`]; the file guard-sh opens is checked
/// again, links resolved, when the redirection is made
/// ([`check_write_target`]).
pub fn check_write_target_lexically(paths: &StaticPaths, path: &Path) -> Result<(), Deny> {
    let absolute = paths.absolute(path);
    if paths.reaches(&absolute, false) {
        return Err(Deny::new(
            Rule::ProtectedPath,
            format!(
                "writing {} is not permitted: it is part of the guard (policy, bin folder, audit log, the arm's programs or a tool's own files)",
                path.display()
            ),
        ));
    }
    Ok(())
}

/// `path` with `.` and `..` applied as text (`/..` stays `/`): how the
/// static check compares paths, and `cd`'s logical folder.
pub fn lexical(path: &Path) -> PathBuf {
    if is_plain(path) {
        return PathBuf::from(std::ffi::OsStr::from_bytes(&lexical_bytes(path)));
    }
    lexical_by_names(path)
}

/// [`lexical`] through the parse of each name: the form of a path that is
/// not plain, and what the plain form is checked against.
fn lexical_by_names(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::from("/");
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// [`lexical`] as bytes; a plain absolute path (see
/// [`crate::os::real_path::is_plain`]) is its own form, less a final `/`,
/// with no parse of its names (a start resolves a hundred protected names).
fn lexical_bytes(path: &Path) -> Vec<u8> {
    let bytes = path.as_os_str().as_bytes();
    if !is_plain(path) {
        return lexical_by_names(path).into_os_string().into_vec();
    }
    match bytes.strip_suffix(b"/") {
        Some(trimmed) if !trimmed.is_empty() => trimmed.to_vec(),
        _ => bytes.to_vec(),
    }
}

fn protected_argument(arg: &[u8]) -> Deny {
    Deny::new(
        Rule::ProtectedPath,
        format!(
            "argument \"{}\" names part of the guard (policy, bin folder, audit log, the arm's programs or a tool's own files)",
            String::from_utf8_lossy(arg)
        ),
    )
}

/// Whether `f` holds for one of the ways a program could read `arg` as a
/// path (see [`check_path_arguments`]); `f` also gets whether the reading
/// is the folder part of an output pattern (anything may be written
/// beneath it). Stops at the first that holds.
fn any_path_reading(arg: &[u8], mut f: impl FnMut(&[u8], bool) -> bool) -> bool {
    let mut reading = |plain: &[u8]| {
        // The text itself; for a `file://` URL, the path it names; after
        // `@` or `<`, the file a tool reads the value from (curl's
        // `-d @FILE`, `-F name=@FILE`, `-F name=<FILE`, and, curl 8.3+,
        // `--variable NAME@FILE`).
        let url = plain
            .strip_prefix(b"file://")
            .map(|rest| rest.strip_prefix(b"localhost").unwrap_or(rest));
        let value = plain
            .iter()
            .position(|&b| b == b'=')
            .map_or(plain, |eq| &plain[eq + 1..]);
        fn from_file(text: &[u8]) -> Option<&[u8]> {
            text.strip_prefix(b"@").or_else(|| text.strip_prefix(b"<"))
        }
        // `NAME@FILE`: a name of letters, digits and `_` (`%` first: curl
        // takes it from the environment, else from the file).
        let named_file = plain.iter().position(|&b| b == b'@').and_then(|at| {
            let name = plain[..at].strip_prefix(b"%").unwrap_or(&plain[..at]);
            let is_name =
                !name.is_empty() && name.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_');
            is_name.then(|| &plain[at + 1..])
        });
        [
            Some(plain),
            url,
            from_file(plain),
            from_file(value),
            named_file,
        ]
        .into_iter()
        .flatten()
        .any(|r| {
            // Only a prefix that names a folder (`../#1/x` → `../`): a jq
            // filter such as `.[].title` is no path.
            let folder = r
                .iter()
                .position(|b| b"#{[".contains(b))
                .and_then(|glob| r[..glob].iter().rposition(|&b| b == b'/'))
                .map(|slash| &r[..=slash]);
            folder.is_some_and(|d| f(d, true)) || (!r.is_empty() && r != b"-" && f(r, false))
        })
    };
    if reading(arg) {
        return true;
    }
    if arg.starts_with(b"--") {
        arg.iter()
            .position(|&b| b == b'=')
            .is_some_and(|eq| reading(&arg[eq + 1..]))
    } else if arg.starts_with(b"-") {
        (2..arg.len()).any(|k| reading(&arg[k..]))
    } else {
        false
    }
}

/// A protected path beneath the folder `folder` (a pattern's fixed part),
/// or one that contains it.
fn protected_beneath<'p>(
    protected: &[(&'p Path, PathBuf)],
    folder: &Path,
    folders: &mut RealPaths,
) -> Option<&'p Path> {
    let (real, _) = resolve_for_write(folder, folders);
    protected
        .iter()
        .find(|(_, p)| is_within(p, &real) || is_within(&real, p))
        .map(|(protected, _)| *protected)
}

/// Dynamic check of an assignment or `export` of `name`. A name the arm
/// holds for every command ([`crate::policy::EnvPolicy::held_by_arm`]) may
/// be assigned: its value stays the shell's, and a command it would reach
/// is refused ([`held_environment_denial`]).
pub fn check_assignment(policy: &Policy, name: &str) -> Result<(), Deny> {
    if policy.env.held_by_arm(name) {
        return Ok(());
    }
    match policy.env.denial(name) {
        Some(denied) => Err(Deny::new(
            Rule::Environment,
            format!("assigning {name} is not permitted: {}", denied.reason),
        )),
        None => Ok(()),
    }
}

/// The refusal of `command`, which bash would have given the line's own
/// value of `name`, a name the arm holds: every command gets the arm's.
pub fn held_environment_denial(policy: &Policy, command: &str, name: &str) -> Deny {
    let why = policy
        .env
        .denial(name)
        .map_or("it is the arm's", |d| d.reason.as_str());
    Deny::new(
        Rule::Environment,
        format!(
            "{name} was changed in this shell and {command} would get it from bash, but every command gets the arm's {name}: {why}"
        ),
    )
}

/// Dynamic check of a file guard-sh itself is about to open for writing
/// (`path` absolute). Symlinks and `/proc/self/fd` links are resolved first,
/// so no spelling of a protected path gets through.
pub fn check_write_target(policy: &Policy, path: &Path) -> Result<(), Deny> {
    check_target(policy, path, "writing")
}

/// Dynamic check of a file guard-sh itself is about to read for a line (a
/// redirection, `source`), as [`check_write_target`]: an argument naming a
/// protected path is refused for reading too (the harness's login under
/// `harness-home/`, the audit log), so the shell's own `<` must be.
pub fn check_read_target(policy: &Policy, path: &Path) -> Result<(), Deny> {
    check_target(policy, path, "reading")
}

/// The check after guard-sh opened a file for a line: `opened` is the
/// file's path as the kernel names the descriptor (every link resolved).
/// [`check_read_target`] and [`check_write_target`] judge the name before
/// the open; a link swapped in between (by a command running in the
/// background) could lead the open elsewhere, so the file reached is
/// judged too.
pub fn check_opened(policy: &Policy, opened: &Path) -> Result<(), Deny> {
    let protected = protected_reals(policy);
    match protected.iter().any(|(_, real)| is_within(opened, real)) {
        true => Err(part_of_the_guard(format!(
            "opening {} is not permitted:",
            opened.display()
        ))),
        false => Ok(()),
    }
}

fn check_target(policy: &Policy, path: &Path, verb: &str) -> Result<(), Deny> {
    match protected_root(policy, path) {
        Some(_) => Err(part_of_the_guard(format!(
            "{verb} {} is not permitted:",
            path.display()
        ))),
        None => Ok(()),
    }
}

/// The refusal of a file the shell would open that is part of the guard;
/// `subject` says which, and how it was reached.
fn part_of_the_guard(subject: String) -> Deny {
    Deny::new(
        Rule::ProtectedPath,
        format!(
            "{subject} it is part of the guard (policy, bin folder, audit log, the arm's programs or a tool's own files)"
        ),
    )
}

/// The protected path that `path` (absolute) lies in, after symlinks and
/// `/proc/self/fd` links are resolved.
fn protected_root<'p>(policy: &'p Policy, path: &Path) -> Option<&'p Path> {
    protected_root_among(&protected_reals(policy), path, &mut RealPaths::new())
}

/// Each protected path with its real path (itself when it does not exist):
/// the policy's protected list, every program the arm's commands resolve
/// to with their helpers (a write through a `bin/` link reaches the system
/// binary), and the tools' private folders (a tool's login is not the
/// agent's to write).
fn protected_reals(policy: &Policy) -> Vec<(&Path, PathBuf)> {
    let rules = policy.commands.values();
    let named: Vec<&Path> = policy
        .sandbox
        .protected
        .iter()
        .chain(rules.clone().map(|r| &r.path))
        .chain(rules.clone().flat_map(|r| r.exec_allow.iter()))
        .chain(rules.flat_map(|r| r.writable.iter()))
        .filter(|p| p.is_absolute())
        .map(PathBuf::as_path)
        .collect();
    // The programs and folders do not move during a session: resolve each
    // once per process, not once per command.
    thread_local! {
        static RESOLVED: std::cell::RefCell<std::collections::HashMap<PathBuf, PathBuf>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }
    // A program the arm runs, as `arm-build` resolved it and stored it in
    // the pinned policy (`sandbox.execute`, real paths of files), is its
    // own real path: guard-sh's own domain trusts the same set, and the
    // arm is rebuilt when the tools change. Saves an `lstat` per program.
    // Asked once per path, when the cache does not hold it yet.
    let stored_program = |path: &Path| {
        policy.sandbox.execute.as_ref().is_some_and(|stored| {
            stored.iter().any(|s| s.as_os_str() == path.as_os_str())
                && policy
                    .commands
                    .values()
                    .any(|r| r.path.as_os_str() == path.as_os_str())
        })
    };
    RESOLVED.with(|cache| {
        let mut cache = cache.borrow_mut();
        named
            .into_iter()
            .map(|protected| {
                let real = match cache.get(protected) {
                    Some(real) => real.clone(),
                    None if stored_program(protected) => {
                        cache.insert(protected.to_path_buf(), protected.to_path_buf());
                        protected.to_path_buf()
                    }
                    // A path that does not exist yet may appear later (the
                    // audit log): only settled answers are kept. The folders
                    // they share (the arm's, /usr/bin) and what the sandbox
                    // resolved are asked once, in the process's one memory.
                    None => match crate::os::real_path::settled_canonical(protected) {
                        Some(real) => {
                            cache.insert(protected.to_path_buf(), real.clone());
                            real
                        }
                        None => protected.to_path_buf(),
                    },
                };
                (protected, real)
            })
            .collect()
    })
}

/// [`protected_root`] against protected paths already resolved: both the
/// file a write would reach and the name it would go through (a link in a
/// protected folder pointing elsewhere) count.
fn protected_root_among<'p>(
    protected: &[(&'p Path, PathBuf)],
    path: &Path,
    folders: &mut RealPaths,
) -> Option<&'p Path> {
    let (target, through) = resolve_for_write(path, folders);
    protected
        .iter()
        .find(|(_, real)| is_within(&target, real) || is_within(&through, real))
        .map(|(protected, _)| *protected)
}

/// Where a write to `path` lands, and the name it goes through. The first
/// follows every link; the second resolves the folders but not the last
/// component. Components that do not exist yet (`mkdir -p a/../../x`) are
/// applied as text after the longest part that exists, `..` included.
/// `folders` remembers what it resolved, for the other paths of one check.
fn resolve_for_write(path: &Path, folders: &mut RealPaths) -> (PathBuf, PathBuf) {
    if let Some(real) = folders.canonical(path) {
        let through = match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) => resolve_lexically(parent, folders).join(name),
            _ => real.clone(),
        };
        return (real, through);
    }
    let resolved = resolve_lexically(path, folders);
    (resolved.clone(), resolved)
}

/// The canonical form of the longest existing ancestor of `path`, with the
/// remaining components applied as text (`..` removes one).
fn resolve_lexically(path: &Path, folders: &mut RealPaths) -> PathBuf {
    use std::path::Component;
    let components: Vec<Component<'_>> = path.components().collect();
    for split in (0..=components.len()).rev() {
        let head: PathBuf = components[..split].iter().collect();
        let Some(mut real) = folders.canonical(if head.as_os_str().is_empty() {
            Path::new("/")
        } else {
            &head
        }) else {
            continue;
        };
        for c in &components[split..] {
            match c {
                Component::ParentDir => {
                    real.pop();
                }
                Component::Normal(n) => real.push(n),
                _ => {}
            }
        }
        return real;
    }
    path.to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(cwd: &str, protected: &[&str]) -> StaticPaths {
        let protected = protected.iter().map(|p| p.as_bytes().to_vec()).collect();
        StaticPaths::at(Path::new(cwd), std::rc::Rc::new(ProtectedPaths(protected)))
    }

    #[test]
    fn plain_paths_keep_their_lexical_form() {
        for path in [
            "/", "/a", "/a/", "/a/b", "/a/b/", "/a//b", "/a/./b", "/a/../b", "/..", "/a/.b", "a/b",
            "", "/a/b/..", "//a", "/a/b/.",
        ] {
            let path = Path::new(path);
            let want = lexical_by_names(path);
            assert_eq!(lexical(path), want, "lexical({path:?})");
            assert_eq!(
                lexical_bytes(path),
                want.as_os_str().as_bytes(),
                "lexical_bytes({path:?})"
            );
        }
    }

    /// The fast answer for a plain name and the answer through the built
    /// path agree, for every name and folder tried.
    #[test]
    fn a_plain_name_is_judged_as_its_absolute_path_is() {
        let protected = [
            "/arm/policy.json",
            "/arm/bin",
            "/arm/audit/audit.jsonl",
            "/",
        ];
        for cwd in [
            "/arm",
            "/arm/bin",
            "/arm/work",
            "/arm/audit",
            "/",
            "/elsewhere",
        ] {
            for set in [&protected[..3], &protected[..]] {
                let p = paths(cwd, set);
                for name in [
                    "policy.json",
                    "bin",
                    "audit",
                    "audit.jsonl",
                    "jq",
                    "work",
                    "x",
                ] {
                    for pattern in [false, true] {
                        let absolute = p.absolute(Path::new(name));
                        assert_eq!(
                            p.reaches_text(name.as_bytes(), pattern),
                            p.reaches(&absolute, pattern),
                            "{cwd} {name} {pattern} {set:?}"
                        );
                    }
                }
            }
        }
        assert!(paths("/arm", &protected[..3]).reaches_text(b"policy.json", false));
        assert!(paths("/arm/bin", &protected[..3]).reaches_text(b"anything", false));
        assert!(!paths("/arm", &protected[..3]).reaches_text(b"audit", false));
        assert!(paths("/arm", &protected[..3]).reaches_text(b"audit", true));
        assert!(!paths("/arm/work", &protected[..3]).reaches_text(b"policy.json", false));
    }
}
