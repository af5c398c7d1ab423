//! Parser properties over scripts generated from a grammar of the forms
//! agents write: every generated script parses, prints back (`to_source`)
//! to text that parses to the same tree, and is accepted by `bash -n`; and
//! any shell-like string guard-sh accepts, bash accepts too.

#![allow(clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use guard_sh::syntax::sexp::to_sexp;
use guard_sh::syntax::{parse, to_source, without_spans};
use proptest::prelude::*;

use crate::syntax_support;
use syntax_support::{bash_accepts, shellish};

/// Literal text safe in any word position (no reserved words, no `{`/`}`).
fn literal() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "a", "b", "x1", "file.txt", "/tmp/out", "-n", "--flag=v", "o/r", "*.md", "?", "a,b", "1",
        "src/", "%s", "@", "+x", "key=val", "x:y",
    ])
    .prop_map(str::to_string)
}

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["x", "HOME", "n", "_v", "A1"]).prop_map(str::to_string)
}

/// Command names: never reserved words.
fn command_name() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "echo", "cat", "tea", "jq", "grep", "wc", "true", "false", ":", "printf", "test", "cd",
        "sort",
    ])
    .prop_map(str::to_string)
}

/// One word part that holds no nested list.
fn flat_part() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => literal(),
        2 => name().prop_map(|n| format!("${n}")),
        1 => name().prop_map(|n| format!("${{{n}}}")),
        1 => (name(), prop::sample::select(vec![":-", "-", ":=", "+", ":+", "#", "##", "%", "%%", "/", "//"]), literal())
            .prop_map(|(n, op, w)| format!("${{{n}{op}{w}}}")),
        1 => name().prop_map(|n| format!("${{#{n}}}")),
        1 => name().prop_map(|n| format!("${{{n}^^}}")),
        1 => (name(), 0u8..9).prop_map(|(n, k)| format!("${{{n}:{k}:2}}")),
        1 => prop::sample::select(vec!["$?", "$#", "$@", "$1", "$$"]).prop_map(str::to_string),
        2 => "[a-z $.|;&<>()`\"\\\\]{0,8}".prop_map(|s| format!("'{s}'")),
        2 => (literal(), name()).prop_map(|(l, n)| format!("\"{l} ${n} \\$ \\\" x\"")),
        1 => prop::sample::select(vec!["$'a\\nb'", "$'\\x41\\t'", "$'it\\'s'"]).prop_map(str::to_string),
        1 => prop::sample::select(vec!["\\$x", "\\;", "\\ ", "\\\\"]).prop_map(str::to_string),
        1 => (name(), 1u8..9).prop_map(|(n, k)| format!("$(( ${n} + {k} ))")),
    ]
}

/// A word: a tilde or a first part, then more parts glued on.
fn word(list: BoxedStrategy<String>) -> impl Strategy<Value = String> {
    let nested = prop_oneof![
        // A space after `$(`: `$((` is arithmetic, or else read by bash's
        // parenthesis counting (the corpus covers those spellings).
        list.clone().prop_map(|l| format!("$( {l})")),
        list.clone().prop_map(|l| format!("\"$( {l})\"")),
        list.clone().prop_map(|l| format!("<( {l})")),
        list.clone().prop_map(|l| format!(
            "`{}`",
            l.replace('\\', "\\\\")
                .replace('`', "\\`")
                .replace('$', "\\$")
        )),
    ];
    let part = prop_oneof![8 => flat_part(), 1 => nested];
    let glued = (prop::bool::weighted(0.1), prop::collection::vec(part, 1..3)).prop_map(
        |(tilde, parts)| {
            let w = parts.concat();
            if tilde { format!("~/{w}") } else { w }
        },
    );
    let process = (prop::bool::ANY, list)
        .prop_map(|(read, l)| format!("{}( {l})", if read { "<" } else { ">" }));
    prop_oneof![8 => glued, 1 => process]
}

fn redirect(list: BoxedStrategy<String>) -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            ">/dev/null",
            "2>&1",
            "2>/dev/null",
            ">>log",
            "<in",
            ">|f",
            "&>all",
            "3>&-",
            "<&0",
            "2>>err",
        ])
        .prop_map(str::to_string),
        word(list).prop_map(|w| format!("<<< {w}")),
    ]
}

fn simple_command(list: BoxedStrategy<String>) -> impl Strategy<Value = String> {
    (
        prop::collection::vec((name(), flat_part()), 0..2),
        command_name(),
        prop::collection::vec(word(list.clone()), 0..3),
        prop::collection::vec(redirect(list), 0..2),
    )
        .prop_map(|(assigns, cmd, words, redirs)| {
            let mut out: Vec<String> = assigns
                .into_iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect();
            out.push(cmd);
            out.extend(words);
            out.extend(redirs);
            out.join(" ")
        })
}

