//! The builtins guard-sh's interpreter implements itself. They run inside
//! guard-sh and never exec anything, so the guard does not deny them by
//! name; the ones that run other commands (`command`, `exec`, `eval`,
//! `source`, `.`, `builtin`) have their operands checked instead.

/// Declares [`Builtin`] from one list of variants and names, so the guard
/// (which asks whether a name is a builtin) and the interpreter (which
/// dispatches on the variant, exhaustively) read the same table: a builtin
/// added here does not compile until the interpreter runs it.
macro_rules! builtins {
    ($($variant:ident = $name:literal,)*) => {
        /// A builtin of guard-sh's interpreter.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Builtin {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
        }

        impl Builtin {
            /// Every builtin, in the table's order.
            pub const ALL: &[Builtin] = &[$(Builtin::$variant,)*];

            /// The name a command line calls it by.
            pub fn name(self) -> &'static str {
                match self {
                    $(Builtin::$variant => $name,)*
                }
            }

            /// The builtin called `name`, if there is one.
            pub fn from_name(name: &[u8]) -> Option<Builtin> {
                match name {
                    $(n if n == $name.as_bytes() => Some(Builtin::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

builtins! {
    Colon = ":",
    Dot = ".",
    Bracket = "[",
    Alias = "alias",
    Builtin = "builtin",
    Cd = "cd",
    Command = "command",
    Echo = "echo",
    Eval = "eval",
    Exec = "exec",
    Exit = "exit",
    Export = "export",
    False = "false",
    Local = "local",
    Printf = "printf",
    Pwd = "pwd",
    Read = "read",
    Readonly = "readonly",
    Return = "return",
    Set = "set",
    Shift = "shift",
    Shopt = "shopt",
    Source = "source",
    Test = "test",
    Trap = "trap",
    True = "true",
    Type = "type",
    Umask = "umask",
    Unalias = "unalias",
    Unset = "unset",
    Wait = "wait",
    Break = "break",
    Continue = "continue",
    Declare = "declare",
    Typeset = "typeset",
    Hash = "hash",
    Getopts = "getopts",
    Kill = "kill",
    Let = "let",
    Pushd = "pushd",
    Popd = "popd",
    Dirs = "dirs",
    Mapfile = "mapfile",
    Readarray = "readarray",
    Ulimit = "ulimit",
    Bash = "bash",
    Sh = "sh",
    Jobs = "jobs",
    Fg = "fg",
    Bg = "bg",
    History = "history",
}

/// Is `name` a builtin of guard-sh's interpreter?
pub fn is_builtin(name: &[u8]) -> bool {
    Builtin::from_name(name).is_some()
}

/// Where a new shell's (`bash`/`sh`) commands come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewShellSource {
    /// `-c TEXT`.
    Text {
        /// The text's index in the arguments.
        at: usize,
    },
    /// A script file.
    Script {
        /// The script's index in the arguments.
        at: usize,
    },
    /// Standard input (no operand, or `-s`).
    Stdin,
}

/// What a new shell's command line says: read once, by the guard's walker
/// (to check `-c` text written out in the line) and by the interpreter
/// (to run it), so both read the same options the same way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewShell {
    /// Where its commands come from.
    pub source: NewShellSource,
    /// `set` options given by letter or with `-o`/`+o`, in order.
    pub set: Vec<Vec<u8>>,
    /// `shopt` options given with `-O`/`+O`, in order: (on, name).
    pub shopt: Vec<(bool, Vec<u8>)>,
    /// The argument that is `$0`, if one is (else the shell's name).
    pub arg0_at: Option<usize>,
    /// Where the positional parameters start.
    pub positional_at: usize,
    /// `--version`.
    pub version: bool,
    /// `-i`: an interactive shell (`$-` holds `i`, `set -u` ends a line
    /// rather than the shell); never at a terminal, which it would read.
    pub interactive: bool,
    /// The first option guard-sh's new shell does not take, or one
    /// without its word: the shell fails with it and runs nothing. The
    /// rest is still read, so the walker checks a `-c` text beside it.
    pub error: Option<String>,
}

/// Read a new shell's arguments as bash does: options (bundled letters,
/// `-o NAME`, `-O NAME`, the long ones that change nothing here) up to the
/// first operand or `--`, then `-c`'s text or the script, then `$0` and
/// the positional parameters.
pub fn new_shell(name: &str, args: &[Vec<u8>]) -> NewShell {
    let (mut command, mut stdin, mut version, mut interactive) = (false, false, false, false);
    let (mut set, mut shopt) = (Vec::new(), Vec::new());
    let mut error = None;
    let mut fail = |message: String| {
        error.get_or_insert(message);
    };
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
                _ => fail(format!("{}: invalid option", String::from_utf8_lossy(arg))),
            }
            continue;
        }
        for &letter in letters {
            match letter {
                b'c' if on => command = true,
                b's' if on => stdin = true,
                b'i' if on => interactive = true,
                // A login shell reads no start-up file here either.
                b'l' => {}
                b'o' | b'O' => {
                    let Some(option) = args.get(at) else {
                        fail(format!("-{}: option requires an argument", letter as char));
                        break;
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
                _ => fail(format!(
                    "{}{}: invalid option (guard-sh's {name} takes -c, -s, -i, -l, -o, -O and set's letters)",
                    if on { '-' } else { '+' },
                    letter as char
                )),
            }
        }
    }
    let (source, arg0_at, positional_at) = if command && at >= args.len() {
        fail("-c: option requires an argument".into());
        (NewShellSource::Stdin, None, at)
    } else if command {
        let arg0_at = (at + 1 < args.len()).then_some(at + 1);
        (
            NewShellSource::Text { at },
            arg0_at,
            (at + 2).min(args.len()),
        )
    } else if stdin || at >= args.len() {
        (NewShellSource::Stdin, None, at)
    } else {
        (NewShellSource::Script { at }, Some(at), at + 1)
    };
    NewShell {
        source,
        set,
        shopt,
        arg0_at,
        positional_at,
        version,
        interactive,
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arguments read, or the error they fail with.
    fn parsed(args: &[&str]) -> Result<NewShell, String> {
        let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        let shell = new_shell("bash", &args);
        shell.error.clone().map_or(Ok(shell), Err)
    }

    #[test]
    fn a_new_shells_arguments_are_read_as_bash_reads_them() {
        let c = parsed(&["-eo", "pipefail", "-c", "text", "zero", "one"]);
        let c = c
            .as_ref()
            .map(|c| (c.source, c.arg0_at, c.positional_at, c.set.len()));
        assert_eq!(c, Ok((NewShellSource::Text { at: 3 }, Some(4), 5, 3)));
        let c = parsed(&["-c", "text"]).map(|c| (c.source, c.arg0_at, c.positional_at));
        assert_eq!(c, Ok((NewShellSource::Text { at: 1 }, None, 2)));
        let c = parsed(&["--rcfile", "f", "--", "s.sh", "a"]).map(|c| (c.source, c.arg0_at));
        assert_eq!(c, Ok((NewShellSource::Script { at: 3 }, Some(3))));
        let c = parsed(&["-s", "a"]).map(|c| (c.source, c.positional_at));
        assert_eq!(c, Ok((NewShellSource::Stdin, 1)));
        // `+c`, a letter guard-sh lacks, and an option without its word
        // fail.
        assert!(parsed(&["+c", "s.sh"]).is_err());
        assert!(parsed(&["-r"]).is_err());
        assert_eq!(parsed(&["-i", "-c", "t"]).map(|c| c.interactive), Ok(true));
        assert!(parsed(&["-c"]).is_err());
        assert!(parsed(&["-o"]).is_err());
        // The text beside an option that fails is still found.
        let args: Vec<Vec<u8>> = ["-r", "-c", "text"]
            .iter()
            .map(|a| a.as_bytes().to_vec())
            .collect();
        assert_eq!(
            new_shell("bash", &args).source,
            NewShellSource::Text { at: 2 }
        );
    }

    #[test]
    fn each_name_leads_to_its_builtin_and_names_are_unique() {
        for builtin in Builtin::ALL {
            assert_eq!(
                Builtin::from_name(builtin.name().as_bytes()),
                Some(*builtin)
            );
        }
        let mut names: Vec<&str> = Builtin::ALL.iter().map(|b| b.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Builtin::ALL.len());
        assert!(!is_builtin(b"curl") && !is_builtin(b"") && is_builtin(b"["));
    }
}
