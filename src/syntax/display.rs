//! AST → shell text. [`to_source`] renders a tree back to text that parses
//! to the same tree (spans aside); [`without_spans`] zeroes spans so trees
//! parsed from different texts can be compared.
//!
//! Here-document bodies are written after the end of the list that holds
//! their `<<` (after the newline that ends its last item), as the parser
//! expects them.

use super::ast::*;
use super::visit::{VisitMut, walk_list};

/// Shell text that parses back to `list` (modulo spans).
pub fn to_source(list: &List) -> Vec<u8> {
    let mut w = Writer::default();
    w.list(list, false);
    w.out
}

/// One word as written (bash's messages name a subscript so).
pub fn word_to_source(word: &Word) -> Vec<u8> {
    let mut w = Writer::default();
    w.word(word, Ctx::Raw);
    w.out
}

/// `word`'s parts inside double quotes (a prompt's text as a line).
pub fn double_quoted_to_source(word: &Word) -> Vec<u8> {
    let mut w = Writer::default();
    w.s("\"");
    w.parts(&word.parts, Ctx::Double);
    w.s("\"");
    w.out
}

/// The `(…)` of an array assignment as written (what `set -x` shows).
pub fn array_to_source(items: &[ArrayItem]) -> Vec<u8> {
    let mut w = Writer::default();
    w.array_items(items);
    w.out
}

/// One command as source text (`$BASH_COMMAND`).
pub fn command_to_source(command: &Command) -> Vec<u8> {
    let mut w = Writer::default();
    w.command(command);
    w.out
}

/// One pipeline as source text (a job's text in `jobs`).
pub fn pipeline_to_source(pipeline: &Pipeline) -> Vec<u8> {
    let mut w = Writer::default();
    w.pipeline(pipeline);
    w.out
}

/// One `&&`/`||` list as source text (a background job's text in `jobs`).
pub fn and_or_to_source(and_or: &AndOr) -> Vec<u8> {
    let mut w = Writer::default();
    w.and_or(and_or);
    w.out
}

/// A copy of `list` with every span set to `0..0`.
pub fn without_spans(list: &List) -> List {
    struct Zero;
    impl VisitMut for Zero {
        fn span(&mut self, span: &mut Span) {
            *span = Span::default();
        }
    }
    let mut copy = list.clone();
    walk_list(&mut Zero, &mut copy);
    copy
}

/// How literal text must be escaped where it is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// Unquoted word, `${…}` operand or arithmetic text: as parsed.
    Raw,
    /// Inside `"…"`.
    Double,
    /// An unquoted here-document body.
    HereDoc,
}

#[derive(Default)]
struct Writer {
    out: Vec<u8>,
    /// Here-documents whose bodies go after the current list item.
    pending: Vec<HereDoc>,
    /// Lists inside substitutions being written.
    nested: u32,
}

impl Writer {
    fn s(&mut self, text: &str) {
        self.out.extend_from_slice(text.as_bytes());
    }

    /// `terminated`: the last item also gets a `;` (before `}`, `then`,
    /// `do`, `fi`, `done`, …).
    fn list(&mut self, list: &List, terminated: bool) {
        let n = list.items.len();
        for (k, item) in list.items.iter().enumerate() {
            let last = k + 1 == n;
            self.and_or(&item.and_or);
            if item.background {
                self.s(" &");
            } else if !last || terminated {
                self.s(";");
            }
            // Inside a substitution, bodies go after the list's last item,
            // so the items stay on the line they were read from: moved onto
            // lines after a body, an item could end up after a line that
            // closes an enclosing here-document of the same delimiter. At
            // the top, each item's bodies follow it, as they were read:
            // many here-documents' bodies gathered after one long line pair
            // `\`-newlines with other lines.
            let flush = !self.pending.is_empty() && (last || self.nested == 0);
            if flush {
                self.s("\n");
                for doc in std::mem::take(&mut self.pending) {
                    self.here_doc_body(&doc);
                }
            } else if !last {
                self.s(" ");
            }
        }
    }

    /// A list in its own here-document scope (inside a substitution).
    fn nested_list(&mut self, list: &List) {
        let outer = std::mem::take(&mut self.pending);
        self.nested += 1;
        self.list(list, false);
        self.nested -= 1;
        self.pending = outer;
    }

    fn and_or(&mut self, a: &AndOr) {
        self.pipeline(&a.first);
        for (op, p) in &a.rest {
            self.s(if *op == AndOrOp::And { " && " } else { " || " });
            self.pipeline(p);
        }
    }

