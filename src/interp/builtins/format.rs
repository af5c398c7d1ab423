//! `echo` and `printf` (bash semantics).

use crate::interp::quote::{Escapes, backslash_escapes, quote_q};

/// `echo [-neE] args…`
pub fn echo(args: &[Vec<u8>]) -> Vec<u8> {
    let mut newline = true;
    let mut escapes = false;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a.len() < 2 || a[0] != b'-' || !a[1..].iter().all(|b| matches!(b, b'n' | b'e' | b'E')) {
            break;
        }
        for b in &a[1..] {
            match b {
                b'n' => newline = false,
                b'e' => escapes = true,
                _ => escapes = false,
            }
        }
        i += 1;
    }
    let mut out = Vec::new();
    for (k, a) in args[i..].iter().enumerate() {
        if k > 0 {
            out.push(b' ');
        }
        if escapes {
            let (bytes, stop) = backslash_escapes(a, Escapes::Echo);
            out.extend_from_slice(&bytes);
            if stop {
                return out;
            }
        } else {
            out.extend_from_slice(a);
        }
    }
    if newline {
        out.push(b'\n');
    }
    out
}

/// Result of `printf`: output, what made it fail (status 1) and what it
/// only warned of.
pub struct Printed {
    pub out: Vec<u8>,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
}

/// The largest field width or precision `printf` builds (1 MiB).
const MAX_FIELD: usize = 1 << 20;

/// `printf FORMAT [ARG…]`, reusing the format while arguments remain;
/// `now` (seconds since the epoch) is what `%(…)T` shows for `-1`.
pub fn printf(format: &[u8], args: &[Vec<u8>], now: i64) -> Printed {
    let mut p = Printed {
        out: Vec::new(),
        errors: Vec::new(),
        warnings: Vec::new(),
    };
    let mut next = 0usize;
    loop {
        let used_before = next;
        let stop = one_pass(format, args, now, &mut next, &mut p);
        if stop || next >= args.len() || next == used_before {
            break;
        }
    }
    p
}

fn take<'a>(args: &'a [Vec<u8>], next: &mut usize) -> Option<&'a [u8]> {
    let a = args.get(*next).map(Vec::as_slice);
    if a.is_some() {
        *next += 1;
    }
    a
}

/// An integer argument as bash's printf reads it: C's `strtoimax`
/// (`unsigned`: `strtoumax`, for `%u %o %x %X`) with base 0 (`0x` hex,
/// `0` octal), leading blanks allowed; `'c` or `"c` is the character's
/// code. Text left after the number is an error (the value read so far
/// is printed, status 1); a number out of range is clamped with a
/// warning (status unchanged). The result is the value's 64 bits.
fn to_int(arg: Option<&[u8]>, unsigned: bool, p: &mut Printed) -> i64 {
    let Some(a) = arg else { return 0 };
    if let Some(rest) = a.strip_prefix(b"'").or_else(|| a.strip_prefix(b"\"")) {
        return String::from_utf8_lossy(rest)
            .chars()
            .next()
            .map_or(0, |c| c as i64);
    }
    let c = c_integer(a);
    let (value, out_of_range) = match (unsigned, c.negative) {
        (false, false) => (
            c.magnitude.min(i64::MAX as u128) as i64,
            c.magnitude > i64::MAX as u128,
        ),
        (false, true) => match c.magnitude {
            m if m > 1u128 << 63 => (i64::MIN, true),
            m => ((m as i128).wrapping_neg() as i64, false),
        },
        (true, negative) => match c.magnitude {
            m if m > u64::MAX as u128 => (-1, true),
            m if negative => ((m as u64).wrapping_neg() as i64, false),
            m => (m as u64 as i64, false),
        },
    };
    let text = || String::from_utf8_lossy(a);
    if c.used < a.len() {
        p.errors.push(format!("{}: invalid number", text()));
    } else if out_of_range {
        p.warnings.push(format!(
            "warning: {}: Numerical result out of range",
            text()
        ));
    }
    value
}

