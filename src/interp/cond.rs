//! `[[ expression ]]`: words expanded without splitting or globbing; `==`,
//! `=` and `!=` match the right side as a pattern, `=~` as a POSIX
//! extended regular expression (the C library's, as bash uses), quoted
//! parts literally in both; `-eq` and the like compare arithmetic values;
//! `&&` and `||` evaluate their right side only when needed. Status 0
//! true, 1 false, 2 for a regular expression that does not compile.

use super::builtins::test;
use super::{Flow, Shell, Status};
use crate::syntax::ast::{CondExpr, Word};

/// Why an expression has no truth value.
enum Failed {
    Flow(Flow),
    /// Reported already; the command's status.
    Status(i32),
}

impl From<Flow> for Failed {
    fn from(flow: Flow) -> Failed {
        Failed::Flow(flow)
    }
}

/// Characters an extended regular expression treats specially.
const REGEX_SPECIAL: &[u8] = b"\\.[]()*+?{}|^$";

impl Shell<'_> {
    pub(super) fn run_conditional(&mut self, expr: &CondExpr) -> Status {
        match self.cond(expr) {
            Ok(true) => Ok(0),
            Ok(false) => Ok(1),
            Err(Failed::Status(status)) => Ok(status),
            Err(Failed::Flow(flow)) => Err(flow),
        }
    }

    fn cond(&mut self, expr: &CondExpr) -> Result<bool, Failed> {
        match expr {
            CondExpr::Word(word) => Ok(!self.expand_string(word)?.is_empty()),
            CondExpr::Not(inner) => Ok(!self.cond(inner)?),
            CondExpr::And(a, b) => Ok(self.cond(a)? && self.cond(b)?),
            CondExpr::Or(a, b) => Ok(self.cond(a)? || self.cond(b)?),
            CondExpr::Unary { op, operand } => {
                let value = self.expand_string(operand)?;
                match op.as_str() {
                    "-v" => Ok(self.reference_is_set(&value)?),
                    "-o" => Ok(self.option_value(&String::from_utf8_lossy(&value))),
                    _ => self.judged(test::unary(&*self.sys, op.as_bytes(), &value)),
                }
            }
            CondExpr::Binary { op, left, right } => self.binary(op, left, right),
        }
    }

    fn binary(&mut self, op: &str, left: &Word, right: &Word) -> Result<bool, Failed> {
        let value = self.expand_string(left)?;
        match op {
            "==" | "=" | "!=" => {
                let pattern = self.expand_pattern(right)?;
                // bash reads extended globs inside `[[ ]]` whatever `extglob` says.
                Ok(
                    super::pattern::matches(&pattern, &value, true, self.pattern_unit())
                        == (op != "!="),
                )
            }
            "=~" => self.regex_match(&value, right),
            "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" => {
                let a = self.cond_arith(&value)?;
                let text = self.expand_string(right)?;
                let b = self.cond_arith(&text)?;
                Ok(match op {
                    "-eq" => a == b,
                    "-ne" => a != b,
                    "-lt" => a < b,
                    "-le" => a <= b,
                    "-gt" => a > b,
                    _ => a >= b,
                })
            }
            _ => {
                let other = self.expand_string(right)?;
                self.judged(test::binary(&*self.sys, &value, op.as_bytes(), &other))
            }
        }
    }

    /// An operand of `-eq` and the like: arithmetic, as in bash's `[[`.
    fn cond_arith(&mut self, text: &[u8]) -> Result<i64, Failed> {
        super::arith::eval(self, text).map_err(|error| {
            if let Some(flow) = self.arith_fatal(&error) {
                return Failed::Flow(flow);
            }
            self.error(&format!("[[: {error}"));
            Failed::Status(1)
        })
    }

    fn judged(&mut self, result: Result<bool, String>) -> Result<bool, Failed> {
        result.map_err(|message| {
            self.error(&format!("[[: {message}"));
            Failed::Status(2)
        })
    }

    /// `value =~ right`: quoted parts of `right` match literally. The
    /// whole match and each group's go to the array `BASH_REMATCH` (an
    /// empty array when nothing matched).
    fn regex_match(&mut self, value: &[u8], right: &Word) -> Result<bool, Failed> {
        let mut regex = Vec::new();
        for (byte, quoted) in self.expand_pattern(right)? {
            if quoted && REGEX_SPECIAL.contains(&byte) {
                regex.push(b'\\');
            }
            regex.push(byte);
        }
        let matched = posix_regex_match(&regex, value).map_err(|()| Failed::Status(2))?;
        let groups = matched.clone().unwrap_or_default();
        let elements = groups
            .into_iter()
            .enumerate()
            .map(|(i, g)| (i as i64, g))
            .collect();
        self.vars
            .set_value("BASH_REMATCH", crate::interp::Value::Indexed(elements));
        Ok(matched.is_some())
    }
}

/// The groups of an extended regular expression: its `(` outside bracket
/// expressions and not escaped (`regex_t`'s own count is private in the
/// `libc` crate's binding).
fn count_groups(regex: &[u8]) -> usize {
    let mut count = 0;
    let mut i = 0;
    while i < regex.len() {
        match regex[i] {
            b'\\' => i += 1,
            b'(' => count += 1,
            b'[' => {
                // `[]…]` and `[^]…]` hold a literal `]` first.
                i += 1;
                if regex.get(i) == Some(&b'^') {
                    i += 1;
                }
                if regex.get(i) == Some(&b']') {
                    i += 1;
                }
                while i < regex.len() && regex[i] != b']' {
                    if regex[i] == b'[' && matches!(regex.get(i + 1), Some(b':' | b'.' | b'=')) {
                        let close = regex[i + 2..]
                            .windows(2)
                            .position(|w| w[1] == b']' && matches!(w[0], b':' | b'.' | b'='));
                        i += close.map_or(1, |c| c + 3);
                        continue;
                    }
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    count
}

/// The C library's extended regular expression `regex` against `value`:
/// the matched text and each group's (empty for a group that took no
/// part), `None` for no match, `Err` when it does not compile (or either
/// holds a NUL byte).
fn posix_regex_match(regex: &[u8], value: &[u8]) -> Result<Option<Vec<Vec<u8>>>, ()> {
    let pattern = std::ffi::CString::new(regex).map_err(|_| ())?;
    let subject = std::ffi::CString::new(value).map_err(|_| ())?;
    let mut compiled = std::mem::MaybeUninit::<libc::regex_t>::uninit();
    // SAFETY: regcomp initializes `compiled` when it returns 0; both
    // strings are NUL-terminated and outlive the calls.
    unsafe {
        if libc::regcomp(compiled.as_mut_ptr(), pattern.as_ptr(), libc::REG_EXTENDED) != 0 {
            return Err(());
        }
        let groups = count_groups(regex) + 1;
        let mut spans = vec![
            libc::regmatch_t {
                rm_so: -1,
                rm_eo: -1
            };
            groups
        ];
        let found = libc::regexec(
            compiled.as_ptr(),
            subject.as_ptr(),
            groups,
            spans.as_mut_ptr(),
            0,
        ) == 0;
        libc::regfree(compiled.as_mut_ptr());
        if !found {
            return Ok(None);
        }
        let texts = spans
            .iter()
            .map(
                |m| match (usize::try_from(m.rm_so), usize::try_from(m.rm_eo)) {
                    (Ok(start), Ok(end)) => value.get(start..end).unwrap_or_default().to_vec(),
                    _ => Vec::new(),
                },
            )
            .collect();
        Ok(Some(texts))
    }
}
