//! Word expansion in POSIX order (XCU 2.6): brace expansion of unquoted
//! literal text, tilde, parameter, command substitution (run by this
//! interpreter), arithmetic, field splitting on `IFS`, pathname expansion,
//! quote removal. Nothing found in a variable's value is ever parsed as
//! shell text; only arithmetic evaluates it, as numbers.

use super::arith::{self, ArithEnv};
use super::brace::{self, Item};
use super::pattern::{self, PatByte};
use super::quote::up_to_nul;
use super::{Flow, Shell};
use crate::syntax::ast::*;
use crate::system::System;
use std::path::Path;

/// Where a byte of an expanded word came from: it decides splitting and globbing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Q {
    /// Unquoted literal text: globbed, not split.
    Lit,
    /// Unquoted expansion result: split and globbed.
    Exp,
    /// Quoted: neither.
    Quoted,
}

#[derive(Debug, Clone, Default)]
struct Field {
    bytes: Vec<u8>,
    q: Vec<Q>,
    /// Where a quoted part began (offsets into `bytes`, ascending): the
    /// field exists even if empty, and splitting keeps an empty one at
    /// its place (`""$A""` with blanks around `A` keeps both ends).
    quoted_at: Vec<usize>,
}

impl Field {
    /// A quoted part was present, so the field exists even if empty.
    fn forced(&self) -> bool {
        !self.quoted_at.is_empty()
    }

    fn quoted_at(&self, i: usize) -> bool {
        self.quoted_at.binary_search(&i).is_ok()
    }
}

#[derive(Debug, Default)]
struct Builder {
    done: Vec<Field>,
    cur: Field,
    /// Where no field is split (an assignment, `case`, `[[ ]]`): what
    /// joins the values of an unquoted `$*` (the first byte of IFS).
    star_joiner: Option<Vec<u8>>,
}

impl Builder {
    fn push(&mut self, bytes: &[u8], q: Q) {
        self.cur.bytes.extend_from_slice(bytes);
        self.cur.q.extend(std::iter::repeat_n(q, bytes.len()));
    }

    fn force(&mut self) {
        let at = self.cur.bytes.len();
        if self.cur.quoted_at.last() != Some(&at) {
            self.cur.quoted_at.push(at);
        }
    }

    /// A field boundary from `"$@"`.
    fn break_field(&mut self) {
        let cur = std::mem::take(&mut self.cur);
        self.done.push(cur);
    }

    fn fields(mut self) -> Vec<Field> {
        let cur = std::mem::take(&mut self.cur);
        self.done.push(cur);
        self.done
    }

    /// Everything joined as one string (fields separated by a space).
    fn joined(self) -> Vec<u8> {
        let fields = self.fields();
        let parts: Vec<Vec<u8>> = fields.into_iter().map(|f| f.bytes).collect();
        parts.join(&b' ')
    }
}

fn q_of(in_dq: bool) -> Q {
    if in_dq { Q::Quoted } else { Q::Exp }
}

/// `$@`/`$*`/`${a[@]}`/`${a[*]}`: whether it joins (`*`) and the array
/// (`None` for the positional parameters); `None` for any other parameter.
type ListParam<'p> = Option<(bool, Option<&'p String>)>;

/// The list a parameter names, if it names one.
fn list_of(param: &Parameter) -> ListParam<'_> {
    match param {
        Parameter::Special(SpecialParam::AtSign) => Some((false, None)),
        Parameter::Special(SpecialParam::Star) => Some((true, None)),
        Parameter::Element(e) if e.index == Subscript::At => Some((false, Some(&e.name))),
        Parameter::Element(e) if e.index == Subscript::Star => Some((true, Some(&e.name))),
        _ => None,
    }
}

/// The characters of `bytes` in a UTF-8 locale, each as its bytes; a byte
/// that is part of no character stands for itself.
fn characters(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes.utf8_chunks().flat_map(|chunk| {
        let valid = chunk.valid();
        valid
            .char_indices()
            .map(move |(at, c)| &valid.as_bytes()[at..at + c.len_utf8()])
            .chain(chunk.invalid().chunks(1))
    })
}

