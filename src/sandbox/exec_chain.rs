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
//!
//! A [`Resolver`] remembers what it has read, so one computation over many
//! programs (guard-sh's own domain covers every rule) opens each distinct
//! file once: the loader that 38 tools share is read once, not 38 times.
//! Each file is opened once, named by its canonical path once that is
//! checked to be the very file read (same device and inode as the open
//! descriptor; else by the kernel's name for the descriptor,
//! `/proc/self/fd/N`), and classified from one read of its first
//! [`HEAD_SIZE`] bytes; the descriptor stays open for
//! the resolver's life ([`Resolver::opened`]), so the Landlock rule is made
//! on the file that was read.

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::os::real_path::RealPaths;

/// Linux reads this many bytes of a script's `#!` line (`BINPRM_BUF_SIZE`).
const SHEBANG_MAX: usize = 256;

/// One read of this many bytes holds the ELF header and the program headers
/// of every ordinary binary (linkers put them right after the header).
const HEAD_SIZE: usize = 4096;

/// Linux follows at most this many interpreter levels (`binfmt` recursion).
const MAX_DEPTH: usize = 5;

/// `execvp`'s search path when `PATH` is unset (glibc `_CS_PATH`).
const DEFAULT_SEARCH_PATH: [&str; 2] = ["/bin", "/usr/bin"];