    fn pipeline(&mut self, p: &Pipeline) {
        match p.timed {
            Some(TimeFormat::Default) => self.s("time "),
            Some(TimeFormat::Posix) => self.s("time -p "),
            None => {}
        }
        if p.negated {
            self.s("! ");
        }
        for (k, e) in p.elements.iter().enumerate() {
            if k > 0 {
                let prev = &p.elements[k - 1];
                self.s(if prev.pipe_stderr { " |& " } else { " | " });
            }
            self.command(&e.command);
        }
    }

    fn command(&mut self, c: &Command) {
        match c {
            Command::Simple(s) => {
                let mut first = true;
                let mut sep = |w: &mut Writer| {
                    if !std::mem::take(&mut first) {
                        w.s(" ");
                    }
                };
                for a in &s.assignments {
                    sep(self);
                    self.s(&a.name);
                    if let Some(index) = &a.index {
                        self.s("[");
                        self.word(index, Ctx::Raw);
                        self.s("]");
                    }
                    self.s(if a.append { "+=" } else { "=" });
                    match &a.value {
                        AssignValue::Scalar(w) => self.word(w, Ctx::Raw),
                        AssignValue::Array(items) => self.array_items(items),
                    }
                }
                // Redirections before the words: a first word such as `{`
                // or `if` that followed a redirection in the source must not
                // become a reserved word when printed first.
                for r in &s.redirects {
                    sep(self);
                    self.redirect(r);
                }
                for w in &s.words {
                    sep(self);
                    self.word(w, Ctx::Raw);
                }
            }
            Command::Compound(cc) => self.compound(cc),
            Command::FunctionDef(f) => {
                self.s(&f.name);
                self.s("() ");
                self.compound(&f.body);
            }
        }
    }

    fn compound(&mut self, cc: &CompoundCommand) {
        match &cc.kind {
            CompoundKind::BraceGroup(l) => {
                self.s("{ ");
                self.list(l, true);
                self.s(" }");
            }
            CompoundKind::Subshell(l) => {
                self.s("( ");
                self.list(l, false);
                self.s(" )");
            }
            CompoundKind::If {
                branches,
                else_body,
            } => {
                for (k, (cond, body)) in branches.iter().enumerate() {
                    self.s(if k == 0 { "if " } else { " elif " });
                    self.list(cond, true);
                    self.s(" then ");
                    self.list(body, true);
                }
                if let Some(e) = else_body {
                    self.s(" else ");
                    self.list(e, true);
                }
                self.s(" fi");
            }
            CompoundKind::Loop {
                until,
                condition,
                body,
            } => {
                self.s(if *until { "until " } else { "while " });
                self.list(condition, true);
                self.s(" do ");
                self.list(body, true);
                self.s(" done");
            }
            CompoundKind::For {
                variable,
                words,
                body,
            } => {
                self.s("for ");
                self.s(variable);
                if let Some(words) = words {
                    self.s(" in");
                    for w in words {
                        self.s(" ");
                        self.word(w, Ctx::Raw);
                    }
                }
                self.s("; do ");
                self.list(body, true);
                self.s(" done");
            }
            CompoundKind::Conditional(expr) => {
                self.s("[[ ");
                self.cond(expr);
                self.s(" ]]");
            }
            CompoundKind::Arithmetic(word) => {
                self.s("((");
                self.parts(&word.parts, Ctx::Raw);
                self.s("))");
            }
            CompoundKind::ArithFor(arith_for) => {
                let ArithForLoop {
                    init,
                    condition,
                    step,
                    body,
                } = &**arith_for;
                self.s("for ((");
                // No blank after `;`: the parts keep their own, so the
                // printed loop parses back to the same words.
                self.parts(&init.parts, Ctx::Raw);
                self.s(";");
                self.parts(&condition.parts, Ctx::Raw);
                self.s(";");
                self.parts(&step.parts, Ctx::Raw);
                self.s(")); do ");
                self.list(body, true);
                self.s(" done");
            }
            CompoundKind::Case { subject, arms } => {
                self.s("case ");
                self.word(subject, Ctx::Raw);
                self.s(" in");
                for arm in arms {
                    self.s(" (");
                    for (k, p) in arm.patterns.iter().enumerate() {
                        if k > 0 {
                            self.s("|");
                        }
                        self.word(p, Ctx::Raw);
                    }
                    self.s(") ");
                    self.list(&arm.body, false);
                    self.s(match arm.terminator {
                        CaseTerminator::Break => " ;;",
                        CaseTerminator::FallThrough => " ;&",
                        CaseTerminator::Continue => " ;;&",
                    });
                }
                self.s(" esac");
            }
        }
        for r in &cc.redirects {
            self.s(" ");
            self.redirect(r);
        }
    }

