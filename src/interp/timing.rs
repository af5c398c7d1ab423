//! `time PIPELINE` (bash's reserved word): wall-clock, user and system
//! time of the pipeline (guard-sh's own and its children's), reported on
//! standard error in `$TIMEFORMAT` (bash's default when unset, nothing
//! when empty) or, for `time -p`, POSIX's format.

use crate::syntax::ast::TimeFormat;
use crate::system::System;
use std::time::Instant;

/// bash's default `TIMEFORMAT`.
const DEFAULT_FORMAT: &[u8] = b"\nreal\t%3lR\nuser\t%3lU\nsys\t%3lS";

/// When a timed pipeline started.
pub struct Clock {
    wall: Instant,
    cpu: (f64, f64),
}

/// What a pipeline took, in seconds.
pub struct Spent {
    pub real: f64,
    pub user: f64,
    pub system: f64,
}

impl Clock {
    /// Now, by the wall clock and by `sys`'s CPU count.
    pub fn start(sys: &dyn System) -> Clock {
        Clock {
            wall: Instant::now(),
            cpu: sys.cpu_seconds(),
        }
    }

    /// What passed since [`Clock::start`].
    pub fn spent(&self, sys: &dyn System) -> Spent {
        let (user, system) = sys.cpu_seconds();
        Spent {
            real: self.wall.elapsed().as_secs_f64(),
            user: (user - self.cpu.0).max(0.0),
            system: (system - self.cpu.1).max(0.0),
        }
    }
}

/// The report `time` prints, newline included (nothing for an empty
/// `TIMEFORMAT`).
pub fn report(format: TimeFormat, timeformat: Option<&[u8]>, spent: &Spent) -> Vec<u8> {
    if format == TimeFormat::Posix {
        return format!(
            "real {:.2}\nuser {:.2}\nsys {:.2}\n",
            spent.real, spent.user, spent.system
        )
        .into_bytes();
    }
    let spec = timeformat.unwrap_or(DEFAULT_FORMAT);
    if spec.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < spec.len() {
        if spec[i] != b'%' {
            out.push(spec[i]);
            i += 1;
            continue;
        }
        let mut k = i + 1;
        if spec.get(k) == Some(&b'%') {
            out.push(b'%');
            i = k + 1;
            continue;
        }
        let mut precision = 3;
        if let Some(d) = spec.get(k).filter(|d| d.is_ascii_digit()) {
            precision = usize::from(d - b'0').min(3);
            k += 1;
        }
        let long = spec.get(k) == Some(&b'l');
        if long {
            k += 1;
        }
        let value = match spec.get(k) {
            Some(b'R') => spent.real,
            Some(b'U') => spent.user,
            Some(b'S') => spent.system,
            Some(b'P') => {
                let cpu = spent.user + spent.system;
                let percent = if spent.real > 0.0 {
                    cpu * 100.0 / spent.real
                } else {
                    0.0
                };
                out.extend(format!("{percent:.2}").bytes());
                i = k + 1;
                continue;
            }
            _ => {
                // Not a conversion: the text as written.
                out.push(b'%');
                i += 1;
                continue;
            }
        };
        let text = if long {
            let minutes = (value / 60.0).floor();
            format!("{minutes:.0}m{:.precision$}s", value - minutes * 60.0)
        } else {
            format!("{value:.precision$}")
        };
        out.extend(text.bytes());
        i = k + 1;
    }
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeformat_conversions_are_bash_s() {
        let spent = Spent {
            real: 61.5,
            user: 0.25,
            system: 0.125,
        };
        let text = |f: &str| {
            String::from_utf8_lossy(&report(TimeFormat::Default, Some(f.as_bytes()), &spent))
                .into_owned()
        };
        assert_eq!(
            text("%R|%1R|%0R|%lR|%2lU|%%|%x"),
            "61.500|61.5|62|1m1.500s|0m0.25s|%|%x\n"
        );
        assert_eq!(text(""), "");
        assert_eq!(
            String::from_utf8_lossy(&report(TimeFormat::Default, None, &spent)),
            "\nreal\t1m1.500s\nuser\t0m0.250s\nsys\t0m0.125s\n"
        );
        assert_eq!(
            String::from_utf8_lossy(&report(TimeFormat::Posix, None, &spent)),
            "real 61.50\nuser 0.25\nsys 0.12\n"
        );
    }
}
