//! Checks shared by the fuzz targets: the parser's error positions, and an
//! enumeration of the command names a parsed line can spawn that is written
//! from the interpreter's rules, independently of the guard's walker.
//!
//! The invariant the `parse_guard` target checks: when the static guard
//! allows a line, every command name that is fixed in the text (a word that
//! expands to one known field) and that the interpreter would hand to
//! `spawn` is a command the policy permits. Names assembled at run time
//! (`$X`, globs, braces) are the dynamic check's business and are skipped.

use guard_sh::guard::builtins::is_builtin;
use guard_sh::policy::{POLICY_FORMAT, Policy};
use guard_sh::syntax::SyntaxError;
use guard_sh::syntax::ast::*;
use std::collections::BTreeSet;

/// The policy the guard target checks against: a tool with a denied
/// subcommand and a few harmless utilities, no protected paths.
pub fn policy() -> Policy {
    let json = serde_json::json!({
        "format": POLICY_FORMAT, "arm": "tea", "shell": true, "tool": "tea",
        "bin_dir": "/nonexistent/bin",
        "commands": {
            "tea": {"kind": "tool", "path": "/usr/bin/tea",
                    "deny": [{"match": "subcommand", "name": "api", "reason": "raw API"}]},
            "cat": {"kind": "utility", "path": "/usr/bin/cat"},
            "head": {"kind": "utility", "path": "/usr/bin/head"},
            "grep": {"kind": "utility", "path": "/usr/bin/grep"},
            "jq": {"kind": "utility", "path": "/usr/bin/jq"},
        },
        "env": {"pass": ["HOME"], "deny": [{"pattern": "LD_*", "reason": "loader"}]},
        "sandbox": {}, "audit": {}
    });
    match serde_json::from_value(json) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("fuzz policy does not load: {e}");
            std::process::abort()
        }
    }
}

/// `Some(why)` when the error's span lies outside `source` or is reversed.
pub fn bad_error_span(source: &[u8], err: &SyntaxError) -> Option<String> {
    let span = err.span();
    (span.start() > span.end() || span.end() > source.len()).then(|| {
        format!(
            "error span {}..{} outside input of {} bytes: {err}",
            span.start(),
            span.end(),
            source.len()
        )
    })
}

/// A fixed command name the interpreter would spawn although the policy
/// does not permit it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escape {
    pub name: Vec<u8>,
    pub why: &'static str,
}

/// Every fixed name in `list` the interpreter could spawn that `policy`
/// does not permit.
pub fn escapes(policy: &Policy, list: &List) -> Vec<Escape> {
    let mut all = BTreeSet::new();
    collect_definitions(list, &mut all);
    let mut e = Enumerator {
        policy,
        all_definitions: all,
        bodies: std::collections::BTreeMap::new(),
        calling: BTreeSet::new(),
        defined: BTreeSet::new(),
        in_body: false,
        depth: 0,
        found: Vec::new(),
    };
    e.list(list);
    e.found
}

struct Enumerator<'p> {
    policy: &'p Policy,
    /// Every function defined anywhere in the line: a body runs when it is
    /// called, by which time any of them may exist.
    all_definitions: BTreeSet<Vec<u8>>,
    /// Functions certainly defined at this point of the run.
    defined: BTreeSet<Vec<u8>>,
    /// The body each function name has now (set where it is defined);
    /// the interpreter runs it where the function is called.
    bodies: std::collections::BTreeMap<Vec<u8>, std::rc::Rc<CompoundCommand>>,
    /// The bodies being enumerated for a call.
    calling: BTreeSet<*const CompoundCommand>,
    /// Inside a function body or trap action (runs later).
    in_body: bool,
    /// eval/trap text nesting.
    depth: usize,
    found: Vec<Escape>,
}

/// The single field a word expands to, when the text fixes it.
fn fixed(word: &Word) -> Option<Vec<u8>> {
    fn parts(ps: &[WordPart], quoted: bool, out: &mut Vec<u8>) -> bool {
        ps.iter().all(|p| match p {
            WordPart::Literal(b) => {
                // Unquoted pattern or brace characters make the name a run-time one
                // (the guard also counts a lone `}` as one).
                if !quoted && b.iter().any(|c| b"*?[{}".contains(c)) {
                    return false;
                }
                out.extend_from_slice(b);
                true
            }
            WordPart::SingleQuoted(b) | WordPart::AnsiC(b) | WordPart::Escaped(b) => {
                out.extend_from_slice(b);
                true
            }
            WordPart::DoubleQuoted(inner) => parts(inner, true, out),
            _ => false,
        })
    }
    let mut out = Vec::new();
    (parts(&word.parts, false, &mut out) && !out.is_empty()).then_some(out)
}

