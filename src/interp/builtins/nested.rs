//! `bash` and `sh` on a line: a new shell, which is this interpreter in a
//! fresh state in a forked copy, never another program. Its text (`-c`,
//! a script file, standard input) is recorded, parsed and checked as a
//! line is before any of it runs, against the same policy; the copy keeps
//! the line's wall-time bound and the process's confinement.

use super::super::Options;
use crate::interp::session::Input;
use crate::interp::{Shell, Status, lossy};
use crate::system::ProcessGroup;
use std::time::Instant;

/// Where a new shell's commands come from.
enum Source {
    /// `-c TEXT`.
    Text(Vec<u8>),
    /// A script file.
    Script(Vec<u8>),
    /// Standard input (no operand, or `-s`).
    Stdin,
}

/// What a new shell's command line says.
struct Invocation {
    source: Source,
    /// `set` options given by letter or with `-o`/`+o`, in order.
    set: Vec<Vec<u8>>,
    /// `shopt` options given with `-O`/`+O`, in order: (on, name).
    shopt: Vec<(bool, Vec<u8>)>,
    /// `$0`.
    arg0: Vec<u8>,
    positional: Vec<Vec<u8>>,
    version: bool,
}

/// Read a new shell's arguments as bash does: options (bundled letters,
/// `-o NAME`, `-O NAME`, the long ones that change nothing here) up to the
/// first operand or `--`, then `-c`'s text or the script, then `$0` and
/// the positional parameters. `Err`: bash's message for a bad one.
fn invocation(name: &str, args: &[Vec<u8>]) -> Result<Invocation, String> {
    let (mut command, mut stdin, mut version) = (false, false, false);
    let (mut set, mut shopt) = (Vec::new(), Vec::new());
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        let (on, letters) = match arg.split_first() {
            Some((b'-', rest)) if !rest.is_empty() => (true, rest),
            Some((b'+', rest)) if !rest.is_empty() => (false, rest),
            _ => break,
        };
        at += 1;
        if arg == b"--" || arg == b"-" {
            break;
        }
        if let Some(long) = letters.strip_prefix(b"-") {
            match long {
                b"version" => version = true,
                b"norc" | b"noprofile" | b"login" | b"posix" | b"noediting" => {}
                // No start-up file is read: the one named is not either.
                b"rcfile" | b"init-file" => at += 1,
                _ => return Err(format!("{}: invalid option", lossy(arg))),
            }
            continue;
        }
        for &letter in letters {
            match letter {
                b'c' if on => command = true,
                b's' if on => stdin = true,
                // A login shell reads no start-up file here either.
                b'l' => {}
                b'o' | b'O' => {
                    let Some(option) = args.get(at) else {
                        return Err(format!("-{}: option requires an argument", letter as char));
                    };
                    at += 1;
                    if letter == b'O' {
                        shopt.push((on, option.clone()));
                    } else {
                        set.push(if on { b"-o".to_vec() } else { b"+o".to_vec() });
                        set.push(option.clone());
                    }
                }
                b'e' | b'u' | b'x' | b'v' | b'f' | b'a' | b'C' | b'h' | b'B' | b'E' | b'T' => {
                    set.push(vec![if on { b'-' } else { b'+' }, letter]);
                }
                _ => {
                    return Err(format!(
                        "{}{}: invalid option (guard-sh's {name} takes -c, -s, -l, -o, -O and set's letters)",
                        if on { '-' } else { '+' },
                        letter as char
                    ));
                }
            }
        }
    }
    let rest = &args[at..];
    let (source, arg0, positional) = if command {
        let Some((text, rest)) = rest.split_first() else {
            return Err("-c: option requires an argument".into());
        };
        match rest.split_first() {
            Some((arg0, positional)) => (Source::Text(text.clone()), arg0.clone(), positional),
            None => (Source::Text(text.clone()), name.as_bytes().to_vec(), rest),
        }
    } else if stdin || rest.is_empty() {
        (Source::Stdin, name.as_bytes().to_vec(), rest)
    } else {
        (Source::Script(rest[0].clone()), rest[0].clone(), &rest[1..])
    };
    Ok(Invocation {
        source,
        set,
        shopt,
        arg0,
        positional: positional.to_vec(),
        version,
    })
}