/// What C's `strtoimax(text, &end, 0)` reads: the sign, the magnitude
/// (saturated far above 64 bits) and how many bytes it took (0 when no
/// digit was found).
struct CInteger {
    negative: bool,
    magnitude: u128,
    used: usize,
}

fn c_integer(text: &[u8]) -> CInteger {
    let mut i = text
        .iter()
        .position(|b| !b" \t\n\x0b\x0c\r".contains(b))
        .unwrap_or(text.len());
    let negative = text.get(i) == Some(&b'-');
    if matches!(text.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let hex = matches!(text.get(i..i + 2), Some(b"0x" | b"0X"))
        && text.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
    let (radix, first) = match (hex, text.get(i)) {
        (true, _) => (16, i + 2),
        (false, Some(b'0')) => (8, i),
        _ => (10, i),
    };
    let mut magnitude: u128 = 0;
    let mut end = first;
    while let Some(d) = text.get(end).and_then(|&b| (b as char).to_digit(radix)) {
        magnitude = magnitude
            .saturating_mul(radix as u128)
            .saturating_add(d as u128);
        end += 1;
    }
    CInteger {
        negative,
        magnitude,
        used: if end > first { end } else { 0 },
    }
}

fn pad(s: Vec<u8>, width: Option<usize>, left: bool, zero: bool) -> Vec<u8> {
    let Some(w) = width else { return s };
    // A width counts bytes, in every locale (bash's printf is C's).
    let len = s.len();
    if len >= w {
        return s;
    }
    let fill = w - len;
    if left {
        let mut s = s;
        s.extend(std::iter::repeat_n(b' ', fill));
        s
    } else if zero {
        let (sign, digits) = match s.first() {
            Some(b'-') | Some(b'+') => (s[..1].to_vec(), s[1..].to_vec()),
            _ => (Vec::new(), s),
        };
        let mut out = sign;
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend(digits);
        out
    } else {
        let mut out = vec![b' '; fill];
        out.extend(s);
        out
    }
}

/// One pass over the format. Returns `true` when `\c` stopped output.
fn one_pass(format: &[u8], args: &[Vec<u8>], now: i64, next: &mut usize, p: &mut Printed) -> bool {
    let mut i = 0;
    while i < format.len() {
        let c = format[i];
        if c == b'\\' {
            let j = escape_end(format, i);
            let (bytes, stop) = backslash_escapes(&format[i..j], Escapes::Format);
            p.out.extend_from_slice(&bytes);
            if stop {
                return true;
            }
            i = j;
            continue;
        }
        if c != b'%' {
            p.out.push(c);
            i += 1;
            continue;
        }
        let percent = i;
        i += 1;
        if i < format.len() && format[i] == b'%' {
            p.out.push(b'%');
            i += 1;
            continue;
        }
        let spec = Spec::parse(format, &mut i, args, next, p);
        // A field is built in memory: past this size the line is refused
        // rather than allocating gigabytes (bash would try).
        if let Some(size) = spec
            .width
            .into_iter()
            .chain(spec.precision)
            .find(|n| *n > MAX_FIELD)
        {
            p.errors.push(if size == usize::MAX {
                format!("field width or precision above {MAX_FIELD}")
            } else {
                format!("{size}: field width or precision above {MAX_FIELD}")
            });
            return true;
        }
        let Some(&conv) = format.get(i) else {
            p.errors.push(format!(
                "`{}': missing format character",
                String::from_utf8_lossy(&format[percent..])
            ));
            return true;
        };
        // `%(FORMAT)T`: the argument (seconds since the epoch; empty or -1
        // now) formatted by strftime in local time, as bash does.
        if conv == b'(' {
            let Some(close) = format[i..].windows(2).position(|w| w == b")T") else {
                p.errors.push("`(': invalid format character".into());
                return true;
            };
            let pattern = &format[i + 1..i + close];
            i += close + 2;
            let arg = take(args, next);
            let when = match arg {
                None | Some(b"") | Some(b"-1") | Some(b"-2") => now,
                Some(_) => to_int(arg, false, p),
            };
            let mut s = strftime_local(pattern, when);
            if let Some(prec) = spec.precision {
                s.truncate(prec);
            }
            p.out.extend(pad(s, spec.width, spec.left, false));
            continue;
        }
        i += 1;
        if convert(conv, &spec, args, next, p) {
            return true;
        }
    }
    false
}

/// Where the backslash escape starting at `format[i]` ends: two bytes, or
/// up to three octal digits, two hex digits, four (`\u`) or eight (`\U`)
/// hex digits after the backslash.
fn escape_end(format: &[u8], i: usize) -> usize {
    let (digit, max): (fn(&u8) -> bool, usize) = match format.get(i + 1) {
        Some(b'0'..=b'7') => (|b| (b'0'..=b'7').contains(b), 5),
        Some(b'x') => (u8::is_ascii_hexdigit, 4),
        Some(b'u') => (u8::is_ascii_hexdigit, 6),
        Some(b'U') => (u8::is_ascii_hexdigit, 10),
        _ => return (i + 2).min(format.len()),
    };
    let mut j = i + 2;
    while j < format.len() && j < i + max && digit(&format[j]) {
        j += 1;
    }
    j
}

/// A conversion's flags, width and precision.
#[derive(Default)]
struct Spec {
    left: bool,
    zero: bool,
    plus: bool,
    space: bool,
    alt: bool,
    width: Option<usize>,
    precision: Option<usize>,
}

impl Spec {
    /// Read the flags, width (`*` takes an argument), precision and the
    /// ignored length modifiers from `format[*i..]`, leaving `*i` at the
    /// conversion character.
    fn parse(
        format: &[u8],
        i: &mut usize,
        args: &[Vec<u8>],
        next: &mut usize,
        p: &mut Printed,
    ) -> Spec {
        let mut spec = Spec::default();
        while let Some(&c) = format.get(*i) {
            match c {
                b'-' => spec.left = true,
                b'0' => spec.zero = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                _ => break,
            }
            *i += 1;
        }
        if format.get(*i) == Some(&b'*') {
            let w = to_int(take(args, next), false, p);
            if w < 0 {
                spec.left = true;
            }
            spec.width = Some(w.unsigned_abs() as usize);
            *i += 1;
        } else {
            spec.width = digits(format, i);
        }
        if format.get(*i) == Some(&b'.') {
            *i += 1;
            if format.get(*i) == Some(&b'*') {
                spec.precision = Some(to_int(take(args, next), false, p).max(0) as usize);
                *i += 1;
            } else {
                spec.precision = Some(digits(format, i).unwrap_or(0));
            }
        }
        while format
            .get(*i)
            .is_some_and(|c| matches!(c, b'l' | b'h' | b'j' | b'z' | b't' | b'L'))
        {
            *i += 1;
        }
        spec
    }
}

/// The decimal number at `format[*i..]`, if any (`usize::MAX` when too
/// large), with `*i` moved past it.
fn digits(format: &[u8], i: &mut usize) -> Option<usize> {
    let start = *i;
    while format.get(*i).is_some_and(u8::is_ascii_digit) {
        *i += 1;
    }
    (*i > start).then(|| {
        String::from_utf8_lossy(&format[start..*i])
            .parse()
            .unwrap_or(usize::MAX)
    })
}

/// Print one conversion `conv` of the next argument. Returns `true` when
/// output stops (`\c` in a `%b` argument, an invalid conversion).
fn convert(conv: u8, spec: &Spec, args: &[Vec<u8>], next: &mut usize, p: &mut Printed) -> bool {
    match conv {
        b's' | b'b' | b'q' => {
            let arg = take(args, next).unwrap_or(b"");
            let mut s = match conv {
                b's' => arg.to_vec(),
                b'q' => quote_q(arg).into_bytes(),
                _ => {
                    let (bytes, stop) = backslash_escapes(arg, Escapes::PrintfB);
                    if stop {
                        p.out.extend(pad(bytes, spec.width, spec.left, false));
                        return true;
                    }
                    bytes
                }
            };
            if let Some(prec) = spec.precision {
                s.truncate(prec);
            }
            p.out.extend(pad(s, spec.width, spec.left, false));
        }
        b'c' => {
            // The first byte, not the first character (bash 5.2).
            let arg = take(args, next).unwrap_or(b"");
            let s = arg.first().map(|&b| vec![b]).unwrap_or_default();
            p.out.extend(pad(s, spec.width, spec.left, false));
        }
        b'd' | b'i' | b'u' | b'x' | b'X' | b'o' => {
            let n = to_int(take(args, next), !matches!(conv, b'd' | b'i'), p);
            let s = format_integer(conv, n, spec);
            let zero = spec.zero && spec.precision.is_none();
            p.out.extend(pad(s, spec.width, spec.left, zero));
        }
        b'f' | b'F' | b'e' | b'E' | b'g' | b'G' => {
            let arg = take(args, next).unwrap_or(b"0");
            let text = String::from_utf8_lossy(arg);
            let x: f64 = match text.trim().parse() {
                Ok(x) => x,
                Err(_) => {
                    p.errors.push(format!("{text}: invalid number"));
                    0.0
                }
            };
            let body = format_float(conv, x, spec);
            p.out.extend(pad(body, spec.width, spec.left, spec.zero));
        }
        other => {
            p.errors
                .push(format!("`{}': invalid format character", other as char));
            return true;
        }
    }
    false
}

/// `%d %i %u %x %X %o` of `n`, before padding to the width.
fn format_integer(conv: u8, n: i64, spec: &Spec) -> Vec<u8> {
    let mut digits = match conv {
        b'd' | b'i' => n.unsigned_abs().to_string(),
        b'u' => (n as u64).to_string(),
        b'x' => format!("{:x}", n as u64),
        b'X' => format!("{:X}", n as u64),
        _ => format!("{:o}", n as u64),
    };
    if spec.precision == Some(0) && n == 0 && !(spec.alt && conv == b'o') {
        // C's rule: no digits at all for zero at precision 0.
        digits.clear();
    }
    if let Some(prec) = spec.precision {
        if digits.len() < prec {
            digits.insert_str(0, &"0".repeat(prec - digits.len()));
        }
    }
    if spec.alt && n != 0 {
        match conv {
            b'x' => digits.insert_str(0, "0x"),
            b'X' => digits.insert_str(0, "0X"),
            b'o' => digits.insert(0, '0'),
            _ => {}
        }
    }
    let sign = match conv {
        b'd' | b'i' if n < 0 => "-",
        b'd' | b'i' if spec.plus => "+",
        b'd' | b'i' if spec.space => " ",
        _ => "",
    };
    format!("{sign}{digits}").into_bytes()
}

/// `%f %F %e %E %g %G` of `x`, before padding to the width.
fn format_float(conv: u8, x: f64, spec: &Spec) -> Vec<u8> {
    let prec = spec.precision.unwrap_or(6);
    // `#`: a decimal point even with no digit after it.
    let point = if spec.alt && prec == 0 { "." } else { "" };
    let body = match conv {
        b'f' | b'F' => format!("{x:.prec$}{point}"),
        b'e' | b'E' => {
            let s = fix_exponent(&format!("{x:.prec$e}")).replacen('e', &format!("{point}e"), 1);
            if conv == b'E' { s.to_uppercase() } else { s }
        }
        _ => {
            let s = format_g(x, prec.max(1), spec.alt);
            if conv == b'G' { s.to_uppercase() } else { s }
        }
    };
    if spec.plus && x >= 0.0 {
        format!("+{body}").into_bytes()
    } else {
        body.into_bytes()
    }
}

/// Rust writes `1.5e0`; C writes `1.5e+00`.
fn fix_exponent(s: &str) -> String {
    match s.split_once('e') {
        Some((m, e)) => {
            let (sign, digits) = match e.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', e),
            };
            format!("{m}e{sign}{digits:0>2}")
        }
        None => s.to_string(),
    }
}

