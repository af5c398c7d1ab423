//! Syntax errors, rendered with their position; limits (nesting depth,
//! huge lines); and the byte-level rules (NUL, invalid UTF-8). A message
//! pinned in the corpus (`tests/corpus/syntax/errors.yaml`) is not pinned
//! again here.

#![allow(clippy::expect_used, clippy::panic)] // test code reports failures by panicking

use guard_sh::syntax::ast::{Command, WordPart};
use guard_sh::syntax::{MAX_DEPTH, SyntaxError, parse};

fn error_of(src: &str) -> String {
    match parse(src.as_bytes()) {
        Ok(list) => format!(
            "parsed: {}",
            String::from_utf8_lossy(&guard_sh::syntax::to_source(&list))
        ),
        Err(e) => e.render(src.as_bytes()),
    }
}

/// Runs `f` on a thread with the default 2 MiB stack, so a parser that
/// recursed without bound would overflow here.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn test thread")
        .join()
        .expect("parser thread must not crash")
}

#[test]
fn unterminated_single_quote_points_at_the_quote() {
    assert_eq!(error_of("echo 'abc"), "1:6: unterminated single quote");
}

#[test]
fn unterminated_extended_glob_points_at_the_group() {
    assert_eq!(
        error_of("ls @(a|b"),
        "1:4: unterminated extended glob pattern"
    );
    assert_eq!(
        error_of("ls x!(a|(b)"),
        "1:5: unterminated extended glob pattern"
    );
}

#[test]
fn unterminated_double_quote_points_at_the_quote() {
    assert_eq!(error_of("echo \"abc"), "1:6: unterminated double quote");
    assert_eq!(
        error_of("printf '%s' \"a\nb"),
        "1:13: unterminated double quote"
    );
}

#[test]
fn unterminated_substitutions_point_at_their_opening() {
    assert_eq!(error_of("echo $(ls"), "1:6: unterminated `$(`");
    assert_eq!(error_of("echo ${x:-abc"), "1:6: unterminated `${`");
    assert_eq!(error_of("echo `ls"), "1:6: unterminated backtick");
    assert_eq!(error_of("echo $((1 + 2"), "1:6: unterminated `$((`");
    assert_eq!(error_of("diff <(ls"), "1:6: unterminated `<(`");
    assert_eq!(error_of("echo $'abc"), "1:6: unterminated `$'`");
}

#[test]
fn unterminated_here_document_names_its_delimiter() {
    assert_eq!(
        error_of("cat <<EOF\nline\n"),
        "1:5: here-document delimited by end of input (wanted `EOF`)"
    );
    assert_eq!(
        error_of("cat <<'END' > f\nx\nEN\n"),
        "1:5: here-document delimited by end of input (wanted `END`)"
    );
    assert_eq!(
        error_of("cat <<A; cat <<B\na\nA\nb\n"),
        "1:14: here-document delimited by end of input (wanted `B`)"
    );
}

#[test]
fn unbalanced_closers_are_unexpected() {
    assert_eq!(error_of("echo a; done"), "1:9: unexpected `done`");
    assert_eq!(error_of("echo a; }"), "1:9: unexpected `}`");
    assert_eq!(error_of("echo a )"), "1:8: unexpected `)`");
}

#[test]
fn unterminated_compound_commands_point_at_their_keyword() {
    assert_eq!(error_of("if true; then echo"), "1:1: unterminated `if`");
    assert_eq!(
        error_of("echo; while true; do"),
        "1:7: unterminated `while`"
    );
    assert_eq!(error_of("for x in a b; do echo"), "1:1: unterminated `for`");
    assert_eq!(error_of("case x in a) echo"), "1:1: unterminated `case`");
    assert_eq!(error_of("{ echo"), "1:1: unterminated `{`");
    assert_eq!(error_of("(echo"), "1:1: unterminated `(`");
}

#[test]
fn missing_command_after_operators_is_reported() {
    assert_eq!(error_of("ls |"), "1:5: missing command after `|`");
    assert_eq!(error_of("ls | | wc"), "1:6: missing command after `|`");
    assert_eq!(error_of("ls &&"), "1:6: missing command after `&&`");
    assert_eq!(error_of("ls || ;"), "1:7: missing command after `||`");
    assert_eq!(error_of("ls |& )"), "1:7: missing command after `|&`");
    assert_eq!(error_of("| wc"), "1:1: unexpected `|`");
}

