//! Arithmetic expansion `$(( … ))` and `let`-style evaluation: 64-bit
//! integers, C operators with bash's precedence, assignment operators,
//! `++`/`--`, `?:`, and variables (whose values are themselves evaluated as
//! arithmetic, never as commands).

/// Variable access for the evaluator.
pub trait ArithEnv {
    /// The value of `name`, or of `name[subscript]` (the subscript's text
    /// as written); an error for a subscript the shell refuses.
    fn get_var(&mut self, name: &str) -> Result<Option<Vec<u8>>, ArithError>;
    fn set_var(&mut self, name: &str, value: i64) -> Result<(), ArithError>;
    /// `set -u`: an unset variable is an error, not 0.
    fn unset_is_error(&self) -> bool {
        false
    }
}

/// Why an expression has no value; its `Display` is bash's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArithError {
    /// An unset variable under `set -u`: the shell aborts as for `$name`.
    Unbound(String),
    /// Anything else: the command fails, the message says why.
    Invalid(String),
    /// The policy refuses it (a protected variable, a subscript that
    /// would run a substitution): the line stops, as for any denial.
    Denied(crate::guard::Deny),
}

impl std::fmt::Display for ArithError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArithError::Unbound(name) => write!(f, "{name}: unbound variable"),
            ArithError::Invalid(message) => f.write_str(message),
            ArithError::Denied(deny) => f.write_str(&deny.reason),
        }
    }
}

type R<T> = Result<T, ArithError>;

/// Evaluate `text`; errors read like bash's.
pub fn eval(env: &mut dyn ArithEnv, text: &[u8]) -> R<i64> {
    eval_depth(env, text, 0)
}

fn eval_depth(env: &mut dyn ArithEnv, text: &[u8], depth: u32) -> R<i64> {
    if depth > 32 {
        return Err(ArithError::Invalid(
            "expression recursion level exceeded".into(),
        ));
    }
    let mut p = Parser {
        s: text,
        i: 0,
        last_operator: 0,
        last_operand: 0,
        env,
        depth,
    };
    p.skip_ws();
    if p.i >= p.s.len() {
        return Ok(0);
    }
    let v = p.comma(true)?;
    p.skip_ws();
    if p.i < p.s.len() {
        return Err(p.trailing_error());
    }
    Ok(v)
}

/// bash's message for an error in `expression` at `token`.
fn error_text(expression: &[u8], what: &str, token: &[u8]) -> ArithError {
    ArithError::Invalid(format!(
        "{}: {what} (error token is \"{}\")",
        String::from_utf8_lossy(expression).trim_start(),
        String::from_utf8_lossy(token)
    ))
}

/// Bytes no arithmetic token starts with: bash fails on one as soon as it
/// reads it, one token ahead of what it evaluates.
fn starts_no_token(b: u8) -> bool {
    matches!(b, b'#' | b';' | b'"' | b'\'' | b'\\' | b'`' | b'{' | b'}')
}

struct Parser<'s, 'e> {
    s: &'s [u8],
    i: usize,
    /// Where the last operator read starts: bash's error token when an
    /// operand is missing at the end of the text.
    last_operator: usize,
    /// Where the last operand read starts: bash's error token for a
    /// division by zero.
    last_operand: usize,
    env: &'e mut dyn ArithEnv,
    depth: u32,
}

/// A value or an assignable variable name.
enum Val {
    Num(i64),
    Var(String),
}

impl Parser<'_, '_> {
    fn skip_ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn peek_op(&mut self, op: &str) -> bool {
        self.skip_ws();
        self.s[self.i..].starts_with(op.as_bytes())
    }

    fn eat(&mut self, op: &str) -> bool {
        if self.peek_op(op) {
            self.last_operator = self.i;
            self.i += op.len();
            true
        } else {
            false
        }
    }

