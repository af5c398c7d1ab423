//! `pushd`, `popd` and `dirs` (bash): a stack of folders below the working
//! one. The whole list is the working folder then the stack; `+N` counts
//! from its left, `-N` from its right; `-n` changes the stack only.

use super::lossy;
use crate::interp::{Shell, Status};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

/// `+N` or `-N`: the index it names in a list of `len`.
fn index(arg: &[u8], len: usize) -> Option<usize> {
    let (sign, digits) = arg.split_first()?;
    if !matches!(sign, b'+' | b'-') || digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n: usize = std::str::from_utf8(digits).ok()?.parse().ok()?;
    match sign {
        b'+' if n < len => Some(n),
        b'-' if n < len => Some(len - 1 - n),
        _ => None,
    }
}

impl Shell<'_> {
    /// The working folder then the stack.
    fn dir_list(&self) -> Vec<PathBuf> {
        let mut all = vec![self.cwd.clone()];
        all.extend(self.dir_stack.iter().cloned());
        all
    }

    /// `dirs`' text of one folder: `~` for HOME unless `long`.
    fn dir_text(&self, dir: &std::path::Path, long: bool) -> Vec<u8> {
        let bytes = dir.as_os_str().as_bytes();
        if !long {
            if let Some(home) = self.vars.get("HOME").filter(|h| !h.is_empty()) {
                if let Some(rest) = bytes.strip_prefix(home) {
                    if rest.is_empty() || rest.starts_with(b"/") {
                        let mut out = b"~".to_vec();
                        out.extend_from_slice(rest);
                        return out;
                    }
                }
            }
        }
        bytes.to_vec()
    }

    fn print_dirs(&mut self, long: bool, per_line: bool, numbered: bool, name: &str) -> i32 {
        let mut out = Vec::new();
        for (k, dir) in self.dir_list().iter().enumerate() {
            let text = self.dir_text(dir, long);
            if numbered {
                out.extend(format!("{k:2}  ").bytes());
                out.extend(text);
                out.push(b'\n');
            } else if per_line {
                out.extend(text);
                out.push(b'\n');
            } else {
                if k > 0 {
                    out.push(b' ');
                }
                out.extend(text);
            }
        }
        if !numbered && !per_line {
            out.push(b'\n');
        }
        self.write_out(&out, name)
    }

    pub(super) fn dirs_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        let (mut long, mut per_line, mut numbered) = (false, false, false);
        for a in args {
            match a.as_slice() {
                b"-c" => {
                    self.dir_stack.clear();
                    return Ok(0);
                }
                b"-l" => long = true,
                b"-p" => per_line = true,
                b"-v" => numbered = true,
                other => match index(other, self.dir_stack.len() + 1) {
                    Some(k) => {
                        let mut text = self.dir_text(&self.dir_list()[k], long);
                        text.push(b'\n');
                        return Ok(self.write_out(&text, "dirs"));
                    }
                    None if other.len() > 1
                        && matches!(other[0], b'+' | b'-')
                        && other[1..].iter().all(u8::is_ascii_digit) =>
                    {
                        self.error(&format!(
                            "dirs: {}: directory stack index out of range",
                            lossy(&other[1..])
                        ));
                        return Ok(1);
                    }
                    None => {
                        self.error(&format!("dirs: {}: invalid option", lossy(other)));
                        return Ok(2);
                    }
                },
            }
        }
        Ok(self.print_dirs(long, per_line, numbered, "dirs"))
    }

    pub(super) fn pushd(&mut self, args: &[Vec<u8>]) -> Status {
        let no_cd = args.first().is_some_and(|a| a == b"-n");
        let args = if no_cd { &args[1..] } else { args };
        match args.first().map(Vec::as_slice) {
            None => {
                // Swap the working folder and the top of the stack.
                let Some(top) = self.dir_stack.first().cloned() else {
                    self.error("pushd: no other directory");
                    return Ok(1);
                };
                let here = self.cwd.clone();
                if !no_cd && !self.change_dir("pushd", top.as_os_str().as_bytes(), false) {
                    return Ok(1);
                }
                self.dir_stack[0] = here;
            }
            Some(arg) if arg.len() > 1 && matches!(arg[0], b'+' | b'-') => {
                let all = self.dir_list();
                let Some(k) = index(arg, all.len()) else {
                    self.error(&format!(
                        "pushd: {}: directory stack index out of range",
                        lossy(arg)
                    ));
                    return Ok(1);
                };
                let mut rotated = all[k..].to_vec();
                rotated.extend_from_slice(&all[..k]);
                if !no_cd && !self.change_dir("pushd", rotated[0].as_os_str().as_bytes(), false) {
                    return Ok(1);
                }
                self.dir_stack = rotated[1..].to_vec();
            }
            Some(dir) => {
                let here = self.cwd.clone();
                if no_cd {
                    // Kept as written, as bash does.
                    self.dir_stack
                        .insert(0, PathBuf::from(OsStr::from_bytes(dir)));
                } else {
                    if !self.change_dir("pushd", dir, false) {
                        return Ok(1);
                    }
                    self.dir_stack.insert(0, here);
                }
            }
        }
        Ok(self.print_dirs(false, false, false, "pushd"))
    }

    pub(super) fn popd(&mut self, args: &[Vec<u8>]) -> Status {
        let no_cd = args.first().is_some_and(|a| a == b"-n");
        let args = if no_cd { &args[1..] } else { args };
        if self.dir_stack.is_empty() {
            self.error("popd: directory stack empty");
            return Ok(1);
        }
        let k = match args.first() {
            None => 0,
            Some(arg) => match index(arg, self.dir_stack.len() + 1) {
                Some(k) => k,
                None => {
                    self.error(&format!(
                        "popd: {}: directory stack index out of range",
                        lossy(arg)
                    ));
                    return Ok(1);
                }
            },
        };
        if k == 0 {
            let top = self.dir_stack[0].clone();
            if !no_cd && !self.change_dir("popd", top.as_os_str().as_bytes(), false) {
                return Ok(1);
            }
            self.dir_stack.remove(0);
        } else {
            self.dir_stack.remove(k - 1);
        }
        Ok(self.print_dirs(false, false, false, "popd"))
    }
}
