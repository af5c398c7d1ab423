//! Which simple commands may be expanded by the shell itself when they are
//! a pipeline member. bash expands every member in its own subshell, so an
//! expansion with an effect (`$((i++))`, `${x:=v}`, `$(…)`, an error that
//! ends the member) must not touch the parent. Guarantee: a member whose
//! words could change shell state or fail is expanded in a forked copy;
//! only effect-free words are expanded in the parent (so an external member
//! is spawned straight from it, without an extra shell process).

use crate::syntax::ast::*;

/// Can expanding `sc` neither change the shell's state nor fail?
pub(super) fn expansion_is_pure(sc: &SimpleCommand, nounset: bool) -> bool {
    sc.assignments.is_empty()
        && sc.words.iter().all(|w| word_is_pure(w, nounset))
        && sc.redirects.iter().all(|r| match &r.target {
            RedirTarget::Word(w) => word_is_pure(w, nounset),
            RedirTarget::HereDoc(doc) => doc.quoted || word_is_pure(&doc.body, nounset),
        })
}

fn word_is_pure(word: &Word, nounset: bool) -> bool {
    word.parts.iter().all(|p| part_is_pure(p, nounset))
}

fn part_is_pure(part: &WordPart, nounset: bool) -> bool {
    match part {
        WordPart::Literal(_)
        | WordPart::SingleQuoted(_)
        | WordPart::AnsiC(_)
        | WordPart::Escaped(_)
        | WordPart::Tilde(_) => true,
        WordPart::DoubleQuoted(parts) => parts.iter().all(|p| part_is_pure(p, nounset)),
        // These run code, may assign, or read the process they run in.
        WordPart::CommandSubst { .. }
        | WordPart::Arithmetic(_)
        | WordPart::ProcessSubst { .. }
        | WordPart::Array(_) => false,
        // Expanding it is an error.
        WordPart::BadSubstitution(_) => false,
        WordPart::Parameter(pe) => param_is_pure(pe, nounset),
    }
}

fn param_is_pure(pe: &ParamExpansion, nounset: bool) -> bool {
    // Under `set -u` an unset name is an error that ends the member.
    if nounset {
        return false;
    }
    if matches!(&pe.param, Parameter::Named(n) if n == "BASHPID") {
        return false;
    }
    // A subscript is arithmetic, which may assign; an indirect name may
    // hold one.
    let subscripted =
        matches!(&pe.param, Parameter::Element(e) if matches!(e.index, Subscript::Index(_)));
    if subscripted || pe.indirect {
        return false;
    }
    match &pe.op {
        ParamOp::Plain
        | ParamOp::Length
        | ParamOp::Case { .. }
        | ParamOp::Keys
        | ParamOp::Names { .. }
        | ParamOp::Transform(_) => true,
        ParamOp::Assign { .. } | ParamOp::Error { .. } | ParamOp::Substring { .. } => false,
        ParamOp::Default { word, .. } | ParamOp::Alternative { word, .. } => {
            word_is_pure(word, nounset)
        }
        ParamOp::RemovePrefix { pattern, .. } | ParamOp::RemoveSuffix { pattern, .. } => {
            word_is_pure(pattern, nounset)
        }
        ParamOp::Replace {
            pattern,
            replacement,
            ..
        } => word_is_pure(pattern, nounset) && word_is_pure(replacement, nounset),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_simple(text: &str) -> SimpleCommand {
        let list = crate::syntax::parse(text.as_bytes()).expect("parse");
        match &list.items[0].and_or.first.elements[0].command {
            Command::Simple(sc) => sc.clone(),
            _ => SimpleCommand {
                assignments: Vec::new(),
                words: Vec::new(),
                redirects: Vec::new(),
                span: list.items[0].and_or.first.span,
            },
        }
    }

    #[test]
    fn plain_words_and_parameters_are_pure() {
        assert!(!first_simple("echo").words.is_empty());
        assert!(expansion_is_pure(
            &first_simple("echo a \"$x\" ${y:-z} ${p%/*}"),
            false
        ));
    }

    #[test]
    fn arithmetic_substitution_and_assigning_expansions_are_not_pure() {
        for text in [
            "echo $((i++))",
            "echo $(date)",
            "echo ${x:=1}",
            "echo ${x:?gone}",
            "echo \"${x:-$(date)}\"",
            "x=1",
            "cat <<E\n$(date)\nE\n",
            "echo $BASHPID",
        ] {
            assert!(!expansion_is_pure(&first_simple(text), false), "{text}");
        }
    }

    #[test]
    fn any_parameter_under_nounset_is_not_pure() {
        assert!(!expansion_is_pure(&first_simple("echo $x"), true));
        assert!(expansion_is_pure(&first_simple("echo x"), true));
    }
}
