//! Redirections (XCU 2.7 and bash's `&>`, `&>>`, `<<<`): applied to the
//! shell's own descriptors around a command and undone afterwards, so
//! builtins and spawned children see the same thing. Guarantee: every file
//! guard-sh opens for writing passes [`crate::guard::check_write_target`],
//! every file it opens for reading [`crate::guard::check_read_target`], and
//! neither reaches its own descriptors or another process's `/proc` file.

use super::{Flow, Shell, Status};
use crate::guard::Deny;
use crate::os::private_fd;
use crate::syntax::ast::*;
use crate::system::{Fd, OpenMode};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// A redirection that did not happen.
pub(super) enum RedirFail {
    /// Reported; the command does not run and gets this status.
    Status(i32),
    /// Denied or fatal: the line stops.
    Flow(Flow),
}

/// Descriptors to put back, in order of saving.
pub(super) type Saved = Vec<(Fd, Option<Fd>)>;

/// Here-document bodies up to this size are written straight into a pipe.
const PIPE_SAFE: usize = 60 * 1024;

impl Shell<'_> {
    /// Apply `redirects`, run `f`, undo them.
    pub(super) fn with_redirects(
        &mut self,
        redirects: &[Redirect],
        f: impl FnOnce(&mut Self) -> Status,
    ) -> Status {
        // Only the job's own command, the first to get here, is made for good.
        let for_good = std::mem::take(&mut self.copy.redirects_for_good);
        if redirects.is_empty() {
            return f(self);
        }
        let saved = match self.apply_redirects(redirects) {
            Ok(saved) => saved,
            Err(RedirFail::Status(s)) => return Ok(s),
            Err(RedirFail::Flow(flow)) => return Err(flow),
        };
        if for_good {
            for copy in saved.into_iter().filter_map(|(_, copy)| copy) {
                let _ = self.sys.close(copy);
            }
            return f(self);
        }
        let r = f(self);
        if std::mem::take(&mut self.copy.keep_redirects) {
            // `exec >file`: keep the new descriptors, drop the saved copies.
            for (_, copy) in saved {
                if let Some(copy) = copy {
                    let _ = self.sys.close(copy);
                }
            }
        } else {
            self.restore_fds(saved);
        }
        r
    }

    pub(super) fn save_fd(&mut self, fd: Fd) -> (Fd, Option<Fd>) {
        (fd, self.sys.dup_saved(fd).ok().flatten())
    }

    pub(super) fn restore_fds(&mut self, saved: Saved) {
        for (fd, copy) in saved.into_iter().rev() {
            match copy {
                Some(copy) => {
                    let _ = self.sys.dup2(copy, fd);
                    let _ = self.sys.close(copy);
                }
                None => {
                    let _ = self.sys.close(fd);
                }
            }
        }
    }

    /// Apply redirections; on failure everything applied so far is undone.
    pub(super) fn apply_redirects(&mut self, redirects: &[Redirect]) -> Result<Saved, RedirFail> {
        let mut saved = Vec::new();
        for r in redirects {
            if let Err(fail) = self.apply_one(r, &mut saved) {
                self.restore_fds(saved);
                return Err(fail);
            }
        }
        Ok(saved)
    }

    fn fail(&mut self, message: String) -> RedirFail {
        self.error(&message);
        RedirFail::Status(1)
    }

    fn target_path(&mut self, word: &Word) -> Result<Vec<u8>, RedirFail> {
        let fields = self
            .expand_words(std::slice::from_ref(word))
            .map_err(RedirFail::Flow)?;
        match fields.as_slice() {
            [one] => Ok(one.clone()),
            _ => {
                let text = crate::guard::words::describe(word);
                Err(self.fail(format!("{text}: ambiguous redirect")))
            }
        }
    }

    /// `path` as written, or relative to the shell's working folder.
    pub(in crate::interp) fn absolute(&self, path: &[u8]) -> PathBuf {
        let p = Path::new(OsStr::from_bytes(path));
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.cwd.join(p)
        }
    }

    fn open_target(&mut self, path: &[u8], mode: OpenMode) -> Result<Fd, RedirFail> {
        if path.starts_with(b"/dev/tcp/") || path.starts_with(b"/dev/udp/") {
            // bash opens a socket for these names; the arm reaches the
            // network through its tool only.
            let deny = Deny::new(
                crate::guard::Rule::NetworkRedirection,
                format!(
                    "{}: bash's network redirections are not supported: the arm reaches the network through its tool only",
                    String::from_utf8_lossy(path)
                ),
            );
            return Err(RedirFail::Flow(self.deny(&deny, &[path.to_vec()])));
        }
        let absolute = self.absolute(path);
        if let Err(deny) = self.check_open_target(&absolute, mode) {
            return Err(RedirFail::Flow(self.deny(&deny, &[path.to_vec()])));
        }
        let text = String::from_utf8_lossy(path).into_owned();
        if path.is_empty() {
            return Err(self.fail(": No such file or directory".to_string()));
        }
        let mode = match mode {
            OpenMode::Write { .. } if self.opts.noclobber => {
                let regular = self
                    .sys
                    .file_info(&absolute, true)
                    .is_ok_and(|m| m.kind == crate::system::FileKind::File);
                if regular {
                    return Err(self.fail(format!("{text}: cannot overwrite existing file")));
                }
                OpenMode::Write { exclusive: false }
            }
            other => other,
        };
        match self.sys.open(&absolute, mode) {
            Ok(fd) => {
                let reads = matches!(mode, OpenMode::Read | OpenMode::ReadWrite);
                if let Err(deny) = self.check_opened(fd, reads) {
                    return Err(RedirFail::Flow(self.deny(&deny, &[path.to_vec()])));
                }
                if mode == (OpenMode::Write { exclusive: false })
                    && let Err(e) = self.sys.truncate(fd)
                {
                    let _ = self.sys.close(fd);
                    return Err(self.fail(format!("{text}: {}", describe_io(&e))));
                }
                Ok(fd)
            }
            Err(e) if let Some(deny) = refused_open(&e, &text) => {
                Err(RedirFail::Flow(self.deny(&deny, &[path.to_vec()])))
            }
            Err(e) => Err(self.fail(format!("{text}: {}", describe_io(&e)))),
        }
    }

    /// The guard's check of a file a line would open (`absolute`) for
    /// `mode`, before the open: a protected path is refused for reading
    /// and writing. Redirections and `source` alike.
    pub(super) fn check_open_target(
        &self,
        absolute: &std::path::Path,
        mode: OpenMode,
    ) -> Result<(), Deny> {
        if mode == OpenMode::Read {
            crate::guard::check_read_target(&self.policy, absolute)
        } else {
            crate::guard::check_write_target(&self.policy, absolute)
        }
    }

    /// Whether the shell may give a line the names in the folder it read
    /// (`real`, as the kernel named the descriptor), for globbing and Tab
    /// completion: not part of the guard, and where every command of the
    /// arm may read. The shell process can read its own audit folder;
    /// a line must not learn more through the shell than its commands
    /// could (`echo ../au*/*`).
    pub(super) fn may_list(&self, real: &std::path::Path) -> bool {
        crate::guard::check_opened(&self.policy, real).is_ok()
            && crate::sandbox::landlock::every_command_may_read(&self.policy, &self.cwd, real)
    }

    /// The guard's check of the file a line's open reached, by the name
    /// the kernel gives its descriptor: not part of the guard
    /// ([`crate::guard::check_opened`]), and when the line `reads` it,
    /// where the arm's commands may read
    /// ([`crate::sandbox::landlock::every_command_may_read`]). A refused
    /// descriptor is closed.
    pub(super) fn check_opened(&mut self, fd: Fd, reads: bool) -> Result<(), Deny> {
        let Some(opened) = self.sys.descriptor_path(fd) else {
            return Ok(());
        };
        let judged = crate::guard::check_opened(&self.policy, &opened).and_then(|()| {
            if !reads
                || crate::sandbox::landlock::every_command_may_read(&self.policy, &self.cwd, &opened)
            {
                return Ok(());
            }
            Err(Deny::new(
                crate::guard::Rule::UnreadablePath,
                format!(
                    "reading {} is not permitted: no command of this arm may read it (only the arm's work, tmp and home folders, its programs and the system; not the operator's other files)",
                    opened.display()
                ),
            ))
        });
        judged.inspect_err(|_| {
            let _ = self.sys.close(fd);
        })
    }

    /// Move `new` onto `fd`, saving `fd` first.
    fn install(&mut self, fd: Fd, new: Fd, saved: &mut Saved) -> Result<(), RedirFail> {
        if !saved.iter().any(|(f, _)| *f == fd) {
            // A file opened onto `fd` itself found it closed: closed is
            // what to restore (a copy would keep the file open after).
            saved.push(if new == fd {
                (fd, None)
            } else {
                self.save_fd(fd)
            });
        }
        // Onto itself too: a file opened close-on-exec that landed on the
        // number it is meant for must still reach the command (`dup2`
        // onto itself clears the flag).
        let r = self.sys.dup2(new, fd);
        if new != fd {
            let _ = self.sys.close(new);
        }
        if let Err(e) = r {
            return Err(self.fail(format!("{fd}: {}", describe_io(&e))));
        }
        Ok(())
    }

    fn apply_one(&mut self, r: &Redirect, saved: &mut Saved) -> Result<(), RedirFail> {
        let default_fd = match r.op {
            RedirOp::Input
            | RedirOp::ReadWrite
            | RedirOp::DupInput
            | RedirOp::HereDoc
            | RedirOp::HereString => 0,
            _ => 1,
        };
        let fd = match r.fd {
            None => default_fd,
            Some(n) => self.script_fd(n as u64)?,
        };
        let word = match &r.target {
            RedirTarget::Word(w) => Some(w),
            RedirTarget::HereDoc(_) => None,
        };
        match (r.op, &r.target) {
            (RedirOp::HereDoc, RedirTarget::HereDoc(doc)) => {
                let body = if doc.quoted {
                    literal_body(&doc.body)
                } else {
                    self.expand_string(&doc.body).map_err(RedirFail::Flow)?
                };
                let new = self.data_fd(&body)?;
                self.install(fd, new, saved)
            }
            (RedirOp::HereString, RedirTarget::Word(w)) => {
                let mut body = self.expand_string(w).map_err(RedirFail::Flow)?;
                body.push(b'\n');
                let new = self.data_fd(&body)?;
                self.install(fd, new, saved)
            }
            (RedirOp::DupInput | RedirOp::DupOutput, RedirTarget::Word(w)) => {
                let target = self.expand_string(w).map_err(RedirFail::Flow)?;
                if target == b"-" {
                    if !saved.iter().any(|(f, _)| *f == fd) {
                        saved.push(self.save_fd(fd));
                    }
                    let _ = self.sys.close(fd);
                    return Ok(());
                }
                if let Some((digits, close_after)) =
                    crate::syntax::ast::duplicated_descriptor(&target)
                {
                    let number = String::from_utf8_lossy(digits).parse().unwrap_or(u64::MAX);
                    let src = self.script_fd(number)?;
                    if src == fd {
                        return Ok(());
                    }
                    let copy = match self.sys.dup_saved(src) {
                        Ok(Some(copy)) => copy,
                        _ => return Err(self.fail(format!("{src}: Bad file descriptor"))),
                    };
                    self.install(fd, copy, saved)?;
                    if close_after {
                        if !saved.iter().any(|(f, _)| *f == src) {
                            saved.push(self.save_fd(src));
                        }
                        let _ = self.sys.close(src);
                    }
                    return Ok(());
                }
                // `>&FILE` and `1>&FILE` are `&>FILE` (bash).
                if r.may_duplicate_to_a_file() {
                    let new = self.open_target(&target, OpenMode::Write { exclusive: false })?;
                    self.install(1, new, saved)?;
                    return self.dup_onto(1, 2, saved);
                }
                let text = String::from_utf8_lossy(&target).into_owned();
                Err(self.fail(format!("{text}: ambiguous redirect")))
            }
            (op, _) => {
                let Some(w) = word else {
                    return Err(self.fail("bad redirection".into()));
                };
                let path = self.target_path(w)?;
                let (mode, both) = match op {
                    RedirOp::Input => (OpenMode::Read, false),
                    RedirOp::Output => (OpenMode::Write { exclusive: false }, false),
                    RedirOp::Clobber => (OpenMode::Write { exclusive: true }, false),
                    RedirOp::Append => (OpenMode::Append, false),
                    RedirOp::ReadWrite => (OpenMode::ReadWrite, false),
                    RedirOp::OutputBoth => (OpenMode::Write { exclusive: false }, true),
                    RedirOp::AppendBoth => (OpenMode::Append, true),
                    _ => return Err(self.fail("bad redirection".into())),
                };
                // `>|` ignores noclobber: open it as a plain truncating write.
                let new = if op == RedirOp::Clobber {
                    let saved_opt = std::mem::replace(&mut self.opts.noclobber, false);
                    let r = self.open_target(&path, OpenMode::Write { exclusive: false });
                    self.opts.noclobber = saved_opt;
                    r?
                } else {
                    self.open_target(&path, mode)?
                };
                if both {
                    self.install(1, new, saved)?;
                    return self.dup_onto(1, 2, saved);
                }
                self.install(fd, new, saved)
            }
        }
    }

    /// A descriptor number a line names, refused when it is (or could be)
    /// one guard-sh holds for itself.
    fn script_fd(&mut self, number: u64) -> Result<Fd, RedirFail> {
        match Fd::try_from(number) {
            Ok(fd) if !private_fd::is_private(fd) => Ok(fd),
            _ => {
                let deny = Deny::new(
                    crate::guard::Rule::PrivateDescriptor,
                    format!(
                        "descriptor {number} is reserved for guard-sh's own use; a line may name descriptors 0 to {}",
                        private_fd::PRIVATE_FD_FLOOR - 1
                    ),
                );
                Err(RedirFail::Flow(
                    self.deny(&deny, &[number.to_string().into_bytes()]),
                ))
            }
        }
    }

    fn dup_onto(&mut self, from: Fd, to: Fd, saved: &mut Saved) -> Result<(), RedirFail> {
        match self.sys.dup_saved(from) {
            Ok(Some(copy)) => self.install(to, copy, saved),
            _ => Err(self.fail(format!("{from}: Bad file descriptor"))),
        }
    }

    /// A readable descriptor holding `data` (a pipe; a writer copy of the
    /// shell for bodies larger than a pipe holds).
    fn data_fd(&mut self, data: &[u8]) -> Result<Fd, RedirFail> {
        let (r, w) = match self.sys.pipe() {
            Ok(p) => p,
            Err(e) => return Err(self.fail(format!("pipe: {e}"))),
        };
        if data.len() <= PIPE_SAFE {
            let _ = self.sys.write_all(w, data);
            let _ = self.sys.close(w);
            return Ok(r);
        }
        let body = data.to_vec();
        let pid = self
            .fork_run(crate::system::ProcessGroup::Inherit, |sh| {
                let _ = sh.sys.close(r);
                let _ = sh.sys.write_all(w, &body);
                Ok(0)
            })
            .map_err(RedirFail::Flow)?;
        let _ = self.sys.close(w);
        self.jobs.running.push(pid);
        Ok(r)
    }
}

