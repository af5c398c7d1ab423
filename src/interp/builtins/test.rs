//! `test` and `[`: POSIX rules by argument count, then bash's `-a`/`-o`/
//! `!`/parentheses grammar; file, string and integer tests.

use crate::interp::lossy;
use crate::system::{Access, FileKind, System};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

type R = Result<bool, String>;

/// What `test` asks of the shell: whether a variable is set (`-v NAME`),
/// and the file system, through [`System`].
pub struct Ask<'a> {
    /// Whether the variable named is set.
    pub is_set: &'a dyn Fn(&[u8]) -> bool,
    /// Where files are looked up.
    pub sys: &'a dyn System,
}

type IsSet<'a> = &'a Ask<'a>;

/// Evaluate test arguments (without the closing `]`).
pub fn evaluate(args: &[&[u8]], is_set: IsSet<'_>) -> R {
    match args.len() {
        0 => Ok(false),
        1 => Ok(!args[0].is_empty()),
        2 => two(args, is_set),
        3 => three(args, is_set),
        4 if args[0] == b"!" => three(&args[1..], is_set).map(|b| !b),
        4 if args[0] == b"(" && args[3] == b")" => two(&args[1..3], is_set),
        _ => {
            let mut p = P { args, i: 0, is_set };
            let v = p.or()?;
            if p.i < args.len() {
                return Err(format!("{}: unexpected argument", lossy(args[p.i])));
            }
            Ok(v)
        }
    }
}

fn two(args: &[&[u8]], is_set: IsSet<'_>) -> R {
    if args[0] == b"!" {
        return Ok(args[1].is_empty());
    }
    if is_unary(args[0]) {
        return unary_with(args[0], args[1], is_set);
    }
    Err(format!("{}: unary operator expected", lossy(args[0])))
}

fn three(args: &[&[u8]], is_set: IsSet<'_>) -> R {
    if is_binary(args[1]) {
        return binary(is_set.sys, args[0], args[1], args[2]);
    }
    if args[1] == b"-a" {
        return Ok(!args[0].is_empty() && !args[2].is_empty());
    }
    if args[1] == b"-o" {
        return Ok(!args[0].is_empty() || !args[2].is_empty());
    }
    if args[0] == b"!" {
        return two(&args[1..], is_set).map(|b| !b);
    }
    if args[0] == b"(" && args[2] == b")" {
        return Ok(!args[1].is_empty());
    }
    Err(format!("{}: binary operator expected", lossy(args[1])))
}

struct P<'a> {
    args: &'a [&'a [u8]],
    i: usize,
    is_set: IsSet<'a>,
}

impl<'a> P<'a> {
    fn peek(&self) -> Option<&'a [u8]> {
        self.args.get(self.i).copied()
    }

    fn or(&mut self) -> R {
        let mut v = self.and()?;
        while self.peek() == Some(b"-o") {
            self.i += 1;
            let r = self.and()?;
            v = v || r;
        }
        Ok(v)
    }

    fn and(&mut self) -> R {
        let mut v = self.not()?;
        while self.peek() == Some(b"-a") {
            self.i += 1;
            let r = self.not()?;
            v = v && r;
        }
        Ok(v)
    }

    fn not(&mut self) -> R {
        if self.peek() == Some(b"!") {
            self.i += 1;
            return self.not().map(|b| !b);
        }
        self.primary()
    }

    fn primary(&mut self) -> R {
        let Some(a) = self.peek() else {
            return Err("argument expected".into());
        };
        if a == b"(" {
            self.i += 1;
            let v = self.or()?;
            if self.peek() != Some(b")") {
                return Err("`)' expected".into());
            }
            self.i += 1;
            return Ok(v);
        }
        if let Some(op) = self.args.get(self.i + 1).copied() {
            if is_binary(op) && self.i + 2 < self.args.len() {
                let b = self.args[self.i + 2];
                self.i += 3;
                return binary(self.is_set.sys, a, op, b);
            }
        }
        if is_unary(a) && self.i + 1 < self.args.len() {
            let operand = self.args[self.i + 1];
            self.i += 2;
            return unary_with(a, operand, self.is_set);
        }
        self.i += 1;
        Ok(!a.is_empty())
    }
}

