//! Parser target: no input panics or hangs the parser; an error's span lies
//! inside the input; what parses prints back to text that parses to the
//! same tree.

#![no_main]

use guard_sh::syntax::{self, to_source, without_spans};
use guard_sh_fuzz::bad_error_span;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match syntax::parse(data) {
        Err(e) => {
            if let Some(why) = bad_error_span(data, &e) {
                eprintln!("{why}");
                std::process::abort();
            }
            // Rendering the position must not panic either.
            let _ = e.render(data);
        }
        Ok(list) => {
            let printed = to_source(&list);
            match syntax::parse(&printed) {
                Ok(again) if without_spans(&again) == without_spans(&list) => {}
                Ok(_) => {
                    eprintln!("printed text parses to another tree: {:?}", String::from_utf8_lossy(&printed));
                    std::process::abort();
                }
                Err(e) => {
                    eprintln!("printed text does not parse ({}): {:?}", e.render(&printed), String::from_utf8_lossy(&printed));
                    std::process::abort();
                }
            }
        }
    }
});
