//! A compact, one-line S-expression view of an AST, for tests and
//! debugging. Spans are left out. Examples: `(cmd echo hi)`,
//! `(pipe (cmd a) |& (cmd b))`, `(cmd echo (w (dq $x)))`.
//!
//! Lists nested in commands are written `[item; item]`; the top level is
//! its items joined by `; `. A word that is one plain literal is written
//! bare; any other word is `(w PART…)`.

use super::ast::*;

/// The S-expression text of `list`.
pub fn to_sexp(list: &List) -> String {
    let mut out = String::new();
    items(&mut out, list);
    out
}

fn items(out: &mut String, list: &List) {
    for (k, item) in list.items.iter().enumerate() {
        if k > 0 {
            out.push_str("; ");
        }
        and_or(out, &item.and_or);
        if item.background {
            out.push_str(" &");
        }
    }
}

fn nested(out: &mut String, list: &List) {
    out.push('[');
    items(out, list);
    out.push(']');
}

fn and_or(out: &mut String, a: &AndOr) {
    let mut text = String::new();
    pipeline(&mut text, &a.first);
    for (op, p) in &a.rest {
        let mut next = String::new();
        pipeline(&mut next, p);
        let op = if *op == AndOrOp::And { "&&" } else { "||" };
        text = format!("({op} {text} {next})");
    }
    out.push_str(&text);
}

fn pipeline(out: &mut String, p: &Pipeline) {
    match p.timed {
        Some(TimeFormat::Default) => out.push_str("(time "),
        Some(TimeFormat::Posix) => out.push_str("(time-p "),
        None => {}
    }
    if p.negated {
        out.push_str("(! ");
    }
    if p.elements.len() == 1 {
        command(out, &p.elements[0].command);
    } else {
        out.push_str("(pipe");
        for (k, e) in p.elements.iter().enumerate() {
            if k > 0 {
                out.push_str(if p.elements[k - 1].pipe_stderr {
                    " |& "
                } else {
                    " | "
                });
            } else {
                out.push(' ');
            }
            command(out, &e.command);
        }
        out.push(')');
    }
    if p.negated {
        out.push(')');
    }
    if p.timed.is_some() {
        out.push(')');
    }
}

fn command(out: &mut String, c: &Command) {
    match c {
        Command::Simple(s) => {
            out.push_str("(cmd");
            for a in &s.assignments {
                out.push_str(if a.append { " (+= " } else { " (= " });
                out.push_str(&a.name);
                if let Some(index) = &a.index {
                    out.push_str(" [");
                    word(out, index);
                    out.push(']');
                }
                out.push(' ');
                match &a.value {
                    AssignValue::Scalar(w) => word(out, w),
                    AssignValue::Array(items) => array(out, items),
                }
                out.push(')');
            }
            for w in &s.words {
                out.push(' ');
                word(out, w);
            }
            for r in &s.redirects {
                out.push(' ');
                redirect(out, r);
            }
            out.push(')');
        }
        Command::Compound(cc) => compound(out, cc),
        Command::FunctionDef(f) => {
            out.push_str("(fn ");
            out.push_str(&f.name);
            out.push(' ');
            compound(out, &f.body);
            out.push(')');
        }
    }
}

fn compound(out: &mut String, cc: &CompoundCommand) {
    match &cc.kind {
        CompoundKind::BraceGroup(l) => {
            out.push_str("(brace ");
            nested(out, l);
        }
        CompoundKind::Subshell(l) => {
            out.push_str("(sub ");
            nested(out, l);
        }
        CompoundKind::If {
            branches,
            else_body,
        } => {
            out.push_str("(if");
            for (k, (c, b)) in branches.iter().enumerate() {
                out.push_str(if k == 0 { " " } else { " elif " });
                nested(out, c);
                out.push(' ');
                nested(out, b);
            }
            if let Some(e) = else_body {
                out.push_str(" else ");
                nested(out, e);
            }
        }
        CompoundKind::Loop {
            until,
            condition,
            body,
        } => {
            out.push_str(if *until { "(until " } else { "(while " });
            nested(out, condition);
            out.push(' ');
            nested(out, body);
        }
        CompoundKind::For {
            variable,
            words,
            body,
        } => {
            out.push_str("(for ");
            out.push_str(variable);
            if let Some(ws) = words {
                out.push_str(" in");
                for w in ws {
                    out.push(' ');
                    word(out, w);
                }
            }
            out.push(' ');
            nested(out, body);
        }
        CompoundKind::Conditional(expr) => {
            out.push_str("(cond ");
            cond(out, expr);
        }
        CompoundKind::Arithmetic(w) => {
            out.push_str("(arith-command ");
            word(out, w);
        }
        CompoundKind::ArithFor(arith_for) => {
            let ArithForLoop {
                init,
                condition,
                step,
                body,
            } = &**arith_for;
            out.push_str("(arith-for ");
            for w in [init, condition, step] {
                word(out, w);
                out.push(' ');
            }
            nested(out, body);
        }
        CompoundKind::Case { subject, arms } => {
            out.push_str("(case ");
            word(out, subject);
            for arm in arms {
                out.push_str(" (");
                for (k, p) in arm.patterns.iter().enumerate() {
                    if k > 0 {
                        out.push('|');
                    }
                    word(out, p);
                }
                out.push_str(") ");
                nested(out, &arm.body);
                out.push_str(match arm.terminator {
                    CaseTerminator::Break => " ;;",
                    CaseTerminator::FallThrough => " ;&",
                    CaseTerminator::Continue => " ;;&",
                });
            }
        }
    }
    for r in &cc.redirects {
        out.push(' ');
        redirect(out, r);
    }
    out.push(')');
}