#[test]
fn double_semicolon_outside_case_is_error() {
    assert_eq!(
        error_of("echo a;; echo b"),
        "1:7: unexpected `;;` (outside `case`)"
    );
    assert_eq!(error_of(";"), "1:1: unexpected `;`");
    assert_eq!(error_of("&"), "1:1: unexpected `&`");
}

#[test]
fn empty_bodies_are_errors_like_in_bash() {
    assert_eq!(error_of("{ }"), "1:3: unexpected `}`");
    assert_eq!(error_of("if then fi"), "1:4: unexpected `then`");
    assert_eq!(error_of("( )"), "1:3: unexpected `)`");
}

#[test]
fn redirection_without_target_is_error() {
    assert_eq!(
        error_of("echo a >"),
        "1:9: expected a word after a redirection operator, found end of input"
    );
    assert_eq!(
        error_of("echo a > | b"),
        "1:10: expected a word after a redirection operator, found `|`"
    );
}

#[test]
fn unsupported_features_are_named() {
    let cases = [
        (
            "select x in a b; do :; done",
            "1:1: not supported by guard-sh: `select` loop",
        ),
        (
            "coproc cat",
            "1:1: not supported by guard-sh: `coproc` co-process",
        ),
        (
            "exec {fd}>out",
            "1:6: not supported by guard-sh: `{var}>` redirections",
        ),
        (
            "echo ${x@P}",
            "1:9: not supported by guard-sh: `${x@P}` (it would run the command substitutions a value holds)",
        ),
    ];
    for (src, want) in cases {
        assert_eq!(error_of(src), want, "input: {src}");
    }
}

#[test]
fn a_bad_substitution_is_kept_as_its_text_for_run_time() {
    let list = parse(b"echo ${x y} $((1))").expect("bash reads it");
    let Command::Simple(cmd) = &list.items[0].and_or.first.elements[0].command else {
        panic!("a simple command");
    };
    assert_eq!(
        cmd.words[1].parts,
        vec![WordPart::BadSubstitution(b"${x y}".to_vec().into())]
    );
}

#[test]
fn nul_byte_is_error_with_position() {
    let src = b"echo a\nec\0ho";
    let err = parse(src).expect_err("NUL must be refused");
    assert_eq!(
        err,
        SyntaxError::NulByte {
            at: guard_sh::syntax::span::Span::new(9, 10)
        }
    );
    assert_eq!(err.render(src), "2:3: NUL byte in input");
}

#[test]
fn invalid_utf8_in_words_is_kept() {
    let list = parse(b"echo \xff\xfe 'caf\xc3' \"\xe9t\xe9\"").expect("invalid UTF-8 parses");
    let Command::Simple(cmd) = &list.items[0].and_or.first.elements[0].command else {
        panic!("not a simple command")
    };
    let parts: Vec<&[WordPart]> = cmd.words.iter().map(|w| w.parts.as_slice()).collect();
    assert_eq!(
        parts,
        vec![
            &[WordPart::Literal(b"echo".to_vec())][..],
            &[WordPart::Literal(b"\xff\xfe".to_vec())][..],
            &[WordPart::SingleQuoted(b"caf\xc3".to_vec())][..],
            &[WordPart::DoubleQuoted(vec![WordPart::Literal(
                b"\xe9t\xe9".to_vec()
            )])][..],
        ]
    );
}

#[test]
fn incomplete_input_is_flagged_for_line_readers() {
    for src in [
        "echo 'abc",
        "echo \"x",
        "echo $(ls",
        "echo `ls",
        "cat <<EOF\nx",
        "if true; then",
        "ls &&",
        "ls |",
        "for x in a; do",
        "case x in",
        "echo \\",
        "f() {",
        "echo ${x",
        "[[ a == b",
    ] {
        let err = parse(src.as_bytes()).expect_err(src);
        assert!(err.is_incomplete(), "{src:?} should be incomplete: {err:?}");
    }
    for src in [
        "fi",
        "echo )",
        "[[ ]]",
        "ls | | wc",
        "a ;; b",
        "echo >",
        "echo ${x@P}",
    ] {
        let err = parse(src.as_bytes()).expect_err(src);
        assert!(!err.is_incomplete(), "{src:?} should be complete: {err:?}");
    }
}

