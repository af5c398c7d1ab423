//! Argument rules over `argv[1..]`: does a [`ArgRule`] match a command's arguments?
//!
//! The matcher errs towards matching (denying): it does not know the
//! program's option table, so an argument that *could* be the option a rule
//! names counts as it. In particular a `--` only ends the options when it
//! cannot be the value of a preceding option (`sort -t -- --compress-program=sh`
//! passes `--` to `-t` and still runs the program).

use super::ArgRule;

impl ArgRule {
    /// Whether this rule matches `args` (the arguments after the command name).
    pub fn matches(&self, args: &[&[u8]]) -> bool {
        match self {
            ArgRule::Subcommand { name, .. } => {
                possible_subcommands(args).any(|a| a == name.as_bytes())
            }
            ArgRule::LongOption { name, .. } => {
                option_args(args).any(|a| long_option_matches(a, name.as_bytes()))
            }
            ArgRule::ShortOption { letter, .. } => {
                option_args(args).any(|a| short_cluster_has(a, *letter))
            }
            ArgRule::Argument { value, .. } => args.contains(&value.as_bytes()),
            ArgRule::NumericOperand { min_digits, .. } => args
                .iter()
                .any(|a| is_numeric_operand(a, *min_digits as usize)),
            ArgRule::UrlScheme { allowed, .. } => args.iter().any(|a| {
                let value = match a.strip_prefix(b"--") {
                    Some(rest) => rest
                        .iter()
                        .position(|&b| b == b'=')
                        .map_or(&a[..0], |eq| &rest[eq + 1..]),
                    None => a,
                };
                [*a, value]
                    .into_iter()
                    .filter_map(url_scheme)
                    .any(|scheme| !allowed.iter().any(|s| s.eq_ignore_ascii_case(scheme)))
            }),
        }
    }
}

/// The arguments that could be the subcommand. Without the program's
/// option table an operand right after an option that may take a value
/// might be that value or the subcommand, so both it and the next operand
/// count; the first operand after anything else is surely the subcommand,
/// and the scan ends there.
fn possible_subcommands<'a, 'b>(args: &'b [&'a [u8]]) -> impl Iterator<Item = &'a [u8]> + 'b {
    let mut after_value_option = false;
    let mut done = false;
    args.iter().copied().filter(move |a| {
        if done {
            return false;
        }
        if a.starts_with(b"-") && *a != b"-" {
            after_value_option = may_take_next_as_value(a);
            return false;
        }
        if !after_value_option {
            done = true;
        }
        after_value_option = false;
        true
    })
}

/// The scheme of `arg` if it starts like a URL (`SCHEME://`).
fn url_scheme(arg: &[u8]) -> Option<&str> {
    let end = arg.windows(3).position(|w| w == b"://")?;
    let scheme = &arg[..end];
    let ok = !scheme.is_empty()
        && scheme[0].is_ascii_alphabetic()
        && scheme
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(b));
    ok.then(|| std::str::from_utf8(scheme).ok()).flatten()
}

/// `DIGITS[.DIGITS]` with at least `min` digits before the dot.
fn is_numeric_operand(arg: &[u8], min: usize) -> bool {
    let (whole, fraction) = match arg.iter().position(|&b| b == b'.') {
        Some(dot) => (&arg[..dot], Some(&arg[dot + 1..])),
        None => (arg, None),
    };
    whole.len() >= min
        && whole.iter().all(u8::is_ascii_digit)
        && fraction.is_none_or(|f| !f.is_empty() && f.iter().all(u8::is_ascii_digit))
}

/// The arguments that may be parsed as options: everything before the first
/// `--` that surely ends the options.
fn option_args<'a, 'b>(args: &'b [&'a [u8]]) -> impl Iterator<Item = &'a [u8]> + 'b {
    let end = args
        .iter()
        .enumerate()
        .position(|(i, a)| *a == b"--" && (i == 0 || !may_take_next_as_value(args[i - 1])))
        .unwrap_or(args.len());
    args[..end].iter().copied()
}

/// Whether `arg` may be an option whose value is the next argument
/// (`-t`, `-nt`, `--key`), so that a `--` after it is that value and does
/// not end the options. Operands, `-`, `--` and `--name=value` cannot.
fn may_take_next_as_value(arg: &[u8]) -> bool {
    if arg == b"-" || arg == b"--" || !arg.starts_with(b"-") {
        return false;
    }
    !(arg.starts_with(b"--") && arg.contains(&b'='))
}

