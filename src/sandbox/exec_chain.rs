//! Start-up chain of an executable: every file the kernel opens for
//! execution when a program is `execve`d.
//!
//! Guarantee: for a file `F`, [`resolve`] returns `F` itself, its ELF
//! interpreter (`PT_INTERP`, e.g. `/lib64/ld-linux-x86-64.so.2`), and for a
//! `#!` script the whole interpreter chain (each interpreter with its own
//! ELF interpreter), so a Landlock domain that allows exactly these files
//! lets `F` start and nothing else. It never runs anything; it only reads
//! the first bytes of files.
//!
//! `#!/usr/bin/env NAME` is followed one step further: `env` looks NAME up
//! in the `PATH` the command receives (its rule's `path_env`; glibc's
//! default `/bin:/usr/bin` when that is empty, because `execvp` uses it when
//! `PATH` is unset), so the same lookup is done here. Anything `env` is told
//! with options (`env -S …`, `env A=B prog`) is not guessed: such helpers
//! must be listed in the rule's `exec_allow`.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Linux reads this many bytes of a script's `#!` line (`BINPRM_BUF_SIZE`).
const SHEBANG_MAX: usize = 256;

/// Linux follows at most this many interpreter levels (`binfmt` recursion).
const MAX_DEPTH: usize = 5;

/// `execvp`'s search path when `PATH` is unset (glibc `_CS_PATH`).
const DEFAULT_SEARCH_PATH: [&str; 2] = ["/bin", "/usr/bin"];

/// What the kernel does with a file at `execve`, judged by its first bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    /// An ELF file; `interp` is its `PT_INTERP` (None: statically linked).
    Elf { interp: Option<PathBuf> },
    /// A `#!` script: `interpreter` and the optional single argument.
    Script {
        interpreter: PathBuf,
        arg: Option<String>,
    },
    /// Anything else (the kernel refuses it with `ENOEXEC`).
    Other,
}

/// Every file `execve(path)` opens for execution, `path` first, each
/// canonical and listed once. `cwd` resolves relative paths (the kernel
/// resolves a relative `#!` interpreter against the caller's cwd);
/// `search_path` is the `PATH` the program gets (see the module docs).
///
/// Errors only if `path` itself cannot be read; an interpreter that does not
/// exist is left out (the `execve` will fail on its own, and allowing a
/// missing file grants nothing).
pub fn resolve(path: &Path, cwd: &Path, search_path: &[PathBuf]) -> io::Result<Vec<PathBuf>> {
    let mut chain = Vec::new();
    let first = std::fs::canonicalize(cwd.join(path))?;
    walk(&first, cwd, search_path, 0, &mut chain)?;
    Ok(chain)
}

fn walk(
    file: &Path,
    cwd: &Path,
    search_path: &[PathBuf],
    depth: usize,
    chain: &mut Vec<PathBuf>,
) -> io::Result<()> {
    if depth > MAX_DEPTH || chain.iter().any(|seen| seen == file) {
        return Ok(());
    }
    chain.push(file.to_path_buf());
    let next = match read_format(file)? {
        Format::Elf {
            interp: Some(interp),
        } => vec![interp],
        Format::Elf { interp: None } | Format::Other => Vec::new(),
        Format::Script { interpreter, arg } => {
            let mut next = vec![interpreter.clone()];
            if is_env(&interpreter)
                && let Some(program) = arg.as_deref().and_then(|a| env_program(a, search_path))
            {
                next.push(program);
            }
            next
        }
    };
    for candidate in next {
        // A missing interpreter grants nothing; skip it rather than fail.
        if let Ok(real) = std::fs::canonicalize(cwd.join(&candidate)) {
            walk(&real, cwd, search_path, depth + 1, chain)?;
        }
    }
    Ok(())
}

/// Read the first bytes of `file` and classify them as the kernel would.
pub fn read_format(file: &Path) -> io::Result<Format> {
    let mut f = File::open(file)?;
    let mut head = [0u8; SHEBANG_MAX];
    let n = read_up_to(&mut f, &mut head)?;
    let head = &head[..n];
    if head.starts_with(b"#!") {
        return Ok(parse_shebang(&head[2..]));
    }
    if head.starts_with(b"\x7fELF") {
        return Ok(Format::Elf {
            interp: elf_interp(&mut f)?,
        });
    }
    Ok(Format::Other)
}

