//! Commands (XCU 2.9.1, 2.9.4, 2.9.5): the dispatch on the word in command
//! position, simple commands with their assignments and redirections, and
//! function definitions. Reserved words are recognized only here, in
//! command position; anywhere else they are ordinary words.

use super::super::ast::{
    ArrayItem, AssignValue, Assignment, Command, CompoundCommand, FunctionDef, SimpleCommand, Word,
    WordPart,
};
use super::super::lex::{blanks, is_meta, is_name_byte, is_name_start, name, token};
use super::param::Operand;
use super::subst::skip_to_quote;
use super::word::Quoting;
use super::{PResult, Parser, SyntaxError};

/// Builtins whose `NAME=(…)` operands are compound assignments (bash).
const DECLARATION_BUILTINS: &[&[u8]] = &[b"declare", b"typeset", b"local", b"readonly", b"export"];

/// Words that are reserved in command position (XCU 2.4, plus bash's).
const RESERVED: &[&str] = &[
    "if", "then", "elif", "else", "fi", "do", "done", "case", "esac", "while", "until", "for", "{",
    "}", "!", "function", "select", "coproc", "[[", "]]", "in",
];

/// The reserved word at `i`, if the whole token there is one.
pub(super) fn reserved_at(i: &[u8]) -> Option<&'static str> {
    let tok = token(i);
    RESERVED.iter().copied().find(|w| w.as_bytes() == tok)
}

/// Names a function may have: ASCII identifiers, also with `-` inside.
/// A function's name as bash takes it in most scripts: a name, with `-`,
/// `.` and `:` after its first byte (`log-info`, `ns::run`, `argv.py`).
/// Never a `/`: a command word holding one is a path, refused as such.
fn is_function_name(b: &[u8]) -> bool {
    b.first().is_some_and(|&c| is_name_start(c))
        && b.iter()
            .all(|&c| is_name_byte(c) || matches!(c, b'-' | b'.' | b':'))
}

