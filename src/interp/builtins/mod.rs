//! The builtins (the table is [`crate::guard::builtins::Builtin`]). They run
//! inside guard-sh; the ones that run other text or commands (`eval`,
//! `source`, `command`, `builtin`, `exec`) send it through the same guard
//! as any line or spawn.

mod dirs;
mod format;
mod nested;
mod options;
mod positional;
mod read;
pub(super) mod test;
mod vars;

pub(super) use format::strftime_local;

use super::lossy;
use super::quote::quote;
use super::{Flow, Shell, Status};
use crate::guard::builtins::Builtin;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// Parse a status operand (`exit N`, `return N`): numeric, modulo 256.
fn status_arg(a: &[u8]) -> Option<i32> {
    lossy(a)
        .trim()
        .parse::<i64>()
        .ok()
        .map(|n| (n & 0xff) as i32)
}

/// The words bash reserves, which `type` names as keywords.
const SHELL_KEYWORDS: [&str; 22] = [
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc",
];

impl Shell<'_> {
    /// Run builtin `argv[0]`.
    pub(super) fn run_builtin(&mut self, argv: &[Vec<u8>]) -> Status {
        let Some(builtin) = Builtin::from_name(&argv[0]) else {
            self.error(&format!("{}: builtin not implemented", lossy(&argv[0])));
            return Ok(2);
        };
        let name = builtin.name();
        let args = &argv[1..];
        match builtin {
            Builtin::Colon | Builtin::True => Ok(0),
            Builtin::False => Ok(1),
            Builtin::Echo => {
                let out = format::echo(args);
                Ok(self.write_out(&out, "echo"))
            }
            Builtin::Printf => self.printf(args),
            Builtin::Test => self.test(args, false),
            Builtin::Bracket => self.test(args, true),
            Builtin::Pwd => self.pwd(args),
            Builtin::Cd => self.cd(args),
            Builtin::Exit => self.exit_builtin(args),
            Builtin::Return => self.return_builtin(args),
            Builtin::Break | Builtin::Continue => self.break_continue(builtin, args),
            Builtin::Eval => self.eval_builtin(args),
            Builtin::Source | Builtin::Dot => self.source(name, args),
            Builtin::Command => self.command_builtin(args),
            Builtin::Builtin => {
                let Some(inner) = args.first() else {
                    return Ok(0);
                };
                if !crate::guard::builtins::is_builtin(inner) {
                    self.error(&format!("builtin: {}: not a shell builtin", lossy(inner)));
                    return Ok(1);
                }
                self.run_builtin(args)
            }
            Builtin::Exec => self.exec_builtin(args),
            Builtin::Type => self.type_builtin(args),
            Builtin::Hash => self.hash_builtin(args),
            Builtin::Alias => self.alias(args),
            Builtin::Unalias => self.unalias(args),
            Builtin::Trap => self.trap(args),
            Builtin::Wait => self.wait_builtin(args),
            Builtin::Jobs => self.jobs_builtin(args),
            Builtin::Fg => self.fg_builtin(args),
            Builtin::Bg => self.bg_builtin(args),
            Builtin::History => self.history_builtin(args),
            Builtin::Kill => self.kill_builtin(args),
            Builtin::Umask => self.umask_builtin(args),
            Builtin::Export => self.export(args),
            Builtin::Readonly => self.readonly(args),
            Builtin::Declare | Builtin::Typeset => self.declare(name, args),
            Builtin::Local => self.local(args),
            Builtin::Unset => self.unset(args),
            Builtin::Set => self.set_builtin(args),
            Builtin::Shift => self.shift(args),
            Builtin::Read => self.read_builtin(args),
            Builtin::Mapfile | Builtin::Readarray => self.mapfile(name, args),
            Builtin::Shopt => self.shopt(args),
            Builtin::Getopts => self.getopts(args),
            Builtin::Let => self.let_builtin(args),
            Builtin::Pushd => self.pushd(args),
            Builtin::Popd => self.popd(args),
            Builtin::Dirs => self.dirs_builtin(args),
            Builtin::Ulimit => self.ulimit_builtin(args),
            Builtin::Bash | Builtin::Sh => self.nested_shell(name, args),
        }
    }

    /// `exit [N]`.
    fn exit_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        Err(Flow::Exit(self.status_operand("exit", args)))
    }

    /// `return [N]`, from a function or a sourced script.
    fn return_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        if self.depth.functions == 0 && self.depth.sources == 0 {
            // A usage error, as bash counts it (its status 2).
            self.error("return: can only `return' from a function or sourced script");
            return Ok(2);
        }
        Err(Flow::Return(self.status_operand("return", args)))
    }

    /// The status `exit` or `return` (`name`) leaves with: `$?` without an
    /// operand, else the operand modulo 256, or 2 (with an error) when it
    /// is not a number.
    fn status_operand(&mut self, name: &str, args: &[Vec<u8>]) -> i32 {
        let Some(a) = args.first() else {
            return self.status;
        };
        status_arg(a).unwrap_or_else(|| {
            self.error(&format!("{name}: {}: numeric argument required", lossy(a)));
            2
        })
    }

    /// `break [N]` and `continue [N]`.
    fn break_continue(&mut self, builtin: Builtin, args: &[Vec<u8>]) -> Status {
        let name = builtin.name();
        if self.depth.loops == 0 {
            self.error(&format!(
                "{name}: only meaningful in a `for', `while', or `until' loop"
            ));
            return Ok(0);
        }
        // As bash: a count that is not a number is fatal, a second
        // operand ends the line (status 1); one below 1 leaves every
        // enclosing loop with status 1.
        if args.len() > 1 {
            self.error(&format!("{name}: too many arguments"));
            return Err(Flow::Abort(1));
        }
        let n = match args.first() {
            None => 1,
            Some(a) => match lossy(a).trim().parse::<i64>() {
                Ok(n) if n >= 1 => u32::try_from(n).unwrap_or(u32::MAX),
                Ok(_) => {
                    self.error(&format!("{name}: {}: loop count out of range", lossy(a)));
                    self.status = 1;
                    return Err(Flow::Break(self.depth.loops));
                }
                Err(_) => {
                    self.error(&format!("{name}: {}: numeric argument required", lossy(a)));
                    return Err(Flow::Exit(128));
                }
            },
        };
        self.status = 0;
        let n = n.min(self.depth.loops);
        Err(if builtin == Builtin::Break {
            Flow::Break(n)
        } else {
            Flow::Continue(n)
        })
    }

    /// `eval [--] ARG…`: the words joined, guarded and run as a line.
    fn eval_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        // `--` ends eval's options, as in bash.
        let args = match args.first() {
            Some(first) if first == b"--" => &args[1..],
            Some(first) if first.len() > 1 && first[0] == b'-' => {
                self.error(&format!("eval: {}: invalid option", lossy(first)));
                let _ = self.sys.write_all(2, b"eval: usage: eval [arg ...]\n");
                return Ok(2);
            }
            _ => args,
        };
        let text = args.join(&b' ');
        if text.iter().all(u8::is_ascii_whitespace) {
            return Ok(0);
        }
        self.run_guarded(&text, "eval")
    }

    /// `let EXPR…`: evaluate each argument as arithmetic; status 0 when the
    /// last value is not zero. An error is reported (`let: …`) and ends the
    /// builtin with status 1, as in bash.
    fn let_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        if args.is_empty() {
            self.error("let: expression expected");
            return Ok(1);
        }
        let mut last = 0;
        for arg in args {
            match super::arith::eval(self, arg) {
                Ok(value) => last = value,
                Err(error) => {
                    if let Some(flow) = self.arith_fatal(&error) {
                        return Err(flow);
                    }
                    self.error(&format!("let: {error}"));
                    return Ok(1);
                }
            }
        }
        Ok(i32::from(last == 0))
    }

    /// Write builtin output to stdout; a failed write is status 1.
    pub(super) fn write_out(&mut self, data: &[u8], name: &str) -> i32 {
        if data.is_empty() {
            return 0;
        }
        match self.sys.write_all(1, data) {
            Ok(()) => 0,
            Err(e) => {
                if e.raw_os_error() != Some(libc::EPIPE) {
                    self.error(&format!(
                        "{name}: write error: {}",
                        super::redirect::describe_io(&e)
                    ));
                }
                1
            }
        }
    }

    /// Local times follow the `TZ` the shell exports (none: the system's
    /// zone), as bash's do; one it only sets is not seen.
    pub(super) fn use_exported_time_zone(&mut self) {
        let zone = self
            .vars
            .get_var("TZ")
            .filter(|var| var.exported)
            .and_then(|var| var.value.scalar());
        self.sys.use_time_zone(zone);
    }

    fn printf(&mut self, args: &[Vec<u8>]) -> Status {
        let (target, args) = match args.first().map(Vec::as_slice) {
            Some(b"-v") => match args.get(1) {
                Some(var) => (Some(lossy(var)), &args[2..]),
                None => {
                    self.error("printf: -v: option requires an argument");
                    return Ok(2);
                }
            },
            Some(b"--") => (None, &args[1..]),
            _ => (None, args),
        };
        let Some(format) = args.first() else {
            self.error("printf: usage: printf [-v var] format [arguments]");
            return Ok(2);
        };
        self.use_exported_time_zone();
        let printed = format::printf(format, &args[1..], self.sys.now());
        let mut status = 0;
        for w in &printed.warnings {
            self.error(&format!("printf: {w}"));
        }
        for e in &printed.errors {
            self.error(&format!("printf: {e}"));
            status = 1;
        }
        match target {
            Some(var) => {
                if crate::interp::arrays::split_reference(var.as_bytes()).is_none() {
                    self.error(&format!("printf: `{var}': not a valid identifier"));
                    return Ok(2);
                }
                let value = crate::interp::quote::up_to_nul(printed.out);
                self.assign_reference(var.as_bytes(), value)?;
                Ok(status)
            }
            None => Ok(self.write_out(&printed.out, "printf").max(status)),
        }
    }

    fn test(&mut self, args: &[Vec<u8>], bracket: bool) -> Status {
        let mut refs: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
        if bracket {
            if refs.last() != Some(&&b"]"[..]) {
                self.error("[: missing `]'");
                return Ok(2);
            }
            refs.pop();
        }
        let name = if bracket { "[" } else { "test" };
        // `-o OPTION` alone asks whether a `set -o` option is on; an
        // unknown name is off, as in bash (with more arguments `-o` is
        // the binary or, `! -o x` among them).
        if let [b"-o", option] = refs.as_slice() {
            return Ok(i32::from(!self.option_value(&lossy(option))));
        }
        // `-v NAME` may name an element (`a[i]`), whose subscript is
        // evaluated here, before the expression.
        let mut set = std::collections::HashMap::new();
        for pair in refs.windows(2) {
            if pair[0] == b"-v" {
                let answer = self.reference_is_set(pair[1])?;
                set.insert(pair[1].to_vec(), answer);
            }
        }
        let is_set = |name: &[u8]| set.get(name).copied().unwrap_or(false);
        let ask = test::Ask {
            is_set: &is_set,
            sys: &*self.sys,
        };
        match test::evaluate(&refs, &ask) {
            Ok(true) => Ok(0),
            Ok(false) => Ok(1),
            Err(message) => {
                self.error(&format!("{name}: {message}"));
                Ok(2)
            }
        }
    }

    fn pwd(&mut self, args: &[Vec<u8>]) -> Status {
        let physical = args.iter().any(|a| a == b"-P");
        let text = if physical {
            match self.sys.real_path(&self.cwd) {
                Ok(p) => p,
                Err(e) => {
                    self.error(&format!("pwd: {}", super::redirect::describe_io(&e)));
                    return Ok(1);
                }
            }
        } else {
            self.cwd.clone()
        };
        let mut out = text.as_os_str().as_bytes().to_vec();
        out.push(b'\n');
        Ok(self.write_out(&out, "pwd"))
    }

    fn cd(&mut self, args: &[Vec<u8>]) -> Status {
        let mut physical = false;
        let mut rest = args;
        while let Some(a) = rest.first() {
            match a.as_slice() {
                b"-P" => physical = true,
                b"-L" => physical = false,
                b"--" => {
                    rest = &rest[1..];
                    break;
                }
                _ => break,
            }
            rest = &rest[1..];
        }
        let mut print = false;
        let target: Vec<u8> = match rest.first().map(Vec::as_slice) {
            None => match self.vars.get("HOME") {
                Some(h) => h.to_vec(),
                None => {
                    self.error("cd: HOME not set");
                    return Ok(1);
                }
            },
            Some(b"-") => match self.vars.get("OLDPWD") {
                Some(o) => {
                    print = true;
                    o.to_vec()
                }
                None => {
                    self.error("cd: OLDPWD not set");
                    return Ok(1);
                }
            },
            Some(dir) => match self.in_cdpath(dir) {
                Some(found) => {
                    print = true;
                    found
                }
                None => dir.to_vec(),
            },
        };
        if rest.len() > 1 {
            self.error("cd: too many arguments");
            return Ok(1);
        }
        if !self.change_dir("cd", &target, physical) {
            return Ok(1);
        }
        if print {
            let mut out = self.cwd.as_os_str().as_bytes().to_vec();
            out.push(b'\n');
            self.write_out(&out, "cd");
        }
        Ok(0)
    }

    /// `cd DIR` with `$CDPATH`: the first of its folders that holds DIR
    /// (a relative DIR not starting with `.`), when that is not the
    /// working folder itself (bash then prints where it went).
    fn in_cdpath(&self, dir: &[u8]) -> Option<Vec<u8>> {
        if dir.starts_with(b"/") || dir.starts_with(b".") || dir.is_empty() {
            return None;
        }
        let cdpath = self.vars.get("CDPATH")?.to_vec();
        let is_dir = |path: &[u8]| {
            self.sys
                .file_info(&self.cwd.join(OsStr::from_bytes(path)), true)
                .is_ok_and(|info| info.kind == crate::system::FileKind::Dir)
        };
        for base in cdpath.split(|b| *b == b':') {
            if base.is_empty() || base == b"." {
                // The working folder: found there, nothing to print.
                if is_dir(dir) {
                    return None;
                }
                continue;
            }
            let candidate = [base, b"/", dir].concat();
            if is_dir(&candidate) {
                return Some(candidate);
            }
        }
        None
    }

    /// Go to `target` (relative to the working folder) as `cd` does, with
    /// errors named for `who`; `PWD` and `OLDPWD` follow. Whether it went.
    pub(super) fn change_dir(&mut self, who: &str, target: &[u8], physical: bool) -> bool {
        let joined = self.absolute(target);
        // As bash: each folder a `..` leaves must exist (`cd nope/..` fails).
        if !dotdot_parents_exist(&*self.sys, &joined) {
            self.error(&format!(
                "{who}: {}: No such file or directory",
                lossy(target)
            ));
            return false;
        }
        let logical = crate::guard::lexical(&joined);
        let new = if physical {
            self.sys.real_path(&joined).unwrap_or(logical.clone())
        } else {
            logical
        };
        if let Err(e) = self.sys.chdir(&new) {
            self.error(&format!(
                "{who}: {}: {}",
                lossy(target),
                super::redirect::describe_io(&e)
            ));
            return false;
        }
        let old = self.cwd.as_os_str().as_bytes().to_vec();
        self.vars.set_internal("OLDPWD", old);
        self.vars.export("OLDPWD", true);
        self.vars
            .set_internal("PWD", new.as_os_str().as_bytes().to_vec());
        self.cwd = new;
        true
    }

    /// The whole file at `path`, opened and judged as a redirection's
    /// (before the open by the caller, after it here); `Ok(Err)` when the
    /// file the open reached is refused.
    fn read_checked(
        &mut self,
        path: &Path,
    ) -> std::io::Result<Result<Vec<u8>, crate::interp::Deny>> {
        let fd = self.sys.open(path, crate::system::OpenMode::Read)?;
        if let Err(deny) = self.check_opened(fd, true) {
            return Ok(Err(deny));
        }
        let mut text = Vec::new();
        let mut buf = [0u8; 8192];
        let read = loop {
            match self.sys.read(fd, &mut buf) {
                Ok(0) => break Ok(()),
                Ok(n) => text.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        let _ = self.sys.close(fd);
        read.map(|()| Ok(text))
    }

    fn source(&mut self, name: &str, args: &[Vec<u8>]) -> Status {
        let args = match args.first() {
            Some(first) if first == b"--" => &args[1..],
            _ => args,
        };
        let Some(file) = args.first() else {
            self.error(&format!("{name}: filename argument required"));
            return Ok(2);
        };
        // Only the named path (relative to the working folder); the ambient
        // PATH is never searched.
        let path = self.absolute(file);
        let argv = [name.as_bytes().to_vec(), file.clone()];
        if let Err(deny) = self.check_open_target(&path, crate::system::OpenMode::Read) {
            return Err(self.deny(&deny, &argv));
        }
        let text = match self.read_checked(&path) {
            Ok(Ok(t)) => t,
            Ok(Err(deny)) => return Err(self.deny(&deny, &argv)),
            Err(e) if let Some(deny) = super::redirect::refused_open(&e, &lossy(file)) => {
                return Err(self.deny(&deny, &argv));
            }
            Err(e) => {
                self.error(&format!(
                    "{}: {}",
                    lossy(file),
                    super::redirect::describe_io(&e)
                ));
                return Ok(1);
            }
        };
        let saved_args = if args.len() > 1 {
            Some(std::mem::replace(&mut self.positional, args[1..].to_vec()))
        } else {
            None
        };
        self.depth.sources += 1;
        let mut r = self.run_guarded(&text, "source");
        if let Err(flow) = self.run_return_trap() {
            r = Err(flow);
        }
        self.depth.sources -= 1;
        if let Some(saved) = saved_args {
            self.positional = saved;
        }
        match r {
            Err(Flow::Return(s)) => Ok(s),
            other => other,
        }
    }

    /// Is `name` a command the policy lets the agent run and that exists in the bin folder?
    fn in_bin(&self, name: &[u8]) -> Option<PathBuf> {
        let text = lossy(name);
        if name.contains(&b'/') || !self.policy.commands.contains_key(&text) {
            return None;
        }
        let path = self.policy.bin_dir.join(OsStr::from_bytes(name));
        path.exists().then_some(path)
    }

    fn command_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        let mut rest = args;
        let mut query: Option<u8> = None;
        while let Some(a) = rest.first() {
            match a.as_slice() {
                b"-v" => query = Some(b'v'),
                b"-V" => query = Some(b'V'),
                b"-p" => {}
                b"--" => {
                    rest = &rest[1..];
                    break;
                }
                _ => break,
            }
            rest = &rest[1..];
        }
        if let Some(q) = query {
            let mut status = 0;
            for name in rest {
                let text = lossy(name);
                let line = if self.aliases.contains_key(&text) {
                    Some(if q == b'v' {
                        format!("alias {text}={}", quote(&self.aliases[&text]))
                    } else {
                        format!("{text} is aliased to `{}'", lossy(&self.aliases[&text]))
                    })
                } else if self.functions.contains_key(&text) {
                    Some(if q == b'v' {
                        text.clone()
                    } else {
                        format!("{text} is a function")
                    })
                } else if crate::guard::builtins::is_builtin(name) {
                    Some(if q == b'v' {
                        text.clone()
                    } else {
                        format!("{text} is a shell builtin")
                    })
                } else {
                    self.in_bin(name).map(|path| {
                        if q == b'v' {
                            path.display().to_string()
                        } else {
                            format!("{text} is {}", path.display())
                        }
                    })
                };
                match line {
                    Some(l) => {
                        self.write_out(format!("{l}\n").as_bytes(), "command");
                    }
                    None => {
                        if q == b'V' {
                            self.error(&format!("command: {text}: not found"));
                        }
                        status = 1;
                    }
                }
            }
            return Ok(status);
        }
        if rest.is_empty() {
            return Ok(0);
        }
        // `command NAME args`: skip functions; builtins and guarded externals.
        self.dispatch(rest, &[], false)
    }

    /// `hash`: nothing is ever hashed (a name resolves in the bin folder
    /// each time it runs), so the table is empty and `-t` finds nothing;
    /// `hash NAME` says whether NAME is a command, as bash does. `-p PATH
    /// NAME` would bind a name to any file and is refused (status 2); `-r`
    /// and `-d` have nothing to forget.
    fn hash_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        let mut names = Vec::new();
        // `-t` asks the table, which holds nothing; `-d` and `-r` forget.
        let (mut asks_table, mut forgets) = (false, false);
        for (i, arg) in args.iter().enumerate() {
            match arg.as_slice() {
                b"--" => {
                    names.extend_from_slice(&args[i + 1..]);
                    break;
                }
                [b'-', flags @ ..] if !flags.is_empty() && names.is_empty() => {
                    if flags.contains(&b'p') {
                        self.error(
                            "hash: -p: binding a name to a file is not supported by guard-sh",
                        );
                        return Ok(2);
                    }
                    if let Some(bad) = flags.iter().find(|f| !b"lrdt".contains(f)) {
                        self.error(&format!("hash: -{}: invalid option", char::from(*bad)));
                        let _ = self.sys.write_all(
                            2,
                            b"hash: usage: hash [-lr] [-p pathname] [-dt] [name ...]\n",
                        );
                        return Ok(2);
                    }
                    asks_table |= flags.contains(&b't');
                    forgets |= flags.contains(&b'd');
                }
                _ => names.push(arg.clone()),
            }
        }
        if args.is_empty() {
            return Ok(self.write_out(b"hash: hash table empty\n", "hash"));
        }
        if forgets {
            return Ok(0);
        }
        let mut status = 0;
        for name in names {
            let known = !asks_table
                && (crate::guard::builtins::is_builtin(&name)
                    || self.functions.contains_key(&lossy(&name))
                    || self.in_bin(&name).is_some());
            if !known {
                self.error(&format!("hash: {}: not found", lossy(&name)));
                status = 1;
            }
        }
        Ok(status)
    }

    /// `type [-a] [-t] NAME…`: what each name runs. `-t` prints only the
    /// kind and nothing for a name that is none (bash); `-a` every match.
    /// `type NAME…` with `-t` (the kind alone), `-a` (every kind, not the
    /// first), `-p` (the file's path, if a file is what would run) and
    /// `-P` (the file's path, whatever else the name is).
    fn type_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        let mut status = 0;
        let (mut short, mut all, mut path_only, mut path_forced) = (false, false, false, false);
        let mut names = Vec::new();
        for arg in args {
            match arg.as_slice() {
                [b'-', flags @ ..] if !flags.is_empty() && names.is_empty() => {
                    short |= flags.contains(&b't');
                    all |= flags.contains(&b'a');
                    path_only |= flags.contains(&b'p');
                    path_forced |= flags.contains(&b'P');
                }
                _ => names.push(arg.clone()),
            }
        }
        for name in names {
            let text = lossy(&name);
            let mut found: Vec<(&str, String)> = Vec::new();
            if !path_forced {
                if let Some(alias) = self.aliases.get(&text) {
                    found.push(("alias", format!("{text} is aliased to `{}'", lossy(alias))));
                }
                if SHELL_KEYWORDS.contains(&text.as_str()) {
                    found.push(("keyword", format!("{text} is a shell keyword")));
                }
                if self.functions.contains_key(&text) {
                    found.push(("function", format!("{text} is a function")));
                }
                if crate::guard::builtins::is_builtin(&name) {
                    found.push(("builtin", format!("{text} is a shell builtin")));
                }
            }
            let file = self.in_bin(&name);
            if let Some(path) = &file {
                found.push(("file", format!("{text} is {}", path.display())));
            }
            if found.is_empty() {
                if !short && !path_only && !path_forced {
                    self.error(&format!("type: {text}: not found"));
                }
                status = 1;
                continue;
            }
            if !all {
                found.truncate(1);
            }
            for (kind, line) in found {
                let out = match (&file, kind) {
                    // `-p`/`-P`: only the file that would run, as a path.
                    (Some(path), "file") if path_only || path_forced => path.display().to_string(),
                    _ if path_only || path_forced => continue,
                    _ if short => kind.to_string(),
                    _ => line,
                };
                self.write_out(format!("{out}\n").as_bytes(), "type");
            }
        }
        Ok(status)
    }

    /// `ulimit [-H|-S] [-a|-LETTER…]`: the limits, read only (setting one
    /// is refused: a command's limits are not the agent's to change).
    fn ulimit_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        let mut hard = false;
        let mut letters = Vec::new();
        for arg in args {
            let Some(flags) = arg.strip_prefix(b"-").filter(|f| !f.is_empty()) else {
                self.error(&format!(
                    "ulimit: {}: setting limits is not supported by guard-sh",
                    lossy(arg)
                ));
                return Ok(2);
            };
            for &f in flags {
                match f {
                    b'H' => hard = true,
                    b'S' => hard = false,
                    b'a' => letters.extend(ULIMITS.iter().map(|l| l.letter)),
                    f if ULIMITS.iter().any(|l| l.letter == f) => letters.push(f),
                    f => {
                        self.error(&format!("ulimit: -{}: invalid option", f as char));
                        return Ok(2);
                    }
                }
            }
        }
        let several = letters.len() > 1;
        if letters.is_empty() {
            letters.push(b'f');
        }
        let mut out = String::new();
        for letter in letters {
            let Some(limit) = ULIMITS.iter().find(|l| l.letter == letter) else {
                continue;
            };
            let Some(resource) = limit.resource else {
                // The pipe size in 512-byte blocks: a constant, as bash's.
                out.push_str(&ulimit_line(limit, several, "8"));
                continue;
            };
            let value = match self.sys.resource_limit(resource) {
                Ok((soft, max)) => {
                    let v = if hard { max } else { soft };
                    if v == crate::system::UNLIMITED {
                        "unlimited".to_string()
                    } else {
                        (v / limit.unit).to_string()
                    }
                }
                Err(e) => {
                    self.error(&format!("ulimit: {}: cannot get limit: {e}", limit.name));
                    return Ok(1);
                }
            };
            out.push_str(&ulimit_line(limit, several, &value));
        }
        Ok(self.write_out(out.as_bytes(), "ulimit"))
    }

    fn exec_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        if args.is_empty() {
            // `exec >file`: the redirections were applied and stay.
            self.copy.keep_redirects = true;
            return Ok(0);
        }
        let rest = if args[0] == b"--" { &args[1..] } else { args };
        if rest.is_empty() {
            return Ok(0);
        }
        if args[0] != b"--" && rest[0].first() == Some(&b'-') {
            // `-a NAME`, `-c`, `-l` change the new program's argv[0] or
            // environment, which the simulated exec cannot do: refuse them
            // rather than run the option as a command name.
            self.error(&format!(
                "exec: {}: options are not supported by guard-sh",
                lossy(&rest[0])
            ));
            return Ok(2);
        }
        if crate::guard::builtins::is_builtin(&rest[0]) {
            let status = self.run_builtin(rest)?;
            return Err(Flow::Exit(status));
        }
        // Replacing the shell is simulated: run the command, then exit with
        // its status (the spawn is guarded and audited like any other).
        let status = self.dispatch(rest, &[], false)?;
        Err(Flow::Exit(status))
    }

    fn alias(&mut self, args: &[Vec<u8>]) -> Status {
        let args: Vec<&Vec<u8>> = args.iter().filter(|a| a.as_slice() != b"-p").collect();
        if args.is_empty() {
            let mut out = Vec::new();
            for (name, value) in &self.aliases {
                out.extend_from_slice(format!("alias {name}={}\n", quote_always(value)).as_bytes());
            }
            return Ok(self.write_out(&out, "alias"));
        }
        let mut status = 0;
        for a in args {
            match a.iter().position(|&b| b == b'=') {
                Some(eq) => {
                    self.aliases.insert(lossy(&a[..eq]), a[eq + 1..].to_vec());
                }
                None => {
                    let name = lossy(a);
                    match self.aliases.get(&name) {
                        Some(v) => {
                            let line = format!("alias {name}={}\n", quote_always(v));
                            self.write_out(line.as_bytes(), "alias");
                        }
                        None => {
                            self.error(&format!("alias: {name}: not found"));
                            status = 1;
                        }
                    }
                }
            }
        }
        Ok(status)
    }

    fn unalias(&mut self, args: &[Vec<u8>]) -> Status {
        let mut status = 0;
        for a in args {
            if a == b"-a" {
                self.aliases.clear();
                continue;
            }
            if self.aliases.remove(&lossy(a)).is_none() {
                self.error(&format!("unalias: {}: not found", lossy(a)));
                status = 1;
            }
        }
        Ok(status)
    }

    fn umask_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        match args.iter().find(|a| !a.starts_with(b"-")) {
            None => {
                let old = self.sys.umask(0o022);
                self.sys.umask(old);
                Ok(self.write_out(format!("{old:04o}\n").as_bytes(), "umask"))
            }
            Some(mask) => match u32::from_str_radix(&lossy(mask), 8) {
                Ok(m) if m <= 0o777 => {
                    self.sys.umask(m);
                    Ok(0)
                }
                _ => {
                    self.error(&format!(
                        "umask: {}: octal number out of range",
                        lossy(mask)
                    ));
                    Ok(1)
                }
            },
        }
    }
}