/// The name bytes (letters, digits, `_`) that literal text right after an
/// item brings.
fn name_bytes_after(items: &[Item<'_>]) -> Vec<u8> {
    items
        .iter()
        .map_while(|item| match item {
            Item::Char(c) if c.is_ascii_alphanumeric() || *c == b'_' => Some(*c),
            _ => None,
        })
        .collect()
}

/// `$name` (unbraced, plain) read on into the name bytes `more` that brace
/// expansion put after it; `None` when it does not read on.
fn joined_name(pe: &ParamExpansion, more: &[u8]) -> Option<ParamExpansion> {
    let Parameter::Named(name) = &pe.param else {
        return None;
    };
    if more.is_empty() || pe.braced || pe.indirect || pe.op != ParamOp::Plain {
        return None;
    }
    Some(ParamExpansion {
        param: Parameter::Named(format!("{name}{}", String::from_utf8_lossy(more))),
        ..pe.clone()
    })
}

impl Shell<'_> {
    /// Expand command words into fields (all expansions, splitting, globs).
    pub(super) fn expand_words(&mut self, words: &[Word]) -> Result<Vec<Vec<u8>>, Flow> {
        let mut out = Vec::new();
        for word in words {
            self.expand_word_into(word, &mut out)?;
        }
        Ok(out)
    }

    fn expand_word_into(&mut self, word: &Word, out: &mut Vec<Vec<u8>>) -> Result<(), Flow> {
        let has_brace = word
            .parts
            .iter()
            .any(|p| matches!(p, WordPart::Literal(bytes) if bytes.contains(&b'{')));
        if !has_brace {
            // Literal text goes in whole: a character at a time is only
            // for brace expansion (an item per byte is 16 bytes a byte).
            let mut b = Builder::default();
            for part in &word.parts {
                match part {
                    WordPart::Literal(bytes) => b.push(bytes, Q::Lit),
                    other => self.expand_part(other, false, &mut b)?,
                }
            }
            return self.split_and_glob(b, out);
        }
        let mut items = Vec::new();
        for part in &word.parts {
            match part {
                WordPart::Literal(bytes) => items.extend(bytes.iter().map(|&b| Item::Char(b))),
                other => items.push(Item::Part(other)),
            }
        }
        let variants = match brace::expand(&items) {
            Ok(variants) => variants,
            Err(brace::TooManyWords) => {
                self.error(&format!(
                    "{}: brace expansion gives more than {} words; not supported by guard-sh",
                    crate::guard::words::describe(word),
                    brace::MAX_WORDS
                ));
                return Err(Flow::Abort(1));
            }
        };
        for variant in variants {
            let mut b = Builder::default();
            // Tilde expansion follows brace expansion: a word it made that
            // starts with `~` (`{a,~}/x`, `~{/src,root}`) has its prefix.
            let mut items = variant.as_slice();
            if let Some((len, user)) = brace::tilde_prefix(items) {
                let home = self.tilde(user.as_deref());
                b.push(&home, Q::Quoted);
                items = &items[len..];
            }
            let mut at = 0;
            while at < items.len() {
                match &items[at] {
                    Item::Char(c) => b.push(&[*c], Q::Lit),
                    Item::Part(part @ WordPart::Parameter(pe)) => {
                        // bash expands braces in the text before it reads
                        // names: `{$a,b}_c` gives `$a_c`, the name `a_c`.
                        let more = name_bytes_after(&items[at + 1..]);
                        match joined_name(pe, &more) {
                            Some(longer) => {
                                self.expand_part(
                                    &WordPart::Parameter(Box::new(longer)),
                                    false,
                                    &mut b,
                                )?;
                                at += more.len();
                            }
                            None => self.expand_part(part, false, &mut b)?,
                        }
                    }
                    Item::Part(part) => self.expand_part(part, false, &mut b)?,
                }
                at += 1;
            }
            self.split_and_glob(b, out)?;
        }
        Ok(())
    }

    /// The fields a word's expansion built, split and globbed into `out`.
    fn split_and_glob(&mut self, b: Builder, out: &mut Vec<Vec<u8>>) -> Result<(), Flow> {
        for field in b.fields() {
            for piece in self.split_field(field) {
                self.glob_field(piece, out)?;
            }
        }
        Ok(())
    }

    /// Expand to one string: no splitting, no globbing (assignment values,
    /// here-documents, `case` subjects, redirection targets of here-strings).
    pub(super) fn expand_string(&mut self, word: &Word) -> Result<Vec<u8>, Flow> {
        let mut b = Builder {
            star_joiner: Some(self.ifs_first()),
            ..Builder::default()
        };
        for part in &word.parts {
            self.expand_part(part, false, &mut b)?;
        }
        Ok(b.joined())
    }

    /// Expand a pattern word, keeping which bytes were quoted.
    pub(super) fn expand_pattern(&mut self, word: &Word) -> Result<Vec<PatByte>, Flow> {
        let mut b = Builder::default();
        for part in &word.parts {
            self.expand_part(part, false, &mut b)?;
        }
        let mut out = Vec::new();
        for (i, field) in b.fields().into_iter().enumerate() {
            if i > 0 {
                out.push((b' ', true));
            }
            out.extend(
                field
                    .bytes
                    .iter()
                    .zip(field.q.iter())
                    .map(|(&byte, &q)| (byte, q == Q::Quoted)),
            );
        }
        Ok(out)
    }

    fn expand_part(&mut self, part: &WordPart, in_dq: bool, b: &mut Builder) -> Result<(), Flow> {
        match part {
            WordPart::Literal(bytes) => b.push(bytes, if in_dq { Q::Quoted } else { Q::Lit }),
            WordPart::SingleQuoted(bytes) | WordPart::AnsiC(bytes) | WordPart::Escaped(bytes) => {
                b.push(bytes, Q::Quoted);
                b.force();
            }
            WordPart::DoubleQuoted(parts) => {
                // `"$@"` with no positional parameters is no field at all.
                // So is `"${a[@]}"` of an empty array.
                let only_empty_at = !parts.is_empty()
                    && parts.iter().all(|p| {
                        let WordPart::Parameter(pe) = p else {
                            return false;
                        };
                        let per_element = !pe.indirect
                            && matches!(
                                pe.op,
                                ParamOp::Plain
                                    | ParamOp::RemovePrefix { .. }
                                    | ParamOp::RemoveSuffix { .. }
                                    | ParamOp::Replace { .. }
                                    | ParamOp::Case { .. }
                                    | ParamOp::Substring { .. }
                                    | ParamOp::Keys
                                    | ParamOp::Transform(b'Q' | b'E' | b'U' | b'u' | b'L' | b'k')
                                    // Not taken when there is no element.
                                    | ParamOp::Alternative { .. }
                            );
                        per_element
                            && match &pe.param {
                                Parameter::Special(SpecialParam::AtSign) => {
                                    self.positional.is_empty()
                                }
                                Parameter::Element(e) if e.index == Subscript::At => {
                                    self.array_is_empty(&e.name)
                                }
                                _ => false,
                            }
                    });
                if !only_empty_at {
                    b.force();
                }
                for inner in parts {
                    self.expand_part(inner, true, b)?;
                }
            }
            WordPart::Tilde(user) => {
                let home = self.tilde(user.as_deref());
                b.push(&home, Q::Quoted);
            }
            WordPart::Parameter(expansion) => self.expand_param(expansion, in_dq, b)?,
            WordPart::CommandSubst { list, .. } => {
                let mut output = self.command_subst(list)?;
                if output.contains(&0) {
                    // bash's strings cannot hold a NUL: it drops them, once warned.
                    self.error("warning: command substitution: ignored null byte in input");
                    output.retain(|&b| b != 0);
                }
                while output.last() == Some(&b'\n') {
                    output.pop();
                }
                b.push(&output, q_of(in_dq));
            }
            WordPart::Arithmetic(word) => {
                let text = self.expand_string(word)?;
                let n = self.arith(&text)?;
                b.push(n.to_string().as_bytes(), q_of(in_dq));
            }
            WordPart::ProcessSubst { direction, list } => {
                let path = self.process_subst(*direction, list)?;
                b.push(&path, Q::Quoted);
            }
            // Only a declaration builtin's operand holds one; that command
            // expands it itself (`expand_simple`).
            WordPart::Array(_) => {}
            WordPart::BadSubstitution(text) => {
                self.error(&format!("{}: bad substitution", super::lossy(text)));
                return Err(Flow::Abort(1));
            }
        }
        Ok(())
    }

    /// Evaluate arithmetic text; an error aborts the line like bash.
    pub(super) fn arith(&mut self, text: &[u8]) -> Result<i64, Flow> {
        match arith::eval(self, text) {
            Ok(n) => Ok(n),
            Err(error) => match self.arith_fatal(&error) {
                Some(flow) => Err(flow),
                None => {
                    self.error(&error.to_string());
                    Err(Flow::Abort(1))
                }
            },
        }
    }

    /// An arithmetic error that ends more than its command: an unset
    /// variable under `set -u` (as `$name` would), or a denial (the line
    /// stops and the audit log records it). `None` for any other.
    pub(super) fn arith_fatal(&mut self, error: &arith::ArithError) -> Option<Flow> {
        match error {
            arith::ArithError::Unbound(_) => {
                self.error(&error.to_string());
                Some(self.expansion_error())
            }
            arith::ArithError::Denied(deny) => Some(self.deny(deny, &[])),
            arith::ArithError::Invalid(_) => None,
        }
    }

    fn tilde(&mut self, user: Option<&[u8]>) -> Vec<u8> {
        match user {
            None => self
                .vars
                .get("HOME")
                .map(<[u8]>::to_vec)
                .unwrap_or_else(|| home_of(&*self.sys, None).unwrap_or_else(|| b"~".to_vec())),
            Some(b"+") => self.vars.get("PWD").unwrap_or(b"~+").to_vec(),
            Some(b"-") => self.vars.get("OLDPWD").unwrap_or(b"~-").to_vec(),
            Some(name) => home_of(&*self.sys, Some(name)).unwrap_or_else(|| {
                let mut t = b"~".to_vec();
                t.extend_from_slice(name);
                t
            }),
        }
    }

    /// The value of a parameter; `None` if unset.
    pub(super) fn param_value(&mut self, param: &Parameter) -> Option<Vec<u8>> {
        match param {
            Parameter::Named(name) => self.named_value(name),
            // Read through `param_value_of`, which evaluates the subscript.
            Parameter::Element(_) => None,
            Parameter::Positional(0) => Some(self.arg0.clone()),
            Parameter::Positional(n) => self.positional.get(*n as usize - 1).cloned(),
            Parameter::Special(special) => match special {
                SpecialParam::Status => Some(self.status.to_string().into_bytes()),
                SpecialParam::Count => Some(self.positional.len().to_string().into_bytes()),
                SpecialParam::AtSign | SpecialParam::Star => {
                    let sep = self.ifs_first();
                    Some(self.positional.join(sep.as_slice()))
                }
                SpecialParam::Pid => Some(self.shell_pid.to_string().into_bytes()),
                SpecialParam::LastBackground => {
                    self.jobs.last_bg.map(|p| p.to_string().into_bytes())
                }
                SpecialParam::Flags => Some(self.flags_string().into_bytes()),
            },
        }
    }

    fn named_value(&mut self, name: &str) -> Option<Vec<u8>> {
        match name {
            "PIPESTATUS" => {
                return Some(
                    self.pipestatus
                        .first()
                        .copied()
                        .unwrap_or(0)
                        .to_string()
                        .into_bytes(),
                );
            }
            "RANDOM" => {
                let mut bytes = [0u8; 2];
                self.sys.random_bytes(&mut bytes);
                return Some(
                    (u16::from_ne_bytes(bytes) & 0x7fff)
                        .to_string()
                        .into_bytes(),
                );
            }
            "LINENO" => return Some(self.position.lineno.to_string().into_bytes()),
            // Whole seconds since the shell started (assigning to it is
            // not supported: the count goes on).
            "SECONDS" => return Some(self.started.elapsed().as_secs().to_string().into_bytes()),
            // bash's array's first element: the function being run.
            "FUNCNAME" => return self.func_names.last().map(|n| n.as_bytes().to_vec()),
            "PPID" => return Some(self.sys.parent_pid().to_string().into_bytes()),
            "UID" => return Some(self.sys.real_user_id().to_string().into_bytes()),
            "EUID" => return Some(self.sys.effective_ids().0.to_string().into_bytes()),
            "BASHPID" => return Some(self.sys.getpid().to_string().into_bytes()),
            "BASH_SUBSHELL" => {
                let level = self.depth.copies - self.depth.copies_before_shell;
                return Some(level.to_string().into_bytes());
            }
            _ => {}
        }
        self.vars.get(name).map(<[u8]>::to_vec)
    }

    fn ifs(&self) -> Vec<u8> {
        match self.vars.get("IFS") {
            Some(v) => v.to_vec(),
            None => b" \t\n".to_vec(),
        }
    }

    fn ifs_first(&self) -> Vec<u8> {
        match self.vars.get("IFS") {
            Some(v) => v.first().map(|b| vec![*b]).unwrap_or_default(),
            None => b" ".to_vec(),
        }
    }

    /// `$-`
    pub(super) fn flags_string(&self) -> String {
        let mut s = String::new();
        if self.opts.allexport {
            s.push('a');
        }
        if self.opts.errexit {
            s.push('e');
        }
        if self.opts.noglob {
            s.push('f');
        }
        s.push('h');
        if self.interactive {
            s.push('i');
            // Job control needs the terminal.
            if self.sys.isatty(0) {
                s.push('m');
            }
        }
        if self.opts.nounset {
            s.push('u');
        }
        if self.opts.verbose {
            s.push('v');
        }
        if self.opts.xtrace {
            s.push('x');
        }
        s.push('B');
        if self.opts.noclobber {
            s.push('C');
        }
        if self.interactive {
            s.push('H');
        }
        if self.command_mode {
            s.push('c');
        } else if !self.running_script {
            s.push('s');
        }
        s
    }

    fn expand_param(
        &mut self,
        pe: &ParamExpansion,
        in_dq: bool,
        b: &mut Builder,
    ) -> Result<(), Flow> {
        if pe.indirect {
            let target = self.indirect_target(pe)?;
            return self.expand_param(&target, in_dq, b);
        }
        let list = list_of(&pe.param);
        if self.expand_whole_list(pe, list, in_dq, b)? {
            return Ok(());
        }
        let value = self.param_value_of(pe)?;
        let unset = value.is_none();
        let empty = value.as_ref().is_none_or(|v| v.is_empty());
        let is_null = |colon: bool| unset || (colon && empty);
        let q = q_of(in_dq);
        match &pe.op {
            ParamOp::Plain => {
                let Some(v) = value else {
                    return self.unbound(pe);
                };
                b.push(&v, q);
            }
            ParamOp::Length => {
                let n = self.param_length(pe, list, value.as_deref())?;
                b.push(n.to_string().as_bytes(), q);
            }
            ParamOp::Default { colon, word } => {
                if is_null(*colon) {
                    self.expand_inline(word, in_dq, b)?;
                } else if let Some(v) = value {
                    b.push(&v, q);
                }
            }
            ParamOp::Alternative { colon, word } => {
                if !is_null(*colon) {
                    self.expand_inline(word, in_dq, b)?;
                }
            }
            ParamOp::Assign { colon, word } if is_null(*colon) => {
                let new = self.assign_default(pe, list.is_some(), word)?;
                b.push(&new, q);
            }
            ParamOp::Error { colon, word } if is_null(*colon) => {
                return Err(self.null_parameter(pe, unset, word));
            }
            ParamOp::Assign { .. } | ParamOp::Error { .. } => {
                if let Some(v) = value {
                    b.push(&v, q);
                }
            }
            ParamOp::Transform(c) if matches!(c, b'a' | b'A') => {
                let name = match &pe.param {
                    Parameter::Named(n) => n.clone(),
                    Parameter::Element(e) => e.name.clone(),
                    _ => String::new(),
                };
                let text = self.describe_variable(&name, *c == b'A', value.is_some());
                b.push(&text, q);
            }
            _ => {
                let Some(v) = value else {
                    if self.opts.nounset {
                        return self.unbound(pe);
                    }
                    return Ok(());
                };
                let result = self.transform(&pe.op, v)?;
                b.push(&result, q);
            }
        }
        Ok(())
    }

    /// `${!prefix@}`, `${!a[@]}` and the operators applied to each element
    /// of `$@` or `${a[@]}`, which expand to a list; `false` when `pe` is
    /// not one of them (it expands to one value).
    fn expand_whole_list(
        &mut self,
        pe: &ParamExpansion,
        list: ListParam<'_>,
        in_dq: bool,
        b: &mut Builder,
    ) -> Result<bool, Flow> {
        match (&pe.op, list) {
            (ParamOp::Names { star }, _) => {
                let names = self.names_with_prefix(&pe.param.name());
                if !self.joined_without_ifs(&names, *star, in_dq, b"", b) {
                    self.push_list(&names, *star, in_dq, b);
                }
                Ok(true)
            }
            (ParamOp::Keys, Some((star, Some(name)))) => {
                let keys = self.array_keys(name);
                if !self.joined_without_ifs(&keys, star, in_dq, b" ", b) {
                    self.push_list(&keys, star, in_dq, b);
                }
                Ok(true)
            }
            (
                ParamOp::Default { colon, word } | ParamOp::Alternative { colon, word },
                Some((star, array)),
            ) => {
                let values = self.list_elements(array).unwrap_or_default();
                // Unset when it has no elements; null (`:`) when its
                // elements joined are empty: by the first byte of IFS for
                // a quoted `*`, else by a space (bash).
                let joiner = if star && in_dq {
                    self.ifs_first()
                } else {
                    b" ".to_vec()
                };
                let null =
                    values.is_empty() || (*colon && values.join(joiner.as_slice()).is_empty());
                match (&pe.op, null) {
                    (ParamOp::Default { .. }, true) | (ParamOp::Alternative { .. }, false) => {
                        self.expand_inline(word, in_dq, b)?;
                    }
                    (ParamOp::Default { .. }, false) => self.push_list(&values, star, in_dq, b),
                    _ => {}
                }
                Ok(true)
            }
            (_, Some((star, array))) => {
                let Some(values) = self.list_elements(array) else {
                    return Ok(false);
                };
                match self.list_op(pe, array.map(String::as_str), values)? {
                    Some(out) => {
                        self.push_list(&out, star, in_dq, b);
                        Ok(true)
                    }
                    None => Ok(false),
                }
            }
            _ => Ok(false),
        }
    }

    /// The elements of the list a `[@]`/`[*]` parameter names: the
    /// positional parameters (`None`) or an array's; `None` when that
    /// variable is unset.
    fn list_elements(&mut self, array: Option<&String>) -> Option<Vec<Vec<u8>>> {
        match array {
            None => Some(self.positional.clone()),
            Some(name) => self.array_values(name),
        }
    }

    /// `${#p}`: the number of elements of a list, else the characters of
    /// the value (bytes outside a UTF-8 locale); unset is 0, an error only
    /// under `set -u`.
    fn param_length(
        &mut self,
        pe: &ParamExpansion,
        list: ListParam<'_>,
        value: Option<&[u8]>,
    ) -> Result<usize, Flow> {
        if let Some((_, array)) = list {
            return Ok(match array {
                None => self.positional.len(),
                Some(name) => self.array_values(name).map_or(0, |v| v.len()),
            });
        }
        let Some(v) = value else {
            self.unbound(pe)?;
            return Ok(0);
        };
        // In a UTF-8 locale each byte that is part of no character counts
        // as one, as bash counts it.
        Ok(match self.utf8_locale() {
            true => characters(v).count(),
            false => v.len(),
        })
    }

    /// `${p=word}` on a null `p`: assign the expanded word to a variable
    /// or an element, and return it.
    fn assign_default(
        &mut self,
        pe: &ParamExpansion,
        is_list: bool,
        word: &Word,
    ) -> Result<Vec<u8>, Flow> {
        let new = self.expand_string(word)?;
        match &pe.param {
            Parameter::Named(name) => self.assign(name, new.clone())?,
            Parameter::Element(e) if !is_list => {
                let key = self.subscript_key(&e.name, &e.index)?;
                if let Some(key) = key {
                    self.assign_element(&e.name, key, new.clone(), false)?;
                }
            }
            param => {
                self.error(&format!(
                    "${}: cannot assign in this way",
                    param_text(param)
                ));
                return Err(Flow::Abort(1));
            }
        }
        Ok(new)
    }

    /// `${p?word}` on a null `p`: print the word (or bash's default
    /// message) and stop as an expansion error does.
    fn null_parameter(&mut self, pe: &ParamExpansion, unset: bool, word: &Word) -> Flow {
        let message = match self.expand_string(word) {
            Ok(message) => message,
            Err(flow) => return flow,
        };
        let message = if !message.is_empty() {
            String::from_utf8_lossy(&message).into_owned()
        } else if unset {
            "parameter not set".to_string()
        } else {
            "parameter null or not set".to_string()
        };
        self.error(&format!("{}: {message}", self.param_display(pe)));
        self.expansion_error()
    }

    /// The scalar value of a parameter, evaluating an element's subscript;
    /// `$@`/`${a[@]}` joined. `None` if unset.
    fn param_value_of(&mut self, pe: &ParamExpansion) -> Result<Option<Vec<u8>>, Flow> {
        let Parameter::Element(e) = &pe.param else {
            return Ok(self.param_value(&pe.param));
        };
        match self.subscript_key(&e.name, &e.index)? {
            Some(key) => Ok(self.element(&e.name, &key)),
            None => {
                let sep = self.ifs_first();
                Ok(self
                    .array_values(&e.name)
                    .filter(|v| !v.is_empty())
                    .map(|v| v.join(sep.as_slice())))
            }
        }
    }

    /// `${!x…}`: the expansion of the parameter `x`'s value names, with
    /// the same operator.
    fn indirect_target(&mut self, pe: &ParamExpansion) -> Result<ParamExpansion, Flow> {
        let direct = ParamExpansion {
            indirect: false,
            op: ParamOp::Plain,
            ..pe.clone()
        };
        let Some(text) = self.param_value_of(&direct)? else {
            self.error(&format!("{}: invalid indirect expansion", pe.param.name()));
            return Err(Flow::Abort(1));
        };
        let param = match text.as_slice() {
            [c] if !c.is_ascii_alphanumeric() && *c != b'_' => {
                let special = match c {
                    b'?' => Some(SpecialParam::Status),
                    b'#' => Some(SpecialParam::Count),
                    b'@' => Some(SpecialParam::AtSign),
                    b'*' => Some(SpecialParam::Star),
                    b'$' => Some(SpecialParam::Pid),
                    b'!' => Some(SpecialParam::LastBackground),
                    b'-' => Some(SpecialParam::Flags),
                    _ => None,
                };
                special.map(Parameter::Special)
            }
            t if !t.is_empty() && t.iter().all(u8::is_ascii_digit) => std::str::from_utf8(t)
                .ok()
                .and_then(|t| t.parse().ok())
                .map(Parameter::Positional),
            t => match super::arrays::split_reference(t) {
                Some((name, None)) => Some(Parameter::Named(name.to_string())),
                Some((name, Some(sub))) => {
                    let name = name.to_string();
                    let index = match sub {
                        b"@" => Subscript::At,
                        b"*" => Subscript::Star,
                        sub => {
                            let sub = sub.to_vec();
                            let text = self.runtime_subscript(&sub)?;
                            Subscript::Index(Word {
                                parts: vec![WordPart::SingleQuoted(text)],
                                span: pe.span,
                            })
                        }
                    };
                    Some(Parameter::Element(Box::new(Element { name, index })))
                }
                None => None,
            },
        };
        let Some(param) = param else {
            self.error(&format!(
                "{}: invalid variable name",
                String::from_utf8_lossy(&text)
            ));
            return Err(Flow::Abort(1));
        };
        // bash tests a list reached this way (`ref='a[@]'`) for being
        // unset only: `:-` and the other `:` tests act as without `:`.
        let mut op = pe.op.clone();
        if list_of(&param).is_some() {
            if let ParamOp::Default { colon, .. }
            | ParamOp::Assign { colon, .. }
            | ParamOp::Error { colon, .. }
            | ParamOp::Alternative { colon, .. } = &mut op
            {
                *colon = false;
            }
        }
        Ok(ParamExpansion {
            param,
            indirect: false,
            op,
            ..pe.clone()
        })
    }

    /// Names of set variables starting with `prefix`, sorted (`${!p@}`).
    fn names_with_prefix(&self, prefix: &str) -> Vec<Vec<u8>> {
        self.vars
            .sorted()
            .into_iter()
            .filter(|(n, var)| n.starts_with(prefix) && !var.invisible)
            .map(|(n, _)| n.as_bytes().to_vec())
            .collect()
    }

    /// A list (`$@`, `${a[@]}`) with a per-element operator; `None` for
    /// operators that treat the list as one value. `array`: the array's
    /// name, `None` for the positional parameters.
    fn list_op(
        &mut self,
        pe: &ParamExpansion,
        array: Option<&str>,
        values: Vec<Vec<u8>>,
    ) -> Result<Option<Vec<Vec<u8>>>, Flow> {
        match &pe.op {
            ParamOp::Plain => Ok(Some(values)),
            ParamOp::RemovePrefix { .. }
            | ParamOp::RemoveSuffix { .. }
            | ParamOp::Replace { .. }
            | ParamOp::Case { .. } => {
                let mut out = Vec::new();
                for v in values {
                    out.push(self.transform(&pe.op, v)?);
                }
                Ok(Some(out))
            }
            ParamOp::Transform(c @ (b'K' | b'k')) => {
                let keys = match array {
                    Some(name) => self.array_keys(name),
                    None => (1..=values.len())
                        .map(|n| n.to_string().into_bytes())
                        .collect(),
                };
                let assoc = array.is_some_and(|n| self.is_assoc(n));
                let mut out = Vec::new();
                for (k, v) in keys.into_iter().zip(values) {
                    if *c == b'k' {
                        out.push(k);
                        out.push(v);
                    } else {
                        let key = if assoc {
                            super::quote::quote_key(&k)
                        } else {
                            String::from_utf8_lossy(&k).into_owned()
                        };
                        let mut pair =
                            format!("{key} {}", super::quote::value_text(&v)).into_bytes();
                        if assoc {
                            pair.push(b' ');
                        }
                        out.push(pair);
                    }
                }
                if *c == b'K' && assoc {
                    // bash gives an associative array's pairs as one word.
                    let mut joined: Vec<u8> = Vec::new();
                    for pair in out {
                        joined.extend_from_slice(&pair);
                    }
                    return Ok(Some(vec![joined]));
                }
                Ok(Some(out))
            }
            ParamOp::Transform(b'a' | b'A') => Ok(None),
            ParamOp::Transform(_) => {
                let mut out = Vec::new();
                for v in values {
                    out.push(self.transform(&pe.op, v)?);
                }
                Ok(Some(out))
            }
            ParamOp::Substring { offset, length } => {
                let off = self.arith_word(offset)?;
                // Where the slice starts in `items`; an offset before the
                // first item gives nothing (before the length is read), as
                // in bash.
                let (items, start) = match array {
                    None => {
                        // `${@:1:2}`: offset 0 is $0.
                        let mut all = vec![self.arg0.clone()];
                        all.extend(values);
                        let count = all.len() as i64;
                        (all, substring_start(off, count).map(|s| s as usize))
                    }
                    Some(name) if self.is_assoc(name) => {
                        let count = values.len() as i64;
                        (values, substring_start(off, count).map(|s| s as usize))
                    }
                    Some(name) => {
                        // By index: from the first element at or after the
                        // offset (a negative one counts from the end).
                        let keys: Vec<i64> = self
                            .array_keys(name)
                            .iter()
                            .filter_map(|k| std::str::from_utf8(k).ok()?.parse().ok())
                            .collect();
                        let last = keys.last().copied().unwrap_or(-1);
                        let from = if off < 0 { last + 1 + off } else { off };
                        let start = (from >= 0)
                            .then(|| keys.iter().position(|&k| k >= from).unwrap_or(keys.len()));
                        (values, start)
                    }
                };
                let Some(start) = start else {
                    return Ok(Some(Vec::new()));
                };
                let rest = items.into_iter().skip(start);
                match length {
                    Some(len) => {
                        let len = self.arith_word(len)?;
                        if len < 0 {
                            self.error(&format!("{len}: substring expression < 0"));
                            return Err(Flow::Abort(1));
                        }
                        Ok(Some(
                            rest.take(usize::try_from(len).unwrap_or(usize::MAX))
                                .collect(),
                        ))
                    }
                    None => Ok(Some(rest.collect())),
                }
            }
            _ => Ok(None),
        }
    }

    /// Unquoted `${!prefix*}` and `${!a[*]}` with an empty IFS: bash joins
    /// them into one field, the names by nothing and the keys by a space
    /// (not as it keeps `$*`'s elements apart). Whether it did.
    fn joined_without_ifs(
        &mut self,
        values: &[Vec<u8>],
        star: bool,
        in_dq: bool,
        joiner: &[u8],
        b: &mut Builder,
    ) -> bool {
        let applies =
            star && !in_dq && b.star_joiner.is_none() && self.vars.get("IFS") == Some(b"");
        if applies && !values.is_empty() {
            b.push(&values.join(joiner), Q::Exp);
        }
        applies
    }

    fn push_list(&mut self, values: &[Vec<u8>], star: bool, in_dq: bool, b: &mut Builder) {
        if in_dq && star {
            let sep = self.ifs_first();
            b.push(&values.join(sep.as_slice()), Q::Quoted);
            return;
        }
        if let (true, Some(sep)) = (star, &b.star_joiner) {
            let joined = values.join(sep.as_slice());
            b.push(&joined, Q::Exp);
            return;
        }
        // Unquoted, bash joins the elements by the first byte of IFS and
        // splits the result: with a separator that is not a blank, an
        // empty element before another is a field of its own.
        if !in_dq && b.star_joiner.is_none() && self.vars.get("IFS") != Some(b"") {
            b.push(&values.join(self.ifs_first().as_slice()), Q::Exp);
            return;
        }
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                b.break_field();
            }
            if in_dq {
                b.push(v, Q::Quoted);
                b.force();
            } else {
                b.push(v, Q::Exp);
            }
        }
    }

    fn arith_word(&mut self, word: &Word) -> Result<i64, Flow> {
        let text = self.expand_string(word)?;
        self.arith(&text)
    }

    /// The parameter as bash's messages name it (`x`, `a[3]`).
    fn param_display(&self, pe: &ParamExpansion) -> String {
        match &pe.param {
            Parameter::Element(e) => Shell::element_text(&e.name, &e.index),
            p => param_text(p),
        }
    }

    /// `${x@a}` (the attribute letters) or `${x@A}` (a command that
    /// recreates the variable).
    fn describe_variable(&mut self, name: &str, assignment: bool, set: bool) -> Vec<u8> {
        let Some(var) = self.vars.get_var(name) else {
            return Vec::new();
        };
        let mut flags = String::new();
        match &var.value {
            crate::interp::Value::Indexed(_) => flags.push('a'),
            crate::interp::Value::Assoc(_) => flags.push('A'),
            crate::interp::Value::Scalar(_) => {}
        }
        if var.integer {
            flags.push('i');
        }
        if var.readonly {
            flags.push('r');
        }
        if var.exported {
            flags.push('x');
        }
        if !assignment {
            return flags.into_bytes();
        }
        if !set && !var.value.is_array() {
            return Vec::new();
        }
        match &var.value {
            crate::interp::Value::Scalar(v) if flags.is_empty() => {
                let mut out = format!("{name}=").into_bytes();
                out.extend(single_quote(v));
                out
            }
            crate::interp::Value::Scalar(v) => {
                let mut out = format!("declare -{flags} {name}=").into_bytes();
                out.extend(single_quote(v));
                out
            }
            array => format!(
                "declare -{flags} {name}={}",
                super::quote::array_text(array)
            )
            .into_bytes(),
        }
    }

    /// `set -u`'s error for an unset parameter. `$@`, `$*` and (bash 5.2)
    /// `${name[@]}`, `${name[*]}` of an unset name are exempt: empty.
    fn unbound(&mut self, pe: &ParamExpansion) -> Result<(), Flow> {
        let exempt = match &pe.param {
            Parameter::Special(SpecialParam::AtSign | SpecialParam::Star) => true,
            Parameter::Element(e) => matches!(e.index, Subscript::At | Subscript::Star),
            _ => false,
        };
        if self.opts.nounset && !exempt {
            self.error(&format!("{}: unbound variable", self.param_display(pe)));
            return Err(self.expansion_error());
        }
        Ok(())
    }

    /// The word of `${x:-word}` and friends: unquoted, its literal text is
    /// split like an expansion result.
    fn expand_inline(&mut self, word: &Word, in_dq: bool, b: &mut Builder) -> Result<(), Flow> {
        for part in &word.parts {
            match part {
                WordPart::Literal(bytes) if !in_dq => b.push(bytes, Q::Exp),
                _ => self.expand_part(part, in_dq, b)?,
            }
        }
        Ok(())
    }

    /// `${x?}` and `set -u` errors end a shell that is not interactive (a
    /// forked copy: that copy), as in bash; an interactive one skips the
    /// rest of the line.
    fn expansion_error(&self) -> Flow {
        let status = self.expansion_error_status();
        if self.interactive {
            Flow::Abort(status)
        } else {
            Flow::Exit(status)
        }
    }

    /// bash's status for `${x?}` and `set -u` errors: 127 at the top of a
    /// `-c` string (a new shell's too) without `set -e`, else 1.
    fn expansion_error_status(&self) -> i32 {
        let top_of_text = self.depth.copies == self.depth.copies_before_shell;
        if self.command_mode && top_of_text && !self.opts.errexit {
            127
        } else {
            1
        }
    }

    /// What a pattern's `?` takes: a character in a UTF-8 locale, else a
    /// byte.
    pub(super) fn pattern_unit(&self) -> pattern::Unit {
        match self.utf8_locale() {
            true => pattern::Unit::Utf8,
            false => pattern::Unit::Byte,
        }
    }

    /// Is the character type a UTF-8 locale (then lengths count characters)?
    /// One that is not installed is the C locale, as bash finds it when it
    /// starts (bash keeps the locale it had when a later assignment names
    /// one that is not installed; guard-sh does not follow that).
    pub(in crate::interp) fn utf8_locale(&self) -> bool {
        for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
            if let Some(v) = self.vars.get(name).filter(|v| !v.is_empty()) {
                let lower = String::from_utf8_lossy(v).to_ascii_lowercase();
                return (lower.contains("utf-8") || lower.contains("utf8"))
                    && self.sys.locale_exists(v);
            }
        }
        false
    }

    /// `${x:offset:length}` of the value `v`: characters in a UTF-8
    /// locale, bytes in any other.
    fn substring(
        &mut self,
        v: &[u8],
        offset: &Word,
        length: Option<&Word>,
    ) -> Result<Vec<u8>, Flow> {
        let chars = unit_bounds(self.pattern_unit(), v);
        let count = chars.len() as i64 - 1;
        let off = self.arith_word(offset)?;
        // An offset before the first character gives the empty string, as in bash.
        let Some(start) = substring_start(off, count) else {
            return Ok(Vec::new());
        };
        let end = match length {
            Some(len) => {
                let len = self.arith_word(len)?;
                if len < 0 {
                    let end = count + len;
                    if end < start {
                        self.error(&format!("{len}: substring expression < 0"));
                        return Err(Flow::Abort(1));
                    }
                    end
                } else {
                    start.saturating_add(len).min(count)
                }
            }
            None => count,
        };
        Ok(v[chars[start as usize]..chars[end as usize]].to_vec())
    }

    /// The pattern and substring operators on one value.
    fn transform(&mut self, op: &ParamOp, v: Vec<u8>) -> Result<Vec<u8>, Flow> {
        Ok(match op {
            ParamOp::RemovePrefix { longest, pattern } => {
                let unit = self.pattern_unit();
                let pat =
                    pattern::Compiled::new(&self.expand_pattern(pattern)?, self.opts.extglob, unit);
                let mut cuts = unit_bounds(unit, &v);
                if *longest {
                    cuts.reverse();
                }
                match cuts.into_iter().find(|&n| pat.matches(&v[..n])) {
                    Some(n) => v[n..].to_vec(),
                    None => v,
                }
            }
            ParamOp::RemoveSuffix { longest, pattern } => {
                let unit = self.pattern_unit();
                let pat =
                    pattern::Compiled::new(&self.expand_pattern(pattern)?, self.opts.extglob, unit);
                let mut starts = unit_bounds(unit, &v);
                if !*longest {
                    starts.reverse();
                }
                match starts.into_iter().find(|&n| pat.matches(&v[n..])) {
                    Some(n) => v[..n].to_vec(),
                    None => v,
                }
            }
            ParamOp::Replace {
                mode,
                pattern,
                replacement,
            } => {
                let pat = self.expand_pattern(pattern)?;
                // With its quoting: an unquoted `&` stands for the match.
                let rep = self.expand_pattern(replacement)?;
                replace(
                    &v,
                    &pat,
                    &rep,
                    *mode,
                    self.opts.extglob,
                    self.pattern_unit(),
                )
            }
            ParamOp::Substring { offset, length } => self.substring(&v, offset, length.as_ref())?,
            ParamOp::Transform(c) => match c {
                b'Q' | b'K' => single_quote(&v),
                b'E' => {
                    up_to_nul(super::quote::backslash_escapes(&v, super::quote::Escapes::Echo).0)
                }
                b'U' | b'u' | b'L' => {
                    let text = String::from_utf8_lossy(&v).into_owned();
                    match c {
                        b'U' => text.to_uppercase().into_bytes(),
                        b'L' => text.to_lowercase().into_bytes(),
                        _ => {
                            let mut chars = text.chars();
                            match chars.next() {
                                Some(first) => first
                                    .to_uppercase()
                                    .chain(chars)
                                    .collect::<String>()
                                    .into_bytes(),
                                None => Vec::new(),
                            }
                        }
                    }
                }
                _ => v,
            },
            ParamOp::Case { upper, all } => {
                let text = String::from_utf8_lossy(&v).into_owned();
                let mut out = String::new();
                for (i, c) in text.chars().enumerate() {
                    if i == 0 || *all {
                        if *upper {
                            out.extend(c.to_uppercase());
                        } else {
                            out.extend(c.to_lowercase());
                        }
                    } else {
                        out.push(c);
                    }
                }
                out.into_bytes()
            }
            _ => v,
        })
    }

    /// Field splitting of one field on `IFS` (only unquoted expansion bytes split).
    fn split_field(&self, field: Field) -> Vec<Field> {
        if !field.q.contains(&Q::Exp) {
            if field.bytes.is_empty() && !field.forced() {
                return Vec::new();
            }
            return vec![field];
        }
        let ifs = self.ifs();
        // IFS is a set of characters: in a UTF-8 locale one may be several
        // bytes (a byte that is part of no character stands for itself).
        // An ASCII IFS (the usual one) splits the same by bytes: no byte of
        // it is part of a multibyte character.
        let utf8 = !ifs.is_ascii() && self.utf8_locale();
        let separators: Vec<&[u8]> = if utf8 {
            characters(&ifs).collect()
        } else {
            ifs.chunks(1).collect()
        };
        let is_ws = |b: u8| ifs.contains(&b) && matches!(b, b' ' | b'\t' | b'\n');
        let n = field.bytes.len();
        // In a UTF-8 locale, the bytes of the value's multibyte characters:
        // a stray byte in IFS matches none of them.
        let mut in_character = vec![false; if utf8 { n } else { 0 }];
        if utf8 {
            let mut at = 0;
            for character in characters(&field.bytes) {
                if character.len() > 1 {
                    in_character[at..at + character.len()].fill(true);
                }
                at += character.len();
            }
        }
        // The length of the unquoted separator at `i`, if one is there.
        let separator_at = |i: usize| {
            separators
                .iter()
                .find(|sep| {
                    field.bytes[i..].starts_with(sep)
                        && field.q[i..i + sep.len()].iter().all(|q| *q == Q::Exp)
                        && !(sep.len() == 1 && in_character.get(i) == Some(&true))
                })
                .map(|sep| sep.len())
        };
        let splits = |i: usize| separator_at(i).is_some();
        // A run of separators goes on to `j` unless a quoted part (even an
        // empty one) stands there: that part is a field of its own.
        let run_goes_on =
            |i: usize, j: usize| j < n && splits(j) && (j == i || !field.quoted_at(j));
        let mut out = Vec::new();
        let mut cur = Field::default();
        let mut have = false;
        let mut i = 0;
        while i < n {
            have |= field.quoted_at(i);
            if splits(i) {
                let mut j = i;
                while run_goes_on(i, j) && is_ws(field.bytes[j]) {
                    j += 1;
                }
                let mut hard = false;
                if run_goes_on(i, j) && !is_ws(field.bytes[j]) {
                    hard = true;
                    j += separator_at(j).unwrap_or(1);
                    while run_goes_on(i, j) && is_ws(field.bytes[j]) {
                        j += 1;
                    }
                }
                if have || hard {
                    out.push(std::mem::take(&mut cur));
                }
                have = false;
                i = j;
            } else {
                cur.bytes.push(field.bytes[i]);
                cur.q.push(field.q[i]);
                have = true;
                i += 1;
            }
        }
        if have || field.quoted_at(n) {
            out.push(cur);
        }
        out
    }

    fn glob_field(&mut self, field: Field, out: &mut Vec<Vec<u8>>) -> Result<(), Flow> {
        let pat: Vec<PatByte> = field
            .bytes
            .iter()
            .zip(field.q.iter())
            .map(|(&b, &q)| (b, q == Q::Quoted))
            .collect();
        if self.opts.noglob || !pattern::has_magic(&pat, self.opts.extglob) {
            out.push(field.bytes);
            return Ok(());
        }
        let options = pattern::GlobOptions {
            dotglob: self.opts.dotglob,
            extglob: self.opts.extglob,
            unit: self.pattern_unit(),
            dots: self.opts.glob_dots,
        };
        let matches = pattern::glob(&*self.sys, &pat, options, &|real| self.may_list(real));
        if matches.is_empty() {
            if self.opts.failglob {
                self.error(&format!(
                    "no match: {}",
                    String::from_utf8_lossy(&field.bytes)
                ));
                return Err(Flow::Abort(1));
            }
            if !self.opts.nullglob {
                out.push(field.bytes);
            }
            return Ok(());
        }
        out.extend(matches);
        Ok(())
    }
}