    fn redirect(&mut self, r: &Redirect) {
        if let Some(fd) = r.fd {
            self.s(&fd.to_string());
        }
        let (op, space) = match r.op {
            RedirOp::Input => ("<", true),
            RedirOp::Output => (">", true),
            RedirOp::Clobber => (">|", true),
            RedirOp::Append => (">>", true),
            RedirOp::ReadWrite => ("<>", true),
            RedirOp::DupInput => ("<&", false),
            RedirOp::DupOutput => (">&", false),
            RedirOp::OutputBoth => ("&>", true),
            RedirOp::AppendBoth => ("&>>", true),
            RedirOp::HereDoc => ("<<", false),
            RedirOp::HereString => ("<<<", true),
        };
        self.s(op);
        match &r.target {
            RedirTarget::Word(w) => {
                let starts_with_process =
                    matches!(w.parts.first(), Some(WordPart::ProcessSubst { .. }));
                if space || starts_with_process {
                    self.s(" ");
                }
                self.word(w, Ctx::Raw);
            }
            RedirTarget::HereDoc(doc) => {
                if doc.strip_tabs {
                    self.s("-");
                }
                if doc.quoted {
                    self.out.push(b'\'');
                    self.out.extend_from_slice(&doc.delimiter);
                    self.out.push(b'\'');
                } else {
                    self.out.extend_from_slice(&doc.delimiter);
                }
                self.pending.push(doc.clone());
            }
        }
    }

    fn here_doc_body(&mut self, doc: &HereDoc) {
        let start = self.out.len();
        if doc.quoted {
            for part in &doc.body.parts {
                if let WordPart::SingleQuoted(b) | WordPart::Literal(b) = part {
                    self.out.extend_from_slice(b);
                }
            }
        } else {
            self.parts(&doc.body.parts, Ctx::HereDoc);
        }
        self.out.extend_from_slice(&doc.delimiter);
        self.s("\n");
        // `<<-` strips leading tabs again when read back: a tab before each
        // of its lines keeps them, and its delimiter, from ending an
        // enclosing here-document of the same delimiter.
        if doc.strip_tabs {
            let mut tabbed = Vec::with_capacity(self.out.len() - start + 16);
            let mut at_line_start = true;
            for &b in &self.out[start..] {
                if at_line_start {
                    tabbed.push(b'\t');
                }
                tabbed.push(b);
                at_line_start = b == b'\n';
            }
            self.out.truncate(start);
            self.out.extend_from_slice(&tabbed);
        }
    }

    /// A `[[ ]]` expression; `&&` and `||` operands that are themselves
    /// `&&` or `||` are parenthesized, so the tree prints back as parsed.
    fn cond(&mut self, expr: &CondExpr) {
        match expr {
            CondExpr::Word(w) => self.word(w, Ctx::Raw),
            CondExpr::Unary { op, operand } => {
                self.s(op);
                self.s(" ");
                self.word(operand, Ctx::Raw);
            }
            CondExpr::Binary { op, left, right } => {
                self.word(left, Ctx::Raw);
                self.s(" ");
                self.s(op);
                self.s(" ");
                self.word(right, Ctx::Raw);
            }
            CondExpr::Not(inner) => {
                self.s("! ");
                self.cond_operand(inner);
            }
            CondExpr::And(a, b) | CondExpr::Or(a, b) => {
                self.cond_operand(a);
                self.s(if matches!(expr, CondExpr::And(..)) {
                    " && "
                } else {
                    " || "
                });
                self.cond_operand(b);
            }
        }
    }

    fn cond_operand(&mut self, expr: &CondExpr) {
        if matches!(expr, CondExpr::And(..) | CondExpr::Or(..)) {
            self.s("( ");
            self.cond(expr);
            self.s(" )");
        } else {
            self.cond(expr);
        }
    }

    fn word(&mut self, w: &Word, ctx: Ctx) {
        self.parts(&w.parts, ctx);
    }