    /// Eat `op` unless it is the start of a longer operator in `not`.
    fn eat_not(&mut self, op: &str, not: &[&str]) -> bool {
        self.skip_ws();
        let rest = &self.s[self.i..];
        if not.iter().any(|n| rest.starts_with(n.as_bytes())) {
            return false;
        }
        self.eat(op)
    }

    /// bash's message: the text (leading blanks dropped), what went wrong,
    /// and the rest of the text from the token at fault: the next one, or
    /// at the end the last operator read.
    /// The error for the text left at `i`, which no operator can take.
    fn trailing_error(&self) -> ArithError {
        let rest = &self.s[self.i..];
        let what = if rest.first().copied().is_some_and(starts_no_token) {
            "syntax error: invalid arithmetic operator"
        } else {
            "syntax error in expression"
        };
        error_text(self.s, what, rest)
    }

    fn err(&self, what: &str) -> ArithError {
        let mut at = self.i.min(self.s.len());
        while at < self.s.len() && self.s[at].is_ascii_whitespace() {
            at += 1;
        }
        if at == self.s.len() {
            at = self.last_operator;
        }
        self.err_at(what, at)
    }

    /// [`Parser::err`] with the error token starting at `at`.
    fn err_at(&self, what: &str, at: usize) -> ArithError {
        error_text(self.s, what, &self.s[at.min(self.s.len())..])
    }

    fn value(&mut self, v: Val, live: bool) -> R<i64> {
        match v {
            Val::Num(n) => Ok(n),
            Val::Var(name) => {
                if !live {
                    return Ok(0);
                }
                let Some(text) = self.env.get_var(&name)? else {
                    if self.env.unset_is_error() {
                        return Err(ArithError::Unbound(name));
                    }
                    return Ok(0);
                };
                let trimmed: Vec<u8> = text.trim_ascii().to_vec();
                if trimmed.is_empty() {
                    return Ok(0);
                }
                if let Some(n) = parse_number(&trimmed) {
                    return Ok(n);
                }
                eval_depth(self.env, &trimmed, self.depth + 1)
            }
        }
    }

    fn assign(&mut self, v: &Val, n: i64, live: bool) -> R<()> {
        match v {
            Val::Var(name) if live => self.env.set_var(name, n),
            Val::Var(_) => Ok(()),
            Val::Num(_) => Err(self.err("attempted assignment to non-variable")),
        }
    }

    fn comma(&mut self, live: bool) -> R<i64> {
        let mut v = self.assignment(live)?;
        while self.eat(",") {
            v = self.assignment(live)?;
        }
        Ok(v)
    }

    fn assignment(&mut self, live: bool) -> R<i64> {
        let start = self.i;
        self.skip_ws();
        if let Some(name) = self.ident() {
            self.skip_ws();
            const OPS: &[&str] = &[
                "<<=", ">>=", "**=", "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "=",
            ];
            for op in OPS {
                if self.s[self.i..].starts_with(op.as_bytes())
                    && !(*op == "=" && self.s[self.i..].starts_with(b"=="))
                {
                    self.last_operator = self.i;
                    self.i += op.len();
                    let rhs = self.assignment(live)?;
                    // bash reads the token after the value before it
                    // assigns: a byte no token starts with fails first.
                    let at = self.i;
                    self.skip_ws();
                    if self.s.get(self.i).copied().is_some_and(starts_no_token) {
                        return Err(self.trailing_error());
                    }
                    self.i = at;
                    let var = Val::Var(name);
                    let n = if *op == "=" {
                        rhs
                    } else {
                        let old = self.value(Val::Var(var_name(&var)), live)?;
                        self.binary(&op[..op.len() - 1], old, rhs, live)?
                    };
                    self.assign(&var, n, live)?;
                    return Ok(n);
                }
            }
        }
        self.i = start;
        self.ternary(live)
    }