impl ArithEnv for Shell<'_> {
    fn get_var(&mut self, name: &str) -> Result<Option<Vec<u8>>, arith::ArithError> {
        match name.split_once('[') {
            Some((array, sub)) => {
                let sub = sub.strip_suffix(']').unwrap_or(sub);
                let key = self.arith_element_key(array, sub.as_bytes())?;
                Ok(self.element(array, &key))
            }
            None => Ok(self.named_value(name)),
        }
    }

    fn unset_is_error(&self) -> bool {
        self.opts.nounset
    }

    fn set_var(&mut self, name: &str, value: i64) -> Result<(), arith::ArithError> {
        let (base, sub) = match name.split_once('[') {
            Some((array, sub)) => (array, Some(sub.strip_suffix(']').unwrap_or(sub))),
            None => (name, None),
        };
        if let Err(deny) = crate::guard::check_assignment(&self.policy, base) {
            return Err(arith::ArithError::Denied(deny));
        }
        if self.vars.is_readonly(base) {
            return Err(arith::ArithError::Invalid(format!(
                "{base}: readonly variable"
            )));
        }
        let value = value.to_string().into_bytes();
        match sub {
            Some(sub) => {
                let key = self.arith_element_key(base, sub.as_bytes())?;
                self.assign_element(base, key, value, false)
                    .map_err(|_| arith::ArithError::Invalid(format!("{name}: assignment failed")))
            }
            None => {
                self.vars.set(name, value);
                if self.opts.allexport {
                    self.vars.export(name, true);
                }
                Ok(())
            }
        }
    }
}

