//! Running the tree: lines, lists and and-or lists; the other constructs
//! live beside this file, one per file.
//!
//! Guarantee: an external command is reached only through
//! [`Shell::spawn_external`], which checks the final argv with
//! [`crate::guard::check_argv`], resolves the name in the policy's bin
//! folder only, builds the environment from the policy and records the
//! spawn before the child may exec.

mod compound;
mod external;
mod function;
mod pipeline;
mod simple;
mod subst;

use crate::audit::Event;
use crate::guard;
use crate::interp::lossy;
use crate::interp::{Flow, MAX_NESTING, Outcome, Shell, Status};
use crate::syntax::ast::*;
use crate::system::Pid;
use std::rc::Rc;
use std::time::Instant;

/// A prefix assignment `NAME=value cmd`, expanded.
pub(in crate::interp) type Assign = (String, Vec<u8>);

/// A pipeline member that has been started.
pub(super) enum Started {
    Running(Pid, Instant, bool),
    Done(i32),
}

/// Stack kept free below the deepest command: one more level of the
/// interpreter, a parse of `eval` text and a builtin's work fit in it.
const STACK_RESERVE: usize = 512 * 1024;

impl Shell<'_> {
    /// Record, parse, statically check and run one top-level line (or a
    /// whole `-c` string or script).
    pub fn run_text(&mut self, text: &[u8], origin: &str) -> Outcome {
        // A copy of the shell (a new shell a line started: `bash -c`) runs
        // within the bound of the line that forked it, never a new one.
        let bounds_lines = !self.in_child();
        if bounds_lines {
            let limit = self.policy.bounds.line_seconds;
            self.sys
                .bound_line(Some(std::time::Duration::from_secs(limit)));
        }
        let ran = self.run_guarded(text, origin);
        if bounds_lines {
            self.sys.bound_line(None);
        }
        let status = match ran {
            Ok(s) => s,
            Err(Flow::Exit(s)) => {
                self.status = s;
                return Outcome::Exit(s);
            }
            Err(Flow::Abort(s)) | Err(Flow::Return(s)) => s,
            Err(Flow::Break(_)) | Err(Flow::Continue(_)) => self.status,
        };
        // A denial reported by a forked copy after its line ended.
        let status = if self.take_child_abort() { 126 } else { status };
        self.status = status;
        Outcome::Continue(status)
    }

    /// Parse, check and run `text` (a line, `eval` text or a sourced file).
    pub(in crate::interp) fn run_guarded(&mut self, text: &[u8], origin: &str) -> Status {
        self.check_stack()?;
        if self.depth.texts >= MAX_NESTING {
            self.error(&format!("{origin}: nesting too deep"));
            return Err(Flow::Abort(1));
        }
        let list = match self.admit(text, origin) {
            Ok(list) => list,
            Err(status) => return status,
        };
        let top_level = self.depth.texts == 0;
        self.depth.texts += 1;
        let saved_lines = self.enter_text(text, origin);
        let result = if top_level {
            self.run_by_lines(&list.items, text)
        } else {
            self.run_list(&list)
        };
        self.leave_text(saved_lines, origin);
        self.depth.texts -= 1;
        result
    }

    /// Record `text` in the audit log, parse it and check the whole tree:
    /// the tree to run, or how the line ends without running (a syntax
    /// error: status 2; a denial, or a record that could not be written:
    /// an abort with 126).
    pub(in crate::interp) fn admit(
        &mut self,
        text: &[u8],
        origin: &str,
    ) -> Result<crate::syntax::ast::List, Status> {
        if !self.record(Event::Line {
            text: lossy(text),
            origin: origin.to_string(),
        }) {
            return Err(Err(Flow::Abort(126)));
        }
        self.notice_command_name(text);
        let list = match crate::syntax::parse_complete(text) {
            Ok((list, closed)) => {
                for doc in closed {
                    self.error(&doc.warning());
                }
                list
            }
            Err(e) => {
                // Counted in the input, not in this command's text.
                let lines_before = if self.depth.texts == 0 && origin != "eval" {
                    self.position.line_base
                } else {
                    0
                };
                let message = format!("syntax error at {}", e.render_after(text, lines_before));
                self.error(&message);
                let _ = self.sink().record(Event::Error { message });
                let top_level = self.depth.texts == 0;
                if !(top_level && e.keeps_status()) {
                    self.status = 2;
                }
                self.syntax_error_seen = top_level;
                return Err(Ok(self.status));
            }
        };
        let protected = self
            .protected_paths
            .get_or_insert_with(|| std::rc::Rc::new(guard::ProtectedPaths::new(&self.policy)))
            .clone();
        let sys = &*self.sys;
        let verdict = guard::check_list_in(
            &self.policy,
            &list,
            self.function_names(),
            &protected,
            &|name| sys.is_a_program(name),
        );
        let commands = serde_json::Value::Array(verdict.commands_json(text, 0));
        if !self.record(Event::Verdict {
            allowed: verdict.allowed,
            commands,
        }) {
            return Err(Err(Flow::Abort(126)));
        }
        if let Some(denied) = verdict.first_denial() {
            let reason = denied.reason.clone();
            self.error(&format!("denied: {reason}"));
            self.signal_abort();
            return Err(Err(Flow::Abort(126)));
        }
        Ok(list)
    }

    /// Count `$LINENO` in `text` from here on (in `eval` text: not at all).
    fn enter_text(&mut self, text: &[u8], origin: &str) -> (std::rc::Rc<Vec<usize>>, usize) {
        if origin == "eval" {
            self.position.frozen += 1;
            return (self.position.line_starts.clone(), self.position.line_base);
        }
        let starts: Vec<usize> = text
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(k, _)| k + 1)
            .collect();
        let saved = (
            std::mem::replace(&mut self.position.line_starts, std::rc::Rc::new(starts)),
            self.position.line_base,
        );
        if origin == "source" || origin == "." {
            self.position.line_base = 0;
        }
        saved
    }

    fn leave_text(&mut self, saved: (std::rc::Rc<Vec<usize>>, usize), origin: &str) {
        if origin == "eval" {
            self.position.frozen -= 1;
        }
        (self.position.line_starts, self.position.line_base) = saved;
    }

    /// The commands of a top-level text (`-c`, a chunk of a script or of
    /// standard input) one line at a time, as bash reads them: an error
    /// that ends a command (a bad substitution, an arithmetic error)
    /// skips the rest of its line, not of the text. A denial (126) and the
    /// line's time bound (124) still end it all, as does `exit`.
    fn run_by_lines(&mut self, items: &[ListItem], text: &[u8]) -> Status {
        let mut result = Ok(self.status);
        let mut start = 0;
        while start < items.len() {
            let mut end = start + 1;
            while end < items.len() && !newline_between(text, &items[end - 1], &items[end]) {
                end += 1;
            }
            result = self.run_items(&items[start..end]);
            match result {
                Err(Flow::Abort(s)) if s != 126 && s != 124 && end < items.len() => {
                    self.status = s;
                }
                Ok(_) => {}
                Err(_) => return result,
            }
            start = end;
        }
        result
    }

    pub(in crate::interp) fn run_list(&mut self, list: &List) -> Status {
        self.run_items(&list.items)
    }

    fn run_items(&mut self, items: &[ListItem]) -> Status {
        let mut status = self.status;
        for item in items {
            status = if item.background {
                self.run_background(&item.and_or)?
            } else {
                self.run_and_or(&item.and_or)?
            };
            self.status = status;
            self.safe_point()?;
            status = self.status;
        }
        Ok(status)
    }

    pub(super) fn run_and_or(&mut self, ao: &AndOr) -> Status {
        let n = ao.rest.len();
        let mut status = self.with_errexit_off(n > 0, |sh| sh.run_pipeline(&ao.first))?;
        let mut last_ran = 0;
        for (i, (op, pipeline)) in ao.rest.iter().enumerate() {
            let run = match op {
                AndOrOp::And => status == 0,
                AndOrOp::Or => status != 0,
            };
            if run {
                let last = i + 1 == n;
                status = self.with_errexit_off(!last, |sh| sh.run_pipeline(pipeline))?;
                last_ran = i + 1;
            }
        }
        self.status = status;
        let final_pipeline = ao.rest.last().map_or(&ao.first, |(_, p)| p);
        if status != 0
            && last_ran == n
            && self.opts.errexit
            && self.depth.errexit_off == 0
            && !final_pipeline.negated
            && judged_by_status(final_pipeline)
        {
            return Err(Flow::Exit(status));
        }
        Ok(status)
    }

    /// Run `f` with `set -e` suspended when `off` (conditions).
    pub(in crate::interp) fn with_errexit_off(
        &mut self,
        off: bool,
        f: impl FnOnce(&mut Self) -> Status,
    ) -> Status {
        if off {
            self.depth.errexit_off += 1;
        }
        let r = f(self);
        if off {
            self.depth.errexit_off -= 1;
        }
        r
    }

    pub(in crate::interp) fn run_command(&mut self, command: &Command) -> Status {
        match command {
            Command::Simple(sc) => self.run_simple(sc),
            Command::Compound(cc) => self.run_compound(cc),
            Command::FunctionDef(def) => {
                // A function may shadow a builtin: its body was checked with the
                // line defining it, and `command`/`builtin` still reach the builtin.
                self.functions
                    .insert(def.name.clone(), Rc::new(def.clone()));
                self.position.function_lines.insert(
                    def.name.clone(),
                    (self.position.line_starts.clone(), self.position.line_base),
                );
                Ok(0)
            }
        }
    }

    /// Refuse to go deeper when the real stack is nearly used up (deep
    /// recursion through functions and nested groups), rather than let the
    /// process die of a stack overflow. Reported as bash reports
    /// `FUNCNEST`, status 1, the rest of the line discarded.
    pub(super) fn check_stack(&mut self) -> Result<(), Flow> {
        if crate::os::stack::remaining().is_some_and(|left| left < STACK_RESERVE) {
            let what = if self.depth.functions > 0 {
                "maximum function nesting level exceeded"
            } else {
                "commands nested too deeply"
            };
            self.error(&format!("{what} (stack nearly exhausted)"));
            return Err(Flow::Abort(1));
        }
        Ok(())
    }
}