    fn ternary(&mut self, live: bool) -> R<i64> {
        let cond = self.binary_level(0, live)?;
        if self.eat("?") {
            let a = self.assignment(live && cond != 0)?;
            if !self.eat(":") {
                return Err(
                    self.err_at("`:' expected for conditional expression", self.last_operand)
                );
            }
            let b = self.assignment(live && cond == 0)?;
            return Ok(if cond != 0 { a } else { b });
        }
        Ok(cond)
    }

    /// Binary operators by precedence level, lowest first.
    fn binary_level(&mut self, level: usize, live: bool) -> R<i64> {
        const LEVELS: &[&[&str]] = &[
            &["||"],
            &["&&"],
            &["|"],
            &["^"],
            &["&"],
            &["==", "!="],
            &["<=", ">=", "<", ">"],
            &["<<", ">>"],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        if level >= LEVELS.len() {
            return self.power(live);
        }
        let mut lhs = self.binary_level(level + 1, live)?;
        'outer: loop {
            for op in LEVELS[level] {
                let not: &[&str] = match *op {
                    "|" => &["||", "|="],
                    "&" => &["&&", "&="],
                    "^" => &["^="],
                    "<" => &["<<", "<="],
                    ">" => &[">>", ">="],
                    "<<" => &["<<="],
                    ">>" => &[">>="],
                    "+" => &["++", "+="],
                    "-" => &["--", "-="],
                    "*" => &["**", "*="],
                    "/" => &["/="],
                    "%" => &["%="],
                    _ => &[],
                };
                if self.eat_not(op, not) {
                    let short = match *op {
                        "&&" => Some(lhs != 0),
                        "||" => Some(lhs == 0),
                        _ => None,
                    };
                    let rhs_live = live && short.unwrap_or(true);
                    let rhs = self.binary_level(level + 1, rhs_live)?;
                    lhs = match *op {
                        "&&" => i64::from(lhs != 0 && rhs != 0),
                        "||" => i64::from(lhs != 0 || rhs != 0),
                        _ => self.binary(op, lhs, rhs, live)?,
                    };
                    continue 'outer;
                }
            }
            return Ok(lhs);
        }
    }

    fn binary(&self, op: &str, a: i64, b: i64, live: bool) -> R<i64> {
        Ok(match op {
            "+" => a.wrapping_add(b),
            "-" => a.wrapping_sub(b),
            "*" => a.wrapping_mul(b),
            "/" | "%" => {
                if b == 0 {
                    if !live {
                        return Ok(0);
                    }
                    return Err(self.err_at("division by 0", self.last_operand));
                }
                if op == "/" {
                    a.wrapping_div(b)
                } else {
                    a.wrapping_rem(b)
                }
            }
            "**" => {
                if b < 0 {
                    return Err(self.err("exponent less than 0"));
                }
                a.wrapping_pow(u32::try_from(b).unwrap_or(u32::MAX))
            }
            "<<" => a.wrapping_shl((b & 63) as u32),
            ">>" => a.wrapping_shr((b & 63) as u32),
            "&" => a & b,
            "|" => a | b,
            "^" => a ^ b,
            "==" => i64::from(a == b),
            "!=" => i64::from(a != b),
            "<" => i64::from(a < b),
            ">" => i64::from(a > b),
            "<=" => i64::from(a <= b),
            ">=" => i64::from(a >= b),
            _ => return Err(self.err("unknown operator")),
        })
    }

    fn power(&mut self, live: bool) -> R<i64> {
        let base = self.unary(live)?;
        if self.eat_not("**", &["**="]) {
            let exp = self.power(live)?;
            return self.binary("**", base, exp, live);
        }
        Ok(base)
    }