/// What the kernel does with a file at `execve`, judged by its first bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    /// An ELF file; `interp` is its `PT_INTERP` (None: statically linked).
    Elf {
        /// The loader the kernel runs first.
        interp: Option<PathBuf>,
    },
    /// A `#!` script: `interpreter` and the optional single argument.
    Script {
        /// The program after `#!`.
        interpreter: PathBuf,
        /// The one argument after it, if any.
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
/// Errors if `path` or an interpreter that exists cannot be read; an
/// interpreter that does not exist is left out (the `execve` will fail on its own, and allowing a
/// missing file grants nothing).
pub fn resolve(path: &Path, cwd: &Path, search_path: &[PathBuf]) -> io::Result<Vec<PathBuf>> {
    Resolver::new().resolve(path, cwd, search_path)
}

/// [`resolve`] with a memory: each distinct file is opened and read once
/// per `Resolver`. Keep one for one computation (a domain being built), not
/// longer: files may change between computations.
#[derive(Debug, Default)]
pub struct Resolver {
    /// A path as named (joined with the cwd) → its canonical path; None
    /// when it names nothing (a missing interpreter).
    named: HashMap<PathBuf, Option<PathBuf>>,
    /// Canonical path → what the kernel does with the file.
    formats: HashMap<PathBuf, Format>,
    /// Canonical path → the descriptor it was read through, kept so the
    /// sandbox can grant that very file without opening it again.
    opened: HashMap<PathBuf, Arc<File>>,
    /// Files opened and read so far.
    reads: usize,
    /// The folders resolved so far, for naming what was opened.
    real_paths: RealPaths,
}

impl Resolver {
    /// A resolver that has read nothing yet.
    pub fn new() -> Resolver {
        Resolver::default()
    }

    /// The `PT_INTERP` loaders of every ELF file read so far, canonical.
    pub fn elf_interpreters(&self) -> std::collections::BTreeSet<PathBuf> {
        self.formats
            .values()
            .filter_map(|f| match f {
                Format::Elf { interp: Some(i) } => {
                    Some(std::fs::canonicalize(i).unwrap_or_else(|_| i.clone()))
                }
                _ => None,
            })
            .collect()
    }

    /// How many files this resolver has opened and read.
    pub fn files_read(&self) -> usize {
        self.reads
    }

    /// The open descriptor of `real`, a canonical path this resolver has
    /// returned in a chain (None for any other path).
    pub fn opened(&self, real: &Path) -> Option<&File> {
        self.opened.get(real).map(|file| &**file)
    }

    /// Move each descriptor read through to a private number
    /// ([`crate::os::private_fd`]), for a resolver kept beyond one spawn:
    /// a line may put its own file at a low number (`exec 3<FILE`), and a
    /// rule made on that number would grant the line's file.
    pub fn keep_private(&mut self) -> io::Result<()> {
        for (path, file) in std::mem::take(&mut self.opened) {
            // Private by number only: the file is a system one (a program, a
            // writable folder, /dev/null) that lines may open by name.
            let file = Arc::try_unwrap(file).or_else(|shared| shared.try_clone())?;
            let kept = crate::os::private_fd::keep_shared(file)?;
            self.opened.insert(path, kept);
        }
        Ok(())
    }

    /// As [`resolve`], reusing what this resolver has read before.
    pub fn resolve(
        &mut self,
        path: &Path,
        cwd: &Path,
        search_path: &[PathBuf],
    ) -> io::Result<Vec<PathBuf>> {
        let named = cwd.join(path);
        let Some(first) = self.lookup(&named)? else {
            // Missing: realpath's own error says why.
            std::fs::canonicalize(&named)?;
            return Err(io::Error::from(io::ErrorKind::NotFound));
        };
        let mut chain = Vec::new();
        self.walk(&first, cwd, search_path, 0, &mut chain)?;
        Ok(chain)
    }

    /// The canonical path of `named` (its format now cached), None when it
    /// names nothing; an error when it exists but cannot be read.
    fn lookup(&mut self, named: &Path) -> io::Result<Option<PathBuf>> {
        if let Some(known) = self.named.get(named) {
            return Ok(known.clone());
        }
        let found = match open_for_reading(named) {
            Ok(file) => {
                let real = self.name_of(&file, named)?;
                if !self.formats.contains_key(&real) {
                    self.reads += 1;
                    let format = classify(&file)?;
                    self.formats.insert(real.clone(), format);
                    self.opened.insert(real.clone(), Arc::new(file));
                }
                Some(real)
            }
            // What realpath cannot find is missing; anything else that
            // exists but cannot be read is an error, as before the cache.
            Err(e) => match std::fs::canonicalize(named) {
                Err(_) => None,
                Ok(_) => return Err(e),
            },
        };
        self.named.insert(named.to_path_buf(), found.clone());
        Ok(found)
    }

    /// The canonical path of the file `file` (opened by `named`) is open
    /// on: `named` resolved through the remembered folders when that is the
    /// very file opened (same device and inode), else the kernel's name for
    /// the descriptor. Most names pass the check, and a few `lstat`s cost
    /// less than the `/proc/self/fd` lookup (measured: an `lstat` 1.5 µs,
    /// that `readlink` 3.9 µs).
    fn name_of(&mut self, file: &File, named: &Path) -> io::Result<PathBuf> {
        let opened = file.metadata()?;
        if let Some((real, id)) = self.real_paths.canonical_with_id(named)
            && id == (opened.dev(), opened.ino())
        {
            return Ok(real);
        }
        descriptor_path(file).map_or_else(|| std::fs::canonicalize(named), Ok)
    }

    /// Add `file` (canonical, format cached) and its interpreters to `chain`.
    fn walk(
        &mut self,
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
        let next = match self.formats.get(file) {
            Some(Format::Elf {
                interp: Some(interp),
            }) => vec![interp.clone()],
            Some(Format::Script { interpreter, arg }) => {
                let mut next = vec![interpreter.clone()];
                if is_env(interpreter)
                    && let Some(program) = arg.as_deref().and_then(|a| env_program(a, search_path))
                {
                    next.push(program);
                }
                next
            }
            Some(Format::Elf { interp: None } | Format::Other) | None => Vec::new(),
        };
        for candidate in next {
            // A missing interpreter grants nothing; skip it rather than fail.
            if let Some(real) = self.lookup(&cwd.join(&candidate))? {
                self.walk(&real, cwd, search_path, depth + 1, chain)?;
            }
        }
        Ok(())
    }
}

/// Open read-only without blocking on a FIFO (a regular file ignores
/// `O_NONBLOCK`).
fn open_for_reading(path: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

/// The canonical path of the file `file` is open on, as the kernel names
/// it; None when it cannot tell (no `/proc`, a deleted file, a path outside
/// this process's root), and the caller falls back to `realpath`.
fn descriptor_path(file: &File) -> Option<PathBuf> {
    let link = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()?;
    let text = link.as_os_str().as_encoded_bytes();
    (text.starts_with(b"/") && !text.ends_with(b" (deleted)")).then_some(link)
}

/// Read the first bytes of `file` and classify them as the kernel would.
pub fn read_format(file: &Path) -> io::Result<Format> {
    classify(&open_for_reading(file)?)
}

/// Classify an open file from one read of its head (more reads only for an
/// ELF file whose program headers lie beyond it).
fn classify(f: &File) -> io::Result<Format> {
    let mut head = vec![0u8; HEAD_SIZE];
    let n = read_at_up_to(f, &mut head, 0)?;
    head.truncate(n);
    if head.starts_with(b"#!") {
        let line = &head[2..n.min(SHEBANG_MAX)];
        return Ok(parse_shebang(line));
    }
    if head.starts_with(b"\x7fELF") {
        return Ok(Format::Elf {
            interp: elf_interp(f, &head)?,
        });
    }
    Ok(Format::Other)
}

/// `pread` until `buf` is full or the file ends; returns the bytes read.
fn read_at_up_to(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match f.read_at(&mut buf[filled..], offset.saturating_add(filled as u64)) {
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

/// `PT_INTERP` of an ELF file (32 or 64 bit, either byte order), read by
/// the `object` crate from `head`, the file's first bytes, when the program
/// headers and the path lie inside it (one read in all), else from the file.
fn elf_interp(f: &File, head: &[u8]) -> io::Result<Option<PathBuf>> {
    interp_in(head)
        .or_else(|_| interp_in(&object::ReadCache::new(f)))
        .map_err(|what| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("malformed ELF file: {what}"),
            )
        })
}

/// The interpreter named in the ELF file `data`, by its class.
fn interp_in<'data, R: object::ReadRef<'data>>(data: R) -> Result<Option<PathBuf>, String> {
    let class = data.read_bytes_at(4, 1).map_err(|()| "header too short")?;
    match class[0] {
        object::elf::ELFCLASS32 => {
            interp_of::<object::elf::FileHeader32<object::Endianness>, R>(data)
        }
        object::elf::ELFCLASS64 => {
            interp_of::<object::elf::FileHeader64<object::Endianness>, R>(data)
        }
        _ => Err("unknown class".into()),
    }
}

fn interp_of<'data, H, R>(data: R) -> Result<Option<PathBuf>, String>
where
    H: object::read::elf::FileHeader<Endian = object::Endianness>,
    R: object::ReadRef<'data>,
{
    use object::read::elf::ProgramHeader;
    use std::os::unix::ffi::OsStrExt;
    let header = H::parse(data).map_err(|e| e.to_string())?;
    let endian = header.endian().map_err(|e| e.to_string())?;
    let headers = header
        .program_headers(endian, data)
        .map_err(|e| e.to_string())?;
    for ph in headers {
        // Linux refuses interpreters longer than PATH_MAX.
        let size: u64 = ph.p_filesz(endian).into();
        if ph.p_type(endian) == object::elf::PT_INTERP && !(2..=4096).contains(&size) {
            return Err("interpreter path length".into());
        }
        if let Some(path) = ph.interpreter(endian, data).map_err(|e| e.to_string())? {
            return Ok(Some(PathBuf::from(std::ffi::OsStr::from_bytes(path))));
        }
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

    /// A little-endian ELF64 file: header, program headers at `phoff`
    /// (a `PT_LOAD`, then a `PT_INTERP` naming `interp`), the path right
    /// after them.
    fn crafted_elf(phoff: u64, interp: &str) -> Vec<u8> {
        let mut file = vec![0u8; 64];
        file[..4].copy_from_slice(b"\x7fELF");
        file[4] = 2; // 64-bit
        file[5] = 1; // little-endian
        file[6] = 1; // version
        file[32..40].copy_from_slice(&phoff.to_le_bytes());
        file[54..56].copy_from_slice(&56u16.to_le_bytes());
        file[56..58].copy_from_slice(&2u16.to_le_bytes());
        let start = usize::try_from(phoff).expect("small offset");
        file.resize(start, 0);
        let path_at = phoff + 2 * 56;
        let mut load = vec![0u8; 56];
        load[0..4].copy_from_slice(&1u32.to_le_bytes());
        let mut interp_entry = vec![0u8; 56];
        interp_entry[0..4].copy_from_slice(&3u32.to_le_bytes());
        interp_entry[8..16].copy_from_slice(&path_at.to_le_bytes());
        let size = interp.len() as u64 + 1;
        interp_entry[32..40].copy_from_slice(&size.to_le_bytes());
        file.extend_from_slice(&load);
        file.extend_from_slice(&interp_entry);
        file.extend_from_slice(interp.as_bytes());
        file.push(0);
        file
    }

    #[test]
    fn program_headers_inside_the_first_read_give_the_interpreter() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let elf = dir.path().join("near");
        std::fs::write(&elf, crafted_elf(64, "/opt/loader/ld.so"))?;
        assert_eq!(
            read_format(&elf)?,
            Format::Elf {
                interp: Some("/opt/loader/ld.so".into())
            }
        );
        Ok(())
    }

    /// `read_format` of a crafted ELF whose program headers start at `phoff`
    /// must find its loader.
    fn assert_crafted_loader_found(phoff: u64) -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let elf = dir.path().join("crafted");
        std::fs::write(&elf, crafted_elf(phoff, "/opt/loader/ld.so"))?;
        assert_eq!(
            read_format(&elf)?,
            Format::Elf {
                interp: Some("/opt/loader/ld.so".into())
            }
        );
        Ok(())
    }

    #[test]
    fn a_big_endian_32_bit_file_gives_its_interpreter() -> io::Result<()> {
        let mut file = vec![0u8; 52];
        file[..4].copy_from_slice(b"\x7fELF");
        file[4] = 1; // 32-bit
        file[5] = 2; // big-endian
        file[6] = 1; // version
        file[28..32].copy_from_slice(&52u32.to_be_bytes()); // e_phoff
        file[42..44].copy_from_slice(&32u16.to_be_bytes()); // e_phentsize
        file[44..46].copy_from_slice(&1u16.to_be_bytes()); // e_phnum
        let path = b"/lib/ld-be.so\0";
        let mut interp = vec![0u8; 32];
        interp[0..4].copy_from_slice(&3u32.to_be_bytes()); // PT_INTERP
        interp[4..8].copy_from_slice(&(52u32 + 32).to_be_bytes()); // p_offset
        interp[16..20].copy_from_slice(&(path.len() as u32).to_be_bytes()); // p_filesz
        file.extend_from_slice(&interp);
        file.extend_from_slice(path);
        let dir = tempfile::tempdir()?;
        let elf = dir.path().join("be32");
        std::fs::write(&elf, &file)?;
        assert_eq!(
            read_format(&elf)?,
            Format::Elf {
                interp: Some("/lib/ld-be.so".into())
            }
        );
        // A path without its terminating NUL is refused, as the kernel
        // does; so is one cut short by the end of the file.
        let last = file.len() - 1;
        file[last] = b'x';
        std::fs::write(&elf, &file)?;
        assert!(read_format(&elf).is_err());
        std::fs::write(&elf, &file[..last])?;
        assert!(read_format(&elf).is_err());
        Ok(())
    }

    #[test]
    fn program_headers_beyond_the_first_read_are_read_at_their_offset() -> io::Result<()> {
        assert_crafted_loader_found((HEAD_SIZE as u64) * 2 + 8)
    }

    #[test]
    fn program_headers_straddling_the_first_read_are_read_whole() -> io::Result<()> {
        // The PT_INTERP entry starts 20 bytes before the end of the head.
        assert_crafted_loader_found(HEAD_SIZE as u64 - 56 - 20)
    }

    #[test]
    fn program_headers_past_the_end_of_the_file_are_an_error() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let elf = dir.path().join("cut");
        let mut bytes = crafted_elf(HEAD_SIZE as u64 * 2, "/opt/loader/ld.so");
        bytes.truncate(HEAD_SIZE * 2 + 80);
        std::fs::write(&elf, bytes)?;
        let err = read_format(&elf).expect_err("truncated");
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        let text = err.to_string();
        assert!(
            text.contains("malformed ELF file") && text.contains("program header"),
            "{err}"
        );
        Ok(())
    }

    #[test]
    fn crafted_binary_with_far_headers_chains_to_its_interpreter() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let loader = dir.path().join("ld.so");
        std::fs::write(&loader, b"not an executable")?;
        let elf = dir.path().join("far");
        let phoff = HEAD_SIZE as u64 + 100;
        std::fs::write(&elf, crafted_elf(phoff, &loader.to_string_lossy()))?;
        let chain = resolve(&elf, dir.path(), &[])?;
        assert_eq!(
            chain,
            vec![
                std::fs::canonicalize(&elf)?,
                std::fs::canonicalize(&loader)?
            ]
        );
        Ok(())
    }

    #[test]
    fn resolver_reads_the_shared_loader_once_for_many_programs() -> io::Result<()> {
        let mut resolver = Resolver::new();
        let t = resolver.resolve(Path::new("/bin/true"), Path::new("/"), &[])?;
        assert_eq!(resolver.files_read(), 2, "program and loader: {t:?}");
        let f = resolver.resolve(Path::new("/bin/false"), Path::new("/"), &[])?;
        assert_eq!(resolver.files_read(), 3, "only the new program: {f:?}");
        assert_eq!(t, resolve(Path::new("/bin/true"), Path::new("/"), &[])?);
        assert_eq!(f, resolve(Path::new("/bin/false"), Path::new("/"), &[])?);
        assert_eq!(t[1], f[1], "one loader");
        Ok(())
    }

    #[test]
    fn resolver_reads_a_file_named_through_two_links_once() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let script = dir.path().join("script");
        std::fs::write(&script, "#!/bin/sh\ntrue\n")?;
        std::os::unix::fs::symlink(&script, dir.path().join("a"))?;
        std::os::unix::fs::symlink("script", dir.path().join("b"))?;
        let mut resolver = Resolver::new();
        let a = resolver.resolve(Path::new("a"), dir.path(), &[])?;
        let read_for_a = resolver.files_read();
        let b = resolver.resolve(Path::new("b"), dir.path(), &[])?;
        assert_eq!(resolver.files_read(), read_for_a, "nothing read again");
        assert_eq!(a, b);
        assert_eq!(a[0], std::fs::canonicalize(&script)?);
        assert_eq!(a, resolve(&script, dir.path(), &[])?);
        Ok(())
    }

    #[test]
    fn resolver_remembers_a_missing_interpreter_as_missing() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        for name in ["one", "two"] {
            std::fs::write(dir.path().join(name), "#!/nonexistent/interp\n")?;
        }
        let mut resolver = Resolver::new();
        let one = resolver.resolve(Path::new("one"), dir.path(), &[])?;
        let two = resolver.resolve(Path::new("two"), dir.path(), &[])?;
        assert_eq!(one, vec![std::fs::canonicalize(dir.path().join("one"))?]);
        assert_eq!(two, vec![std::fs::canonicalize(dir.path().join("two"))?]);
        assert_eq!(resolver.files_read(), 2);
        Ok(())
    }

    #[test]
    fn resolver_keeps_the_descriptor_of_each_file_in_a_chain() -> io::Result<()> {
        use std::os::unix::fs::MetadataExt;
        let mut resolver = Resolver::new();
        let chain = resolver.resolve(Path::new("/bin/true"), Path::new("/"), &[])?;
        for real in &chain {
            let file = resolver.opened(real).expect("descriptor kept");
            assert_eq!(
                file.metadata()?.ino(),
                std::fs::metadata(real)?.ino(),
                "{real:?}"
            );
        }
        assert!(resolver.opened(Path::new("/bin/false")).is_none());
        Ok(())
    }

    #[test]
    fn folder_is_an_error_so_callers_can_grant_it_whole() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let mut resolver = Resolver::new();
        assert!(resolver.resolve(dir.path(), dir.path(), &[]).is_err());
        Ok(())
    }

    #[test]
    fn missing_program_keeps_the_not_found_error() {
        let err = Resolver::new()
            .resolve(Path::new("/nonexistent/dir/tool"), Path::new("/"), &[])
            .expect_err("missing");
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