fn collect_definitions(list: &List, out: &mut BTreeSet<Vec<u8>>) {
    struct Defs<'a>(&'a mut BTreeSet<Vec<u8>>);
    fn l(d: &mut Defs, list: &List) {
        for item in &list.items {
            p(d, &item.and_or.first);
            item.and_or.rest.iter().for_each(|(_, x)| p(d, x));
        }
    }
    fn p(d: &mut Defs, pipe: &Pipeline) {
        for el in &pipe.elements {
            match &el.command {
                Command::FunctionDef(f) => {
                    d.0.insert(f.name.as_bytes().to_vec());
                    c(d, &f.body);
                }
                Command::Compound(cc) => c(d, cc),
                Command::Simple(_) => {}
            }
        }
    }
    fn c(d: &mut Defs, cc: &CompoundCommand) {
        match &cc.kind {
            CompoundKind::BraceGroup(x) | CompoundKind::Subshell(x) => l(d, x),
            CompoundKind::If {
                branches,
                else_body,
            } => {
                for (a, b) in branches {
                    l(d, a);
                    l(d, b);
                }
                if let Some(e) = else_body {
                    l(d, e);
                }
            }
            CompoundKind::Loop {
                condition, body, ..
            } => {
                l(d, condition);
                l(d, body);
            }
            CompoundKind::For { body, .. } => l(d, body),
            CompoundKind::ArithFor(a) => l(d, &a.body),
            CompoundKind::Case { arms, .. } => arms.iter().for_each(|a| l(d, &a.body)),
            CompoundKind::Conditional(_) | CompoundKind::Arithmetic(_) => {}
        }
    }
    l(&mut Defs(out), list);
}