fn compound(list: BoxedStrategy<String>) -> impl Strategy<Value = String> {
    let l = list.clone();
    prop_oneof![
        l.clone().prop_map(|b| format!("{{ {b}; }}")),
        l.clone().prop_map(|b| format!("( {b} )")),
        (l.clone(), l.clone()).prop_map(|(c, b)| format!("if {c}; then {b}; fi")),
        (l.clone(), l.clone(), l.clone())
            .prop_map(|(c, b, e)| format!("if {c}\nthen {b}\nelse {e}\nfi")),
        (l.clone(), l.clone()).prop_map(|(c, b)| format!("while {c}; do {b}; done")),
        (l.clone(), l.clone()).prop_map(|(c, b)| format!("until {c}; do {b}; done")),
        (
            name(),
            prop::collection::vec(word(list.clone()), 0..3),
            l.clone()
        )
            .prop_map(|(n, ws, b)| format!("for {n} in {}; do {b}; done", ws.join(" "))),
        (word(list.clone()), literal(), l.clone(), l.clone())
            .prop_map(|(s, p, a, b)| format!("case {s} in {p}|b) {a};; *) {b};& esac")),
        l.clone().prop_map(|b| format!("f() {{ {b}; }} >/dev/null")),
    ]
}

/// A list of and-or lists, built recursively (compound commands and
/// substitutions hold lists of their own).
fn list() -> BoxedStrategy<String> {
    let leaf = command_name().boxed();
    leaf.prop_recursive(4, 48, 4, |inner| {
        let command = prop_oneof![3 => simple_command(inner.clone()), 1 => compound(inner.clone())];
        let pipeline = (
            prop::bool::weighted(0.1),
            prop::collection::vec((command, prop::bool::weighted(0.2)), 1..3),
        )
            .prop_map(|(neg, cmds)| {
                let n = cmds.len();
                let mut s = String::from(if neg { "! " } else { "" });
                for (k, (c, stderr)) in cmds.into_iter().enumerate() {
                    s.push_str(&c);
                    if k + 1 < n {
                        s.push_str(if stderr { " |& " } else { " | " });
                    }
                }
                s
            });
        let and_or = prop::collection::vec(
            (
                pipeline,
                prop::sample::select(vec![" && ", " || ", " &&\n "]),
            ),
            1..3,
        )
        .prop_map(|ps| {
            let n = ps.len();
            let mut s = String::new();
            for (k, (p, op)) in ps.into_iter().enumerate() {
                s.push_str(&p);
                if k + 1 < n {
                    s.push_str(op);
                }
            }
            s
        });
        prop::collection::vec(
            (
                and_or,
                prop::sample::select(vec!["; ", " & ", "\n", " # c\n"]),
            ),
            1..3,
        )
        .prop_map(|items| {
            let n = items.len();
            let mut s = String::new();
            for (k, (a, sep)) in items.into_iter().enumerate() {
                s.push_str(&a);
                if k + 1 < n {
                    s.push_str(sep);
                }
            }
            s
        })
    })
    .boxed()
}

/// A whole script: lists, with here-documents between them.
fn script() -> impl Strategy<Value = String> {
    let heredoc = prop_oneof![
        (name(), literal())
            .prop_map(|(n, l)| format!("cat <<EOF\n{l} ${n} $(echo x)\n\\$ `echo y`\nEOF\n")),
        literal().prop_map(|l| format!("cat <<'EOF' | wc -l\n{l} $x `y`\nEOF\n")),
        literal().prop_map(|l| format!("cat <<-END\n\t{l}\n\tEND\n")),
    ];
    let item = prop_oneof![4 => list().prop_map(|l| format!("{l}\n")), 1 => heredoc];
    prop::collection::vec(item, 1..4).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn generated_scripts_parse_print_back_and_pass_bash(src in script()) {
        let list = parse(src.as_bytes()).map_err(|e| {
            TestCaseError::fail(format!("{src:?} does not parse: {}", e.render(src.as_bytes())))
        })?;
        let printed = to_source(&list);
        let again = parse(&printed).map_err(|e| {
            TestCaseError::fail(format!("{src:?} printed as {:?} does not parse: {}",
                String::from_utf8_lossy(&printed), e.render(&printed)))
        })?;
        prop_assert_eq!(without_spans(&list), without_spans(&again),
            "{:?} printed as {:?} parses to {}", src, String::from_utf8_lossy(&printed), to_sexp(&again));
        bash_accepts(src.as_bytes()).map_err(|e| TestCaseError::fail(format!("bash rejects {src:?}: {e}")))?;
        bash_accepts(&printed).map_err(|e| TestCaseError::fail(format!(
            "bash rejects the print-back {:?} of {src:?}: {e}", String::from_utf8_lossy(&printed))))?;
    }

    #[test]
    fn shell_like_text_guard_sh_accepts_bash_accepts(src in shellish(30)) {
        if let Ok(list) = parse(src.as_bytes()) {
            bash_accepts(src.as_bytes()).map_err(|e| TestCaseError::fail(format!(
                "guard-sh accepts {src:?} as {} but bash rejects it: {e}", to_sexp(&list))))?;
        }
    }
}