/// Always single-quote (alias and trap listings).
fn quote_always(v: &[u8]) -> String {
    format!("'{}'", lossy(v).replace('\'', "'\\''"))
}

/// Lexical `.`/`..` removal for logical `cd`.
/// Whether every folder that a `..` of `path` leaves (read lexically, as
/// [`normalize`] does) exists.
fn dotdot_parents_exist(sys: &dyn crate::system::System, path: &Path) -> bool {
    let mut out = PathBuf::from("/");
    for c in path.components() {
        match c {
            Component::ParentDir => {
                let is_dir = sys
                    .file_info(&out, true)
                    .is_ok_and(|m| m.kind == crate::system::FileKind::Dir);
                if !is_dir {
                    return false;
                }
                out.pop();
            }
            Component::Normal(n) => out.push(n),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    true
}

/// One limit `ulimit` shows: its letter, bash's label and unit.
struct Ulimit {
    letter: u8,
    name: &'static str,
    unit_name: &'static str,
    unit: u64,
    resource: Option<crate::system::Limit>,
}

/// A `ulimit` line: the value alone, or with bash's `-a` label
/// (`printf "%-20s %20s"` of the name and `(unit, -x) `).
fn ulimit_line(limit: &Ulimit, labelled: bool, value: &str) -> String {
    if !labelled {
        return format!("{value}\n");
    }
    let unit = match limit.unit_name {
        "" => format!("(-{}) ", limit.letter as char),
        name => format!("({name}, -{}) ", limit.letter as char),
    };
    format!("{:<20} {unit:>20}{value}\n", limit.name)
}

/// bash 5.2's `ulimit -a` rows, in its order.
const ULIMITS: &[Ulimit] = {
    use crate::system::Limit;
    const fn u(
        letter: u8,
        name: &'static str,
        unit_name: &'static str,
        unit: u64,
        resource: Limit,
    ) -> Ulimit {
        Ulimit {
            letter,
            name,
            unit_name,
            unit,
            resource: Some(resource),
        }
    }
    &[
        u(
            b'R',
            "real-time non-blocking time",
            "microseconds",
            1,
            Limit::RealTime,
        ),
        u(b'c', "core file size", "blocks", 512, Limit::CoreFile),
        u(b'd', "data seg size", "kbytes", 1024, Limit::Data),
        u(b'e', "scheduling priority", "", 1, Limit::Nice),
        u(b'f', "file size", "blocks", 512, Limit::FileSize),
        u(b'i', "pending signals", "", 1, Limit::PendingSignals),
        u(
            b'l',
            "max locked memory",
            "kbytes",
            1024,
            Limit::LockedMemory,
        ),
        u(
            b'm',
            "max memory size",
            "kbytes",
            1024,
            Limit::ResidentMemory,
        ),
        u(b'n', "open files", "", 1, Limit::OpenFiles),
        Ulimit {
            letter: b'p',
            name: "pipe size",
            unit_name: "512 bytes",
            unit: 1,
            resource: None,
        },
        u(
            b'q',
            "POSIX message queues",
            "bytes",
            1,
            Limit::MessageQueues,
        ),
        u(b'r', "real-time priority", "", 1, Limit::RealTimePriority),
        u(b's', "stack size", "kbytes", 1024, Limit::Stack),
        u(b't', "cpu time", "seconds", 1, Limit::CpuTime),
        u(b'u', "max user processes", "", 1, Limit::Processes),
        u(b'v', "virtual memory", "kbytes", 1024, Limit::AddressSpace),
        u(b'x', "file locks", "", 1, Limit::FileLocks),
    ]
};