fn is_unary(op: &[u8]) -> bool {
    matches!(
        op,
        b"-e"
            | b"-f"
            | b"-d"
            | b"-r"
            | b"-w"
            | b"-x"
            | b"-s"
            | b"-L"
            | b"-h"
            | b"-p"
            | b"-S"
            | b"-b"
            | b"-c"
            | b"-t"
            | b"-g"
            | b"-u"
            | b"-k"
            | b"-O"
            | b"-G"
            | b"-N"
            | b"-z"
            | b"-n"
            | b"-a"
            | b"-v"
            | b"-o"
    )
}

fn is_binary(op: &[u8]) -> bool {
    matches!(
        op,
        b"=" | b"=="
            | b"!="
            | b"<"
            | b">"
            | b"-eq"
            | b"-ne"
            | b"-lt"
            | b"-le"
            | b"-gt"
            | b"-ge"
            | b"-nt"
            | b"-ot"
            | b"-ef"
    )
}

fn path(b: &[u8]) -> &Path {
    Path::new(OsStr::from_bytes(b))
}

/// [`unary`], with `-v NAME` answered by `is_set`.
fn unary_with(op: &[u8], arg: &[u8], is_set: IsSet<'_>) -> R {
    if op == b"-v" {
        return Ok((is_set.is_set)(arg));
    }
    unary(is_set.sys, op, arg)
}

pub(crate) fn unary(sys: &dyn System, op: &[u8], arg: &[u8]) -> R {
    let meta = || sys.file_info(path(arg), true);
    let kind = |k: FileKind| meta().is_ok_and(|m| m.kind == k);
    let mode = |bits: u32| meta().is_ok_and(|m| m.mode & bits != 0);
    Ok(match op {
        b"-z" => arg.is_empty(),
        b"-n" => !arg.is_empty(),
        b"-e" | b"-a" => meta().is_ok(),
        b"-f" => kind(FileKind::File),
        b"-d" => kind(FileKind::Dir),
        b"-s" => meta().is_ok_and(|m| m.size > 0),
        b"-L" | b"-h" => sys
            .file_info(path(arg), false)
            .is_ok_and(|m| m.kind == FileKind::Symlink),
        b"-p" => kind(FileKind::Fifo),
        b"-S" => kind(FileKind::Socket),
        b"-b" => kind(FileKind::Block),
        b"-c" => kind(FileKind::Char),
        b"-g" => mode(0o2000),
        b"-u" => mode(0o4000),
        b"-k" => mode(0o1000),
        b"-O" => meta().is_ok_and(|m| m.uid == sys.effective_ids().0),
        b"-G" => meta().is_ok_and(|m| m.gid == sys.effective_ids().1),
        b"-N" => meta().is_ok_and(|m| m.modified.0 > m.accessed.0),
        b"-r" => sys.may_access(path(arg), Access::Read),
        b"-w" => sys.may_access(path(arg), Access::Write),
        b"-x" => sys.may_access(path(arg), Access::Execute),
        // bash: a descriptor that is no number (or too large) is no terminal.
        b"-t" => lossy(arg)
            .trim()
            .parse::<i32>()
            .is_ok_and(|fd| sys.isatty(fd)),
        _ => return Err(format!("{}: unary operator expected", lossy(op))),
    })
}

fn int(b: &[u8]) -> Result<i64, String> {
    let s = lossy(b);
    s.trim()
        .parse::<i64>()
        .map_err(|_| format!("{s}: integer expression expected"))
}

