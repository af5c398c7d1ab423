//! The static walk: every command name a line can reach is visited.
//!
//! Reached means anywhere the interpreter could run it: every element of
//! every pipeline and list, compound bodies, function bodies, command and
//! process substitutions inside any word (arguments, assignment values,
//! redirection targets, parameter operands, arithmetic, unquoted here-doc
//! bodies), the text of `eval` and `trap` when it is fixed, and the command
//! operand of `exec`, `command` and `builtin`. A quoted here-doc body is data.

use super::builtins::{Builtin, NewShellSource};
use super::verdict::{Deny, Reached, ReachedKind, Rule, Verdict};
use super::words::{declared_name, describe, static_value};
use super::{
    ProtectedPaths, StaticPaths, check_arguments, check_assignment, check_path_arguments_lexically,
    check_write_target_lexically, command_rule, refuse_by_name,
};
use crate::policy::{CommandKind, Policy};
use crate::syntax::ast::*;
use std::collections::HashSet;
use std::path::Path;

/// How deeply fixed `eval`/`trap` texts may nest before the guard refuses.
const MAX_EVAL_DEPTH: usize = 8;

/// Walks one line and collects what it reaches.
/// The names of the functions `list` defines at any depth.
pub fn functions_defined(list: &List) -> Vec<Vec<u8>> {
    let mut names = HashSet::new();
    collect_definitions(list, &mut names);
    names.into_iter().collect()
}

/// Function bodies by name.
type Bodies = std::collections::HashMap<Vec<u8>, std::rc::Rc<CompoundCommand>>;

pub struct Walker<'p> {
    policy: &'p Policy,
    /// The body each function has at this point of the walk (set where a
    /// definition runs, in the order the line runs them), walked again
    /// where the line calls it.
    bodies: Bodies,
    /// The bodies being walked for a call (a recursion ends; a body that
    /// redefines its own name and calls it walks the new one).
    calling: HashSet<*const CompoundCommand>,
    /// Walking a body where it is defined, not where it is called: a name
    /// no function has yet may be defined before the call (a script's
    /// `main` above its helpers), so it is left to the check at the call.
    defining: u32,
    /// Functions known to exist (defined earlier in the session or in this line).
    functions: HashSet<Vec<u8>>,
    /// Every function this line defines anywhere: a function body runs at
    /// call time, when a definition later in the line may exist (its body
    /// is checked too; an undefined name still meets the dynamic check).
    later: HashSet<Vec<u8>>,
    /// Depth of function bodies being walked.
    body_depth: u32,
    reached: Vec<Reached>,
    eval_depth: usize,
    /// The working folder and the protected paths, resolved when the
    /// first argument needs them and kept for the line.
    paths: Option<StaticPaths>,
    /// The protected paths as the caller resolved them for many lines.
    pub(super) protected: Option<std::rc::Rc<ProtectedPaths>>,
    /// Whether a name is a program anywhere on the system, which tells a
    /// refused name from a typo ([`Rule::NotFound`]). By default every
    /// name is: the verdict then depends on the policy and the line alone.
    pub(super) on_system: &'p dyn Fn(&str) -> bool,
}

/// The default answer of [`Walker::on_system`]: every name is a program.
fn everywhere(_: &str) -> bool {
    true
}

impl<'p> Walker<'p> {
    pub fn new(policy: &'p Policy, known_functions: impl IntoIterator<Item = Vec<u8>>) -> Self {
        Walker {
            policy,
            bodies: Bodies::new(),
            calling: HashSet::new(),
            defining: 0,
            functions: known_functions.into_iter().collect(),
            later: HashSet::new(),
            body_depth: 0,
            reached: Vec::new(),
            eval_depth: 0,
            paths: None,
            protected: None,
            on_system: &everywhere,
        }
    }

    pub fn finish(self) -> Verdict {
        let allowed = self
            .reached
            .iter()
            .all(|r| r.allowed || !r.rule.stops_the_line());
        Verdict {
            allowed,
            commands: self.reached,
        }
    }

    /// The working folder and protected paths, made once per line.
    fn static_paths(&mut self, policy: &Policy) -> &StaticPaths {
        let protected = &self.protected;
        self.paths.get_or_insert_with(|| {
            let protected = protected
                .clone()
                .unwrap_or_else(|| std::rc::Rc::new(ProtectedPaths::new(policy)));
            StaticPaths::new(protected)
        })
    }