fn literal_body(word: &Word) -> Vec<u8> {
    let mut out = Vec::new();
    for part in &word.parts {
        match part {
            WordPart::SingleQuoted(b)
            | WordPart::Literal(b)
            | WordPart::Escaped(b)
            | WordPart::AnsiC(b) => out.extend_from_slice(b),
            _ => {}
        }
    }
    out
}

/// An I/O error as the shell words it (`No such file or directory`).
pub(super) fn describe_io(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => {
            // SAFETY: strerror returns a pointer to a static message.
            let text = unsafe { std::ffi::CStr::from_ptr(libc::strerror(code)) };
            text.to_string_lossy().into_owned()
        }
        None => e.to_string(),
    }
}

/// The denial of opening `text` (as the line wrote it), when the system
/// refused the file after the open: one of guard-sh's own files or pipes,
/// or another process's `/proc` file.
pub(super) fn refused_open(e: &std::io::Error, text: &str) -> Option<Deny> {
    let rule = if private_fd::is_reserved_error(e) {
        crate::guard::Rule::PrivateDescriptor
    } else if crate::os::procfs::is_refused_error(e) {
        crate::guard::Rule::OtherProcess
    } else {
        return None;
    };
    Some(Deny::new(rule, format!("{text}: {e}")))
}
