//! Compound commands: groups, subshells, `if`, loops, `case`, `[[ ]]`,
//! `(( ))` and the arithmetic `for`.

use crate::interp::{Flow, Shell, Status};
use crate::syntax::ast::*;
use crate::system::ProcessGroup;
use std::time::Instant;

/// What a loop does after one run of its condition or body.
enum LoopStep {
    /// It ran to the end with this status.
    Ran(i32),
    /// `continue` (of this loop): on to the next round.
    Again,
    /// `break`, an outer `break N`/`continue N`, or another flow: the loop
    /// ends with this result.
    Leave(Status),
}

impl Shell<'_> {
    pub(in crate::interp) fn run_compound(&mut self, cc: &CompoundCommand) -> Status {
        self.run_compound_redirected(cc).map(|(status, _)| status)
    }

    /// [`Self::run_compound`], and whether the command's own redirection
    /// failed (its body never ran): bash then leaves out a `!` before it
    /// (`! { cat; } < missing` is 1, where `! cat < missing` is 0).
    pub(in crate::interp) fn run_compound_redirected(
        &mut self,
        cc: &CompoundCommand,
    ) -> Result<(i32, bool), Flow> {
        self.check_stack()?;
        if matches!(
            cc.kind,
            CompoundKind::Conditional(_)
                | CompoundKind::Arithmetic(_)
                | CompoundKind::Case { .. }
                | CompoundKind::For { .. }
                | CompoundKind::ArithFor(_)
        ) {
            self.set_lineno(cc.span.start());
        }
        let mut body_ran = false;
        let status = self.with_redirects(&cc.redirects, |sh| {
            body_ran = true;
            sh.run_compound_body(&cc.kind)
        })?;
        // A redirection of the command itself that failed is judged by
        // `set -e` like a command that failed (bash 5.2), though the
        // group's own status is not (see `judged_by_status`).
        let redirect_failed = !body_ran && status != 0;
        if redirect_failed && self.opts.errexit && self.depth.errexit_off == 0 {
            return Err(Flow::Exit(status));
        }
        Ok((status, redirect_failed))
    }

    fn run_compound_body(&mut self, kind: &CompoundKind) -> Status {
        // `for` loops fire it per iteration (in run_for, run_arith_for).
        // `for` loops fire it per iteration (in run_for) and `(( ))` and the
        // parts of `for (( ))` before each evaluation (in arith_test).
        if matches!(
            kind,
            CompoundKind::Conditional(_) | CompoundKind::Case { .. }
        ) {
            self.run_debug_trap(|| compound_head(kind))?;
        }
        match kind {
            CompoundKind::BraceGroup(list) => self.run_list(list),
            CompoundKind::Subshell(list) => {
                let t0 = Instant::now();
                let pid = self.fork_run(ProcessGroup::Inherit, |sh| sh.run_list(list))?;
                self.wait_child(pid, t0, false)
            }
            CompoundKind::If {
                branches,
                else_body,
            } => {
                for (condition, body) in branches {
                    let c = self.with_errexit_off(true, |sh| sh.run_list(condition))?;
                    if c == 0 {
                        return self.run_list(body);
                    }
                }
                match else_body {
                    Some(body) => self.run_list(body),
                    None => Ok(0),
                }
            }
            CompoundKind::Loop {
                until,
                condition,
                body,
            } => {
                self.depth.loops += 1;
                let r = self.run_loop(*until, condition, body);
                self.depth.loops -= 1;
                r
            }
            CompoundKind::For {
                variable,
                words,
                body,
            } => {
                if !crate::interp::vars::is_name(variable.as_bytes()) {
                    self.error(&format!("`{variable}': not a valid identifier"));
                    return Ok(1);
                }
                let values = match words {
                    Some(words) => self.expand_words(words)?,
                    None => self.positional.clone(),
                };
                let head = if self.traps.actions.contains_key("DEBUG") {
                    compound_head(kind)
                } else {
                    Vec::new()
                };
                self.depth.loops += 1;
                let r = self.run_for(variable, values, body, &head);
                self.depth.loops -= 1;
                r
            }
            CompoundKind::Case { subject, arms } => self.run_case(subject, arms),
            CompoundKind::Conditional(expr) => self.run_conditional(expr),
            CompoundKind::Arithmetic(word) => match self.arith_test(word)? {
                Some(value) => Ok(i32::from(value == 0)),
                None => Ok(1),
            },
            CompoundKind::ArithFor(arith_for) => {
                let ArithForLoop {
                    init,
                    condition,
                    step,
                    body,
                } = &**arith_for;
                self.depth.loops += 1;
                let r = self.run_arith_for(init, condition, step, body);
                self.depth.loops -= 1;
                r
            }
        }
    }

    /// Expand and evaluate the text of `(( ))` or a part of `for (( ))`.
    /// `None` after an error, reported as bash reports it (`((: …`): the
    /// command fails with status 1, the line goes on.
    fn arith_test(&mut self, word: &Word) -> Result<Option<i64>, Flow> {
        self.run_debug_trap(|| {
            crate::syntax::command_to_source(&Command::Compound(Box::new(CompoundCommand {
                kind: CompoundKind::Arithmetic(word.clone()),
                redirects: Vec::new(),
                span: crate::syntax::span::Span::new(0, 0),
            })))
        })?;
        let text = self.expand_string(word)?;
        match crate::interp::arith::eval(self, &text) {
            Ok(value) => Ok(Some(value)),
            Err(error) => match self.arith_fatal(&error) {
                Some(flow) => Err(flow),
                None => {
                    self.error(&format!("((: {error}"));
                    Ok(None)
                }
            },
        }
    }

    fn run_arith_for(&mut self, init: &Word, condition: &Word, step: &Word, body: &List) -> Status {
        if self.arith_test(init)?.is_none() {
            return Ok(1);
        }
        let mut status = 0;
        loop {
            let go_on = if condition.parts.is_empty() {
                Some(1)
            } else {
                // bash counts the condition's line anew each time round.
                self.set_lineno(condition.span.start());
                self.arith_test(condition)?
            };
            match go_on {
                None => return Ok(1),
                Some(0) => return Ok(status),
                Some(_) => {}
            }
            match loop_step(self.run_list(body), self.status) {
                LoopStep::Ran(s) => status = s,
                LoopStep::Again => {}
                LoopStep::Leave(result) => return result,
            }
            if self.arith_test(step)?.is_none() {
                return Ok(1);
            }
        }
    }

    fn run_loop(&mut self, until: bool, condition: &List, body: &List) -> Status {
        let mut status = 0;
        loop {
            let c = match loop_step(
                self.with_errexit_off(true, |sh| sh.run_list(condition)),
                self.status,
            ) {
                LoopStep::Ran(c) => c,
                LoopStep::Again => continue,
                LoopStep::Leave(result) => return result,
            };
            if (c == 0) == until {
                return Ok(status);
            }
            match loop_step(self.run_list(body), self.status) {
                LoopStep::Ran(s) => status = s,
                LoopStep::Again => {}
                LoopStep::Leave(result) => return result,
            }
        }
    }

    fn run_for(
        &mut self,
        variable: &str,
        values: Vec<Vec<u8>>,
        body: &List,
        head: &[u8],
    ) -> Status {
        let mut status = 0;
        for value in values {
            self.run_debug_trap(|| head.to_vec())?;
            self.assign(variable, value)?;
            match loop_step(self.run_list(body), self.status) {
                LoopStep::Ran(s) => status = s,
                LoopStep::Again => {}
                LoopStep::Leave(result) => return result,
            }
        }
        Ok(status)
    }

    fn run_case(&mut self, subject: &Word, arms: &[CaseArm]) -> Status {
        let value = self.expand_string(subject)?;
        let mut status = 0;
        let mut fall = false;
        for arm in arms {
            let mut hit = fall;
            if !hit {
                for p in &arm.patterns {
                    let pat = self.expand_pattern(p)?;
                    if crate::interp::pattern::matches(
                        &pat,
                        &value,
                        self.opts.extglob,
                        self.pattern_unit(),
                    ) {
                        hit = true;
                        break;
                    }
                }
            }
            fall = false;
            if hit {
                status = self.run_list(&arm.body)?;
                match arm.terminator {
                    CaseTerminator::Break => return Ok(status),
                    CaseTerminator::FallThrough => fall = true,
                    CaseTerminator::Continue => {}
                }
            }
        }
        Ok(status)
    }
}