    fn unary(&mut self, live: bool) -> R<i64> {
        if self.eat("++") || self.eat("--") {
            let delta = if self.s[self.i - 1] == b'+' { 1 } else { -1 };
            self.skip_ws();
            let Some(name) = self.ident() else {
                return Err(self.err("syntax error: operand expected"));
            };
            let v = self.value(Val::Var(name.clone()), live)? + delta;
            self.assign(&Val::Var(name), v, live)?;
            return Ok(v);
        }
        if self.eat_not("-", &["-="]) {
            return Ok(self.unary(live)?.wrapping_neg());
        }
        if self.eat_not("+", &["+="]) {
            return self.unary(live);
        }
        if self.eat_not("!", &["!="]) {
            return Ok(i64::from(self.unary(live)? == 0));
        }
        if self.eat("~") {
            return Ok(!self.unary(live)?);
        }
        self.postfix(live)
    }

    fn postfix(&mut self, live: bool) -> R<i64> {
        let v = self.primary(live)?;
        if let Val::Var(name) = &v {
            if self.eat("++") || self.eat("--") {
                let delta = if self.s[self.i - 1] == b'+' { 1 } else { -1 };
                let old = self.value(Val::Var(name.clone()), live)?;
                self.assign(&v, old + delta, live)?;
                return Ok(old);
            }
        }
        self.value(v, live)
    }

