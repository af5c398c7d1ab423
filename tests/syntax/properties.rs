//! Properties of the parser and the guard over generated input: nothing
//! panics, and what the parser accepts prints back to text that parses to
//! the same tree.

#![allow(clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use guard_sh::policy::Policy;
use guard_sh::syntax::{self, to_source, without_spans};
use proptest::prelude::*;

use crate::syntax_support;
use syntax_support::shellish;

/// The suites' small policy for the guard side of the properties, with a
/// denied subcommand, `cat`, and environment rules.
fn policy() -> Policy {
    let mut json = crate::common::small_policy();
    json["commands"]["tea"]["deny"] =
        serde_json::json!([{"match": "subcommand", "name": "api", "reason": "raw API"}]);
    json["commands"]["cat"] = serde_json::json!({"kind": "utility", "path": "/usr/bin/cat"});
    json["env"] =
        serde_json::json!({"pass": ["HOME"], "deny": [{"pattern": "LD_*", "reason": "loader"}]});
    crate::common::policy_of(json)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn parser_and_guard_never_panic_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let _ = guard_sh::guard::check_source(&policy(), &bytes);
    }

    #[test]
    fn parser_and_guard_never_panic_on_shell_like_text(text in shellish(40)) {
        let _ = guard_sh::guard::check_source(&policy(), text.as_bytes());
    }

    #[test]
    fn accepted_text_prints_back_to_the_same_tree(text in shellish(40)) {
        if let Ok(list) = syntax::parse(text.as_bytes()) {
            let printed = to_source(&list);
            let reparsed = syntax::parse(&printed).map_err(|e| {
                TestCaseError::fail(format!("{text:?} printed as {:?} does not parse: {}",
                    String::from_utf8_lossy(&printed), e.render(&printed)))
            })?;
            prop_assert_eq!(without_spans(&list), without_spans(&reparsed),
                "{:?} printed as {:?}", text, String::from_utf8_lossy(&printed));
        }
    }

    #[test]
    fn printing_does_not_change_the_verdict(text in shellish(40)) {
        let policy = policy();
        if let Ok(list) = syntax::parse(text.as_bytes()) {
            let printed = to_source(&list);
            let before = guard_sh::guard::check_list(&policy, &list).allowed;
            let after = guard_sh::guard::check_source(&policy, &printed).map(|v| v.allowed);
            prop_assert_eq!(Ok(before), after.map_err(|e| e.to_string()), "{:?}", text);
        }
    }
}