/// `status` is the shell's status after `result`: for `break`, the
/// status `break` itself set (0, or 1 for a count out of range).
fn loop_step(result: Status, status: i32) -> LoopStep {
    match result {
        Ok(s) => LoopStep::Ran(s),
        Err(Flow::Break(n)) if n > 1 => LoopStep::Leave(Err(Flow::Break(n - 1))),
        Err(Flow::Break(_)) => LoopStep::Leave(Ok(status)),
        Err(Flow::Continue(n)) if n > 1 => LoopStep::Leave(Err(Flow::Continue(n - 1))),
        Err(Flow::Continue(_)) => LoopStep::Again,
        Err(e) => LoopStep::Leave(Err(e)),
    }
}

/// `$BASH_COMMAND` for a compound command the DEBUG trap fires before:
/// its head, as bash names it (`case WORD in `, `for … `, `[[ … ]]`).
fn compound_head(kind: &CompoundKind) -> Vec<u8> {
    let command = Command::Compound(Box::new(CompoundCommand {
        kind: kind.clone(),
        redirects: Vec::new(),
        span: crate::syntax::span::Span::new(0, 0),
    }));
    let text = crate::syntax::command_to_source(&command);
    if let CompoundKind::Case { .. } = kind {
        if let Some(k) = text.windows(4).position(|w| w == b" in ") {
            return text[..k + 4].to_vec();
        }
    }
    text.split(|&b| b == b';' || b == b'\n')
        .next()
        .unwrap_or_default()
        .to_vec()
}