impl Enumerator<'_> {
    /// Run `f` in a scope whose function definitions do not outlive it
    /// (a branch that may not run, a subshell, a pipeline element).
    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        let saved = self.defined.clone();
        f(self);
        self.defined = saved;
    }

    fn list(&mut self, list: &List) {
        for item in &list.items {
            if item.background {
                self.scoped(|e| e.and_or(&item.and_or));
            } else {
                self.and_or(&item.and_or);
            }
        }
    }

    fn and_or(&mut self, ao: &AndOr) {
        self.pipeline(&ao.first);
        for (_, p) in &ao.rest {
            self.scoped(|e| e.pipeline(p));
        }
    }

    fn pipeline(&mut self, p: &Pipeline) {
        if p.elements.len() == 1 {
            self.command(&p.elements[0].command);
        } else {
            for el in &p.elements {
                self.scoped(|e| e.command(&el.command));
            }
        }
    }

    fn command(&mut self, c: &Command) {
        match c {
            Command::Simple(s) => self.simple(s),
            Command::Compound(cc) => self.compound(cc),
            // Nothing of a body runs where it is defined.
            Command::FunctionDef(f) => {
                let name = f.name.as_bytes().to_vec();
                self.bodies.insert(name.clone(), std::rc::Rc::new((*f.body).clone()));
                self.defined.insert(name);
            }
        }
    }

    fn compound(&mut self, cc: &CompoundCommand) {
        self.redirects(&cc.redirects);
        match &cc.kind {
            CompoundKind::BraceGroup(l) => self.list(l),
            CompoundKind::Subshell(l) => self.scoped(|e| e.list(l)),
            CompoundKind::If {
                branches,
                else_body,
            } => {
                // The first condition always runs; the rest may not.
                let mut first = true;
                for (cond, body) in branches {
                    if first {
                        self.list(cond);
                        first = false;
                    } else {
                        self.scoped(|e| e.list(cond));
                    }
                    self.scoped(|e| e.list(body));
                }
                if let Some(b) = else_body {
                    self.scoped(|e| e.list(b));
                }
            }
            CompoundKind::Loop {
                condition, body, ..
            } => {
                // A second pass may see definitions of the first; stay conservative.
                let was = std::mem::replace(&mut self.in_body, true);
                self.scoped(|e| {
                    e.list(condition);
                    e.list(body);
                });
                self.in_body = was;
            }
            CompoundKind::For { words, body, .. } => {
                words.iter().flatten().for_each(|w| self.word(w));
                let was = std::mem::replace(&mut self.in_body, true);
                self.scoped(|e| e.list(body));
                self.in_body = was;
            }
            CompoundKind::Case { subject, arms } => {
                self.word(subject);
                for arm in arms {
                    arm.patterns.iter().for_each(|p| self.word(p));
                    self.scoped(|e| e.list(&arm.body));
                }
            }
            // Operands of `&&`/`||` inside may not be expanded.
            CompoundKind::Conditional(expr) => self.scoped(|e| e.cond(expr)),
            CompoundKind::Arithmetic(w) => self.word(w),
            CompoundKind::ArithFor(a) => {
                self.word(&a.init);
                let was = std::mem::replace(&mut self.in_body, true);
                self.scoped(|e| {
                    e.word(&a.condition);
                    e.word(&a.step);
                    e.list(&a.body);
                });
                self.in_body = was;
            }
        }
    }

    fn cond(&mut self, expr: &CondExpr) {
        match expr {
            CondExpr::Word(w) | CondExpr::Unary { operand: w, .. } => self.word(w),
            CondExpr::Binary { left, right, .. } => {
                self.word(left);
                self.word(right);
            }
            CondExpr::Not(inner) => self.cond(inner),
            CondExpr::And(a, b) | CondExpr::Or(a, b) => {
                self.cond(a);
                self.cond(b);
            }
        }
    }

    fn redirects(&mut self, rs: &[Redirect]) {
        for r in rs {
            match &r.target {
                RedirTarget::Word(w) => self.word(w),
                RedirTarget::HereDoc(h) => self.word(&h.body),
            }
        }
    }

    fn word(&mut self, w: &Word) {
        self.parts(&w.parts);
    }

    fn parts(&mut self, ps: &[WordPart]) {
        for p in ps {
            match p {
                WordPart::DoubleQuoted(inner) => self.parts(inner),
                WordPart::CommandSubst { list, .. } | WordPart::ProcessSubst { list, .. } => {
                    self.scoped(|e| e.list(list))
                }
                WordPart::Arithmetic(w) => self.word(w),
                WordPart::Parameter(pe) => self.param(pe),
                // A declaration builtin's `NAME=(…)`: keys and values expand.
                WordPart::Array(items) => self.items(items),
                WordPart::Literal(_)
                | WordPart::SingleQuoted(_)
                | WordPart::AnsiC(_)
                | WordPart::Escaped(_)
                | WordPart::Tilde(_) => {}
            }
        }
    }

    fn items(&mut self, items: &[ArrayItem]) {
        for item in items {
            if let Some(key) = &item.key {
                self.word(key);
            }
            self.word(&item.value);
        }
    }

    fn param(&mut self, pe: &ParamExpansion) {
        // A subscript is expanded before the value is read.
        if let Parameter::Element(element) = &pe.param {
            if let Subscript::Index(w) = &element.index {
                self.word(w);
            }
        }
        // Operand words may or may not be expanded.
        self.scoped(|e| match &pe.op {
            ParamOp::Plain | ParamOp::Length | ParamOp::Case { .. } => {}
            ParamOp::Default { word, .. }
            | ParamOp::Assign { word, .. }
            | ParamOp::Error { word, .. }
            | ParamOp::Alternative { word, .. } => e.word(word),
            ParamOp::RemovePrefix { pattern, .. } | ParamOp::RemoveSuffix { pattern, .. } => {
                e.word(pattern)
            }
            ParamOp::Replace {
                pattern,
                replacement,
                ..
            } => {
                e.word(pattern);
                e.word(replacement);
            }
            ParamOp::Substring { offset, length } => {
                e.word(offset);
                if let Some(l) = length {
                    e.word(l);
                }
            }
            #[allow(unreachable_patterns)]
            _ => {}
        });
    }

    fn simple(&mut self, s: &SimpleCommand) {
        for a in &s.assignments {
            if let Some(index) = &a.index {
                self.word(index);
            }
            match &a.value {
                AssignValue::Scalar(w) => self.word(w),
                AssignValue::Array(items) => self.items(items),
            }
        }
        for w in &s.words {
            self.word(w);
        }
        self.redirects(&s.redirects);
        self.call(&s.words, true);
    }

    fn is_function(&self, name: &[u8]) -> bool {
        self.defined.contains(name) || (self.in_body && self.all_definitions.contains(name))
    }

    /// `words[0]` run with `words[1..]`; `functions` is false after
    /// `command` and `exec`, which skip functions.
    fn call(&mut self, words: &[Word], functions: bool) {
        let Some(first) = words.first() else { return };
        let Some(name) = fixed(first) else { return };
        if functions && self.is_function(&name) {
            // The body runs now; a function defined later in the line but
            // not yet here is one whose body this line may not reach.
            if let Some(body) = self.bodies.get(&name).cloned() {
                let id = std::rc::Rc::as_ptr(&body);
                if self.calling.insert(id) {
                    let was = std::mem::replace(&mut self.in_body, true);
                    self.scoped(|e| e.compound(&body));
                    self.in_body = was;
                    self.calling.remove(&id);
                }
            }
            return;
        }
        if is_builtin(&name) {
            self.builtin(&name, &words[1..]);
            return;
        }
        let text = String::from_utf8_lossy(&name);
        if name.contains(&b'/') {
            self.found.push(Escape {
                name,
                why: "path-qualified name",
            });
        } else if !self.policy.commands.contains_key(text.as_ref()) {
            self.found.push(Escape {
                name,
                why: "not in the policy",
            });
        }
    }

    fn builtin(&mut self, name: &[u8], args: &[Word]) {
        match name {
            // The interpreter's rule: a first `--` ends eval's options.
            b"eval" => match args.first().and_then(fixed) {
                Some(first) if first == b"--" => self.text(&args[1..]),
                _ => self.text(args),
            },
            b"trap" => {
                // `trap ACTION SIGNAL…`: the action runs later.
                if args.len() >= 2 {
                    if let Some(action) = fixed(&args[0]) {
                        if !action.starts_with(b"-") {
                            let was = std::mem::replace(&mut self.in_body, true);
                            self.text(&args[..1]);
                            self.in_body = was;
                        }
                    }
                }
            }
            b"command" => {
                // The interpreter's rules: leading -v/-V/-p/--; a query runs nothing.
                let mut rest = args;
                let mut query = false;
                while let Some(a) = rest.first() {
                    match fixed(a).as_deref() {
                        Some(b"-v") | Some(b"-V") => query = true,
                        Some(b"-p") => {}
                        Some(b"--") => {
                            rest = &rest[1..];
                            break;
                        }
                        Some(_) => break,
                        None => return,
                    }
                    rest = &rest[1..];
                }
                if !query {
                    self.call(rest, false);
                }
            }
            b"exec" => {
                // bash's options: `-a NAME`, `-c`, `-l`, then `--`.
                let mut rest = args;
                while let Some(a) = rest.first() {
                    match fixed(a).as_deref() {
                        Some(b"-a") => rest = rest.get(2..).unwrap_or(&[]),
                        Some(b"--") => {
                            rest = &rest[1..];
                            break;
                        }
                        Some(o) if o.len() > 1 && o[0] == b'-' && o[1..].iter().all(|c| b"cl".contains(c)) => {
                            rest = &rest[1..]
                        }
                        Some(_) => break,
                        None => return,
                    }
                }
                self.call(rest, false);
            }
            b"builtin" => {
                if let Some(inner) = args.first().and_then(fixed) {
                    if is_builtin(&inner) {
                        self.builtin(&inner, &args[1..]);
                    }
                }
            }
            _ => {}
        }
    }

    /// eval/trap text fixed in the line: parsed and enumerated like a line.
    fn text(&mut self, args: &[Word]) {
        if self.depth >= 8 {
            return;
        }
        let Some(parts) = args.iter().map(fixed).collect::<Option<Vec<_>>>() else {
            return;
        };
        let text = parts.join(&b' ');
        if let Ok(inner) = guard_sh::syntax::parse(&text) {
            collect_definitions(&inner, &mut self.all_definitions);
            self.depth += 1;
            self.list(&inner);
            self.depth -= 1;
        }
    }
}
