//! Simple commands: expanding words and prefix assignments, tracing
//! (`set -x`), and dispatch to a function, a builtin or an external
//! command.

use super::{Assign, Started, command_text};
use crate::guard;
use crate::interp::lossy;
use crate::interp::{Flow, Shell, Status};
use crate::syntax::ast::*;
use crate::system::Fd;

/// An expanded simple command: argv and prefix assignments.
type Expanded = (Vec<Vec<u8>>, Vec<Assign>);

impl Shell<'_> {
    /// Is this a declaration builtin whose `NAME=value` operands are not split?
    fn is_declaration(word: &Word) -> bool {
        guard::words::static_value(word)
            .is_some_and(|name| crate::syntax::is_declaration_name(&name))
    }

    /// Expand a simple command's words and prefix assignments. `None` when
    /// there is no command name (assignments only).
    pub(super) fn expand_simple(&mut self, sc: &SimpleCommand) -> Result<Option<Expanded>, Flow> {
        self.subst_status = None;
        self.compound_args.clear();
        let argv = match sc.words.first() {
            Some(first) if Self::is_declaration(first) => {
                let mut argv = Vec::new();
                for word in &sc.words {
                    if let Some((WordPart::Array(items), head)) = word.parts.split_last() {
                        let mut text = Vec::new();
                        for part in head {
                            if let WordPart::Literal(bytes) = part {
                                text.extend_from_slice(bytes);
                            }
                        }
                        let items = self.expand_items(items)?;
                        self.compound_args.push((argv.len(), items));
                        argv.push(text);
                    } else if looks_like_assignment(word) {
                        argv.push(self.expand_string(word)?);
                    } else {
                        argv.extend(self.expand_words(std::slice::from_ref(word))?);
                    }
                }
                argv
            }
            _ => self.expand_words(&sc.words)?,
        };
        if argv.is_empty() {
            return Ok(None);
        }
        let mut assigns = Vec::new();
        // Each prefix assignment is seen by the ones after it
        // (`A=1 B=$A cmd`), as in bash; the shell's own values come back
        // before the command runs with all of them.
        let mut shadowed = Vec::new();
        let result = self.expand_prefix(sc, &mut assigns, &mut shadowed);
        for (name, old) in shadowed.into_iter().rev() {
            self.vars.restore(name, old);
        }
        result?;
        Ok(Some((argv, assigns)))
    }

    fn expand_prefix(
        &mut self,
        sc: &SimpleCommand,
        assigns: &mut Vec<Assign>,
        shadowed: &mut Vec<(String, Option<crate::interp::Var>)>,
    ) -> Result<(), Flow> {
        for a in &sc.assignments {
            // bash: an element is no name to bind (the command still runs);
            // a compound value is bound as its text, `(a b)`.
            if let Some(index) = &a.index {
                let written = lossy(&crate::syntax::word_to_source(index));
                self.error(&format!("`{}[{written}]': not a valid identifier", a.name));
                continue;
            }
            let mut value = match &a.value {
                AssignValue::Scalar(word) => self.expand_string(word)?,
                AssignValue::Array(items) => self.compound_value_as_text(items)?,
            };
            if let Err(deny) = guard::check_assignment(&self.policy, &a.name) {
                return Err(self.deny(&deny, &[format!("{}=", a.name).into_bytes()]));
            }
            if a.append {
                let mut old = self.vars.get(&a.name).unwrap_or_default().to_vec();
                old.append(&mut value);
                value = old;
            }
            if !self.vars.is_readonly(&a.name) {
                shadowed.push((a.name.clone(), self.vars.get_var(&a.name).cloned()));
                self.vars.set(&a.name, value.clone());
            }
            assigns.push((a.name.clone(), value));
        }
        Ok(())
    }

    /// `NAME=(…)` bound for one command, as bash binds it: the elements
    /// expanded, each as one string, between parentheses.
    fn compound_value_as_text(&mut self, items: &[ArrayItem]) -> Result<Vec<u8>, Flow> {
        let mut text = b"(".to_vec();
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                text.push(b' ');
            }
            if let Some(key) = &item.key {
                text.push(b'[');
                text.extend(self.expand_string(key)?);
                text.extend_from_slice(b"]=");
            }
            text.extend(self.expand_string(&item.value)?);
        }
        text.push(b')');
        Ok(text)
    }

    /// `NAME=value` with no command: set shell variables.
    fn run_assignments_only(&mut self, sc: &SimpleCommand) -> Status {
        for a in &sc.assignments {
            match (&a.value, &a.index) {
                (AssignValue::Scalar(word), None) => {
                    let value = self.expand_string(word)?;
                    self.trace_assignment(&a.name, &crate::interp::quote::quote(&value));
                    self.assign_maybe_append(&a.name, value, a.append)?;
                }
                (AssignValue::Scalar(word), Some(index)) => {
                    let text = self.expand_string(index)?;
                    if text.is_empty() && self.is_assoc(&a.name) {
                        let written = lossy(&crate::syntax::word_to_source(index));
                        self.error(&format!("{}[{written}]: bad array subscript", a.name));
                        return Err(Flow::Abort(1));
                    }
                    let key = self.key_of(&a.name, text)?;
                    let value = self.expand_string(word)?;
                    let shown = match &key {
                        crate::interp::arrays::Key::Index(i) => i.to_string(),
                        crate::interp::arrays::Key::Name(k) => lossy(k),
                    };
                    self.trace_assignment(
                        &format!("{}[{shown}]", a.name),
                        &crate::interp::quote::quote(&value),
                    );
                    self.assign_element(&a.name, key, value, a.append)?;
                }
                (AssignValue::Array(_), Some(index)) => {
                    let written = lossy(&crate::syntax::word_to_source(index));
                    self.error(&format!(
                        "{}[{written}]: cannot assign list to array member",
                        a.name
                    ));
                    return Err(Flow::Abort(1));
                }
                (AssignValue::Array(items), None) => {
                    // bash shows a compound assignment as written.
                    let written = lossy(&crate::syntax::array_to_source(items));
                    self.trace_assignment(&a.name, &written);
                    let items = self.expand_items(items)?;
                    self.assign_array(&a.name, items, a.append, false)?;
                }
            }
        }
        // `$_` after a command of assignments alone is empty (bash).
        self.set_last_argument(Vec::new());
        let status = self.subst_status.unwrap_or(0);
        let mark = self.pending_close.len();
        let r = self.with_redirects(&sc.redirects, |_| Ok(status));
        self.close_pending(mark);
        r
    }

    /// `$LINENO` becomes the line of the command starting at `offset` (a
    /// simple command, and the compound commands whose head bash counts:
    /// `[[ ]]`, `(( ))`, `case`, `for`).
    pub(in crate::interp) fn set_lineno(&mut self, offset: usize) {
        if self.position.frozen == 0 {
            let before = self.position.line_starts.partition_point(|&s| s <= offset);
            self.position.lineno = self.position.line_base + 1 + before;
        }
    }

    fn trace_assignment(&mut self, name: &str, shown: &str) {
        if self.opts.xtrace {
            let line = format!("{}{name}={shown}\n", self.ps4());
            self.out(2, line.as_bytes());
        }
    }

    pub(in crate::interp) fn run_simple(&mut self, sc: &SimpleCommand) -> Status {
        self.set_lineno(sc.span.start());
        self.run_debug_trap(|| command_text(&Command::Simple(sc.clone())))?;
        let mark = self.pending_close.len();
        let r = self.run_simple_inner(sc);
        self.close_pending(mark);
        r
    }

    fn run_simple_inner(&mut self, sc: &SimpleCommand) -> Status {
        let Some((argv, assigns)) = self.expand_simple(sc)? else {
            return self.run_assignments_only(sc);
        };
        // Refuse before opening: a program the run-time check refuses
        // never gets a file the shell made or truncated for it.
        if !sc.redirects.is_empty()
            && let Some(target) = self.program_to_run(&argv)
            && let Err(deny) = guard::check_argv(&self.policy, &self.cwd, target, &|n| {
                self.sys.is_a_program(n)
            })
            && deny.rule.stops_the_line()
        {
            return Err(self.deny(&deny, target));
        }
        // `$_`: the last argument of the last simple command; of
        // `declare a=(…)`, the name alone (bash).
        let underscore = argv.last().map(|last| {
            let compound = self.compound_args.iter().any(|(i, _)| i + 1 == argv.len());
            match compound {
                true => {
                    let name = last.strip_suffix(b"=").unwrap_or(last);
                    name.strip_suffix(b"+").unwrap_or(name).to_vec()
                }
                false => last.clone(),
            }
        });
        // Traced before its redirections, on the shell's own stderr (bash).
        self.xtrace(&assigns, &argv);
        let result = self.with_redirects(&sc.redirects, |sh| sh.dispatch(&argv, &assigns, true));
        if let Some(last) = underscore {
            self.set_last_argument(last);
        }
        result
    }

    /// `$_`, which the shell keeps and never exports.
    fn set_last_argument(&mut self, value: Vec<u8>) {
        self.vars.set_internal("_", value);
        self.vars.export("_", false);
    }

    fn ps4(&self) -> String {
        lossy(self.vars.get("PS4").unwrap_or(b"+ "))
    }

    pub(super) fn xtrace(&mut self, assigns: &[Assign], argv: &[Vec<u8>]) {
        if !self.opts.xtrace {
            return;
        }
        let mut line = self.ps4();
        let mut words: Vec<String> = assigns
            .iter()
            .map(|(n, v)| format!("{n}={}", crate::interp::quote::quote(v)))
            .collect();
        words.extend(argv.iter().map(|a| crate::interp::quote::quote(a)));
        line.push_str(&words.join(" "));
        line.push('\n');
        self.out(2, line.as_bytes());
    }

    pub(in crate::interp) fn close_pending(&mut self, mark: usize) {
        if self.pending_close.len() > mark {
            let fds: Vec<Fd> = self.pending_close.drain(mark..).collect();
            for fd in fds {
                let _ = self.sys.close(fd);
            }
        }
    }

    /// The argv of the program this command line will start, when it
    /// starts one: the words themselves for a name that is neither a
    /// function nor a builtin, and for `exec [--] NAME …` and
    /// `command [-p] [--] NAME …` (which skip functions) the words from
    /// NAME on; `command -v`/`-V` start nothing.
    fn program_to_run<'a>(&self, argv: &'a [Vec<u8>]) -> Option<&'a [Vec<u8>]> {
        let first = argv.first()?;
        if self.functions.contains_key(&lossy(first)) {
            return None;
        }
        if !guard::builtins::is_builtin(first) {
            return Some(argv);
        }
        let mut rest = &argv[1..];
        match first.as_slice() {
            b"command" => {
                while let Some(option) = rest.first() {
                    match option.as_slice() {
                        b"-p" => rest = &rest[1..],
                        b"--" => {
                            rest = &rest[1..];
                            break;
                        }
                        b"-v" | b"-V" => return None,
                        _ => break,
                    }
                }
            }
            b"exec" if rest.first().is_some_and(|a| a == b"--") => rest = &rest[1..],
            b"exec" => {}
            _ => return None,
        }
        let name = rest.first()?;
        (!name.starts_with(b"-") && !guard::builtins::is_builtin(name)).then_some(rest)
    }

    /// Run a command by name: function, builtin, or external.
    pub(in crate::interp) fn dispatch(
        &mut self,
        argv: &[Vec<u8>],
        assigns: &[Assign],
        functions: bool,
    ) -> Status {
        let name = lossy(&argv[0]);
        if functions {
            if let Some(def) = self.functions.get(&name).cloned() {
                return self.with_temp_assigns(assigns, |sh| sh.call_function(&def, argv));
            }
        }
        if guard::builtins::is_builtin(&argv[0]) {
            return self.with_temp_assigns(assigns, |sh| sh.run_builtin(argv));
        }
        let pgroup = self.job_group(None);
        match self.spawn_external(argv, assigns, pgroup)? {
            Started::Done(code) => Ok(code),
            Started::Running(pid, t0, _) => {
                self.give_terminal(pid);
                let r = self.wait_child(pid, t0, true);
                self.take_terminal();
                let code = r?;
                self.pipestatus = vec![code];
                Ok(code)
            }
        }
    }

    /// Variables set for the duration of one builtin or function call.
    fn with_temp_assigns(
        &mut self,
        assigns: &[Assign],
        f: impl FnOnce(&mut Self) -> Status,
    ) -> Status {
        if assigns.is_empty() {
            return f(self);
        }
        self.vars.push_binding();
        for (name, value) in assigns {
            if self.vars.is_readonly(name) {
                self.error(&format!("{name}: readonly variable"));
                self.vars.pop_binding();
                return Ok(1);
            }
            self.vars.bind(name, value.clone());
        }
        let r = f(self);
        self.vars.pop_binding();
        r
    }

    /// Assign a variable as the agent wrote it: policy, then readonly.
    pub(in crate::interp) fn assign(&mut self, name: &str, value: Vec<u8>) -> Result<(), Flow> {
        if let Err(deny) = guard::check_assignment(&self.policy, name) {
            let mut text = name.as_bytes().to_vec();
            text.push(b'=');
            return Err(self.deny(&deny, &[text]));
        }
        if self.vars.is_readonly(name) {
            self.error(&format!("{name}: readonly variable"));
            return Err(Flow::Abort(1));
        }
        let (integer, case) = self
            .vars
            .get_var(name)
            .map_or((false, None), |v| (v.integer, v.case));
        let value = if integer {
            self.arith(&value)?.to_string().into_bytes()
        } else {
            value
        };
        let value = match case {
            Some(case) => case.apply(&value),
            None => value,
        };
        self.vars.set(name, value);
        if self.opts.allexport {
            self.vars.export(name, true);
        }
        Ok(())
    }

    pub(in crate::interp) fn assign_maybe_append(
        &mut self,
        name: &str,
        mut value: Vec<u8>,
        append: bool,
    ) -> Result<(), Flow> {
        if append {
            let old = self.vars.get(name).unwrap_or_default().to_vec();
            value = if self.vars.get_var(name).is_some_and(|v| v.integer) {
                // `n+=3` on an integer adds, as in bash.
                let old = if old.is_empty() { b"0".to_vec() } else { old };
                [old.as_slice(), b"+(", &value, b")"].concat()
            } else {
                [old, value].concat()
            };
        }
        self.assign(name, value)
    }
}

/// `NAME=…` or `NAME+=…` at the start of a word's literal text.
fn looks_like_assignment(word: &Word) -> bool {
    let Some(WordPart::Literal(first)) = word.parts.first() else {
        return false;
    };
    let Some(eq) = first.iter().position(|&b| b == b'=') else {
        return false;
    };
    let name = first[..eq].strip_suffix(b"+").unwrap_or(&first[..eq]);
    crate::interp::vars::is_name(name)
}