/// Where `v` may be cut: between characters (a UTF-8 locale's unit),
/// between bytes (any other's), both ends included.
fn unit_bounds(unit: pattern::Unit, v: &[u8]) -> Vec<usize> {
    match unit {
        pattern::Unit::Utf8 => char_bounds(v),
        pattern::Unit::Byte => (0..=v.len()).collect(),
    }
}

/// Byte offsets of each character start, plus the end.
fn char_bounds(v: &[u8]) -> Vec<usize> {
    match std::str::from_utf8(v) {
        Ok(s) => {
            let mut b: Vec<usize> = s.char_indices().map(|(i, _)| i).collect();
            b.push(v.len());
            b
        }
        Err(_) => (0..=v.len()).collect(),
    }
}

/// `rep` for the match `matched`: an unquoted `&` is the match (bash 5.2's
/// `patsub_replacement`, on by default); everything else as written.
/// A backslash left before `&` (inside double quotes) makes it literal.
fn replacement(rep: &[PatByte], matched: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(rep.len());
    let mut i = 0;
    while i < rep.len() {
        match (rep[i], rep.get(i + 1)) {
            ((b'\\', false), Some(&(b'&', _))) => {
                out.push(b'&');
                i += 2;
                continue;
            }
            ((b'&', false), _) => out.extend_from_slice(matched),
            ((b, _), _) => out.push(b),
        }
        i += 1;
    }
    out
}