impl<'a> Parser<'a> {
    /// The command starting at `i`; `None` when `i` holds no command (end
    /// of input, an operator, or a closing reserved word like `fi`).
    pub(super) fn command(&mut self, i: &'a [u8]) -> PResult<'a, Option<Command>> {
        let i = blanks(i);
        if let Some(word) = reserved_at(i) {
            return match word {
                "{" | "if" | "while" | "until" | "for" | "case" | "[[" => {
                    let (r, c) = self.compound(i)?;
                    Ok((r, Some(Command::Compound(Box::new(c)))))
                }
                "function" => {
                    let (r, f) = self.function_keyword(i)?;
                    Ok((r, Some(Command::FunctionDef(f))))
                }
                "select" => Err(SyntaxError::Unsupported {
                    feature: "`select` loop",
                    at: self.span_at(i, 6),
                }),
                "coproc" => Err(SyntaxError::Unsupported {
                    feature: "`coproc` co-process",
                    at: self.span_at(i, 6),
                }),
                "]]" => Err(self.unexpected(i)),
                _ => Ok((i, None)),
            };
        }
        if i.first() == Some(&b'(') {
            let (r, c) = self.compound(i)?;
            return Ok((r, Some(Command::Compound(Box::new(c)))));
        }
        self.simple_command(i)
    }

    /// Assignments, words and redirections up to a control operator.
    fn simple_command(&mut self, i: &'a [u8]) -> PResult<'a, Option<Command>> {
        let start = i;
        let mut assignments = Vec::new();
        let mut words: Vec<Word> = Vec::new();
        let mut redirects = Vec::new();
        let mut rest = i;
        let mut end = i;
        loop {
            rest = blanks(rest);
            let Some(&c) = rest.first() else { break };
            if (c == b'<' || c == b'>') && rest.get(1) == Some(&b'(') {
                // Process substitution: a word, not a redirection.
            } else if let Some(brace_fd) = brace_fd_redirect(rest) {
                return Err(SyntaxError::Unsupported {
                    feature: "`{var}>` redirections",
                    at: self.span_at(rest, brace_fd),
                });
            } else if let (r, Some(redir)) = self.redirect(rest)? {
                redirects.push(redir);
                rest = r;
                end = r;
                continue;
            } else if c == b'(' {
                if words.len() == 1 && assignments.is_empty() && redirects.is_empty() {
                    if let Some(fname) = plain_function_name(&words[0]) {
                        let (r, f) = self.function_rest(start, fname, rest)?;
                        return Ok((r, Some(Command::FunctionDef(f))));
                    }
                    if matches!(words[0].parts.as_slice(), [WordPart::Literal(b)] if b.contains(&b'/'))
                    {
                        return Err(SyntaxError::Unsupported {
                            feature: "a function name holding `/` (a command word with `/` is a path)",
                            at: words[0].span,
                        });
                    }
                }
                return Err(self.unexpected(rest));
            } else if is_meta(c) {
                break;
            } else if c == b'#' {
                rest = self.skip_comment(rest)?;
                break;
            }
            if words.is_empty() {
                if let (r, Some(a)) = self.assignment(rest)? {
                    assignments.push(a);
                    rest = r;
                    end = r;
                    continue;
                }
            } else if is_declaration(&words[0]) && compound_operand(rest) {
                if let (r, Some(a)) = self.assignment(rest)? {
                    words.push(declaration_word(a));
                    rest = r;
                    end = r;
                    continue;
                }
            }
            match self.word(rest, false)? {
                (r, Some(w)) => {
                    words.push(w);
                    rest = r;
                    end = r;
                }
                // Only line continuations: nothing to keep.
                (r, None) if r.len() < rest.len() => rest = r,
                (_, None) => return Err(self.unexpected(rest)),
            }
        }
        if assignments.is_empty() && words.is_empty() && redirects.is_empty() {
            return Ok((start, None));
        }
        // A first push reserves several slots; trees of long lines stay small.
        assignments.shrink_to_fit();
        words.shrink_to_fit();
        redirects.shrink_to_fit();
        let span = self.span(start, end);
        Ok((
            rest,
            Some(Command::Simple(SimpleCommand {
                assignments,
                words,
                redirects,
                span,
            })),
        ))
    }

    /// `NAME=value` / `NAME+=value` at `i`, if the word there is one; also
    /// `NAME[index]=value` and `NAME=(…)`.
    fn assignment(&mut self, i: &'a [u8]) -> PResult<'a, Option<Assignment>> {
        let Some((r, nm)) = name(i) else {
            return Ok((i, None));
        };
        let open = self.span_at(i, nm.len() + 1);
        let (r, index) = if r.first() == Some(&b'[') {
            // bash reads `name[` in this position up to a matching `]`,
            // even across blanks, as an array subscript.
            let scan = bracket_scan(r);
            if scan.as_ref().is_some_and(|s| s.operator && s.assigns(r)) {
                return Err(SyntaxError::Unsupported {
                    feature: "an array subscript holding an operator or a newline (`a[x<y]=…`)",
                    at: open,
                });
            }
            if !keyed_item(r) {
                // bash reads `name[…]` up to the matching `]` as one word,
                // blanks and operators included; the word parser would
                // stop at the first of them.
                if closes_in_word(r) {
                    return Ok((i, None));
                }
                return Err(SyntaxError::Unsupported {
                    feature: "an array subscript holding blanks or an unclosed `[` (`a[i]=…`)",
                    at: open,
                });
            }
            let (r, word) = self.operand(&r[1..], Operand::subscript(Quoting::Unquoted), open)?;
            let Some(r) = r.strip_prefix(b"]") else {
                return Err(SyntaxError::Unsupported {
                    feature: "a `}` inside an array subscript (`a[i]=…`)",
                    at: self.span_at(r, 1),
                });
            };
            (r, Some(word))
        } else {
            (r, None)
        };
        let (r, append) = if let Some(r) = r.strip_prefix(b"+=") {
            (r, true)
        } else if let Some(r) = r.strip_prefix(b"=") {
            (r, false)
        } else {
            return Ok((i, None));
        };
        // `a[i]=(…)` parses; running it is bash's error.
        let (rest, value) = if r.first() == Some(&b'(') {
            let (rest, items) = self.array_items(&r[1..], self.span_at(r, 1))?;
            (rest, AssignValue::Array(items))
        } else {
            match self.word(r, true)? {
                (rest, Some(w)) => (rest, AssignValue::Scalar(w)),
                (rest, None) => (
                    rest,
                    AssignValue::Scalar(Word {
                        parts: Vec::new(),
                        span: self.span(r, r),
                    }),
                ),
            }
        };
        let name = String::from_utf8_lossy(nm).into_owned();
        let span = self.span(i, rest);
        Ok((
            rest,
            Some(Assignment {
                name,
                index,
                value,
                append,
                span,
            }),
        ))
    }

    /// The elements of `NAME=(…)` after its `(`, through the `)`: words
    /// and `[key]=value` pairs, across newlines and comments.
    fn array_items(&mut self, i: &'a [u8], open: super::Span) -> PResult<'a, Vec<ArrayItem>> {
        let mut items = Vec::new();
        let mut rest = i;
        loop {
            rest = self.linebreaks(rest)?;
            match rest.first() {
                None => {
                    return Err(SyntaxError::Unterminated {
                        what: "`(` of an array assignment",
                        open,
                    });
                }
                Some(b')') => break,
                Some(b'[') if keyed_item(rest) => {
                    let (r, key) =
                        self.operand(&rest[1..], Operand::subscript(Quoting::Unquoted), open)?;
                    let Some(r) = r.strip_prefix(b"]=") else {
                        return Err(SyntaxError::Unsupported {
                            feature: "`[key]+=` or a `}` in an array element's key",
                            at: self.span_at(r, 1),
                        });
                    };
                    let (r, value) = match self.word(r, true)? {
                        (r, Some(w)) => (r, w),
                        (r, None) => (
                            r,
                            Word {
                                parts: Vec::new(),
                                span: self.span(r, r),
                            },
                        ),
                    };
                    items.push(ArrayItem {
                        key: Some(key),
                        value,
                    });
                    rest = r;
                }
                // bash reads a bare element's `[` to its matching `]` as one
                // token, across blanks, operators and lines (`([x y] z)` has
                // two elements), where the word parser would stop: refused
                // unless the bracket closes within the word (`[a-z]*`).
                Some(b'[') if !closes_in_word(rest) => {
                    return Err(SyntaxError::Unsupported {
                        feature: "an array element whose `[` is not closed in the same word (bash reads to the matching `]` across blanks, operators and lines)",
                        at: self.span_at(rest, 1),
                    });
                }
                Some(_) => match self.word(rest, false)? {
                    (r, Some(value)) => {
                        items.push(ArrayItem { key: None, value });
                        rest = r;
                    }
                    (r, None) if r.len() < rest.len() => rest = r,
                    (_, None) => return Err(self.unexpected(rest)),
                },
            }
        }
        items.shrink_to_fit();
        Ok((&rest[1..], items))
    }

    /// `function name [()] linebreak compound-command`.
    fn function_keyword(&mut self, i: &'a [u8]) -> PResult<'a, FunctionDef> {
        let r = blanks(&i[b"function".len()..]);
        let tok = token(r);
        if !is_function_name(tok) || reserved_at(r).is_some() {
            return Err(SyntaxError::Expected {
                expected: "a function name after `function`",
                found: super::describe(r),
                at: self.span_at(r, 1),
            });
        }
        let name = String::from_utf8_lossy(tok).into_owned();
        let r = blanks(&r[tok.len()..]);
        let r = if r.first() == Some(&b'(') {
            let r2 = blanks(&r[1..]);
            match r2.strip_prefix(b")") {
                Some(r3) => r3,
                None => return Err(self.unclosed(r2, "function definition", self.span_at(r, 1))),
            }
        } else {
            r
        };
        self.function_body(i, name, r)
    }

    /// After `name` in `name ( ) compound-command`; `paren` is at `(`.
    fn function_rest(
        &mut self,
        start: &'a [u8],
        name: String,
        paren: &'a [u8],
    ) -> PResult<'a, FunctionDef> {
        let r = blanks(&paren[1..]);
        let Some(r) = r.strip_prefix(b")") else {
            return Err(self.unclosed(r, "function definition", self.span_at(paren, 1)));
        };
        self.function_body(start, name, r)
    }

    /// The body of a function: newlines, then one compound command with
    /// its redirections.
    fn function_body(
        &mut self,
        start: &'a [u8],
        name: String,
        i: &'a [u8],
    ) -> PResult<'a, FunctionDef> {
        let r = self.linebreaks(i)?;
        let is_compound = r.first() == Some(&b'(')
            || matches!(
                reserved_at(r),
                Some("{" | "if" | "while" | "until" | "for" | "case")
            );
        if !is_compound {
            if r.is_empty() {
                return Err(SyntaxError::Unterminated {
                    what: "function definition",
                    open: self.span(start, i),
                });
            }
            return Err(SyntaxError::Expected {
                expected: "a function body (`{ … }`)",
                found: super::describe(r),
                at: self.span_at(r, 1),
            });
        }
        let (rest, body): (&'a [u8], CompoundCommand) = self.compound(r)?;
        let span = self.span(start, rest);
        Ok((
            rest,
            FunctionDef {
                name,
                body: Box::new(body),
                span,
            },
        ))
    }
}

/// Is `w` a declaration builtin (`declare`, `local`, …) as written?
fn is_declaration(w: &Word) -> bool {
    matches!(w.parts.as_slice(), [WordPart::Literal(b)] if is_declaration_name(b))
}

/// Is `name` a declaration builtin (`declare`, `local`, …), whose
/// `NAME=value` operands are assignments? The interpreter asks the same.
pub fn is_declaration_name(name: &[u8]) -> bool {
    DECLARATION_BUILTINS.contains(&name)
}

/// `NAME=(` or `NAME+=(` at `i`.
fn compound_operand(i: &[u8]) -> bool {
    name(i).is_some_and(|(r, _)| r.starts_with(b"=(") || r.starts_with(b"+=("))
}

/// A declaration builtin's `NAME=(…)` operand as a word: the literal
/// `NAME=` (or `NAME+=`) and the elements.
fn declaration_word(a: Assignment) -> Word {
    let mut head = a.name.into_bytes();
    head.extend_from_slice(if a.append { b"+=" } else { b"=" });
    let items = match a.value {
        AssignValue::Array(items) => items,
        AssignValue::Scalar(w) => vec![ArrayItem {
            key: None,
            value: w,
        }],
    };
    Word {
        parts: vec![WordPart::Literal(head), WordPart::Array(items)],
        span: a.span,
    }
}

/// The name of `name()` when the first word is a plain function name.
fn plain_function_name(w: &Word) -> Option<String> {
    match w.parts.as_slice() {
        [WordPart::Literal(b)] if is_function_name(b) => {
            Some(String::from_utf8_lossy(b).into_owned())
        }
        _ => None,
    }
}

/// `{name}` immediately followed by `<` or `>`: the length of `{name}`.
fn brace_fd_redirect(i: &[u8]) -> Option<usize> {
    let r = i.strip_prefix(b"{")?;
    let (r, nm) = name(r)?;
    let r = r.strip_prefix(b"}")?;
    matches!(r.first(), Some(b'<' | b'>')).then_some(nm.len() + 2)
}

/// The end (past the quote) of the `$'…'` whose `'` is at `open`, where a
/// backslash escapes the next byte; `None` when it runs on into another
/// line or never closes.
fn end_of_ansi_c(i: &[u8], open: usize) -> Option<usize> {
    let mut k = open + 1;
    loop {
        match *i.get(k)? {
            b'\\' => k += 2,
            b'\'' => return Some(k + 1),
            b'\n' => return None,
            _ => k += 1,
        }
    }
}

/// Whether the `[` at the start of `i` is closed inside the word the word
/// parser reads, where bash's scan would close it too: bash's scan finds
/// its `]` with no blank or operator before it ([`bracket_scan`]), and the
/// first `]` not hidden in quotes or a substitution is inside the word
/// ([`closes_bracket`]). Where the two readings could differ the line is
/// refused.
fn closes_in_word(i: &[u8]) -> bool {
    bracket_scan(i).is_some_and(|s| !s.operator && !s.blank) && closes_bracket(i)
}

/// Whether `tok` (starting at `[`) holds a `]` that bash's subscript scan
/// takes as the close: not escaped, quoted, nor inside backquotes, `$(…)`,
/// `${…}` or `$[…]` (bash refuses `o["]"`, ``o[`]`]``… as an unterminated `[`).
/// An unterminated group counts as no close, so the line is refused.
fn closes_bracket(tok: &[u8]) -> bool {
    let mut i = 0;
    while i < tok.len() {
        let skip_to = match tok[i] {
            // The word ends here (a substitution's parentheses were
            // skipped whole): as the word parser reads it, not by blanks.
            b if is_meta(b) => return false,
            b'\\' => Some(i + 2),
            // Quotes that run on into the next line: no subscript (the
            // line is refused, as the key scan would not take it).
            b'\'' => find_from(tok, i + 1, |b| b == b'\'' || b == b'\n')
                .filter(|&e| tok[e] == b'\'')
                .map(|e| e + 1),
            b'"' | b'`' => skip_to_quote(tok, i + 1, tok[i])
                .filter(|&e| !tok[i..e].contains(&b'\n'))
                .map(|e| e + 1),
            b'$' if matches!(tok.get(i + 1), Some(b'(' | b'{' | b'[')) => end_of_group(tok, i + 1),
            b'$' if tok.get(i + 1) == Some(&b'\'') => end_of_ansi_c(tok, i + 1),
            b']' => return true,
            _ => Some(i + 1),
        };
        match skip_to {
            Some(next) => i = next,
            None => return false,
        }
    }
    false
}

fn find_from(tok: &[u8], from: usize, hit: impl Fn(u8) -> bool) -> Option<usize> {
    tok.get(from..)?
        .iter()
        .position(|&b| hit(b))
        .map(|p| from + p)
}

/// Past the bracket closing the `(`, `{` or `[` at `open`, counting nesting.
fn end_of_group(tok: &[u8], open: usize) -> Option<usize> {
    let (up, down) = match tok[open] {
        b'(' => (b'(', b')'),
        b'[' => (b'[', b']'),
        _ => (b'{', b'}'),
    };
    let mut depth = 0usize;
    for (k, &b) in tok.iter().enumerate().skip(open) {
        if b == up {
            depth += 1;
        } else if b == down {
            depth -= 1;
            if depth == 0 {
                return Some(k + 1);
            }
        }
    }
    None
}

/// `[key]=` (or `+=`) at `i`: an array element's subscript, which may hold
/// blanks, quotes and brackets, not a newline or an operator.
fn keyed_item(i: &[u8]) -> bool {
    bracket_scan(i).is_some_and(|s| !s.operator && s.assigns(i))
}

/// What bash's scan of `[…` after a name in assignment position finds: it
/// takes everything up to the matching `]`, blanks, operators and newlines
/// too (`a[x<y]=1` assigns, `a[x y]` is one word).
struct BracketScan {
    /// Index of the matching `]`.
    close: usize,
    /// An unquoted operator character or newline before it.
    operator: bool,
    /// An unquoted blank before it.
    blank: bool,
}

impl BracketScan {
    /// `]=` or `]+=`: an assignment.
    fn assigns(&self, i: &[u8]) -> bool {
        let after = &i[self.close + 1..];
        after.starts_with(b"=") || after.starts_with(b"+=")
    }
}

/// Scans `i` (starting at `[`) to its matching `]`; `None` when there is
/// none, or a quote runs on into a later line.
fn bracket_scan(i: &[u8]) -> Option<BracketScan> {
    let mut k = 1;
    let mut depth = 0usize;
    let (mut operator, mut blank) = (false, false);
    while let Some(&b) = i.get(k) {
        k = match b {
            b'[' => {
                depth += 1;
                k + 1
            }
            b']' if depth > 0 => {
                depth -= 1;
                k + 1
            }
            b']' => {
                return Some(BracketScan {
                    close: k,
                    operator,
                    blank,
                });
            }
            b'\\' => k + 2,
            // A quoted part of a key stays on its line (a quote that runs
            // on into later lines is no key).
            b'\'' => match find_from(i, k + 1, |c| c == b'\'' || c == b'\n') {
                Some(e) if i[e] == b'\'' => e + 1,
                _ => return None,
            },
            b'"' => match skip_to_quote(i, k + 1, b'"') {
                Some(e) if !i[k..e].contains(&b'\n') => e + 1,
                _ => return None,
            },
            b'$' if matches!(i.get(k + 1), Some(b'(' | b'{')) => end_of_group(i, k + 1)?,
            b'$' if i.get(k + 1) == Some(&b'\'') => end_of_ansi_c(i, k + 1)?,
            b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>' => {
                operator = true;
                k + 1
            }
            b' ' | b'\t' => {
                blank = true;
                k + 1
            }
            _ => k + 1,
        };
    }
    None
}