/// `--NAME`, `--NAME=VALUE`, or a non-empty abbreviation of NAME as GNU
/// `getopt_long` accepts it.
fn long_option_matches(arg: &[u8], name: &[u8]) -> bool {
    let Some(rest) = arg.strip_prefix(b"--") else {
        return false;
    };
    let written = match rest.iter().position(|&b| b == b'=') {
        Some(eq) => &rest[..eq],
        None => rest,
    };
    !written.is_empty() && name.starts_with(written)
}

/// `-x` or a bundle such as `-ax` containing `letter`. Attached values
/// (`-t,x`) are scanned too: the matcher cannot tell them from letters.
fn short_cluster_has(arg: &[u8], letter: char) -> bool {
    if arg.len() < 2 || arg[0] != b'-' || arg[1] == b'-' {
        return false;
    }
    let mut buf = [0u8; 4];
    let letter = letter.encode_utf8(&mut buf).as_bytes();
    arg[1..].windows(letter.len()).any(|w| w == letter)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long(name: &str) -> ArgRule {
        ArgRule::LongOption {
            name: name.into(),
            reason: "r".into(),
        }
    }
    fn short(letter: char) -> ArgRule {
        ArgRule::ShortOption {
            letter,
            reason: "r".into(),
        }
    }
    fn sub(name: &str) -> ArgRule {
        ArgRule::Subcommand {
            name: name.into(),
            reason: "r".into(),
        }
    }
    fn arg(value: &str) -> ArgRule {
        ArgRule::Argument {
            value: value.into(),
            reason: "r".into(),
        }
    }
    fn m(rule: &ArgRule, args: &[&str]) -> bool {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        rule.matches(&args)
    }

    #[test]
    fn long_option_matches_exact_name() {
        assert!(m(
            &long("compress-program"),
            &["--compress-program", "gzip"]
        ));
    }

    #[test]
    fn long_option_matches_name_with_attached_value() {
        assert!(m(
            &long("compress-program"),
            &["--compress-program=gzip", "f"]
        ));
    }

    #[test]
    fn long_option_matches_gnu_abbreviations() {
        let r = long("compress-program");
        assert!(m(&r, &["--compress-prog=sh"]));
        assert!(m(&r, &["--compress=sh"]));
        assert!(m(&r, &["--co", "sh"]));
        assert!(m(&r, &["--c=sh"]));
    }

    #[test]
    fn long_option_does_not_match_other_options() {
        let r = long("compress-program");
        assert!(!m(&r, &["--reverse", "--key=2", "file"]));
        assert!(!m(&r, &["--compress-programs=sh"]));
        assert!(!m(&r, &["--compress-program-x"]));
        assert!(!m(&r, &["--check"]));
        assert!(!m(&r, &["-compress-program=sh"]));
        assert!(!m(&r, &[]));
    }

    #[test]
    fn long_option_is_case_sensitive() {
        assert!(!m(&long("compress-program"), &["--COMPRESS-PROGRAM=sh"]));
    }

    #[test]
    fn empty_long_option_name_is_not_an_abbreviation() {
        assert!(!m(&long("paginate"), &["--=x"]));
        assert!(!m(&long("paginate"), &["--", "x"]));
    }

    #[test]
    fn long_option_found_after_operands_because_gnu_permutes() {
        assert!(m(
            &long("compress-program"),
            &["file", "-n", "--compress-program=sh"]
        ));
    }

    #[test]
    fn double_dash_ends_options() {
        let r = long("compress-program");
        assert!(!m(&r, &["--", "--compress-program=sh"]));
        assert!(!m(&r, &["-n", "file", "--", "--compress-program=sh"]));
        assert!(!m(&r, &["--reverse=x", "--", "--compress-program=sh"]));
        assert!(!m(&short('l'), &["a", "--", "-l"]));
    }

    #[test]
    fn double_dash_after_an_option_may_be_its_value_and_does_not_end_options() {
        let r = long("compress-program");
        assert!(m(&r, &["-t", "--", "--compress-program=sh"]));
        assert!(m(&r, &["--key", "--", "--compress-prog=sh"]));
        assert!(m(&r, &["-nt", "--", "--compress=sh"]));
    }

    #[test]
    fn second_double_dash_ends_options_whatever_came_before() {
        assert!(!m(
            &long("compress-program"),
            &["-t", "--", "--", "--compress-program=sh"]
        ));
    }

    #[test]
    fn short_option_matches_alone_and_bundled() {
        let r = short('l');
        assert!(m(&r, &["-l", "a", "b"]));
        assert!(m(&r, &["-al", "a", "b"]));
        assert!(m(&r, &["-la"]));
        assert!(m(&r, &["a", "b", "-ul"]));
    }

    #[test]
    fn short_option_does_not_match_long_options_operands_or_stdin() {
        let r = short('l');
        assert!(!m(&r, &["--label=x", "a", "b"]));
        assert!(!m(&r, &["large", "file"]));
        assert!(!m(&r, &["-", "-u"]));
        assert!(!m(&r, &["-u", "a", "b"]));
    }

    #[test]
    fn short_option_in_attached_value_is_matched_conservatively() {
        assert!(m(&short('l'), &["-Ixl", "a", "b"]));
    }

    #[test]
    fn short_option_accepts_non_ascii_letters() {
        assert!(m(&short('é'), &["-aé"]));
        assert!(!m(&short('é'), &["-ae"]));
    }

    #[test]
    fn subcommand_is_first_operand() {
        let r = sub("api");
        assert!(m(&r, &["api", "/repos/o/r"]));
        assert!(m(&r, &["--debug", "api", "/user"]));
        assert!(m(&r, &["--", "api"]));
        assert!(!m(&r, &["issues", "api"]));
        assert!(!m(&r, &["issues", "create", "--title", "api"]));
        assert!(!m(&r, &["apis"]));
        assert!(!m(&r, &[]));
    }

    #[test]
    fn argument_matches_anywhere_even_after_double_dash() {
        let r = arg("-exec");
        assert!(m(&r, &[".", "-exec", "x"]));
        assert!(m(&r, &["--", "-exec"]));
        assert!(!m(&r, &["-execdir"]));
    }

    #[test]
    fn non_utf8_arguments_are_compared_as_bytes() {
        let r = long("paginate");
        let bad: &[u8] = b"--pag\xff";
        assert!(!r.matches(&[bad]));
        assert!(r.matches(&[b"--pag".as_slice(), bad]));
    }

    #[test]
    fn a_subcommand_after_an_option_value_is_still_found() {
        let rule = ArgRule::Subcommand {
            name: "api".into(),
            reason: "r".into(),
        };
        let m = |args: &[&str]| {
            let a: Vec<&[u8]> = args.iter().map(|s| s.as_bytes()).collect();
            rule.matches(&a)
        };
        assert!(m(&["--repo", "o/r", "api", "/repos/o/r"]));
        assert!(m(&["--login", "forge", "api"]));
        assert!(m(&["-o", "json", "api"]));
        assert!(!m(&["issues", "create", "--title", "api"]));
        assert!(!m(&["--repo", "o/r", "issues", "api"]));
    }

    #[test]
    fn a_url_of_another_scheme_is_found_in_operands_and_option_values() {
        let rule = ArgRule::UrlScheme {
            allowed: vec!["http".into(), "https".into()],
            reason: "r".into(),
        };
        let m = |args: &[&str]| {
            let a: Vec<&[u8]> = args.iter().map(|s| s.as_bytes()).collect();
            rule.matches(&a)
        };
        assert!(m(&["tftp://127.0.0.1:5353/x"]));
        assert!(m(&["-T", "f", "FILE:///etc/passwd"]));
        assert!(m(&["--url=gopher://h/"]));
        assert!(!m(&["-s", "HTTP://127.0.0.1:3000/api/v1/user"]));
        assert!(!m(&["127.0.0.1:3000/api"]));
    }

    #[test]
    fn a_numeric_operand_needs_its_digits() {
        assert!(is_numeric_operand(b"12312359", 8));
        assert!(is_numeric_operand(b"123123592030.59", 8));
        assert!(!is_numeric_operand(b"1231235", 8));
        assert!(!is_numeric_operand(b"+%Y%m%d", 8));
        assert!(!is_numeric_operand(b"12312359.", 8));
        assert!(!is_numeric_operand(b"2024-01-01", 8));
    }
}