pub(crate) fn binary(sys: &dyn System, a: &[u8], op: &[u8], b: &[u8]) -> R {
    let mtime = |p: &[u8]| sys.file_info(path(p), true).ok().map(|m| m.modified);
    Ok(match op {
        b"=" | b"==" => a == b,
        b"!=" => a != b,
        b"<" => a < b,
        b">" => a > b,
        b"-eq" => int(a)? == int(b)?,
        b"-ne" => int(a)? != int(b)?,
        b"-lt" => int(a)? < int(b)?,
        b"-le" => int(a)? <= int(b)?,
        b"-gt" => int(a)? > int(b)?,
        b"-ge" => int(a)? >= int(b)?,
        b"-nt" => match (mtime(a), mtime(b)) {
            (Some(x), Some(y)) => x > y,
            (Some(_), None) => true,
            _ => false,
        },
        b"-ot" => match (mtime(a), mtime(b)) {
            (Some(x), Some(y)) => x < y,
            (None, Some(_)) => true,
            _ => false,
        },
        b"-ef" => match (sys.file_info(path(a), true), sys.file_info(path(b), true)) {
            (Ok(x), Ok(y)) => x.id == y.id,
            _ => false,
        },
        _ => return Err(format!("{}: binary operator expected", lossy(op))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(args: &[&str]) -> R {
        let v: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        let is_set = |name: &[u8]| name == b"set";
        let sys = crate::system::fake::FakeSystem::new();
        evaluate(
            &v,
            &Ask {
                is_set: &is_set,
                sys: &sys,
            },
        )
    }

    /// `test ARGS` against a fake file system holding `files`.
    fn t_in(files: &[(&str, FileKind, u32, u32, i64)], args: &[&str]) -> R {
        let mut sys = crate::system::fake::FakeSystem::new();
        for (n, &(name, kind, mode, uid, modified)) in files.iter().enumerate() {
            let info = crate::system::FileInfo {
                kind,
                mode,
                uid,
                gid: uid,
                size: if kind == FileKind::File { 3 } else { 0 },
                id: (1, n as u64),
                modified: (modified, 0),
                accessed: (0, 0),
            };
            sys.files.insert(name.into(), info);
        }
        let v: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        let is_set = |_: &[u8]| false;
        evaluate(
            &v,
            &Ask {
                is_set: &is_set,
                sys: &sys,
            },
        )
    }

    #[test]
    fn file_operators_ask_the_system() {
        use FileKind::*;
        let files = [
            ("/f", File, 0o644, 1000, 5),
            ("/old", File, 0o4600, 0, 1),
            ("/d", Dir, 0o755, 1000, 0),
            ("/l", Symlink, 0o777, 1000, 0),
            ("/p", Fifo, 0o600, 1000, 0),
        ];
        let cases: &[(&[&str], bool)] = &[
            (&["-e", "/f"], true),
            (&["-e", "/none"], false),
            (&["-f", "/f"], true),
            (&["-f", "/d"], false),
            (&["-d", "/d"], true),
            (&["-s", "/f"], true),
            (&["-s", "/d"], false),
            (&["-L", "/l"], true),
            (&["-h", "/f"], false),
            (&["-p", "/p"], true),
            (&["-r", "/f"], true),
            (&["-w", "/f"], true),
            (&["-x", "/f"], false),
            (&["-x", "/d"], true),
            (&["-r", "/old"], false),
            (&["-u", "/old"], true),
            (&["-u", "/f"], false),
            (&["-O", "/f"], true),
            (&["-O", "/old"], false),
            (&["/f", "-nt", "/old"], true),
            (&["/old", "-ot", "/f"], true),
            (&["/f", "-nt", "/none"], true),
            (&["/f", "-ef", "/f"], true),
            (&["/f", "-ef", "/old"], false),
            (&["!", "-e", "/none"], true),
            (&["-f", "/f", "-a", "-d", "/d"], true),
        ];
        for (args, want) in cases {
            assert_eq!(t_in(&files, args), Ok(*want), "test {args:?}");
        }
    }

    #[test]
    fn argument_count_rules_match_posix() {
        assert_eq!(t(&[]), Ok(false));
        assert_eq!(t(&["x"]), Ok(true));
        assert_eq!(t(&[""]), Ok(false));
        assert_eq!(t(&["-n"]), Ok(true));
        assert_eq!(t(&["!", ""]), Ok(true));
        assert_eq!(t(&["a", "=", "a"]), Ok(true));
        assert_eq!(t(&["!", "a", "=", "b"]), Ok(true));
        assert_eq!(t(&["(", "x", ")"]), Ok(true));
    }

    #[test]
    fn and_or_and_parentheses_combine() {
        assert_eq!(t(&["a", "=", "a", "-a", "1", "-lt", "2"]), Ok(true));
        assert_eq!(
            t(&["a", "=", "b", "-o", "(", "3", "-ge", "3", ")"]),
            Ok(true)
        );
        assert_eq!(t(&["!", "-z", "x", "-a", "-n", ""]), Ok(false));
    }

    #[test]
    fn bad_integers_and_operators_are_errors() {
        assert!(t(&["x", "-eq", "1"]).is_err());
        assert!(t(&["a", "-foo", "b"]).is_err());
    }
}