fn redirect(out: &mut String, r: &Redirect) {
    out.push('(');
    if let Some(fd) = r.fd {
        out.push_str(&fd.to_string());
    }
    out.push_str(match r.op {
        RedirOp::Input => "<",
        RedirOp::Output => ">",
        RedirOp::Clobber => ">|",
        RedirOp::Append => ">>",
        RedirOp::ReadWrite => "<>",
        RedirOp::DupInput => "<&",
        RedirOp::DupOutput => ">&",
        RedirOp::OutputBoth => "&>",
        RedirOp::AppendBoth => "&>>",
        RedirOp::HereDoc => "<<",
        RedirOp::HereString => "<<<",
    });
    out.push(' ');
    match &r.target {
        RedirTarget::Word(w) => word(out, w),
        RedirTarget::HereDoc(h) => {
            if h.strip_tabs {
                out.push_str("-strip ");
            }
            if h.quoted {
                out.push_str("-quoted ");
            }
            out.push_str(&quote(&h.delimiter));
            out.push(' ');
            word(out, &h.body);
        }
    }
    out.push(')');
}

/// Bytes a bare literal word may hold.
fn is_bare(b: &[u8]) -> bool {
    !b.is_empty()
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || b"-_./=:,+%@*?{}^!#~".contains(&c))
}

fn word(out: &mut String, w: &Word) {
    if let [WordPart::Literal(b)] = w.parts.as_slice() {
        if is_bare(b) {
            out.push_str(&String::from_utf8_lossy(b));
            return;
        }
    }
    out.push_str("(w");
    for p in &w.parts {
        out.push(' ');
        part(out, p);
    }
    out.push(')');
}

fn part(out: &mut String, p: &WordPart) {
    match p {
        WordPart::Literal(b) => out.push_str(&quote(b)),
        WordPart::SingleQuoted(b) => out.push_str(&format!("(sq {})", quote(b))),
        WordPart::AnsiC(b) => out.push_str(&format!("(ansi {})", quote(b))),
        WordPart::Escaped(b) => out.push_str(&format!("(esc {})", quote(b))),
        WordPart::DoubleQuoted(inner) => {
            out.push_str("(dq");
            for q in inner {
                out.push(' ');
                part(out, q);
            }
            out.push(')');
        }
        WordPart::Tilde(None) => out.push_str("(~)"),
        WordPart::Tilde(Some(u)) => out.push_str(&format!("(~ {})", quote(u))),
        WordPart::Parameter(pe) => param(out, pe),
        WordPart::CommandSubst { list, backtick } => {
            out.push_str(if *backtick { "(backtick " } else { "(subst " });
            nested(out, list);
            out.push(')');
        }
        WordPart::Arithmetic(w) => {
            out.push_str("(arith");
            for q in &w.parts {
                out.push(' ');
                part(out, q);
            }
            out.push(')');
        }
        WordPart::ProcessSubst { direction, list } => {
            out.push_str(if *direction == ProcessDirection::Read {
                "(psub< "
            } else {
                "(psub> "
            });
            nested(out, list);
            out.push(')');
        }
        WordPart::Array(items) => array(out, items),
        WordPart::BadSubstitution(text) => out.push_str(&format!("(bad {})", quote(text))),
    }
}

