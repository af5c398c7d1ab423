//! Inputs the fuzz targets (fuzz/) found, kept as regression tests. Each
//! one the static guard once allowed although the interpreter would spawn a
//! foreign program (the dynamic check still refused it, but by then the
//! line had partly run).

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use guard_sh::guard;

use crate::common;

fn verdict(line: &str) -> guard::Verdict {
    let dir = tempfile::tempdir().unwrap();
    let policy = common::compile_with_stubs("tea", dir.path());
    guard::check_source(&policy, line.as_bytes())
        .unwrap_or_else(|e| panic!("{line:?} does not parse: {}", e.render(line.as_bytes())))
}

fn denied_name(line: &str) -> String {
    let v = verdict(line);
    assert!(!v.allowed, "{line:?} was allowed: {v:?}");
    v.first_denial().map(|d| d.name.clone()).unwrap_or_default()
}

#[test]
fn command_builtin_skips_a_function_named_like_a_foreign_program() {
    assert_eq!(denied_name("curl() { :; }; command curl http://x/"), "curl");
}

#[test]
fn exec_builtin_skips_a_function_named_like_a_foreign_program() {
    assert_eq!(denied_name("curl() { :; }; exec curl http://x/"), "curl");
}

#[test]
fn function_defined_in_a_branch_that_may_not_run_is_not_known_after_it() {
    assert_eq!(
        denied_name("if false; then curl() { :; }; fi; curl http://x/"),
        "curl"
    );
    assert_eq!(denied_name("false && curl() { :; }; curl x"), "curl");
    assert_eq!(denied_name("(curl() { :; }); curl x"), "curl");
    assert_eq!(denied_name("curl() { :; } | cat; curl x"), "curl");
    assert_eq!(denied_name("echo $(curl() { :; }); curl x"), "curl");
    assert_eq!(
        denied_name("while false; do curl() { :; }; done; curl x"),
        "curl"
    );
    assert_eq!(
        denied_name("case a in b) curl() { :; };; esac; curl x"),
        "curl"
    );
    assert_eq!(denied_name("curl() { :; } & curl x"), "curl");
}

#[test]
fn function_defined_on_every_path_before_the_call_is_still_allowed() {
    for line in [
        "curl() { echo fake; }; curl x",
        "{ curl() { :; }; }; curl x",
        "curl() { :; } && curl x",
        "if true; then curl() { :; }; curl x; fi",
        "for i in 1; do curl() { :; }; curl x; done",
        "curl() { curl; }",
        "eval 'curl() { :; }'; curl x",
    ] {
        let v = verdict(line);
        assert!(v.allowed, "{line:?} was refused: {:?}", v.first_denial());
    }
}

/// Each of `lines` fails to parse with an error mentioning `message`.
fn assert_refused_with(lines: &[&[u8]], message: &str) {
    for line in lines {
        let err = guard_sh::syntax::parse(line).expect_err(&String::from_utf8_lossy(line));
        assert!(
            err.to_string().contains(message),
            "{:?}: {err}",
            String::from_utf8_lossy(line)
        );
    }
}

/// `line` parses, and prints back to text that parses to the same tree.
fn assert_prints_back(line: &[u8]) {
    use guard_sh::syntax::{parse, to_source, without_spans};
    let shown = String::from_utf8_lossy(line);
    let tree = parse(line).unwrap_or_else(|e| panic!("{shown:?}: {}", e.render(line)));
    let printed = to_source(&tree);
    let again = parse(&printed).unwrap_or_else(|e| {
        panic!(
            "{shown:?} printed as {:?}: {}",
            String::from_utf8_lossy(&printed),
            e.render(&printed)
        )
    });
    assert_eq!(
        without_spans(&again),
        without_spans(&tree),
        "{shown:?} printed as {:?}",
        String::from_utf8_lossy(&printed)
    );
}

#[test]
fn replace_first_of_an_empty_pattern_prints_back_as_itself() {
    for line in [
        "echo ${X/}",
        "echo} ${X:-${Y:-}} z${X_n/} ${X%.*} \u{a4}{X/b//_}",
        "echo ${X//} ${X/a/} ${X/#} ${X/%/b}",
    ] {
        assert_prints_back(line.as_bytes());
    }
}