/// `$BASH_COMMAND` for a simple command: as written, words before
/// redirections (bash's order).
pub(super) fn command_text(command: &Command) -> Vec<u8> {
    let Command::Simple(sc) = command else {
        return crate::syntax::command_to_source(command);
    };
    let words_first = SimpleCommand {
        redirects: Vec::new(),
        ..sc.clone()
    };
    let mut text = crate::syntax::command_to_source(&Command::Simple(words_first));
    for r in &sc.redirects {
        let alone = SimpleCommand {
            assignments: Vec::new(),
            words: Vec::new(),
            redirects: vec![r.clone()],
            span: sc.span,
        };
        text.push(b' ');
        text.extend(crate::syntax::command_to_source(&Command::Simple(alone)));
    }
    text
}

/// Whether `set -e` and the `ERR` trap act on this pipeline's own status
/// (bash runs the trap exactly where `set -e` would exit): a brace group,
/// `if`, a loop or `case` fails only through a command inside it, which
/// was judged already (`{ test a = b && x; }` is 1 and goes on); a simple
/// command, a subshell, `[[ ]]`, `(( ))` and a pipeline of several are
/// judged by their status.
fn judged_by_status(p: &Pipeline) -> bool {
    match &p.elements[..] {
        [only] => match &only.command {
            Command::Compound(c) => matches!(
                c.kind,
                CompoundKind::Subshell(_)
                    | CompoundKind::Conditional(_)
                    | CompoundKind::Arithmetic(_)
            ),
            _ => true,
        },
        _ => true,
    }
}

/// Is there a newline (not a line continuation) between where `before`
/// ends and `after` starts in `text`: are they on lines of their own?
fn newline_between(text: &[u8], before: &ListItem, after: &ListItem) -> bool {
    let last = before
        .and_or
        .rest
        .last()
        .map_or(&before.and_or.first, |(_, p)| p);
    let gap = text
        .get(last.span.end()..after.and_or.first.span.start())
        .unwrap_or_default();
    gap.iter()
        .enumerate()
        .any(|(k, &b)| b == b'\n' && (k == 0 || gap[k - 1] != b'\\'))
}