    fn primary(&mut self, live: bool) -> R<Val> {
        self.skip_ws();
        if self.eat("(") {
            let v = self.comma(live)?;
            if !self.eat(")") {
                return Err(self.err("missing `)'"));
            }
            return Ok(Val::Num(v));
        }
        let start = self.i;
        if let Some(name) = self.ident() {
            self.last_operand = start;
            return Ok(Val::Var(name));
        }
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric()
                || matches!(self.s[self.i], b'#' | b'@' | b'_'))
        {
            self.i += 1;
        }
        if start == self.i {
            return Err(self.err("syntax error: operand expected"));
        }
        self.last_operand = start;
        match parse_number(&self.s[start..self.i]) {
            Some(n) => Ok(Val::Num(n)),
            // bash shows the expression up to the constant it refuses.
            None => Err(error_text(
                &self.s[..self.i],
                number_error(&self.s[start..self.i]),
                &self.s[start..self.i],
            )),
        }
    }

    /// A variable name, with its array subscript (`a[i+1]`) if one follows.
    fn ident(&mut self) -> Option<String> {
        let start = self.i;
        match self.s.get(self.i) {
            Some(b) if b.is_ascii_alphabetic() || *b == b'_' => {}
            _ => return None,
        }
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'_')
        {
            self.i += 1;
        }
        if self.s.get(self.i) == Some(&b'[') {
            let mut depth = 0usize;
            for (k, &b) in self.s[self.i..].iter().enumerate() {
                match b {
                    b'[' => depth += 1,
                    b']' => {
                        depth -= 1;
                        if depth == 0 {
                            self.i += k + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
        }
        Some(String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }
}

fn var_name(v: &Val) -> String {
    match v {
        Val::Var(name) => name.clone(),
        Val::Num(_) => String::new(),
    }
}

/// bash's words for a constant `parse_number` refuses.
fn number_error(text: &[u8]) -> &'static str {
    let Some(hash) = text.iter().position(|&b| b == b'#') else {
        return "value too great for base";
    };
    let base = &text[..hash];
    let value = std::str::from_utf8(base)
        .ok()
        .and_then(|b| b.parse::<u32>().ok());
    if base.first() == Some(&b'0') {
        "invalid number"
    } else if !value.is_some_and(|b| (2..=64).contains(&b)) {
        "invalid arithmetic base"
    } else {
        "value too great for base"
    }
}

/// An integer constant: decimal, `0x` hex, `0` octal or `BASE#digits`.
pub fn parse_number(text: &[u8]) -> Option<i64> {
    let s = std::str::from_utf8(text).ok()?;
    if let Some((base, digits)) = s.split_once('#') {
        // A base written with a leading 0 is bash's invalid number.
        if base.starts_with('0') {
            return None;
        }
        let base: u32 = base.parse().ok()?;
        if !(2..=64).contains(&base) || digits.is_empty() {
            return None;
        }
        let mut n: i64 = 0;
        for c in digits.chars() {
            let d = match c {
                '0'..='9' => c as u32 - '0' as u32,
                'a'..='z' => c as u32 - 'a' as u32 + 10,
                'A'..='Z' if base <= 36 => c as u32 - 'A' as u32 + 10,
                'A'..='Z' => c as u32 - 'A' as u32 + 36,
                '@' => 62,
                '_' => 63,
                _ => return None,
            };
            if d >= base {
                return None;
            }
            n = n.wrapping_mul(i64::from(base)).wrapping_add(i64::from(d));
        }
        return Some(n);
    }
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).ok().map(|n| n as i64);
    }
    if s.len() > 1 && s.starts_with('0') {
        return u64::from_str_radix(&s[1..], 8).ok().map(|n| n as i64);
    }
    if s.bytes().all(|b| b.is_ascii_digit()) && !s.is_empty() {
        return s.parse::<u64>().ok().map(|n| n as i64);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[derive(Default)]
    struct Env(HashMap<String, Vec<u8>>);

    impl ArithEnv for Env {
        fn get_var(&mut self, name: &str) -> Result<Option<Vec<u8>>, ArithError> {
            Ok(self.0.get(name).cloned())
        }
        fn set_var(&mut self, name: &str, value: i64) -> Result<(), ArithError> {
            self.0.insert(name.into(), value.to_string().into_bytes());
            Ok(())
        }
    }

    fn ev(env: &mut Env, s: &str) -> R<i64> {
        eval(env, s.as_bytes())
    }

    #[test]
    fn precedence_follows_c_and_bash() -> R<()> {
        let mut env = Env::default();
        assert_eq!(ev(&mut env, "1 + 2 * 3")?, 7);
        assert_eq!(ev(&mut env, "2 ** 3 ** 2")?, 512);
        assert_eq!(ev(&mut env, "-2 ** 2")?, 4);
        assert_eq!(ev(&mut env, "(1 + 2) * 3")?, 9);
        assert_eq!(ev(&mut env, "7 % 3 << 2")?, 4);
        assert_eq!(ev(&mut env, "1 < 2 && 3 > 4 || 5 == 5")?, 1);
        assert_eq!(ev(&mut env, "0x10 + 010 + 2#101")?, 29);
        assert_eq!(ev(&mut env, "1 ? 2 : 3")?, 2);
        assert_eq!(ev(&mut env, "~0 ^ 5 & 3 | 8")?, -2);
        Ok(())
    }

    #[test]
    fn assignments_and_increments_update_variables() -> R<()> {
        let mut env = Env::default();
        assert_eq!(ev(&mut env, "x = 5")?, 5);
        assert_eq!(ev(&mut env, "x += 2")?, 7);
        assert_eq!(ev(&mut env, "x++")?, 7);
        assert_eq!(ev(&mut env, "++x")?, 9);
        assert_eq!(ev(&mut env, "x--, x")?, 8);
        assert_eq!(env.0.get("x"), Some(&b"8".to_vec()));
        Ok(())
    }

    #[test]
    fn short_circuit_skips_side_effects_and_division() -> R<()> {
        let mut env = Env::default();
        assert_eq!(ev(&mut env, "0 && (y = 1/0)")?, 0);
        assert_eq!(env.0.get("y"), None);
        assert!(ev(&mut env, "1/0").is_err());
        assert!(ev(&mut env, "1 +").is_err());
        Ok(())
    }

    #[test]
    fn variable_values_are_evaluated_as_arithmetic_only() -> R<()> {
        let mut env = Env::default();
        env.0.insert("a".into(), b"b + 1".to_vec());
        env.0.insert("b".into(), b"41".to_vec());
        assert_eq!(ev(&mut env, "a")?, 42);
        env.0.insert("c".into(), b"$(touch x)".to_vec());
        assert!(ev(&mut env, "c").is_err());
        Ok(())
    }
}
