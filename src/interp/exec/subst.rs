//! Command and process substitution.

use crate::interp::{Flow, Shell};
use crate::syntax::ast::*;
use crate::system::ProcessGroup;
use std::time::Instant;

impl Shell<'_> {
    /// Command substitution: run `list` in a forked copy, collect its stdout.
    pub(in crate::interp) fn command_subst(&mut self, list: &List) -> Result<Vec<u8>, Flow> {
        let (r, w) = match self.sys.pipe() {
            Ok(p) => p,
            Err(e) => {
                self.error(&format!("pipe: {e}"));
                return Err(Flow::Abort(1));
            }
        };
        let t0 = Instant::now();
        let forked = self.fork_run(ProcessGroup::Inherit, |sh| {
            let _ = sh.sys.close(r);
            let _ = sh.sys.dup2(w, 1);
            let _ = sh.sys.close(w);
            // As in bash (outside POSIX mode): `set -e` does not reach into
            // a command substitution.
            sh.opts.errexit = false;
            match file_read_form(list) {
                // `$(< FILE)`: the file's contents, read through the same
                // redirection as `cat < FILE` would be.
                Some(redirect) => sh.with_redirects(std::slice::from_ref(redirect), |sh| {
                    Ok(sh.copy_input_to_output())
                }),
                None => sh.run_list(list),
            }
        });
        let _ = self.sys.close(w);
        let pid = match forked {
            Ok(pid) => pid,
            Err(flow) => {
                let _ = self.sys.close(r);
                return Err(flow);
            }
        };
        let mut out = Vec::new();
        let mut buf = [0u8; 8192];
        while let Ok(n) = self.sys.read(r, &mut buf) {
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        let _ = self.sys.close(r);
        let code = self.wait_child(pid, t0, false)?;
        self.subst_status = Some(code);
        self.status = code;
        Ok(out)
    }

    /// Copy descriptor 0 to descriptor 1 (`$(< FILE)`); status 1 when a
    /// read or write fails.
    fn copy_input_to_output(&mut self) -> i32 {
        let mut buf = [0u8; 8192];
        loop {
            match self.sys.read(0, &mut buf) {
                Ok(0) => return 0,
                Ok(n) => {
                    if self.sys.write_all(1, &buf[..n]).is_err() {
                        return 1;
                    }
                }
                Err(_) => return 1,
            }
        }
    }

    /// `<(list)` / `>(list)`: a pipe to a forked copy, named `/dev/fd/N`.
    pub(in crate::interp) fn process_subst(
        &mut self,
        direction: ProcessDirection,
        list: &List,
    ) -> Result<Vec<u8>, Flow> {
        let (r, w) = match self.sys.pipe() {
            Ok(p) => p,
            Err(e) => {
                self.error(&format!("pipe: {e}"));
                return Err(Flow::Abort(1));
            }
        };
        let (child_end, target, keep) = match direction {
            ProcessDirection::Read => (w, 1, r),
            ProcessDirection::Write => (r, 0, w),
        };
        let pid = self.fork_run(ProcessGroup::Inherit, |sh| {
            let _ = sh.sys.close(keep);
            let _ = sh.sys.dup2(child_end, target);
            let _ = sh.sys.close(child_end);
            sh.run_list(list)
        })?;
        let _ = self.sys.close(child_end);
        // At 63 or above, as bash: `exec 3< <(…)` must not name the pipe's
        // own number, which is closed when the command ends.
        let keep = match self.sys.move_inheritable(keep, 63) {
            Ok(moved) => moved,
            Err(_) => {
                let _ = self.sys.set_inheritable(keep);
                keep
            }
        };
        self.pending_close.push(keep);
        self.jobs.running.push(pid);
        Ok(format!("/dev/fd/{keep}").into_bytes())
    }
}

/// The one `< FILE` redirection of a command substitution written as
/// `$(< FILE)` (no command, no assignment, nothing else), which bash reads
/// as the file's contents.
fn file_read_form(list: &List) -> Option<&Redirect> {
    let [item] = list.items.as_slice() else {
        return None;
    };
    if item.background || !item.and_or.rest.is_empty() || item.and_or.first.negated {
        return None;
    }
    let [element] = item.and_or.first.elements.as_slice() else {
        return None;
    };
    let Command::Simple(simple) = &element.command else {
        return None;
    };
    match (
        simple.words.is_empty() && simple.assignments.is_empty(),
        simple.redirects.as_slice(),
    ) {
        (true, [redirect])
            if redirect.op == RedirOp::Input && redirect.fd.is_none_or(|fd| fd == 0) =>
        {
            Some(redirect)
        }
        _ => None,
    }
}