    /// `(a [k]=v …)` of an array assignment.
    fn array_items(&mut self, items: &[ArrayItem]) {
        self.s("(");
        for (n, item) in items.iter().enumerate() {
            if n > 0 {
                self.s(" ");
            }
            if let Some(key) = &item.key {
                self.s("[");
                self.word(key, Ctx::Raw);
                self.s("]=");
            }
            self.word(&item.value, Ctx::Raw);
        }
        self.s(")");
    }

    fn parts(&mut self, parts: &[WordPart], ctx: Ctx) {
        for part in parts {
            self.part(part, ctx);
        }
    }

    fn part(&mut self, part: &WordPart, ctx: Ctx) {
        match part {
            WordPart::Literal(b) => match ctx {
                Ctx::Raw => self.out.extend_from_slice(b),
                Ctx::Double => self.escaped(b, b"$`\"\\"),
                Ctx::HereDoc => self.here_doc_literal(b),
            },
            WordPart::SingleQuoted(b) => {
                self.s("'");
                self.out.extend_from_slice(b);
                self.s("'");
            }
            WordPart::AnsiC(b) => {
                self.s("$'");
                for &c in b {
                    match c {
                        b'\'' => self.s("\\'"),
                        b'\\' => self.s("\\\\"),
                        b'\n' => self.s("\\n"),
                        b'\t' => self.s("\\t"),
                        0x20..=0x7e => self.out.push(c),
                        _ => self.s(&format!("\\x{c:02x}")),
                    }
                }
                self.s("'");
            }
            WordPart::Escaped(b) => {
                self.s("\\");
                self.out.extend_from_slice(b);
            }
            WordPart::DoubleQuoted(inner) => {
                self.s("\"");
                self.parts(inner, Ctx::Double);
                self.s("\"");
            }
            WordPart::Tilde(user) => {
                self.s("~");
                if let Some(u) = user {
                    self.out.extend_from_slice(u);
                }
            }
            WordPart::Parameter(p) => self.param(p, ctx),
            WordPart::CommandSubst {
                list,
                backtick: false,
            } => {
                // `$(false x)` as bash prints it; `$( (a) )` keeps its
                // spaces, which `$((` would read as arithmetic.
                self.s("$(");
                let start = self.out.len();
                self.nested_list(list);
                if self.out.get(start) == Some(&b'(') {
                    self.out.insert(start, b' ');
                    self.s(" )");
                } else {
                    self.s(")");
                }
            }
            WordPart::CommandSubst {
                list,
                backtick: true,
            } => {
                // A substitution's list: its bodies stay after its last item.
                let mut inner = Writer {
                    nested: 1,
                    ..Writer::default()
                };
                inner.list(list, false);
                // A here-document's delimiter line may end the body: written
                // on a line of its own it could end an enclosing
                // here-document of the same delimiter instead. (An empty
                // delimiter line stays: without its newline it is no line.)
                if inner.out.ends_with(b"\n") && !inner.out.ends_with(b"\n\n") {
                    inner.out.pop();
                }
                self.s("`");
                self.backtick_body(&inner.out, ctx == Ctx::Double);
                self.s("`");
            }
            WordPart::Arithmetic(w) => {
                self.s("$((");
                self.parts(&w.parts, Ctx::Raw);
                self.s("))");
            }
            WordPart::ProcessSubst { direction, list } => {
                self.s(if *direction == ProcessDirection::Read {
                    "<( "
                } else {
                    ">( "
                });
                self.nested_list(list);
                self.s(" )");
            }
            WordPart::Array(items) => self.array_items(items),
            WordPart::BadSubstitution(text) => self.out.extend_from_slice(text),
        }
    }

    /// The text of a backtick substitution, escaped so that reading it back
    /// (`\$`, `` \` ``, `\\`, and `\"` in double quotes, stand for the
    /// character) gives `text` again. A backslash before any other byte
    /// stands for itself, so it is written once: `$(( … ))` finds its end
    /// by pairing backslashes with the byte after them, and a doubled one
    /// before `'` or `(` would pair differently from the text as read.
    /// Before a newline it is doubled, or it would join the lines.
    fn backtick_body(&mut self, text: &[u8], in_double: bool) {
        for (k, &c) in text.iter().enumerate() {
            let doubled = match c {
                b'\\' => match text.get(k + 1) {
                    None | Some(b'\\' | b'`' | b'$' | b'\n') => true,
                    Some(b'"') => in_double,
                    Some(_) => false,
                },
                b'`' | b'$' => true,
                _ => false,
            };
            if doubled {
                self.out.push(b'\\');
            }
            self.out.push(c);
        }
    }

