//! Policy examples: each argument rule's `deny_examples` must be denied by
//! that rule, and its `allow_examples` by no rule of the command.
//!
//! Checked whenever an arm is compiled, so a rule that does not do what its
//! examples say is a build error rather than a silent gap.

use super::source::RuleSource;
use crate::policy::error::PolicyError;
use crate::policy::model::ArgRule;
use std::path::Path;

/// Check every example of `sources` (compiled pairwise into `rules`) for
/// command `name`; `field` is the TOML path of the rule list (for errors).
pub fn check_examples(
    path: &Path,
    field: &str,
    name: &str,
    sources: &[RuleSource],
    rules: &[ArgRule],
) -> Result<(), PolicyError> {
    for (i, source) in sources.iter().enumerate() {
        let here = format!("{field}[{i}]");
        for example in &source.deny_examples {
            let args = example_args(path, &here, name, example, "deny_examples")?;
            if !rules[i].matches(&args) {
                return Err(example_error(
                    path,
                    &here,
                    "deny_examples",
                    example,
                    "is not denied by this rule",
                ));
            }
        }
        for example in &source.allow_examples {
            let args = example_args(path, &here, name, example, "allow_examples")?;
            if let Some(hit) = rules.iter().position(|r| r.matches(&args)) {
                let why = format!("is denied by {field}[{hit}], but is listed as allowed");
                return Err(example_error(path, &here, "allow_examples", example, &why));
            }
        }
    }
    Ok(())
}

fn example_args<'a>(
    path: &Path,
    here: &str,
    name: &str,
    example: &'a [String],
    list: &str,
) -> Result<Vec<&'a [u8]>, PolicyError> {
    match example.split_first() {
        Some((first, rest)) if first == name => Ok(rest.iter().map(|a| a.as_bytes()).collect()),
        _ => Err(example_error(
            path,
            here,
            list,
            example,
            &format!("must start with the command name {name:?}"),
        )),
    }
}

fn example_error(
    path: &Path,
    here: &str,
    list: &str,
    example: &[String],
    expectation: &str,
) -> PolicyError {
    PolicyError::Example {
        path: path.to_path_buf(),
        field: format!("{here}.{list}"),
        example: example.to_vec(),
        expectation: expectation.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::armbuild::source::RuleKind;

    fn source(allow: &[&[&str]], deny: &[&[&str]]) -> RuleSource {
        let conv = |v: &[&[&str]]| {
            v.iter()
                .map(|e| e.iter().map(|s| s.to_string()).collect())
                .collect()
        };
        RuleSource {
            kind: RuleKind::LongOption,
            name: Some("compress-program".into()),
            letter: None,
            value: None,
            min_digits: None,
            allowed: None,
            reason: "runs a program".into(),
            allow_examples: conv(allow),
            deny_examples: conv(deny),
        }
    }

    fn check(s: RuleSource) -> Result<(), PolicyError> {
        let rule = s.to_arg_rule(Path::new("h.toml"), "utilities.sort.deny[0]")?;
        check_examples(
            Path::new("h.toml"),
            "utilities.sort.deny",
            "sort",
            &[s],
            &[rule],
        )
    }

    #[test]
    fn examples_that_hold_pass() {
        let s = source(&[&["sort", "-n", "f"]], &[&["sort", "--compress-prog=sh"]]);
        assert!(check(s).is_ok());
    }

    #[test]
    fn deny_example_the_rule_misses_is_error() {
        let err = check(source(&[], &[&["sort", "--", "--compress-program=sh"]])).err();
        let text = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            text.contains("h.toml")
                && text.contains("deny_examples")
                && text.contains("not denied"),
            "{text}"
        );
    }

    #[test]
    fn allow_example_the_rule_denies_is_error() {
        let err = check(source(&[&["sort", "--comp=gzip"]], &[])).err();
        let text = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            text.contains("allow_examples") && text.contains("listed as allowed"),
            "{text}"
        );
    }

    #[test]
    fn example_for_another_command_is_error() {
        let err = check(source(&[&["tee", "x"]], &[])).err();
        let text = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            text.contains("must start with the command name \"sort\""),
            "{text}"
        );
    }
}
