//! Parse + guard target: nothing panics, and when the static guard allows a
//! line, no fixed command name the interpreter would spawn is foreign (see
//! `guard_sh_fuzz::escapes`, an enumeration independent of the guard).

#![no_main]

use guard_sh::{guard, syntax};
use guard_sh_fuzz::{escapes, policy};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

static POLICY: OnceLock<guard_sh::policy::Policy> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let policy = POLICY.get_or_init(policy);
    let Ok(list) = syntax::parse(data) else { return };
    let verdict = guard::check_list(policy, &list);
    let _ = verdict.to_json(data);
    if verdict.allowed {
        let found = escapes(policy, &list);
        if !found.is_empty() {
            eprintln!("guard allowed {:?} but it can spawn {found:?}", String::from_utf8_lossy(data));
            std::process::abort();
        }
    }
});