    /// Literal text of an unquoted here-document body. `$` and `` ` `` are
    /// escaped; a backslash only where reading it back would take it as an
    /// escape (before `$ `` ` `` \ newline, or at the end of the text, where
    /// the next part may begin with one). Doubling every backslash kept the
    /// value but changed the raw text, which `$((` scans for parentheses:
    /// `\)` in a body inside `$(( $( … ) ))` then closed the substitution.
    fn here_doc_literal(&mut self, b: &[u8]) {
        for (k, &c) in b.iter().enumerate() {
            let escape = match c {
                b'$' | b'`' => true,
                b'\\' => b.get(k + 1).is_none_or(|next| b"$`\\\n".contains(next)),
                _ => false,
            };
            if escape {
                self.out.push(b'\\');
            }
            self.out.push(c);
        }
    }

    fn escaped(&mut self, b: &[u8], special: &[u8]) {
        for &c in b {
            if special.contains(&c) {
                self.out.push(b'\\');
            }
            self.out.push(c);
        }
    }

    fn param(&mut self, p: &ParamExpansion, ctx: Ctx) {
        let name = p.param.name();
        if !p.braced {
            self.s("$");
            self.s(&name);
            return;
        }
        // Operand words keep their text as parsed; only the quoting
        // context of the whole expansion matters to how they were read.
        let _ = ctx;
        self.s("${");
        if p.op == ParamOp::Length {
            self.s("#");
        }
        if p.indirect || matches!(p.op, ParamOp::Keys | ParamOp::Names { .. }) {
            self.s("!");
        }
        self.s(&name);
        if let Parameter::Element(e) = &p.param {
            match &e.index {
                Subscript::At => self.s("[@]"),
                Subscript::Star => self.s("[*]"),
                Subscript::Index(w) => {
                    self.s("[");
                    self.word(w, Ctx::Raw);
                    self.s("]");
                }
            }
        }
        let colon = |c: bool| if c { ":" } else { "" };
        match &p.op {
            ParamOp::Plain | ParamOp::Length | ParamOp::Keys => {}
            ParamOp::Names { star } => self.s(if *star { "*" } else { "@" }),
            ParamOp::Transform(c) => {
                self.s("@");
                self.out.push(*c);
            }
            ParamOp::Default { colon: c, word } => {
                self.s(colon(*c));
                self.s("-");
                self.word(word, Ctx::Raw);
            }
            ParamOp::Assign { colon: c, word } => {
                self.s(colon(*c));
                self.s("=");
                self.word(word, Ctx::Raw);
            }
            ParamOp::Error { colon: c, word } => {
                self.s(colon(*c));
                self.s("?");
                self.word(word, Ctx::Raw);
            }
            ParamOp::Alternative { colon: c, word } => {
                self.s(colon(*c));
                self.s("+");
                self.word(word, Ctx::Raw);
            }
            ParamOp::RemovePrefix { longest, pattern } => {
                self.s(if *longest { "##" } else { "#" });
                self.word(pattern, Ctx::Raw);
            }
            ParamOp::RemoveSuffix { longest, pattern } => {
                self.s(if *longest { "%%" } else { "%" });
                self.word(pattern, Ctx::Raw);
            }
            ParamOp::Replace {
                mode,
                pattern,
                replacement,
            } => {
                self.s(match mode {
                    ReplaceMode::First => "/",
                    ReplaceMode::All => "//",
                    ReplaceMode::Prefix => "/#",
                    ReplaceMode::Suffix => "/%",
                });
                self.word(pattern, Ctx::Raw);
                // `${X/}` (first match of nothing) must not print as `${X//}`,
                // which replaces every match; `${X//}` not as `${X///}`,
                // whose pattern is `/`.
                let empty_pattern = matches!(mode, ReplaceMode::First | ReplaceMode::All)
                    && pattern.parts.is_empty();
                if !(empty_pattern && replacement.parts.is_empty()) {
                    self.s("/");
                    self.word(replacement, Ctx::Raw);
                }
            }
            ParamOp::Substring { offset, length } => {
                self.s(":");
                self.word(offset, Ctx::Raw);
                if let Some(l) = length {
                    self.s(":");
                    self.word(l, Ctx::Raw);
                }
            }
            ParamOp::Case { upper, all } => {
                let c = if *upper { "^" } else { "," };
                self.s(c);
                if *all {
                    self.s(c);
                }
            }
        }
        self.s("}");
    }
}