fn replace(
    v: &[u8],
    pat: &[PatByte],
    rep: &[PatByte],
    mode: ReplaceMode,
    extglob: bool,
    unit: pattern::Unit,
) -> Vec<u8> {
    if pat.is_empty() {
        // `${x/#/p}` and `${x/%/s}`: the empty pattern matches at the
        // anchor, so the replacement is put before or after the value.
        let rep = replacement(rep, b"");
        return match mode {
            ReplaceMode::Prefix => [rep, v.to_vec()].concat(),
            ReplaceMode::Suffix => [v.to_vec(), rep].concat(),
            ReplaceMode::First | ReplaceMode::All => v.to_vec(),
        };
    }
    let compiled = pattern::Compiled::new(pat, extglob, unit);
    match mode {
        ReplaceMode::Prefix => {
            for n in (0..=v.len()).rev() {
                if compiled.matches(&v[..n]) {
                    let mut out = replacement(rep, &v[..n]);
                    out.extend_from_slice(&v[n..]);
                    return out;
                }
            }
            v.to_vec()
        }
        ReplaceMode::Suffix => {
            for n in 0..=v.len() {
                if compiled.matches(&v[n..]) {
                    let mut out = v[..n].to_vec();
                    out.extend_from_slice(&replacement(rep, &v[n..]));
                    return out;
                }
            }
            v.to_vec()
        }
        ReplaceMode::First | ReplaceMode::All => {
            let mut out = Vec::new();
            let mut i = 0;
            let mut replaced = false;
            while i < v.len() {
                if replaced && mode == ReplaceMode::First {
                    break;
                }
                // Longest match starting at i.
                let found = (i + 1..=v.len())
                    .rev()
                    .find(|&end| compiled.matches(&v[i..end]));
                match found {
                    Some(end) => {
                        out.extend_from_slice(&replacement(rep, &v[i..end]));
                        i = end;
                        replaced = true;
                    }
                    None => {
                        out.push(v[i]);
                        i += 1;
                    }
                }
            }
            out.extend_from_slice(&v[i..]);
            out
        }
    }
}

