//! Placeholders in arm data: `{host}` and friends, filled from the build inputs.
//!
//! Known names: `host` (the URL without a trailing `/`), `host_name`,
//! `host_port`, `repo` (`OWNER/NAME`), `owner`, `repo_name`, `token`,
//! `out` (the output folder). `{{` and `}}` write a literal brace. An unknown
//! or unclosed placeholder is an error, never left in the text.

use std::collections::BTreeMap;

/// Values for the placeholders.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    values: BTreeMap<&'static str, String>,
}

impl Vars {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn set(&mut self, name: &'static str, value: impl Into<String>) {
        self.values.insert(name, value.into());
    }

    /// `text` with every placeholder replaced; `Err` names the offending one.
    pub fn fill(&self, text: &str) -> Result<String, String> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(i) = rest.find(['{', '}']) {
            out.push_str(&rest[..i]);
            let tail = &rest[i..];
            if let Some(after) = tail.strip_prefix("{{") {
                out.push('{');
                rest = after;
            } else if let Some(after) = tail.strip_prefix("}}") {
                out.push('}');
                rest = after;
            } else if let Some(after) = tail.strip_prefix('{') {
                let Some(close) = after.find('}') else {
                    return Err(format!("unclosed placeholder at {:?}", truncate(tail)));
                };
                let name = &after[..close];
                let Some(value) = self.values.get(name) else {
                    return Err(format!(
                        "unknown placeholder {{{name}}} (known: {}; write {{{{ for a literal brace)",
                        self.values
                            .keys()
                            .map(|k| format!("{{{k}}}"))
                            .collect::<Vec<_>>()
                            .join(" ")
                    ));
                };
                out.push_str(value);
                rest = &after[close + 1..];
            } else {
                return Err(format!(
                    "lone `}}` at {:?} (write }}}} for a literal brace)",
                    truncate(tail)
                ));
            }
        }
        out.push_str(rest);
        Ok(out)
    }
}

fn truncate(s: &str) -> &str {
    match s.char_indices().nth(20) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> Vars {
        let mut v = Vars::new();
        v.set("host", "http://127.0.0.1:3000");
        v.set("token", "abc");
        v
    }

    #[test]
    fn placeholders_are_replaced() {
        assert_eq!(
            vars().fill("{host}/api/swagger t={token}").as_deref(),
            Ok("http://127.0.0.1:3000/api/swagger t=abc")
        );
    }

    #[test]
    fn doubled_braces_are_literal() {
        assert_eq!(vars().fill("{{\"a\": 1}}").as_deref(), Ok("{\"a\": 1}"));
    }

    #[test]
    fn unknown_placeholder_is_error_naming_it() {
        let err = vars().fill("x {hots} y").err().unwrap_or_default();
        assert!(err.contains("{hots}"), "{err}");
    }

    #[test]
    fn unclosed_placeholder_is_error() {
        assert!(vars().fill("x {host").is_err());
    }

    #[test]
    fn lone_closing_brace_is_error() {
        assert!(vars().fill("x } y").is_err());
    }

    #[test]
    fn values_are_not_expanded_again() {
        let mut v = Vars::new();
        v.set("token", "{host}");
        v.set("host", "h");
        assert_eq!(v.fill("{token}").as_deref(), Ok("{host}"));
    }
}