#[test]
fn backquoted_escapes_inside_arithmetic_print_back_as_themselves() {
    // Found by `parse`: a backslash before `'` or `(` in backticks was
    // printed doubled, and `$((` then paired the backslashes differently
    // and read a quote or a parenthesis that was not there.
    for line in [
        "$((`\\'`))",
        "$((`\\(`))",
        "echo $(( `echo 2 \\'` + `echo 1 \\)` ))",
        "echo `echo \\' \\\\ \\$ \\`x\\``",
        "echo \"`echo \\\"a\\\" \\'`\"",
        "echo `echo 'a\\\\\nb'`",
    ] {
        assert_prints_back(line.as_bytes());
    }
    // The two inputs as found.
    for found in [
        [
            &b"echo $((m$ir \xef\xff\xff\xfd===`========= $'$'\\'\\\"HOM===="[..],
            &b"====\xff\xff\xff\xff\xff\xff\xff\x03====<===========\xe19===="[..],
            &b"=o $'$'\\'\\\"============\xe19=====o{b $##``\xc4````\xf4``\xf4"[..],
            &b"`:`````\"\"\\o `\x1e3`x\x1e@\x1e\xc5`d4?10:20))\n"[..],
        ]
        .concat(),
        [
            &b"e$((r   o-{pin$5 ``o-{pin$5 ```2; dr 0r\\&r\\(r   o-{pin$5 ``"[..],
            &b"\xfc\x90\xa0 `+760>A\xd8-f$~4\xff\xff\xff88eo? &\xff`\xbf\xfc"[..],
            &b"++D1n$`\xbf$\x1e$$\xdc$$\xdc$$$$$2$$$$$$$$$$\xb0\xb0S\xb0\xb0"[..],
            &b"$\xdc$$$$$$$$$\xb0\xb0\xb0\xb01))\n"[..],
        ]
        .concat(),
    ] {
        assert_prints_back(&found);
    }
}

#[test]
fn line_continuation_after_dollar_does_not_hide_a_substituted_command() {
    // Found by `parse` as `echo $\<newline>x` printing back as `$x`: bash
    // removes the continuation first, so `$\<newline>(curl x)` runs curl.
    for line in [
        "echo $\\\n(curl x)",
        "$\\\n(curl x)",
        "x=$\\\n(curl x); echo $x",
        "echo \"$\\\n(curl x)\"",
        "echo $\\\n(\\\n(1))$\\\n(curl x)",
        "echo ${x:-$\\\n(curl x)}",
        "tea issues list | cu\\\nrl x",
        "echo `cu\\\nrl x`",
        "i\\\nf curl x; then :; fi",
    ] {
        assert_eq!(denied_name(line), "curl", "{line:?}");
    }
}

#[test]
fn line_continuation_inside_an_assignment_name_still_makes_an_assignment() {
    // Read as bash reads it, `GIT_SSH_COM\<newline>MAND=curl tea` sets the
    // variable for tea (denied by the env rules), not a command of that name.
    let v = verdict("GIT_SSH_COM\\\nMAND=curl tea issues list");
    assert!(!v.allowed);
    assert_eq!(
        v.first_denial().map(|d| d.name.clone()).unwrap_or_default(),
        verdict("GIT_SSH_COMMAND=curl tea issues list")
            .first_denial()
            .map(|d| d.name.clone())
            .unwrap_or_default()
    );
}

#[test]
fn line_continuation_in_single_quotes_stays_text() {
    // Inside single quotes bash keeps `\<newline>`: no command is hidden there.
    let v = verdict("tea issues create --title 'a\\\nb $(curl x)'");
    assert!(v.allowed, "{:?}", v.first_denial());
}

#[test]
fn continuation_at_the_end_of_a_quoted_here_document_prints_back_as_itself() {
    // Found by `parse`: the body printed back ends in `\<newline>` right
    // before the delimiter line, and joining it there made the delimiter
    // line disappear; with a quoted delimiter lines are read as written.
    assert_prints_back(b"<<\"\"\n\xff\\\n\n\n");
    assert_prints_back(b"cat <<'E'\nx\\\nE\n");
}