fn param_text(p: &Parameter) -> String {
    p.name()
}

/// bash's `@Q`: single quotes, or `$'…'` for a value with control bytes.
fn single_quote(v: &[u8]) -> Vec<u8> {
    if v.iter().any(u8::is_ascii_control) {
        return super::quote::quote_q(v).into_bytes();
    }
    format!("'{}'", String::from_utf8_lossy(v).replace('\'', "'\\''")).into_bytes()
}

/// A user's home folder (`None`: the current user's); see [`passwd_entry`].
fn home_of(sys: &dyn System, user: Option<&[u8]>) -> Option<Vec<u8>> {
    passwd_entry(sys, user).map(|(_, dir)| dir)
}

/// A user's name and home folder (`None`: the current user's), read from
/// `/etc/passwd` itself rather than through NSS: a statically linked
/// guard-sh cannot load NSS modules (`getpwnam` crashed it), and the users
/// an agent's `~name` or a prompt's `\u` can mean live in that file.
pub(super) fn passwd_entry(sys: &dyn System, user: Option<&[u8]>) -> Option<(Vec<u8>, Vec<u8>)> {
    let passwd = sys.read_file(Path::new("/etc/passwd")).ok()?;
    let uid = sys.real_user_id().to_string();
    passwd.split(|&b| b == b'\n').find_map(|entry| {
        let fields: Vec<&[u8]> = entry.split(|&b| b == b':').collect();
        let [name, _, entry_uid, _, _, dir, ..] = fields[..] else {
            return None;
        };
        let matches = match user {
            Some(wanted) => name == wanted,
            None => entry_uid == uid.as_bytes(),
        };
        matches.then(|| (name.to_vec(), dir.to_vec()))
    })
}

/// Where `${x:off}` starts in `count` items: a negative offset counts from
/// the end; one that reaches before the first item is `None` (the result is
/// empty); a start past the end is `count`.
fn substring_start(off: i64, count: i64) -> Option<i64> {
    if off < 0 {
        let start = count.saturating_add(off);
        (start >= 0).then_some(start)
    } else {
        Some(off.min(count))
    }
}