    /// Walk a whole line: its function definitions are collected first.
    pub fn line(&mut self, list: &List) {
        collect_definitions(list, &mut self.later);
        self.list(list);
    }

    pub fn list(&mut self, list: &List) {
        for item in &list.items {
            if item.background {
                self.scoped(|w| w.and_or(&item.and_or));
            } else {
                self.and_or(&item.and_or);
            }
        }
    }

    /// Walk `f` in a scope whose function definitions need not outlive it
    /// (a branch that may not run, a subshell, a pipeline element, a
    /// substitution): a name defined there is not a function afterwards.
    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        let saved = self.functions.clone();
        f(self);
        self.functions = saved;
    }

    fn and_or(&mut self, and_or: &AndOr) {
        self.pipeline(&and_or.first);
        for (_, pipeline) in &and_or.rest {
            self.scoped(|w| w.pipeline(pipeline));
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline) {
        match pipeline.elements.as_slice() {
            [only] => self.command(&only.command),
            elements => {
                for element in elements {
                    self.scoped(|w| w.command(&element.command));
                }
            }
        }
    }

    fn command(&mut self, command: &Command) {
        match command {
            Command::Simple(simple) => self.simple(simple),
            Command::Compound(compound) => self.compound(compound),
            Command::FunctionDef(def) => {
                self.functions.insert(def.name.as_bytes().to_vec());
                // A definition inside a body being defined (not called)
                // happens only when that body runs.
                if self.defining == 0 {
                    self.bodies.insert(
                        def.name.as_bytes().to_vec(),
                        std::rc::Rc::new((*def.body).clone()),
                    );
                }
                self.body_depth += 1;
                self.defining += 1;
                self.scoped(|w| w.compound(&def.body));
                self.defining -= 1;
                self.body_depth -= 1;
            }
        }
    }

    fn compound(&mut self, compound: &CompoundCommand) {
        match &compound.kind {
            CompoundKind::BraceGroup(list) => self.list(list),
            CompoundKind::Subshell(list) => self.scoped(|w| w.list(list)),
            CompoundKind::If {
                branches,
                else_body,
            } => {
                // Only the first condition surely runs.
                for (i, (condition, body)) in branches.iter().enumerate() {
                    if i == 0 {
                        self.list(condition);
                    } else {
                        self.scoped(|w| w.list(condition));
                    }
                    self.scoped(|w| w.list(body));
                }
                if let Some(body) = else_body {
                    self.scoped(|w| w.list(body));
                }
            }
            CompoundKind::Loop {
                condition, body, ..
            } => self.scoped(|w| {
                w.list(condition);
                w.list(body);
            }),
            CompoundKind::For {
                variable,
                words,
                body,
            } => {
                self.assignment_name(variable, compound.span);
                for word in words.iter().flatten() {
                    self.word(word);
                }
                self.scoped(|w| w.list(body));
            }
            CompoundKind::Case { subject, arms } => {
                self.word(subject);
                for arm in arms {
                    arm.patterns.iter().for_each(|p| self.word(p));
                    self.scoped(|w| w.list(&arm.body));
                }
            }
            CompoundKind::Arithmetic(word) => self.word(word),
            CompoundKind::Conditional(expr) => self.cond(expr),
            CompoundKind::ArithFor(arith_for) => {
                let ArithForLoop {
                    init,
                    condition,
                    step,
                    body,
                } = &**arith_for;
                self.word(init);
                self.scoped(|w| {
                    w.word(condition);
                    w.word(step);
                    w.list(body);
                });
            }
        }
        self.redirects(&compound.redirects);
    }

    /// Every word of a `[[ … ]]` expression (its substitutions run).
    fn cond(&mut self, expr: &CondExpr) {
        match expr {
            CondExpr::Word(word) | CondExpr::Unary { operand: word, .. } => self.word(word),
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

    fn simple(&mut self, simple: &SimpleCommand) {
        for assignment in &simple.assignments {
            self.assignment_name(&assignment.name, assignment.span);
            if let Some(index) = &assignment.index {
                self.word(index);
            }
            match &assignment.value {
                AssignValue::Scalar(word) => self.word(word),
                AssignValue::Array(items) => self.array_items(items),
            }
        }
        for word in &simple.words {
            self.word(word);
        }
        self.redirects(&simple.redirects);
        if !simple.words.is_empty() {
            self.held_prefix_assignments(simple);
            self.command_words(&simple.words, simple.span, true);
        }
    }

    /// `HOME=/x tool`: a name the arm holds, given a fixed value for one of
    /// its commands, would reach it in bash but not here. The run-time
    /// check refuses it too, whatever form the line takes.
    fn held_prefix_assignments(&mut self, simple: &SimpleCommand) {
        let Some(name) = static_value(&simple.words[0]) else {
            return;
        };
        let name = String::from_utf8_lossy(&name);
        let Some(rule) = self.policy.commands.get(name.as_ref()) else {
            return;
        };
        if self.functions.contains(name.as_bytes()) || Builtin::from_name(name.as_bytes()).is_some()
        {
            return;
        }
        for assignment in &simple.assignments {
            let Some((_, given)) = self
                .policy
                .env
                .held_values(rule)
                .find(|(held, _)| *held == assignment.name)
            else {
                continue;
            };
            // A value known only at run time (`HOME=$HOME`) is left to
            // the run-time check, which knows what bash would pass on.
            let AssignValue::Scalar(word) = &assignment.value else {
                continue;
            };
            if static_value(word).is_none_or(|value| value == given.as_bytes()) {
                continue;
            }
            let deny = super::held_environment_denial(self.policy, &name, &assignment.name);
            self.push_denied(
                assignment.name.clone(),
                ReachedKind::Assignment,
                assignment.span,
                deny,
            );
        }
    }

    /// Decide the command named by `words[0]` with `words[1..]` as arguments.
    /// `functions` is false after `command` and `exec`, which skip functions.
    fn command_words(&mut self, words: &[Word], span: Span, functions: bool) {
        let Some(name) = static_value(&words[0]) else {
            self.push(
                describe(&words[0]),
                ReachedKind::RunTime,
                Rule::RunTimeName,
                span,
                Ok(
                    "the name is assembled at run time; the final name is checked before it runs"
                        .into(),
                ),
            );
            return;
        };
        let text = String::from_utf8_lossy(&name).into_owned();
        if let Some(deny) = refuse_by_name(self.policy, &text) {
            self.push_denied(text, ReachedKind::Foreign, span, deny);
            return;
        }
        if functions
            && (self.functions.contains(&name)
                || (self.body_depth > 0 && self.later.contains(&name)))
        {
            self.push(
                text,
                ReachedKind::Function,
                Rule::Function,
                span,
                Ok("a function whose body is checked".into()),
            );
            // Called here: its body runs now, with no room left for a
            // definition to come first.
            if self.defining == 0 {
                if let Some(body) = self.bodies.get(&name).cloned() {
                    let id = std::rc::Rc::as_ptr(&body);
                    if self.calling.insert(id) {
                        self.body_depth += 1;
                        self.scoped(|w| w.compound(&body));
                        self.body_depth -= 1;
                        self.calling.remove(&id);
                    }
                }
            }
            return;
        }
        if let Some(builtin) = Builtin::from_name(&name) {
            self.builtin(builtin, words, span);
            return;
        }
        let rule = match command_rule(self.policy, &text, self.on_system) {
            Ok(rule) => rule,
            // Judged where the function is called (here or on a later line)
            // and, whatever the text, before anything spawns.
            Err(_) if self.defining > 0 => return,
            Err(deny) => {
                self.push_denied(text, ReachedKind::Foreign, span, deny);
                return;
            }
        };
        let (kind, rule_id) = match rule.kind {
            CommandKind::Tool => (ReachedKind::Tool, Rule::Tool),
            CommandKind::Utility => (ReachedKind::Utility, Rule::Utility),
        };
        // Only the arguments fixed now can be judged now; every argument is
        // judged again on the final argv.
        let fixed: Vec<Vec<u8>> = words[1..].iter().filter_map(static_value).collect();
        let fixed_refs: Vec<&[u8]> = fixed.iter().map(Vec::as_slice).collect();
        let policy = self.policy;
        let checked = check_arguments(rule, &fixed_refs).and_then(|()| {
            if fixed_refs.is_empty() {
                return Ok(());
            }
            check_path_arguments_lexically(self.static_paths(policy), &fixed_refs)
        });
        let (rule_id, outcome) = match checked {
            Err(deny) => (deny.rule, Err(deny.reason)),
            Ok(()) if kind == ReachedKind::Tool => {
                (rule_id, Ok(format!("the {} arm's tool", self.policy.arm)))
            }
            Ok(()) => (rule_id, Ok("a harmless utility".into())),
        };
        self.push(text, kind, rule_id, span, outcome);
    }

    /// Builtins run inside guard-sh; those that run other commands have
    /// their operands checked as commands.
    fn builtin(&mut self, builtin: Builtin, words: &[Word], span: Span) {
        let name = builtin.name();
        let args = &words[1..];
        match builtin {
            // `eval -- TEXT`: `--` ends eval's options, as in bash.
            Builtin::Eval => match args.first().and_then(static_value).as_deref() {
                Some(b"--") => self.fixed_text(name, &args[1..], span),
                _ => self.fixed_text(name, args, span),
            },
            Builtin::Bash | Builtin::Sh => match new_shell_text(name, args) {
                Some(at) => self.fixed_text(name, &args[at..=at], span),
                None => self.push(
                    name.into(),
                    ReachedKind::Builtin,
                    Rule::RunTimeText,
                    span,
                    Ok(format!(
                        "a new shell in guard-sh's interpreter: its script, standard input or text is parsed and checked when {name} reads it, before anything in it runs"
                    )),
                ),
            },
            Builtin::Source | Builtin::Dot => self.push(
                name.into(),
                ReachedKind::Builtin,
                Rule::RunTimeText,
                span,
                Ok(
                    "the file is parsed and checked when it is read, before anything in it runs"
                        .into(),
                ),
            ),
            Builtin::Trap => {
                // `trap ACTION SIGNAL…`: ACTION is shell text run later.
                let action = args.iter().position(|w| {
                    static_value(w).is_none_or(|v| !v.starts_with(b"-") || v == b"-")
                });
                match action {
                    // `trap - SIG…` resets: `-` is not shell text.
                    Some(i)
                        if args.len() > i + 1
                            && static_value(&args[i]).as_deref() != Some(b"-") =>
                    {
                        self.fixed_text(name, &args[i..=i], span)
                    }
                    _ => self.push_builtin(name, span),
                }
            }
            Builtin::Exec => self.wrapped_command(name, skip_options(args, &[b"-a"], b"cl"), span),
            Builtin::Command => {
                let query = args
                    .first()
                    .and_then(static_value)
                    .is_some_and(|v| v == b"-v" || v == b"-V");
                if query {
                    return self.push_builtin(name, span);
                }
                // `-p` searches bash's default PATH; here names resolve in
                // the bin folder either way.
                self.wrapped_command(name, skip_options(args, &[], b"p"), span)
            }
            Builtin::Builtin => match args.first().map(|w| (w, static_value(w))) {
                None => self.push_builtin(name, span),
                Some((word, Some(inner))) => match Builtin::from_name(&inner) {
                    Some(inner) => self.builtin(inner, args, span),
                    None => {
                        let text = describe(word);
                        let reason = format!("\"{text}\" is not a builtin of guard-sh");
                        self.push(
                            text,
                            ReachedKind::Foreign,
                            Rule::NotABuiltin,
                            span,
                            Err(reason),
                        )
                    }
                },
                Some((word, None)) => self.push(
                    describe(word),
                    ReachedKind::RunTime,
                    Rule::RunTimeName,
                    span,
                    Ok("the builtin name is assembled at run time; checked before it runs".into()),
                ),
            },
            Builtin::Export
            | Builtin::Local
            | Builtin::Readonly
            | Builtin::Declare
            | Builtin::Typeset => {
                for var in args.iter().filter_map(declared_name) {
                    if !var.starts_with('-') {
                        self.assignment_name(&var, span);
                    }
                }
                self.push_builtin(name, span)
            }
            _ => self.push_builtin(name, span),
        }
    }

    /// `eval`/`trap` text: checked as a line now if fixed, else when it runs.
    fn fixed_text(&mut self, name: &str, args: &[Word], span: Span) {
        let fixed: Option<Vec<Vec<u8>>> = args.iter().map(static_value).collect();
        let Some(parts) = fixed else {
            return self.push(name.into(), ReachedKind::Builtin, Rule::RunTimeText, span, Ok(
                format!("its text is assembled at run time; it is parsed and checked before {name} runs it"),
            ));
        };
        if self.eval_depth >= MAX_EVAL_DEPTH {
            let reason = format!("{name} text nested more than {MAX_EVAL_DEPTH} levels deep");
            return self.push(
                name.into(),
                ReachedKind::Builtin,
                Rule::EvalDepth,
                span,
                Err(reason),
            );
        }
        let text = parts.join(&b' ');
        match crate::syntax::parse(&text) {
            Ok(inner) => {
                self.push_builtin(name, span);
                let first_inner = self.reached.len();
                self.eval_depth += 1;
                self.list(&inner);
                self.eval_depth -= 1;
                // Inner spans are offsets into the eval text: point at the eval.
                for reached in &mut self.reached[first_inner..] {
                    reached.span = span;
                }
            }
            // The same parser reads the same text when it runs, fails the
            // same way and runs none of it: a syntax error, status 2, as
            // bash reports it (nothing to refuse).
            Err(error) => {
                let reason = format!(
                    "the text given to {name} does not parse ({}): {name} fails with a syntax error and runs none of it",
                    error.render(&text)
                );
                self.push(
                    name.into(),
                    ReachedKind::Builtin,
                    Rule::EvalSyntax,
                    span,
                    Ok(reason),
                )
            }
        }
    }

    /// `exec CMD …` and `command CMD …`: the wrapped command is what runs
    /// (never a function of that name, as in bash);
    /// with nothing after the options the builtin alone is reached; an
    /// option the builtin does not take is refused.
    fn wrapped_command(&mut self, name: &str, rest: Result<&[Word], String>, span: Span) {
        match rest {
            Ok(rest) if !rest.is_empty() => self.command_words(rest, span, false),
            Ok(_) => self.push_builtin(name, span),
            Err(reason) => self.push(
                name.into(),
                ReachedKind::Builtin,
                Rule::BuiltinOption,
                span,
                Err(reason),
            ),
        }
    }

    fn push_builtin(&mut self, name: &str, span: Span) {
        self.push(
            name.into(),
            ReachedKind::Builtin,
            Rule::Builtin,
            span,
            Ok("a builtin of guard-sh".into()),
        );
    }

    fn assignment_name(&mut self, name: &str, span: Span) {
        if let Err(deny) = check_assignment(self.policy, name) {
            self.push_denied(name.into(), ReachedKind::Assignment, span, deny);
        }
    }

    fn redirects(&mut self, redirects: &[Redirect]) {
        for redirect in redirects {
            self.descriptor_numbers(redirect);
            match &redirect.target {
                RedirTarget::Word(word) => {
                    self.word(word);
                    let path = static_value(word);
                    // `>&FILE` and `1>&FILE` name a file to write (as `&>`).
                    let dup_to_file = redirect.may_duplicate_to_a_file()
                        && path.as_ref().is_some_and(|p| {
                            !matches!(p.as_slice(), b"" | b"-")
                                && crate::syntax::ast::duplicated_descriptor(p).is_none()
                        });
                    if writes_file(redirect.op) || dup_to_file {
                        if let Some(path) = path {
                            self.write_target(&path, redirect.span);
                        }
                    }
                }
                RedirTarget::HereDoc(doc) => {
                    if !doc.quoted {
                        self.word(&doc.body);
                    }
                }
            }
        }
    }

    /// A descriptor number at or above the private floor, written in the
    /// line (`300>f`, `>&300`), is refused before anything runs; numbers
    /// that only appear at run time are checked by the interpreter.
    fn descriptor_numbers(&mut self, redirect: &Redirect) {
        let floor = crate::os::private_fd::PRIVATE_FD_FLOOR as u64;
        let duplicated = match (&redirect.op, &redirect.target) {
            (RedirOp::DupInput | RedirOp::DupOutput, RedirTarget::Word(word)) => static_value(word)
                .and_then(|v| {
                    let (digits, _) = crate::syntax::ast::duplicated_descriptor(&v)?;
                    std::str::from_utf8(digits).ok()?.parse::<u64>().ok()
                }),
            _ => None,
        };
        for number in [redirect.fd.map(u64::from), duplicated]
            .into_iter()
            .flatten()
        {
            if number >= floor {
                self.push(
                    number.to_string(),
                    ReachedKind::Redirect,
                    Rule::PrivateDescriptor,
                    redirect.span,
                    Err(format!(
                        "descriptor {number} is reserved for guard-sh's own use; a line may name descriptors 0 to {}",
                        floor - 1
                    )),
                );
            }
        }
    }

    fn write_target(&mut self, path: &[u8], span: Span) {
        use std::os::unix::ffi::OsStrExt;
        let path = Path::new(std::ffi::OsStr::from_bytes(path));
        let policy = self.policy;
        if let Err(deny) = check_write_target_lexically(self.static_paths(policy), path) {
            let text = path.display().to_string();
            self.push_denied(text, ReachedKind::Redirect, span, deny);
        }
    }

    fn word(&mut self, word: &Word) {
        for part in &word.parts {
            self.word_part(part);
        }
    }

    fn word_part(&mut self, part: &WordPart) {
        match part {
            WordPart::Literal(_)
            | WordPart::SingleQuoted(_)
            | WordPart::AnsiC(_)
            | WordPart::Escaped(_)
            | WordPart::Tilde(_) => {}
            WordPart::DoubleQuoted(parts) => parts.iter().for_each(|p| self.word_part(p)),
            WordPart::Parameter(expansion) => self.parameter(expansion),
            WordPart::CommandSubst { list, .. } | WordPart::ProcessSubst { list, .. } => {
                self.scoped(|w| w.list(list))
            }
            WordPart::Arithmetic(word) => self.word(word),
            WordPart::Array(items) => self.array_items(items),
            // Never expanded: its expansion is an error before anything in it.
            WordPart::BadSubstitution(_) => {}
        }
    }

    /// The keys and values of `NAME=(…)` (their substitutions run).
    fn array_items(&mut self, items: &[ArrayItem]) {
        for item in items {
            if let Some(key) = &item.key {
                self.word(key);
            }
            self.word(&item.value);
        }
    }

    fn parameter(&mut self, expansion: &ParamExpansion) {
        // `${!x:=…}` assigns to a name known only at run time, where the
        // interpreter checks it like every assignment.
        if let (ParamOp::Assign { .. }, false) = (&expansion.op, expansion.indirect) {
            match &expansion.param {
                Parameter::Named(name) => self.assignment_name(name, expansion.span),
                Parameter::Element(element) => self.assignment_name(&element.name, expansion.span),
                _ => {}
            }
        }
        if let Parameter::Element(element) = &expansion.param {
            if let Subscript::Index(word) = &element.index {
                self.word(word);
            }
        }
        match &expansion.op {
            ParamOp::Plain
            | ParamOp::Length
            | ParamOp::Case { .. }
            | ParamOp::Keys
            | ParamOp::Names { .. }
            | ParamOp::Transform(_) => {}
            ParamOp::Default { word, .. }
            | ParamOp::Assign { word, .. }
            | ParamOp::Error { word, .. }
            | ParamOp::Alternative { word, .. } => self.word(word),
            ParamOp::RemovePrefix { pattern, .. } | ParamOp::RemoveSuffix { pattern, .. } => {
                self.word(pattern)
            }
            ParamOp::Replace {
                pattern,
                replacement,
                ..
            } => {
                self.word(pattern);
                self.word(replacement);
            }
            ParamOp::Substring { offset, length } => {
                self.word(offset);
                if let Some(length) = length {
                    self.word(length);
                }
            }
        }
    }

    /// Record `name` as refused by `deny`.
    fn push_denied(&mut self, name: String, kind: ReachedKind, span: Span, deny: Deny) {
        self.push(name, kind, deny.rule, span, Err(deny.reason));
    }

    fn push(
        &mut self,
        name: String,
        kind: ReachedKind,
        rule: Rule,
        span: Span,
        outcome: Result<String, String>,
    ) {
        // A body is reported where it is called; where it is defined only
        // what no later definition can make right is.
        if self.defining > 0 && outcome.is_ok() {
            return;
        }
        let (allowed, reason) = match outcome {
            Ok(reason) => (true, reason),
            Err(reason) => (false, reason),
        };
        self.reached.push(Reached {
            name,
            kind,
            allowed,
            reason,
            rule,
            span,
        });
    }
}

/// Does this redirection open its target for writing?
pub fn writes_file(op: RedirOp) -> bool {
    matches!(
        op,
        RedirOp::Output
            | RedirOp::Clobber
            | RedirOp::Append
            | RedirOp::ReadWrite
            | RedirOp::OutputBoth
            | RedirOp::AppendBoth
    )
}

/// Skip a builtin's leading options. `with_value` options take the next
/// word; `flags` are single letters accepted alone or bundled. Any other
/// option, or an option word that is not fixed, is refused so that a
/// launcher builtin never hides its command operand.
fn skip_options<'w>(
    args: &'w [Word],
    with_value: &[&[u8]],
    flags: &[u8],
) -> Result<&'w [Word], String> {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let Some(value) = static_value(word) else {
            // A run-time word in option position could be an option or the
            // command: the command is checked when it runs.
            return Ok(&args[i..]);
        };
        if value == b"--" {
            return Ok(&args[i + 1..]);
        }
        if !value.starts_with(b"-") || value == b"-" {
            return Ok(&args[i..]);
        }
        if with_value.contains(&value.as_slice()) {
            i += 2;
            continue;
        }
        if value[1..].iter().all(|b| flags.contains(b)) {
            i += 1;
            continue;
        }
        return Err(format!(
            "option \"{}\" of this builtin is not supported by guard-sh",
            String::from_utf8_lossy(&value)
        ));
    }
    Ok(&args[args.len()..])
}