/// `(array item …)`, a keyed item as `([k] v)`.
fn array(out: &mut String, items: &[ArrayItem]) {
    out.push_str("(array");
    for item in items {
        out.push(' ');
        match &item.key {
            Some(key) => {
                out.push_str("([");
                word(out, key);
                out.push_str("] ");
                word(out, &item.value);
                out.push(')');
            }
            None => word(out, &item.value),
        }
    }
    out.push(')');
}

fn param(out: &mut String, pe: &ParamExpansion) {
    let mut name = pe.param.name();
    if let Parameter::Element(e) = &pe.param {
        match &e.index {
            Subscript::At => name.push_str("[@]"),
            Subscript::Star => name.push_str("[*]"),
            Subscript::Index(w) => {
                name.push('[');
                word(&mut name, w);
                name.push(']');
            }
        }
    }
    if pe.indirect {
        name.insert(0, '!');
    }
    let with_word = |out: &mut String, op: String, w: &Word| {
        out.push_str(&format!("(${{ {name} {op} "));
        word(out, w);
        out.push(')');
    };
    let c = |colon: bool| if colon { ":" } else { "" };
    match &pe.op {
        ParamOp::Plain if pe.braced => out.push_str(&format!("${{{name}}}")),
        ParamOp::Plain => out.push_str(&format!("${name}")),
        ParamOp::Length => out.push_str(&format!("(${{ {name} len)")),
        ParamOp::Default { colon, word } => with_word(out, format!("{}-", c(*colon)), word),
        ParamOp::Assign { colon, word } => with_word(out, format!("{}=", c(*colon)), word),
        ParamOp::Error { colon, word } => with_word(out, format!("{}?", c(*colon)), word),
        ParamOp::Alternative { colon, word } => with_word(out, format!("{}+", c(*colon)), word),
        ParamOp::RemovePrefix { longest, pattern } => {
            with_word(out, if *longest { "##" } else { "#" }.to_string(), pattern)
        }
        ParamOp::RemoveSuffix { longest, pattern } => {
            with_word(out, if *longest { "%%" } else { "%" }.to_string(), pattern)
        }
        ParamOp::Replace {
            mode,
            pattern,
            replacement,
        } => {
            let op = match mode {
                ReplaceMode::First => "/",
                ReplaceMode::All => "//",
                ReplaceMode::Prefix => "/#",
                ReplaceMode::Suffix => "/%",
            };
            out.push_str(&format!("(${{ {name} {op} "));
            word(out, pattern);
            out.push(' ');
            word(out, replacement);
            out.push(')');
        }
        ParamOp::Substring { offset, length } => {
            out.push_str(&format!("(${{ {name} : "));
            word(out, offset);
            if let Some(l) = length {
                out.push(' ');
                word(out, l);
            }
            out.push(')');
        }
        ParamOp::Case { upper, all } => {
            let op = match (upper, all) {
                (true, false) => "^",
                (true, true) => "^^",
                (false, false) => ",",
                (false, true) => ",,",
            };
            out.push_str(&format!("(${{ {name} {op})"));
        }
        ParamOp::Keys => out.push_str(&format!("(${{ {name} keys)")),
        ParamOp::Names { star } => out.push_str(&format!(
            "(${{ {name} names{})",
            if *star { "*" } else { "@" }
        )),
        ParamOp::Transform(c) => out.push_str(&format!("(${{ {name} @{})", *c as char)),
    }
}

/// `"…"` with `"`, `\` and non-printable bytes escaped.
fn quote(b: &[u8]) -> String {
    let mut s = String::from("\"");
    for ch in String::from_utf8_lossy(b).chars() {
        match ch {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => s.push_str(&format!("\\x{:02x}", c as u32)),
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

/// A `[[ ]]` expression: `(OP operand…)`, `(! e)`, `(and a b)`, `(or a b)`.
fn cond(out: &mut String, expr: &CondExpr) {
    match expr {
        CondExpr::Word(w) => word(out, w),
        CondExpr::Unary { op, operand } => {
            out.push('(');
            out.push_str(op);
            out.push(' ');
            word(out, operand);
            out.push(')');
        }
        CondExpr::Binary { op, left, right } => {
            out.push('(');
            out.push_str(op);
            out.push(' ');
            word(out, left);
            out.push(' ');
            word(out, right);
            out.push(')');
        }
        CondExpr::Not(inner) => {
            out.push_str("(! ");
            cond(out, inner);
            out.push(')');
        }
        CondExpr::And(a, b) | CondExpr::Or(a, b) => {
            out.push_str(if matches!(expr, CondExpr::And(..)) {
                "(and "
            } else {
                "(or "
            });
            cond(out, a);
            out.push(' ');
            cond(out, b);
            out.push(')');
        }
    }
}
