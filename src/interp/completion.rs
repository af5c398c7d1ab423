//! The candidates Tab completes a word with, in an interactive shell: in
//! a command's place the arm's commands, the builtins, the functions and
//! the aliases (never a program outside the arm: completing one would
//! only lead to a refusal); elsewhere the names in a folder, read through
//! the system as globbing reads them.

use super::Shell;
use super::line_editor::Completing;
use crate::guard::builtins::Builtin;
use crate::system::FileKind;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

impl Shell<'_> {
    /// Every whole word `what` may complete to (a folder ends in `/`).
    pub(super) fn completions(&self, what: &Completing) -> Vec<Vec<u8>> {
        if what.command && !what.word.contains(&b'/') {
            let names = self
                .policy
                .commands
                .keys()
                .map(String::as_str)
                .chain(Builtin::ALL.iter().map(|b| b.name()))
                .chain(self.functions.keys().map(String::as_str))
                .chain(self.aliases.keys().map(String::as_str));
            return names
                .map(|n| n.as_bytes().to_vec())
                .filter(|n| n.starts_with(&what.word))
                .collect();
        }
        self.file_completions(&what.word)
    }

    /// The names in the folder `word` points into that start as its last
    /// part does; hidden ones only when that part starts with `.`.
    fn file_completions(&self, word: &[u8]) -> Vec<Vec<u8>> {
        let (folder, prefix) = match word.iter().rposition(|b| *b == b'/') {
            Some(at) => (&word[..=at], &word[at + 1..]),
            None => (&b""[..], word),
        };
        let relative = if folder.is_empty() { &b"."[..] } else { folder };
        let dir = self
            .cwd
            .join(Path::new(std::ffi::OsStr::from_bytes(relative)));
        let Some(names) = self
            .sys
            .dir_names(&dir)
            .ok()
            .filter(|listing| self.may_list(&listing.real))
            .map(|listing| listing.names)
        else {
            return Vec::new();
        };
        names
            .into_iter()
            .filter(|n| n.starts_with(prefix) && (prefix.starts_with(b".") || !n.starts_with(b".")))
            .map(|name| {
                let path = dir.join(std::ffi::OsStr::from_bytes(&name));
                let is_dir = self
                    .sys
                    .file_info(&path, true)
                    .is_ok_and(|info| info.kind == FileKind::Dir);
                let mut whole = [folder, &name].concat();
                if is_dir {
                    whole.push(b'/');
                }
                whole
            })
            .collect()
    }
}