/// The names of the functions `list` defines, in any list or compound body
/// (not inside substitutions, which run in a copy of the shell).
/// Every function `list` defines, at any depth.
fn collect_definitions(list: &List, names: &mut HashSet<Vec<u8>>) {
    for item in &list.items {
        let pipelines =
            std::iter::once(&item.and_or.first).chain(item.and_or.rest.iter().map(|(_, p)| p));
        for pipeline in pipelines {
            for element in &pipeline.elements {
                match &element.command {
                    Command::Simple(_) => {}
                    Command::FunctionDef(def) => {
                        names.insert(def.name.as_bytes().to_vec());
                        collect_compound(&def.body, names);
                    }
                    Command::Compound(c) => collect_compound(c, names),
                }
            }
        }
    }
}

fn collect_compound(compound: &CompoundCommand, names: &mut HashSet<Vec<u8>>) {
    match &compound.kind {
        CompoundKind::BraceGroup(list) | CompoundKind::Subshell(list) => {
            collect_definitions(list, names)
        }
        CompoundKind::If {
            branches,
            else_body,
        } => {
            for (condition, body) in branches {
                collect_definitions(condition, names);
                collect_definitions(body, names);
            }
            if let Some(body) = else_body {
                collect_definitions(body, names);
            }
        }
        CompoundKind::Loop {
            condition, body, ..
        } => {
            collect_definitions(condition, names);
            collect_definitions(body, names);
        }
        CompoundKind::For { body, .. } => collect_definitions(body, names),
        CompoundKind::ArithFor(arith_for) => collect_definitions(&arith_for.body, names),
        CompoundKind::Arithmetic(_) | CompoundKind::Conditional(_) => {}
        CompoundKind::Case { arms, .. } => {
            for arm in arms {
                collect_definitions(&arm.body, names);
            }
        }
    }
}

/// The index of a new shell's (`bash`/`sh`) `-c` text when it and every
/// word before it are written out; `None` when the text is a script,
/// standard input, or known only at run time (then the new shell checks
/// it as it reads it).
fn new_shell_text(name: &str, args: &[Word]) -> Option<usize> {
    let known: Vec<Vec<u8>> = args.iter().map_while(static_value).collect();
    match super::builtins::new_shell(name, &known).source {
        NewShellSource::Text { at } => Some(at),
        NewShellSource::Script { .. } | NewShellSource::Stdin => None,
    }
}