#[test]
fn single_quotes_in_a_substitution_inside_arithmetic_keep_their_continuation() {
    // Found by `parse`: text inside `$(( … ))` was given offsets as if it
    // ended the input, so a quoted continuation there was not found inside
    // its quotes and was removed in one spelling and kept in the other.
    assert_prints_back(b"$((($(('))te\\\n') ))))&e");
    let tree = guard_sh::syntax::parse(b"echo $(( $(echo 'a\\\nb') ))").unwrap();
    assert!(
        guard_sh::syntax::sexp::to_sexp(&tree).contains(r#"(sq "a\\\nb")"#),
        "{}",
        guard_sh::syntax::sexp::to_sexp(&tree)
    );
}

#[test]
fn a_command_inside_arithmetic_is_reported_where_it_is_written() {
    for line in [
        "echo one two three; echo $(( $(curl y) ))",
        "echo $\\\n(( 1 + $(\\\ncurl y) ))",
    ] {
        let v = verdict(line);
        let d = v.first_denial().unwrap();
        assert_eq!(d.name, "curl");
        assert_eq!(
            &line[d.span.start()..d.span.start() + 4],
            "curl",
            "{line:?}: {:?}",
            d.span
        );
    }
}

#[test]
fn here_document_in_backticks_in_a_here_document_prints_back_as_itself() {
    // Found by `parse`: the inner delimiter line was printed on a line of
    // its own before the closing backtick, where it ended the outer body.
    assert_prints_back(b"<<EOF\n`<<EOF\nEOF`\nEOF");
    assert_prints_back(b"cat <<EOF\nx `cat <<EOF\ny\nEOF`\nEOF\necho z");
    // An empty delimiter line keeps its newline (found right after).
    assert_prints_back(b"`<<\"\"\n\n`");
    assert_prints_back(b"<<E\n`<<''\n\n`\nE\n");
    // Items after the one holding `<<` stay on its line (found next).
    assert_prints_back(b"<<A\n`<<A;\xff\nA`\nA");
    assert_prints_back(b"cat <<A; echo x; cat <<B\na\nA\nb\nB\necho y");
}

#[test]
fn parenthesis_of_arithmetic_hidden_in_a_comment_is_refused() {
    // Found by `parse`: `$((` counted the `(` of a comment inside `$( … )`,
    // so a later `)` closed nothing in the expression; printed without the
    // comment, the arithmetic ended one `)` earlier.
    let e = guard_sh::syntax::parse(b"$(($(#(\n))))").unwrap_err();
    assert_eq!(
        e.render(b"$(($(#(\n))))"),
        "1:6: not supported by guard-sh: a comment holding a parenthesis inside `$(( … ))`"
    );
    assert_prints_back(b"echo $(( (1 + $(echo 2)) * (3) ))");
}

#[test]
fn a_comment_holding_a_parenthesis_inside_arithmetic_is_refused() {
    // Found by `parse` next to a here-document (see the test below): a
    // comment's `(` balanced another `)` in `$((`'s count, as in bash, but
    // the printed tree has no comment and ended the arithmetic one `)`
    // early. Every comment with a parenthesis there is refused, also in
    // backticks.
    assert_refused_with(
        &[
            &b"echo $(( $(echo 1 #(\n) ) ))"[..],
            b"echo $(( $(echo 1 #)(\n) ))",
            b"echo $(( `echo 1 #(` ) ))",
        ],
        "a comment holding a parenthesis",
    );
    // Comments without one inside `$(( … ))`, and with one elsewhere, stay.
    assert_prints_back(b"echo $(( $(echo 1 # one\n) + 1 ))");
    assert_prints_back(b"echo $(echo 1 #(\n) # )");
}

#[test]
fn a_bracket_closed_only_inside_quotes_or_substitutions_is_refused_as_bash_refuses_it() {
    // Found by `parse`: ``o[`]<X` `` was accepted (its `]` sits inside the
    // backquotes) and printed back as text the parser refused; bash -n
    // refuses every one of these as an unterminated `[`.
    assert_refused_with(
        &[
            &b"o[`]<\x9f`"[..],
            b"o[`]`",
            b"o[\"]\"",
            b"o[']'",
            b"o[\\]",
            b"o[${x:-]}",
            b"o[$(echo])",
        ],
        "unclosed `[`",
    );
    // A close outside them still ends the subscript (a glob word, as in bash).
    for line in ["o[a]", "o[`x`]", "o[\"a\"]b"] {
        assert!(guard_sh::syntax::parse(line.as_bytes()).is_ok(), "{line}");
    }
}

#[test]
fn here_documents_inside_arithmetic_are_refused() {
    // Four `parse` findings had a here-document inside `$(( … ))`: bash
    // finds the end of `$((` in the raw text, pairing quotes and counting
    // parentheses across the body and the delimiter line, and each way the
    // printer wrote the body (backslashes, a comment beside it, `''` for an
    // empty delimiter, the next command on the `<<` line) paired them
    // differently. Such a here-document is refused at any depth; the
    // inputs as found are kept.
    let found = |name: &str| {
        std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fuzz_found")
                .join(name),
        )
        .unwrap()
    };
    let found = [
        found("backslash-in-here-document-in-arithmetic.bin"),
        found("heredocs-in-substitution-in-arithmetic.bin"),
        found("quotes-of-here-document-in-backticks-in-arithmetic.bin"),
    ];
    let written: [&[u8]; 5] = [
        b"$(($(<<B\n\\)\nB\n)))",
        b"$(($(<<'E'\n \\\nE\nE\n)))",
        b"$(($(<<A;#(\n)\nA\n)))",
        b"$(((`<<\"\"\n'\n\n\\'`)))",
        b"echo $(( 1 + $(cat <<E\n2\nE\n) ))",
    ];
    let lines: Vec<&[u8]> = written
        .into_iter()
        .chain(found.iter().map(Vec::as_slice))
        .collect();
    assert_refused_with(&lines, "a here-document inside `$(( … ))`");
    // Outside arithmetic they stay, and print back as themselves.
    assert_prints_back(b"cat <<E\na\\b \\$x \\\\ \\` c\\\nd\\\\\nE\n");
    assert_prints_back(b"echo $(cat <<E\n)\nE\n)");
    assert_prints_back(b"echo $(( $(echo 1) + 2 ))");
}