fn format_g(x: f64, prec: usize, alt: bool) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let exp = x.abs().log10().floor() as i32;
    let s = if exp < -4 || exp >= prec as i32 {
        let p = prec - 1;
        fix_exponent(&format!("{x:.p$e}"))
    } else {
        let p = (prec as i32 - 1 - exp).max(0) as usize;
        format!("{x:.p$}")
    };
    if alt || !s.contains('.') {
        return s;
    }
    match s.split_once('e') {
        Some((m, e)) => format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.')),
        None => s.trim_end_matches('0').trim_end_matches('.').to_string(),
    }
}

/// `strftime(pattern)` of `when` (seconds since the epoch) in the local
/// time zone; empty when the pattern or the time cannot be used, or when
/// the result does not fit bash's 128-byte buffer.
pub(crate) fn strftime_local(pattern: &[u8], when: i64) -> Vec<u8> {
    let Ok(pattern) = std::ffi::CString::new(pattern) else {
        return Vec::new();
    };
    // time_t is 64 bits on every target guard-sh builds for (musl's `libc`
    // marks the alias deprecated for its 32-bit targets' coming change).
    #[allow(deprecated)]
    let t: libc::time_t = when;
    let mut tm = std::mem::MaybeUninit::<libc::tm>::uninit();
    let mut buf = vec![0u8; 128];
    // SAFETY: localtime_r (which reads TZ itself) fills `tm` when it returns non-null; strftime
    // writes at most `buf.len()` bytes, NUL included, and returns the count.
    unsafe {
        if libc::localtime_r(&t, tm.as_mut_ptr()).is_null() {
            return Vec::new();
        }
        let n = libc::strftime(
            buf.as_mut_ptr().cast(),
            buf.len(),
            pattern.as_ptr(),
            tm.as_ptr(),
        );
        buf.truncate(n);
    }
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pf(format: &str, args: &[&str]) -> String {
        let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        String::from_utf8_lossy(&printf(format.as_bytes(), &args, 0).out).into_owned()
    }

    #[test]
    fn printf_refuses_a_field_larger_than_it_builds_instead_of_allocating_it() {
        for (format, args) in [
            ("%*d|", vec!["9223372036854775807", "1"]),
            ("%99999999999d|", vec!["1"]),
            ("%.99999999999999999999999d|", vec!["1"]),
            ("%.*s|", vec!["2000000", "x"]),
        ] {
            let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
            let printed = printf(format.as_bytes(), &args, 0);
            assert!(printed.out.is_empty(), "{format}");
            assert_eq!(printed.errors.len(), 1, "{format}: {:?}", printed.errors);
            assert!(
                printed.errors[0].contains("above 1048576"),
                "{:?}",
                printed.errors
            );
        }
        assert_eq!(pf("%*d|", &["1048576", "1"]).len(), 1_048_577);
    }

    #[test]
    fn printf_reuses_the_format_for_extra_arguments() {
        assert_eq!(pf("%s-%s\n", &["a", "b", "c"]), "a-b\nc-\n");
        assert_eq!(
            pf("%5s|%-5s|%.2s\n", &["ab", "cd", "xyz"]),
            "   ab|cd   |xy\n"
        );
        assert_eq!(
            pf(
                "%d %i %x %o %X %05d\n",
                &["42", "-3", "255", "8", "255", "42"]
            ),
            "42 -3 ff 10 FF 00042\n"
        );
        assert_eq!(pf("%c%b%%\n", &["xyz", "a\\tb"]), "xa\tb%\n");
        assert_eq!(pf("%q\n", &["a b'c"]), "a\\ b\\'c\n");
        assert_eq!(
            pf("%.3f %e\n", &["3.14159", "1234.5"]),
            "3.142 1.234500e+03\n"
        );
    }

    #[test]
    fn echo_understands_n_and_e_flags_only_in_front() {
        let args = |v: &[&str]| v.iter().map(|a| a.as_bytes().to_vec()).collect::<Vec<_>>();
        assert_eq!(echo(&args(&["-n", "a"])), b"a");
        assert_eq!(echo(&args(&["-e", "a\\nb"])), b"a\nb\n");
        assert_eq!(echo(&args(&["a", "-n"])), b"a -n\n");
        assert_eq!(echo(&args(&["-x"])), b"-x\n");
        assert_eq!(echo(&args(&["-e", "a\\cb"])), b"a");
    }
}
