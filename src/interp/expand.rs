//! Word expansion in POSIX order (XCU 2.6): brace expansion of unquoted
//! literal text, tilde, parameter, command substitution (run by this
//! interpreter), arithmetic, field splitting on `IFS`, pathname expansion,
//! quote removal. Nothing found in a variable's value is ever parsed as
//! shell text; only arithmetic evaluates it, as numbers.

use super::arith::{self, ArithEnv};
use super::brace::{self, Item};
use super::pattern::{self, PatByte};
use super::{Flow, Shell};
use crate::syntax::ast::*;

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
    /// A quoted part was present, so the field exists even if empty.
    forced: bool,
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
        self.cur.forced = true;
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
        let mut items = Vec::new();
        for part in &word.parts {
            match part {
                WordPart::Literal(bytes) => items.extend(bytes.iter().map(|&b| Item::Char(b))),
                other => items.push(Item::Part(other)),
            }
        }
        let has_brace = items.contains(&Item::Char(b'{'));
        let variants = if has_brace {
            match brace::expand(&items) {
                Ok(variants) => variants,
                Err(brace::TooManyWords) => {
                    self.error(&format!(
                        "{}: brace expansion gives more than {} words; not supported by guard-sh",
                        crate::guard::words::describe(word),
                        brace::MAX_WORDS
                    ));
                    return Err(Flow::Abort(1));
                }
            }
        } else {
            vec![items]
        };
        for variant in variants {
            let mut b = Builder::default();
            for item in &variant {
                match item {
                    Item::Char(c) => b.push(&[*c], Q::Lit),
                    Item::Part(part) => self.expand_part(part, false, &mut b)?,
                }
            }
            for field in b.fields() {
                for piece in self.split_field(field) {
                    self.glob_field(piece, out)?;
                }
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
                let only_empty_at = self.positional.is_empty()
                    && !parts.is_empty()
                    && parts.iter().all(|p| {
                        matches!(p, WordPart::Parameter(pe)
                            if pe.param == Parameter::Special(SpecialParam::AtSign)
                                && matches!(pe.op, ParamOp::Plain | ParamOp::RemovePrefix { .. }
                                    | ParamOp::RemoveSuffix { .. } | ParamOp::Replace { .. }
                                    | ParamOp::Case { .. } | ParamOp::Substring { .. }))
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
        }
        Ok(())
    }

    /// Evaluate arithmetic text; an error aborts the line like bash.
    pub(super) fn arith(&mut self, text: &[u8]) -> Result<i64, Flow> {
        match arith::eval(self, text) {
            Ok(n) => Ok(n),
            Err(error @ arith::ArithError::Unbound(_)) => Err(self.arith_unbound(&error)),
            Err(error) => {
                self.error(&error.to_string());
                Err(Flow::Abort(1))
            }
        }
    }

    /// An unset variable in arithmetic under `set -u`: reported and
    /// aborted as `$name` would be, whichever command evaluated it.
    pub(super) fn arith_unbound(&mut self, error: &arith::ArithError) -> Flow {
        self.error(&error.to_string());
        Flow::Abort(self.expansion_error_status())
    }

    fn tilde(&mut self, user: Option<&[u8]>) -> Vec<u8> {
        match user {
            None => self
                .vars
                .get("HOME")
                .map(<[u8]>::to_vec)
                .unwrap_or_else(|| home_of(None).unwrap_or_else(|| b"~".to_vec())),
            Some(b"+") => self.vars.get("PWD").unwrap_or(b"~+").to_vec(),
            Some(b"-") => self.vars.get("OLDPWD").unwrap_or(b"~-").to_vec(),
            Some(name) => home_of(Some(name)).unwrap_or_else(|| {
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
                SpecialParam::LastBackground => self.last_bg.map(|p| p.to_string().into_bytes()),
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
                let _ = std::fs::File::open("/dev/urandom")
                    .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes));
                return Some(
                    (u16::from_ne_bytes(bytes) & 0x7fff)
                        .to_string()
                        .into_bytes(),
                );
            }
            "LINENO" => return Some(self.lineno.to_string().into_bytes()),
            // Whole seconds since the shell started (assigning to it is
            // not supported: the count goes on).
            "SECONDS" => return Some(self.started.elapsed().as_secs().to_string().into_bytes()),
            // bash's array's first element: the function being run.
            "FUNCNAME" => return self.func_names.last().map(|n| n.as_bytes().to_vec()),
            "PPID" => {
                // SAFETY: getppid has no preconditions.
                return Some(unsafe { libc::getppid() }.to_string().into_bytes());
            }
            "UID" => {
                // SAFETY: getuid has no preconditions.
                return Some(unsafe { libc::getuid() }.to_string().into_bytes());
            }
            "EUID" => {
                // SAFETY: geteuid has no preconditions.
                return Some(unsafe { libc::geteuid() }.to_string().into_bytes());
            }
            "BASHPID" => return Some(self.sys.getpid().to_string().into_bytes()),
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
        if self.opts.errexit {
            s.push('e');
        }
        if self.opts.noglob {
            s.push('f');
        }
        s.push('h');
        if self.interactive {
            s.push('i');
        }
        if self.opts.nounset {
            s.push('u');
        }
        if self.opts.xtrace {
            s.push('x');
        }
        s.push('B');
        if self.opts.noclobber {
            s.push('C');
        }
        if self.command_mode {
            s.push('c');
        }
        s
    }

    fn expand_param(
        &mut self,
        pe: &ParamExpansion,
        in_dq: bool,
        b: &mut Builder,
    ) -> Result<(), Flow> {
        let is_list = matches!(
            pe.param,
            Parameter::Special(SpecialParam::AtSign | SpecialParam::Star)
        );
        let star = matches!(pe.param, Parameter::Special(SpecialParam::Star));
        if is_list {
            if let Some(values) = self.list_op(pe)? {
                self.push_list(&values, star, in_dq, b);
                return Ok(());
            }
        }
        let value = self.param_value(&pe.param);
        let unset = value.is_none();
        let empty = value.as_ref().is_none_or(|v| v.is_empty());
        let is_null = |colon: bool| unset || (colon && empty);
        match &pe.op {
            ParamOp::Plain => {
                let Some(v) = value else {
                    return self.unbound(pe);
                };
                b.push(&v, q_of(in_dq));
            }
            ParamOp::Length => {
                if is_list {
                    b.push(self.positional.len().to_string().as_bytes(), q_of(in_dq));
                    return Ok(());
                }
                let Some(v) = value else {
                    // Unset has length 0 (an error only under `set -u`).
                    self.unbound(pe)?;
                    b.push(b"0", q_of(in_dq));
                    return Ok(());
                };
                let n = match std::str::from_utf8(&v) {
                    Ok(s) if self.utf8_locale() => s.chars().count(),
                    _ => v.len(),
                };
                b.push(n.to_string().as_bytes(), q_of(in_dq));
            }
            ParamOp::Default { colon, word } => {
                if is_null(*colon) {
                    self.expand_inline(word, in_dq, b)?;
                } else if let Some(v) = value {
                    b.push(&v, q_of(in_dq));
                }
            }
            ParamOp::Alternative { colon, word } => {
                if !is_null(*colon) {
                    self.expand_inline(word, in_dq, b)?;
                }
            }
            ParamOp::Assign { colon, word } => {
                if is_null(*colon) {
                    let new = self.expand_string(word)?;
                    let Parameter::Named(name) = &pe.param else {
                        self.error(&format!(
                            "${}: cannot assign in this way",
                            param_text(&pe.param)
                        ));
                        return Err(Flow::Abort(1));
                    };
                    self.assign(name, new.clone())?;
                    b.push(&new, q_of(in_dq));
                } else if let Some(v) = value {
                    b.push(&v, q_of(in_dq));
                }
            }
            ParamOp::Error { colon, word } => {
                if is_null(*colon) {
                    let message = self.expand_string(word)?;
                    let message = if message.is_empty() {
                        if unset {
                            "parameter not set".to_string()
                        } else {
                            "parameter null or not set".to_string()
                        }
                    } else {
                        String::from_utf8_lossy(&message).into_owned()
                    };
                    self.error(&format!("{}: {message}", param_text(&pe.param)));
                    return Err(Flow::Abort(self.expansion_error_status()));
                }
                if let Some(v) = value {
                    b.push(&v, q_of(in_dq));
                }
            }
            _ => {
                let Some(v) = value else {
                    if self.opts.nounset {
                        return self.unbound(pe);
                    }
                    return Ok(());
                };
                let result = self.transform(&pe.op, v)?;
                b.push(&result, q_of(in_dq));
            }
        }
        Ok(())
    }

    /// `$@`/`$*` with a per-element operator; `None` for operators that
    /// treat the list as one value.
    fn list_op(&mut self, pe: &ParamExpansion) -> Result<Option<Vec<Vec<u8>>>, Flow> {
        match &pe.op {
            ParamOp::Plain => Ok(Some(self.positional.clone())),
            ParamOp::RemovePrefix { .. }
            | ParamOp::RemoveSuffix { .. }
            | ParamOp::Replace { .. }
            | ParamOp::Case { .. } => {
                let mut out = Vec::new();
                for v in self.positional.clone() {
                    out.push(self.transform(&pe.op, v)?);
                }
                Ok(Some(out))
            }
            ParamOp::Substring { offset, length } => {
                // `${@:1:2}`: offset 0 is $0.
                let mut all = vec![self.arg0.clone()];
                all.extend(self.positional.iter().cloned());
                let count = all.len() as i64;
                let off = self.arith_word(offset)?;
                // An offset before the first item gives nothing, as in bash.
                let Some(start) = substring_start(off, count) else {
                    return Ok(Some(Vec::new()));
                };
                let end = match length {
                    Some(len) => {
                        let len = self.arith_word(len)?;
                        if len < 0 {
                            self.error(&format!("{len}: substring expression < 0"));
                            return Err(Flow::Abort(1));
                        }
                        start.saturating_add(len).min(count)
                    }
                    None => count,
                };
                let slice: Vec<Vec<u8>> = all[start as usize..end as usize].to_vec();
                Ok(Some(slice))
            }
            _ => Ok(None),
        }
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

    fn unbound(&mut self, pe: &ParamExpansion) -> Result<(), Flow> {
        let exempt = matches!(
            pe.param,
            Parameter::Special(SpecialParam::AtSign | SpecialParam::Star)
        );
        if self.opts.nounset && !exempt {
            self.error(&format!("{}: unbound variable", param_text(&pe.param)));
            return Err(Flow::Abort(self.expansion_error_status()));
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

    /// bash's status for `${x?}` and `set -u` errors: 127 at the top of a
    /// `-c` string, else 1.
    fn expansion_error_status(&self) -> i32 {
        if self.command_mode && !self.in_child {
            127
        } else {
            1
        }
    }

    /// Is the character type a UTF-8 locale (then lengths count characters)?
    fn utf8_locale(&self) -> bool {
        for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
            if let Some(v) = self.vars.get(name).filter(|v| !v.is_empty()) {
                let v = String::from_utf8_lossy(v).to_ascii_lowercase();
                return v.contains("utf-8") || v.contains("utf8");
            }
        }
        false
    }

    /// The pattern and substring operators on one value.
    fn transform(&mut self, op: &ParamOp, v: Vec<u8>) -> Result<Vec<u8>, Flow> {
        Ok(match op {
            ParamOp::RemovePrefix { longest, pattern } => {
                let pat = self.expand_pattern(pattern)?;
                let mut cuts: Vec<usize> = (0..=v.len()).collect();
                if *longest {
                    cuts.reverse();
                }
                match cuts.into_iter().find(|&n| pattern::matches(&pat, &v[..n])) {
                    Some(n) => v[n..].to_vec(),
                    None => v,
                }
            }
            ParamOp::RemoveSuffix { longest, pattern } => {
                let pat = self.expand_pattern(pattern)?;
                let mut starts: Vec<usize> = (0..=v.len()).collect();
                if !*longest {
                    starts.reverse();
                }
                match starts
                    .into_iter()
                    .find(|&n| pattern::matches(&pat, &v[n..]))
                {
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
                let rep = self.expand_string(replacement)?;
                replace(&v, &pat, &rep, *mode)
            }
            ParamOp::Substring { offset, length } => {
                let chars = char_bounds(&v);
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
                v[chars[start as usize]..chars[end as usize]].to_vec()
            }
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
            if field.bytes.is_empty() && !field.forced {
                return Vec::new();
            }
            return vec![field];
        }
        let ifs = self.ifs();
        let is_ifs = |b: u8| ifs.contains(&b);
        let is_ws = |b: u8| is_ifs(b) && matches!(b, b' ' | b'\t' | b'\n');
        let n = field.bytes.len();
        let splits = |i: usize| field.q[i] == Q::Exp && is_ifs(field.bytes[i]);
        let mut out = Vec::new();
        let mut cur = Field::default();
        let mut have = field.forced;
        let mut i = 0;
        while i < n {
            if splits(i) {
                let mut j = i;
                while j < n && splits(j) && is_ws(field.bytes[j]) {
                    j += 1;
                }
                let mut hard = false;
                if j < n && splits(j) && !is_ws(field.bytes[j]) {
                    hard = true;
                    j += 1;
                    while j < n && splits(j) && is_ws(field.bytes[j]) {
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
        if have {
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
        if self.opts.noglob || !pattern::has_magic(&pat) {
            out.push(field.bytes);
            return Ok(());
        }
        let matches = pattern::glob(&pat, self.opts.dotglob);
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
    fn get_var(&mut self, name: &str) -> Option<Vec<u8>> {
        self.named_value(name)
    }

    fn unset_is_error(&self) -> bool {
        self.opts.nounset
    }

    fn set_var(&mut self, name: &str, value: i64) -> Result<(), String> {
        if let Err(deny) = crate::guard::check_assignment(&self.policy, name) {
            return Err(deny.reason);
        }
        if self.vars.is_readonly(name) {
            return Err(format!("{name}: readonly variable"));
        }
        self.vars.set(name, value.to_string().into_bytes());
        Ok(())
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

fn replace(v: &[u8], pat: &[PatByte], rep: &[u8], mode: ReplaceMode) -> Vec<u8> {
    if pat.is_empty() {
        return v.to_vec();
    }
    match mode {
        ReplaceMode::Prefix => {
            for n in (0..=v.len()).rev() {
                if pattern::matches(pat, &v[..n]) {
                    let mut out = rep.to_vec();
                    out.extend_from_slice(&v[n..]);
                    return out;
                }
            }
            v.to_vec()
        }
        ReplaceMode::Suffix => {
            for n in 0..=v.len() {
                if pattern::matches(pat, &v[n..]) {
                    let mut out = v[..n].to_vec();
                    out.extend_from_slice(rep);
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
                    .find(|&end| pattern::matches(pat, &v[i..end]));
                match found {
                    Some(end) => {
                        out.extend_from_slice(rep);
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

/// A user's home folder (`None`: the current user's), read from
/// `/etc/passwd` itself rather than through NSS: a statically linked
/// guard-sh cannot load NSS modules (`getpwnam` crashed it), and the users
/// an agent's `~name` can mean live in that file.
fn home_of(user: Option<&[u8]>) -> Option<Vec<u8>> {
    let passwd = std::fs::read("/etc/passwd").ok()?;
    let uid = nix::unistd::getuid().as_raw().to_string();
    passwd.split(|&b| b == b'\n').find_map(|entry| {
        let fields: Vec<&[u8]> = entry.split(|&b| b == b':').collect();
        let [name, _, entry_uid, _, _, dir, ..] = fields[..] else {
            return None;
        };
        let matches = match user {
            Some(wanted) => name == wanted,
            None => entry_uid == uid.as_bytes(),
        };
        matches.then(|| dir.to_vec())
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