fn read_up_to(f: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match f.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// The `#!` line as `fs/binfmt_script.c` splits it: blanks skipped, the
/// interpreter up to the next blank, the rest (trimmed) one argument.
fn parse_shebang(after_bang: &[u8]) -> Format {
    let line = after_bang.split(|&b| b == b'\n').next().unwrap_or_default();
    let is_blank = |b: &u8| *b == b' ' || *b == b'\t';
    let line = trim(line, is_blank);
    let end = line.iter().position(is_blank).unwrap_or(line.len());
    let (interpreter, rest) = line.split_at(end);
    if interpreter.is_empty() {
        return Format::Other;
    }
    let rest = trim(rest, is_blank);
    Format::Script {
        interpreter: PathBuf::from(String::from_utf8_lossy(interpreter).into_owned()),
        arg: (!rest.is_empty()).then(|| String::from_utf8_lossy(rest).into_owned()),
    }
}

fn trim(mut s: &[u8], blank: impl Fn(&u8) -> bool) -> &[u8] {
    while let [first, rest @ ..] = s
        && blank(first)
    {
        s = rest;
    }
    while let [rest @ .., last] = s
        && (blank(last) || *last == b'\r')
    {
        s = rest;
    }
    s
}

fn is_env(interpreter: &Path) -> bool {
    interpreter.file_name().is_some_and(|n| n == "env")
}

/// The program `env ARG` runs, when ARG is a plain program name (no option,
/// no assignment, no second word); looked up like `execvp` would.
fn env_program(arg: &str, search_path: &[PathBuf]) -> Option<PathBuf> {
    if arg.starts_with('-') || arg.contains('=') || arg.contains([' ', '\t']) {
        return None;
    }
    if arg.contains('/') {
        return Some(PathBuf::from(arg));
    }
    let default: Vec<PathBuf> = DEFAULT_SEARCH_PATH.iter().map(PathBuf::from).collect();
    let dirs = if search_path.is_empty() {
        &default[..]
    } else {
        search_path
    };
    dirs.iter()
        .map(|d| d.join(arg))
        .find(|p| is_executable_file(p))
}

fn is_executable_file(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `PT_INTERP` of an ELF file (32 or 64 bit, either byte order).
fn elf_interp(f: &mut File) -> io::Result<Option<PathBuf>> {
    const PT_INTERP: u32 = 3;
    let bad = |what: &str| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("malformed ELF file: {what}"),
        )
    };
    let mut ident = [0u8; 64];
    f.seek(SeekFrom::Start(0))?;
    if read_up_to(f, &mut ident)? < 52 {
        return Err(bad("header too short"));
    }
    let wide = match ident[4] {
        1 => false,
        2 => true,
        _ => return Err(bad("unknown class")),
    };
    let big = match ident[5] {
        1 => false,
        2 => true,
        _ => return Err(bad("unknown byte order")),
    };
    let num = |bytes: &[u8]| -> u64 {
        let mut v: u64 = 0;
        for i in 0..bytes.len() {
            let b = if big {
                bytes[i]
            } else {
                bytes[bytes.len() - 1 - i]
            };
            v = (v << 8) | u64::from(b);
        }
        v
    };
    // Offsets of e_phoff, e_phentsize, e_phnum per class (ELF spec, "ELF Header").
    let (phoff, phentsize, phnum) = if wide {
        (
            num(&ident[32..40]),
            num(&ident[54..56]),
            num(&ident[56..58]),
        )
    } else {
        (
            num(&ident[28..32]),
            num(&ident[42..44]),
            num(&ident[44..46]),
        )
    };
    let min_entry = if wide { 56 } else { 32 };
    if phnum == 0 {
        return Ok(None);
    }
    if phentsize < min_entry || phnum > 0xffff {
        return Err(bad("program header size"));
    }
    let mut entry = vec![0u8; usize::try_from(phentsize).map_err(|_| bad("program header size"))?];
    for i in 0..phnum {
        f.seek(SeekFrom::Start(phoff.saturating_add(i * phentsize)))?;
        if read_up_to(f, &mut entry)? < entry.len() {
            return Err(bad("truncated program headers"));
        }
        if num(&entry[0..4]) as u32 != PT_INTERP {
            continue;
        }
        let (offset, size) = if wide {
            (num(&entry[8..16]), num(&entry[32..40]))
        } else {
            (num(&entry[4..8]), num(&entry[16..20]))
        };
        // Linux refuses interpreters longer than PATH_MAX.
        if !(2..=4096).contains(&size) {
            return Err(bad("interpreter path length"));
        }
        let mut path = vec![0u8; size as usize];
        f.seek(SeekFrom::Start(offset))?;
        if read_up_to(f, &mut path)? < path.len() {
            return Err(bad("truncated interpreter path"));
        }
        let end = path.iter().position(|&b| b == 0).unwrap_or(path.len());
        path.truncate(end);
        use std::os::unix::ffi::OsStringExt;
        return Ok(Some(PathBuf::from(std::ffi::OsString::from_vec(path))));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shebang_with_env_and_program_splits_into_interpreter_and_one_argument() {
        assert_eq!(
            parse_shebang(b" /usr/bin/env  node \nrest"),
            Format::Script {
                interpreter: "/usr/bin/env".into(),
                arg: Some("node".into())
            }
        );
    }

    #[test]
    fn shebang_keeps_everything_after_the_interpreter_as_one_argument() {
        assert_eq!(
            parse_shebang(b"/usr/bin/env -S node --x\r\n"),
            Format::Script {
                interpreter: "/usr/bin/env".into(),
                arg: Some("-S node --x".into())
            }
        );
    }

    #[test]
    fn empty_shebang_is_not_a_script() {
        assert_eq!(parse_shebang(b"  \n/bin/sh"), Format::Other);
    }

    #[test]
    fn env_with_options_or_assignments_is_not_guessed() {
        let path = [PathBuf::from("/usr/bin")];
        assert_eq!(env_program("-S node", &path), None);
        assert_eq!(env_program("A=B", &path), None);
    }

    #[test]
    fn dynamic_binary_has_the_system_loader_as_interpreter() {
        let format = read_format(Path::new("/bin/true")).expect("read /bin/true");
        assert!(
            matches!(&format, Format::Elf { interp: Some(i) } if i.to_string_lossy().contains("ld-linux")),
            "{format:?}"
        );
    }
}