#[test]
fn an_array_element_opening_a_bracket_it_does_not_close_is_refused() {
    // Found by `parse`: `a=([}` newline `x ]=y)` read `[}` as a bare
    // element (its `]` is on the next line); printed on one line, `[} x ]=`
    // became a key.
    assert_refused_with(
        &[
            b"a=([}\nx ]=y)",
            b"declare -A m=([}\necho ]=E)",
            b"a=([a\"]\"=b)",
        ],
        "is not closed in the same word",
    );
    for line in [
        &b"a=([a-z]* x)"[..],
        b"a=([0]=x [k]=\"y z\" w)",
        b"a=(\n x # c\n y\n)",
    ] {
        assert_prints_back(line);
    }
}

#[test]
fn an_unclosed_parenthesis_in_dollar_bracket_arithmetic_is_refused() {
    // Found by `parse`: `$[ 3 * (2+ ]` printed as `$(( 3 * (2+ ))`, which
    // no longer ends where it did.
    assert_refused_with(&[b"echo $[ 3 * (2+ ]", b"echo $[(]"], "do not pair");
    assert_prints_back(b"echo $[ 3 * (2+1) ] $[a[1]+1]");
}

#[test]
fn time_before_a_metacharacter_is_the_reserved_word() {
    // Found by `parse`: `time&` read `time` as a command name, printed back
    // as `time &`, the reserved word with no pipeline; bash refuses both.
    assert_refused_with(&[b"time& ! false", b"time|cat", b"time;"], "after `time`");
    assert_prints_back(b"time echo hi | cat; time -p { echo in; }; timex& wait");
}

#[test]
fn a_bracket_closed_only_inside_dollar_bracket_arithmetic_is_refused() {
    // Found by `parse`: in `a[x$[1]y` the only `]` closes `$[`; the word
    // was read as a name with a subscript, printed with `$((1))`, and then
    // refused as an unclosed `[`.
    assert_refused_with(&[b"i=2\na[x[a$a$[5]cl\n", b"a[$[1]"], "unclosed `[`");
}

#[test]
fn a_call_walks_the_body_the_function_has_at_that_point() {
    // Found by `parse_guard`: a body that redefines its own function
    // replaced, in a map of every definition of the line, the body the
    // first call runs; the foreign name in the outer body went unchecked.
    for line in [
        "g() { g() { :; }; curl x; }; g",
        "g() { g() { curl x; }; g; }; g",
        "f() { h; }; h() { curl x; }; f",
        "f() { :; }; f; f() { curl x; }; f",
    ] {
        let v = verdict(line);
        assert!(!v.allowed, "{line:?} was allowed");
        assert_eq!(
            v.first_denial().map(|d| d.name.as_str()),
            Some("curl"),
            "{line:?}"
        );
    }
    // A body defined and never called reaches nothing yet.
    assert!(verdict("g() { curl x; }").allowed);
}