impl Shell<'_> {
    /// `bash`/`sh` [OPTION…] [`-c` TEXT [NAME [ARG…]] | SCRIPT [ARG…]]: a
    /// new shell in a forked copy, its status the copy's.
    pub(super) fn nested_shell(&mut self, name: &str, args: &[Vec<u8>]) -> Status {
        let invocation = match invocation(name, args) {
            Ok(invocation) => invocation,
            Err(message) => {
                self.error(&format!("{name}: {message}"));
                return Ok(2);
            }
        };
        if invocation.version {
            let text = format!(
                "guard-sh {} (a restricted shell that runs the commands of a line as bash does)\n",
                env!("CARGO_PKG_VERSION")
            );
            return Ok(self.write_out(text.as_bytes(), name));
        }
        if matches!(invocation.source, Source::Stdin) && self.sys.isatty(0) && self.sys.isatty(2) {
            // bash would start an interactive shell on the terminal.
            self.error(&format!(
                "{name}: an interactive new shell is not supported by guard-sh (give it -c TEXT or a script)"
            ));
            return Ok(2);
        }
        let t0 = Instant::now();
        let pid = self.fork_run(ProcessGroup::Inherit, |sh| {
            sh.run_new_shell(name, invocation)
        })?;
        self.wait_child(pid, t0, false)
    }

    /// In the forked copy: become a shell that just started, as bash's
    /// child would be, then run its commands.
    fn run_new_shell(&mut self, name: &str, invocation: Invocation) -> Status {
        self.start_afresh(&invocation);
        self.vars.set_internal("_", name.as_bytes().to_vec());
        if !invocation.set.is_empty() {
            let status = self.set_builtin(&invocation.set)?;
            if status != 0 {
                return Ok(status);
            }
        }
        for (on, option) in &invocation.shopt {
            let flag = if *on { b"-s".to_vec() } else { b"-u".to_vec() };
            let status = self.shopt(&[flag, option.clone()])?;
            if status != 0 {
                return Ok(status);
            }
        }
        match invocation.source {
            Source::Text(text) => Ok(self.run_text(&text, name).status()),
            Source::Stdin => Ok(self.run_input(Input::Stdin(Vec::new()), name)),
            Source::Script(file) => {
                let path = self.absolute(&file);
                match self.open_script_checked(&path, &lossy(&file)) {
                    Ok(Ok(input)) => Ok(self.run_input(input, name)),
                    Ok(Err(deny)) => Err(self.deny(&deny, &[name.as_bytes().to_vec(), file])),
                    Err(e) => {
                        let why = crate::interp::redirect::describe_io(&e);
                        self.error(&format!("{}: {why}", lossy(&file)));
                        Ok(127)
                    }
                }
            }
        }
    }

    /// What a new shell keeps of this one: the exported variables (their
    /// values alone), the working folder, the descriptors, the ignored
    /// signals; everything else as at start.
    fn start_afresh(&mut self, invocation: &Invocation) {
        self.vars.keep_exported_only();
        self.init_vars();
        self.functions.clear();
        self.aliases.clear();
        self.opts = Options::default();
        self.traps.listed = None;
        self.dir_stack.clear();
        self.func_names.clear();
        self.arg0 = invocation.arg0.clone();
        self.positional = invocation.positional.clone();
        self.command_mode = matches!(invocation.source, Source::Text(_));
        self.jobs.outer_shells.push(self.shell_pid);
        self.jobs.table = Default::default();
        self.jobs.last_bg = None;
        self.shell_pid = self.sys.getpid();
        self.status = 0;
        self.pipestatus.clear();
        self.getopts_pos = 0;
        // Its own text is its top level (the copy stays a copy: the line's
        // time bound holds, see `run_text`).
        self.depth.texts = 0;
        self.depth.sources = 0;
        self.depth.functions = 0;
        self.depth.copies_before_shell = self.depth.copies;
        let level = self
            .vars
            .get("SHLVL")
            .and_then(|v| std::str::from_utf8(v).ok()?.parse::<i64>().ok());
        self.vars
            .set("SHLVL", (level.unwrap_or(0) + 1).to_string().into_bytes());
        self.vars.export("SHLVL", true);
    }
}
