//! `test` and `[`: POSIX rules by argument count, then bash's `-a`/`-o`/
//! `!`/parentheses grammar; file, string and integer tests.

use crate::interp::lossy;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;

type R = Result<bool, String>;

/// Whether a shell variable is set (`-v NAME`).
pub type IsSet<'a> = &'a dyn Fn(&[u8]) -> bool;

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
        return binary(args[0], args[1], args[2]);
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
                return binary(a, op, b);
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

fn access(b: &[u8], mode: libc::c_int) -> bool {
    let Ok(c) = std::ffi::CString::new(b) else {
        return false;
    };
    // SAFETY: a valid C string; faccessat with AT_EACCESS checks the effective ids.
    unsafe { libc::faccessat(libc::AT_FDCWD, c.as_ptr(), mode, libc::AT_EACCESS) == 0 }
}

/// [`unary`], with `-v NAME` answered by `is_set`.
fn unary_with(op: &[u8], arg: &[u8], is_set: IsSet<'_>) -> R {
    if op == b"-v" {
        return Ok(is_set(arg));
    }
    unary(op, arg)
}

pub(crate) fn unary(op: &[u8], arg: &[u8]) -> R {
    let meta = || std::fs::metadata(path(arg));
    Ok(match op {
        b"-z" => arg.is_empty(),
        b"-n" => !arg.is_empty(),
        b"-e" | b"-a" => meta().is_ok(),
        b"-f" => meta().is_ok_and(|m| m.is_file()),
        b"-d" => meta().is_ok_and(|m| m.is_dir()),
        b"-s" => meta().is_ok_and(|m| m.len() > 0),
        b"-L" | b"-h" => {
            std::fs::symlink_metadata(path(arg)).is_ok_and(|m| m.file_type().is_symlink())
        }
        b"-p" => meta().is_ok_and(|m| m.file_type().is_fifo()),
        b"-S" => meta().is_ok_and(|m| m.file_type().is_socket()),
        b"-b" => meta().is_ok_and(|m| m.file_type().is_block_device()),
        b"-c" => meta().is_ok_and(|m| m.file_type().is_char_device()),
        b"-g" => meta().is_ok_and(|m| m.permissions().mode() & 0o2000 != 0),
        b"-u" => meta().is_ok_and(|m| m.permissions().mode() & 0o4000 != 0),
        b"-k" => meta().is_ok_and(|m| m.permissions().mode() & 0o1000 != 0),
        // SAFETY: geteuid/getegid have no preconditions.
        b"-O" => meta().is_ok_and(|m| m.uid() == unsafe { libc::geteuid() }),
        // SAFETY: as above.
        b"-G" => meta().is_ok_and(|m| m.gid() == unsafe { libc::getegid() }),
        b"-N" => meta().is_ok_and(|m| m.mtime() > m.atime()),
        b"-r" => access(arg, libc::R_OK),
        b"-w" => access(arg, libc::W_OK),
        b"-x" => access(arg, libc::X_OK),
        b"-t" => {
            let fd: i32 = lossy(arg)
                .trim()
                .parse()
                .map_err(|_| format!("{}: integer expression expected", lossy(arg)))?;
            // SAFETY: isatty on a descriptor number.
            unsafe { libc::isatty(fd) == 1 }
        }
        _ => return Err(format!("{}: unary operator expected", lossy(op))),
    })
}

fn int(b: &[u8]) -> Result<i64, String> {
    let s = lossy(b);
    s.trim()
        .parse::<i64>()
        .map_err(|_| format!("{s}: integer expression expected"))
}

pub(crate) fn binary(a: &[u8], op: &[u8], b: &[u8]) -> R {
    let mtime = |p: &[u8]| {
        std::fs::metadata(path(p))
            .ok()
            .map(|m| (m.mtime(), m.mtime_nsec()))
    };
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
        b"-ef" => match (std::fs::metadata(path(a)), std::fs::metadata(path(b))) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
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
        evaluate(&v, &is_set)
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