#[test]
fn quotes_and_substitutions_inside_dollar_bracket_are_refused() {
    // Found by `parse`: `$[` ends at the first `]` that closes nothing,
    // quotes or not; printed as `$(( … ))`, text holding quotes ended
    // elsewhere.
    assert_refused_with(
        &[
            b"echo $[ \"1]\" ]",
            b"echo $[ '1' ]",
            b"echo $[ `x` ]",
            b"echo $[ $(x) ]",
            b"echo $[ \\1 ]",
        ],
        "inside `$[ … ]`",
    );
    assert_prints_back(b"echo $[ $x + ${y:-1} * 2 ]");
}

#[test]
fn quotes_in_an_operand_inside_arithmetic_are_refused() {
    // Found by `parse`: a `${x/a/"…"}` operand inside `$(( … ))` held
    // quotes and backslashes; bash pairs them in the raw text to find the
    // end of `$((`, and the printed text paired them another way.
    assert_refused_with(
        &[
            b"echo $(( ${X/a/\"b\"} ))",
            b"echo $(( ${X:-'1'} ))",
            b"echo $(( ${X:-\\1} ))",
        ],
        "quotes or escapes inside `$(( … ))`",
    );
    assert_prints_back(b"echo $(( ${X:-1} + ${#Y} ))");
}

#[test]
fn a_quote_in_a_subscript_that_runs_into_the_next_line_makes_no_key() {
    // Found by `parse`: `m['` then lines later a `'` and `]=1`: the key
    // scan crossed lines inside the quotes; the printed text read another
    // way. Such a word is refused as an unclosed `[`.
    assert_refused_with(&[b"m['x\ny']=1", b"m[\"x\ny\"]=1"], "unclosed `[`");
    assert_prints_back(b"m['a b']=1; m[\"c d\"]=2; a=([' k']=v)");
}

#[test]
fn a_subscript_is_read_only_where_its_quotes_close_on_the_line() {
    // Found by `parse` (again): `m['x[k]=1` then a newline: a scan by
    // blank-separated token found `]=` past an unclosed quote; the key
    // scan that pairs quotes now decides alone.
    let text = b"m['x[k]=1\nm[ b; fi\n'";
    match guard_sh::syntax::parse(text) {
        Ok(list) => assert_prints_back(&guard_sh::syntax::to_source(&list)),
        Err(e) => assert!(!e.to_string().contains("`${`"), "{e}"),
    }
}

#[test]
fn a_subscript_close_is_looked_for_in_the_word_as_the_word_parser_reads_it() {
    // Found by `parse`: `a[$[{]1]}` printed as `a[$(({))1]}`, whose `]`
    // a scan by blank-separated token (which stops at `(`) did not reach.
    assert_prints_back(b"ec0&a[$[{]1]}");
    assert_prints_back(b"echo a[$(echo 1)]x b[`x`]");
}

#[test]
fn here_documents_of_many_items_print_with_their_own_items() {
    // Found by `parse`: quoted and unquoted here-documents on many lines,
    // their bodies holding `\\`-newlines, were printed as one long line
    // followed by every body; read back, the continuations paired with
    // other lines. At the top each item's bodies now follow it.
    assert_prints_back(b"<<'E';<<E\x0a\xa4\x5c\x0aE\x0aE\x0a<<'E'<<E\x0ae\x5c\x0aE\x0aE\x0a\x02<<'E'<<E\x0ab\x5c\x0aE\x0aE\x0aE\x0a<<'E'<<E\x0ab\x5c\x0aE\x0aE\x0aa<<'E';<<E\x0ab\x5c\x0aE\x0aE\x0a<<'E'<<E\x0ae\x5c\x0aE\x0aE\x0aa<<'E'<<E\x0ab\x5c\x0aE\x0aE\x0a<<'E'<<E\x0ae\x5c\x0aE\x0aE\x0a<<'E'<<E\x0aa\x5c\x0aE\x0aE\x0a<<'E'; <<E\x0aa\x5c\x0aE\x0aE\x0a <<'E'<<E\x0a\x0ab\x5c\x0aE\x0aE\x0a<<'E';<<E\x0ae\x5c\x0aE\x0aE\x0at <<'E'<<E\x0ab\x5c\x0aE\x0aE\x0a\x02<<'E';<<E\x0ad\x5c\x0aE\x0aE\x0a<<'E'<<E\x0aa\x5c\x0aE\x0aJ\x0aE\x0a\x02<<'E'\x0aE\x5c\x0aE\x0a");
    assert_prints_back(b"cat <<'E'; cat <<F\na\\\nE\nb\nF\necho x; cat <<G\nc\nG\n");
}

