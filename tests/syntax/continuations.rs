//! Line continuations (`\<newline>`): bash removes them while it reads,
//! before it looks for `$`, names, operators or reserved words, everywhere
//! but inside single quotes, `$'…'`, comments and here-documents with a
//! quoted delimiter. So a line with a continuation inserted anywhere else
//! means what the line without it means: guard-sh must parse it to the same
//! tree, or refuse it, never read it as something else.

#![allow(clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use std::path::Path;

use guard_sh::syntax::{parse, to_source, without_spans};

/// Every `inputs:` string of the syntax and guard corpora.
fn corpus_inputs() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut out = Vec::new();
    for sub in ["syntax", "guard"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
            .collect();
        files.sort();
        for f in files {
            let v: serde_yaml_ng::Value =
                serde_yaml_ng::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
            let cases = v.get("cases").unwrap_or(&v);
            for case in cases.as_sequence().unwrap() {
                if let Some(inputs) = case.get("inputs").and_then(|i| i.as_sequence()) {
                    out.extend(inputs.iter().filter_map(|s| s.as_str().map(String::from)));
                }
            }
        }
    }
    out
}

/// Inputs where bash removes a continuation at every position (none of the
/// contexts that keep one literally) and that guard-sh accepts.
fn plain_accepted_inputs() -> Vec<String> {
    corpus_inputs()
        .into_iter()
        .filter(|s| !s.contains('\'') && !s.contains('#') && !s.contains("<<"))
        .filter(|s| parse(s.as_bytes()).is_ok())
        .collect()
}

/// `src` with `\<newline>` inserted at byte `at`.
fn with_continuation(src: &[u8], at: usize) -> Vec<u8> {
    let mut v = src[..at].to_vec();
    v.extend_from_slice(b"\\\n");
    v.extend_from_slice(&src[at..]);
    v
}

#[test]
fn a_continuation_anywhere_means_the_line_without_it_or_is_refused() {
    let inputs = plain_accepted_inputs();
    assert!(
        inputs.len() > 200,
        "corpus looks truncated: {}",
        inputs.len()
    );
    let mut tried = 0;
    let mut refused = Vec::new();
    let mut wrong = Vec::new();
    for input in &inputs {
        let src = input.as_bytes();
        let want = without_spans(&parse(src).unwrap());
        for at in 0..=src.len() {
            // After a backslash the inserted one would be escaped instead.
            if at > 0 && src[at - 1] == b'\\' {
                continue;
            }
            tried += 1;
            let text = with_continuation(src, at);
            match parse(&text) {
                Ok(got) if without_spans(&got) == want => {
                    let printed = to_source(&got);
                    match parse(&printed) {
                        Ok(again) if without_spans(&again) == want => {}
                        _ => wrong.push(format!(
                            "{:?} printed as {:?} does not read back",
                            String::from_utf8_lossy(&text),
                            String::from_utf8_lossy(&printed)
                        )),
                    }
                }
                Ok(_) => wrong.push(format!(
                    "{:?} parses to another tree than {input:?}",
                    String::from_utf8_lossy(&text)
                )),
                Err(e) => refused.push(format!(
                    "{:?}: {}",
                    String::from_utf8_lossy(&text),
                    e.render(&text)
                )),
            }
        }
    }
    if std::env::var_os("SHOW_REFUSED").is_some() {
        eprintln!("{}", refused.join("\n"));
    }
    eprintln!(
        "{tried} placements, {} refused, {} wrong",
        refused.len(),
        wrong.len()
    );
    assert!(
        wrong.is_empty(),
        "{} of {tried} placements read differently:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