fn assert_too_deep(src: String) {
    let result = on_small_stack(move || parse(src.as_bytes()));
    match result {
        // `limit` is the depth reached: MAX_DEPTH, or less when the
        // parser's stack budget ran out first (large unoptimized frames).
        Err(SyntaxError::TooDeep { limit, .. }) => {
            assert!(limit <= MAX_DEPTH && limit > 20, "limit {limit}")
        }
        other => panic!("expected TooDeep, got {other:?}"),
    }
}

#[test]
fn deep_subshells_are_too_deep_not_a_crash() {
    assert_too_deep("( ".repeat(100_000));
    assert_too_deep("(".repeat(100_000));
    assert_too_deep(format!("{}x{}", "(".repeat(100_000), ")".repeat(100_000)));
}

#[test]
fn deep_command_substitutions_are_too_deep_not_a_crash() {
    assert_too_deep("$(".repeat(100_000));
    assert_too_deep("echo \"$(".repeat(100_000));
    assert_too_deep("echo $((".repeat(100_000));
    assert_too_deep("cat <(".repeat(100_000));
}

#[test]
fn deep_groups_and_compounds_are_too_deep_not_a_crash() {
    assert_too_deep("{ ".repeat(100_000));
    assert_too_deep("if true; then ".repeat(100_000));
    assert_too_deep("while true; do ".repeat(100_000));
    assert_too_deep("case x in x) ".repeat(100_000));
    assert_too_deep("f() { ".repeat(100_000));
}

#[test]
fn deep_parameter_words_are_too_deep_not_a_crash() {
    assert_too_deep("echo ${x:-".repeat(100_000));
    assert_too_deep("echo \"${x:-\"".repeat(100_000));
}

#[test]
fn nesting_just_under_the_limit_parses_on_a_small_stack() {
    // Unoptimized frames are ~30 KiB a level, so the stack budget stops
    // debug builds after a few dozen levels; optimized builds reach MAX_DEPTH.
    let depth = if cfg!(debug_assertions) {
        30
    } else {
        MAX_DEPTH - 1
    };
    let inputs = [
        format!("{}echo{}", "( ".repeat(depth), " )".repeat(depth)),
        format!("echo {}x{}", "$(echo ".repeat(depth), ")".repeat(depth)),
        format!("{}echo;{}", "{ ".repeat(depth), " }".repeat(depth)),
        format!("echo {}x{}", "${x:-".repeat(depth), "}".repeat(depth)),
        format!(
            "{}echo{}",
            "if true; then ".repeat(depth),
            "; fi".repeat(depth)
        ),
    ];
    for src in inputs {
        let ok = on_small_stack(move || parse(src.as_bytes()).map(|l| l.items.len()));
        assert_eq!(ok, Ok(1));
    }
}

#[test]
fn one_megabyte_lines_parse_quickly() {
    let inputs = [
        ("one long word", format!("echo {}", "a".repeat(1 << 20))),
        ("many words", format!("echo{}", " a".repeat(1 << 19))),
        ("long pipeline", format!("echo{}", " | cat".repeat(1 << 17))),
        (
            "quoted text",
            format!(
                "echo \"{}\" '{}'",
                "x $y ".repeat(1 << 17),
                "z".repeat(1 << 19)
            ),
        ),
        ("long list", format!("{}true", "a && b; ".repeat(1 << 17))),
    ];
    // Unoptimized code is ~20x slower; the bound is about linear time.
    let budget = if cfg!(debug_assertions) { 20.0 } else { 1.0 };
    for (what, src) in inputs {
        let start = std::time::Instant::now();
        let parsed = parse(src.as_bytes());
        let elapsed = start.elapsed();
        assert!(parsed.is_ok(), "{what}: {:?}", parsed.err());
        eprintln!("{what}: {} bytes in {elapsed:?}", src.len());
        assert!(elapsed.as_secs_f64() < budget, "{what} took {elapsed:?}");
    }
}