#[test]
fn parentheses_inside_dollar_bracket_must_pair() {
    // Found by `parse`: `$[${u:)}]` printed as `$((${u:)}))`, whose `)`
    // inside the operand ends `$((` when bash counts the raw text.
    assert_refused_with(&[b"$[${u:)}]", b"echo $[ ${x:-(} ]"], "do not pair");
    assert_prints_back(b"echo $[ (1 + 2) * ${n:-3} ]");
}

#[test]
fn a_strip_tabs_here_document_inside_another_keeps_its_tabs_when_printed() {
    // Found by `parse`: `<<-E` inside `$( )` inside a `<<E` body ended with
    // a tab-indented `E`; printed without the tab, it ended the outer body.
    assert_prints_back(b"<<E\n$(<<-E\n\tE\n)\nE");
    assert_prints_back(b"cat <<E\n$(cat <<-E\n\tx\n\tE\n)\nE\n");
    assert_prints_back(b"cat <<-EOF\n\tone\n\ttwo $x\n\tEOF\n");
}

#[test]
fn a_subscript_is_read_to_its_matching_bracket_as_bash_reads_it() {
    // Found by `parse`: `i[[]<X ]=` read `i[[]` as a command word (the key
    // scan stopped at `<`); printed with the redirection first, the scan
    // took `i[[] ]=` as an assignment. bash reads `name[` in assignment
    // position to the matching `]`, operators and blanks included: an
    // assignment whose key holds an operator, or a word holding blanks or
    // an unmatched `[`, is refused rather than split elsewhere.
    assert_refused_with(
        &[b"i[[]<X ]=", b"a[x|y]=1", b"a[x;y]=1", b"a[x\ny]=1"],
        "operator or a newline",
    );
    assert_refused_with(&[b"i[[]>X ]", b"a[x y] echo hi", b"a[[] echo hi"], "blanks");
    assert_prints_back(b"declare -A a; a[x y]=1 a[\"<\"]=2; echo x[[] a[]]=1");
}

#[test]
fn an_array_element_bracket_is_read_to_its_match_as_bash_reads_it() {
    // Found by `parse`: `c=([[]\n]=)` read `[[]` and `]=` as two elements
    // (bash: one key `[]\n`); printed on one line with a blank between,
    // the key scan took `[[] ]=` as a key.
    assert_refused_with(
        &[
            b"c=([[]\n]=)",
            b"a=([x y] z)",
            b"a=([x<y]=1)",
            b"b=([x] [y)",
        ],
        "is not closed in the same word",
    );
    assert_prints_back(b"a=([x y]=1 [a-z]* \"[\" [k]=v)");
}

#[test]
fn a_cascade_of_continued_here_documents_settles() {
    // Found by `parse`: seventeen `<<'E'<<E` pairs in `$( )`, each quoted
    // body ending in `\`-newline: where each body ends is known only once
    // the one before it settled, one parse each; printed, the text needed
    // more than the 16 parses then allowed. Rounds now follow the number
    // of continuations (up to 256).
    let mut text = b"$(".to_vec();
    for _ in 0..40 {
        text.extend_from_slice(b"<<'E'<<E\nb\\\nE\nE\n");
    }
    text.extend_from_slice(b")\n");
    assert_prints_back(&text);
}

#[test]
fn an_ansi_c_quote_in_a_subscript_is_skipped_with_its_escapes() {
    // Found by `parse`: in `a[$'\'\;]'` the bracket scans took `$'\'` as
    // a quote closed by the escaped `'`; printed (`\;` as `\\;`), the rest
    // read `;` as an operator. `$'…'` is now skipped as bash does, a
    // backslash escaping the next byte, so this `[` never closes (bash:
    // end of file looking for `]`).
    assert_refused_with(&[b"a[$'\\'\\;]'"], "unclosed");
    assert_prints_back(b"a[$'\\'x']=1; echo \"${a[@]}\" b[$'\\']']");
}
