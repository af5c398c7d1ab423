//! A mutable walk over every node of an [`ast::List`](super::ast::List), in
//! source order. Used to fill in here-document bodies after parsing and
//! to zero spans for comparisons; it visits every span and every
//! redirection, including those inside substitutions and parameter words.

use super::ast::*;

/// Hooks called during [`walk_list`]; each defaults to doing nothing.
pub(crate) trait VisitMut {
    fn span(&mut self, _span: &mut Span) {}
    fn redirect(&mut self, _redirect: &mut Redirect) {}
}

pub(crate) fn walk_list(v: &mut impl VisitMut, list: &mut List) {
    for item in &mut list.items {
        walk_pipeline(v, &mut item.and_or.first);
        for (_, p) in &mut item.and_or.rest {
            walk_pipeline(v, p);
        }
    }
}

fn walk_pipeline(v: &mut impl VisitMut, p: &mut Pipeline) {
    v.span(&mut p.span);
    for e in &mut p.elements {
        walk_command(v, &mut e.command);
    }
}

fn walk_command(v: &mut impl VisitMut, c: &mut Command) {
    match c {
        Command::Simple(s) => {
            v.span(&mut s.span);
            for a in &mut s.assignments {
                v.span(&mut a.span);
                if let Some(index) = &mut a.index {
                    walk_word(v, index);
                }
                match &mut a.value {
                    AssignValue::Scalar(w) => walk_word(v, w),
                    AssignValue::Array(items) => walk_items(v, items),
                }
            }
            for w in &mut s.words {
                walk_word(v, w);
            }
            walk_redirects(v, &mut s.redirects);
        }
        Command::Compound(cc) => walk_compound(v, cc),
        Command::FunctionDef(f) => {
            v.span(&mut f.span);
            walk_compound(v, &mut f.body);
        }
    }
}

fn walk_compound(v: &mut impl VisitMut, cc: &mut CompoundCommand) {
    v.span(&mut cc.span);
    match &mut cc.kind {
        CompoundKind::BraceGroup(l) | CompoundKind::Subshell(l) => walk_list(v, l),
        CompoundKind::If {
            branches,
            else_body,
        } => {
            for (c, b) in branches {
                walk_list(v, c);
                walk_list(v, b);
            }
            if let Some(e) = else_body {
                walk_list(v, e);
            }
        }
        CompoundKind::Loop {
            condition, body, ..
        } => {
            walk_list(v, condition);
            walk_list(v, body);
        }
        CompoundKind::For { words, body, .. } => {
            for w in words.iter_mut().flatten() {
                walk_word(v, w);
            }
            walk_list(v, body);
        }
        CompoundKind::Case { subject, arms } => {
            walk_word(v, subject);
            for arm in arms {
                for p in &mut arm.patterns {
                    walk_word(v, p);
                }
                walk_list(v, &mut arm.body);
            }
        }
        CompoundKind::Arithmetic(word) => walk_word(v, word),
        CompoundKind::Conditional(expr) => walk_cond(v, expr),
        CompoundKind::ArithFor(arith_for) => {
            let ArithForLoop {
                init,
                condition,
                step,
                body,
            } = &mut **arith_for;
            walk_word(v, init);
            walk_word(v, condition);
            walk_word(v, step);
            walk_list(v, body);
        }
    }
    walk_redirects(v, &mut cc.redirects);
}

fn walk_cond(v: &mut impl VisitMut, expr: &mut CondExpr) {
    match expr {
        CondExpr::Word(word) | CondExpr::Unary { operand: word, .. } => walk_word(v, word),
        CondExpr::Binary { left, right, .. } => {
            walk_word(v, left);
            walk_word(v, right);
        }
        CondExpr::Not(inner) => walk_cond(v, inner),
        CondExpr::And(a, b) | CondExpr::Or(a, b) => {
            walk_cond(v, a);
            walk_cond(v, b);
        }
    }
}

fn walk_redirects(v: &mut impl VisitMut, redirects: &mut [Redirect]) {
    for r in redirects {
        v.redirect(r);
        v.span(&mut r.span);
        match &mut r.target {
            RedirTarget::Word(w) => walk_word(v, w),
            RedirTarget::HereDoc(h) => walk_word(v, &mut h.body),
        }
    }
}

pub(crate) fn walk_word(v: &mut impl VisitMut, w: &mut Word) {
    v.span(&mut w.span);
    walk_parts(v, &mut w.parts);
}

fn walk_parts(v: &mut impl VisitMut, parts: &mut [WordPart]) {
    for part in parts {
        match part {
            WordPart::DoubleQuoted(inner) => walk_parts(v, inner),
            WordPart::Parameter(p) => walk_param(v, p),
            WordPart::CommandSubst { list, .. } | WordPart::ProcessSubst { list, .. } => {
                walk_list(v, list)
            }
            WordPart::Arithmetic(w) => walk_word(v, w),
            WordPart::Array(items) => walk_items(v, items),
            WordPart::BadSubstitution(_)
            | WordPart::Literal(_)
            | WordPart::SingleQuoted(_)
            | WordPart::AnsiC(_)
            | WordPart::Escaped(_)
            | WordPart::Tilde(_) => {}
        }
    }
}

fn walk_items(v: &mut impl VisitMut, items: &mut [ArrayItem]) {
    for item in items {
        if let Some(key) = &mut item.key {
            walk_word(v, key);
        }
        walk_word(v, &mut item.value);
    }
}

fn walk_param(v: &mut impl VisitMut, p: &mut ParamExpansion) {
    v.span(&mut p.span);
    if let Parameter::Element(e) = &mut p.param {
        if let Subscript::Index(w) = &mut e.index {
            walk_word(v, w);
        }
    }
    match &mut p.op {
        ParamOp::Plain
        | ParamOp::Length
        | ParamOp::Case { .. }
        | ParamOp::Keys
        | ParamOp::Names { .. }
        | ParamOp::Transform(_) => {}
        ParamOp::Default { word, .. }
        | ParamOp::Assign { word, .. }
        | ParamOp::Error { word, .. }
        | ParamOp::Alternative { word, .. } => walk_word(v, word),
        ParamOp::RemovePrefix { pattern, .. } | ParamOp::RemoveSuffix { pattern, .. } => {
            walk_word(v, pattern)
        }
        ParamOp::Replace {
            pattern,
            replacement,
            ..
        } => {
            walk_word(v, pattern);
            walk_word(v, replacement);
        }
        ParamOp::Substring { offset, length } => {
            walk_word(v, offset);
            if let Some(l) = length {
                walk_word(v, l);
            }
        }
    }
}
