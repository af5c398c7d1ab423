//! `shift` and `getopts`: the positional parameters.

use super::lossy;
use crate::interp::{Shell, Status};

impl Shell<'_> {
    pub(super) fn shift(&mut self, args: &[Vec<u8>]) -> Status {
        let n = match args.first() {
            None => 1,
            Some(a) => match lossy(a).parse::<usize>() {
                Ok(n) => n,
                Err(_) => {
                    self.error(&format!("shift: {}: numeric argument required", lossy(a)));
                    return Ok(1);
                }
            },
        };
        if n > self.positional.len() {
            return Ok(1);
        }
        self.positional.drain(..n);
        Ok(0)
    }

    pub(super) fn getopts(&mut self, args: &[Vec<u8>]) -> Status {
        let (Some(spec), Some(var)) = (args.first(), args.get(1)) else {
            self.error("getopts: usage: getopts optstring name [arg ...]");
            return Ok(2);
        };
        let var = lossy(var);
        let params: Vec<Vec<u8>> = if args.len() > 2 {
            args[2..].to_vec()
        } else {
            self.positional.clone()
        };
        let silent = spec.first() == Some(&b':');
        let spec: Vec<u8> = if silent {
            spec[1..].to_vec()
        } else {
            spec.clone()
        };
        let mut optind: usize = self
            .vars
            .get("OPTIND")
            .and_then(|v| lossy(v).parse().ok())
            .unwrap_or(1)
            .max(1);
        let mut pos: usize = self.getopts_pos;
        let Some(arg) = params.get(optind - 1).cloned() else {
            self.assign(&var, b"?".to_vec())?;
            return Ok(1);
        };
        if pos == 0 {
            if arg == b"--" {
                self.vars
                    .set_internal("OPTIND", (optind + 1).to_string().into_bytes());
                self.assign(&var, b"?".to_vec())?;
                return Ok(1);
            }
            if arg.len() < 2 || arg[0] != b'-' {
                self.assign(&var, b"?".to_vec())?;
                return Ok(1);
            }
            pos = 1;
        }
        let c = arg[pos];
        pos += 1;
        let at_end = pos >= arg.len();
        let spec_at = spec.iter().position(|&s| s == c && s != b':');
        let takes = spec_at.is_some_and(|i| spec.get(i + 1) == Some(&b':'));
        let mut status = 0;
        if spec_at.is_none() {
            if silent {
                self.assign("OPTARG", vec![c])?;
            } else {
                self.error(&format!("illegal option -- {}", c as char));
                self.vars.unset_internal("OPTARG");
            }
            self.assign(&var, b"?".to_vec())?;
        } else if takes {
            if !at_end {
                self.assign("OPTARG", arg[pos..].to_vec())?;
                optind += 1;
                pos = 0;
            } else if let Some(next) = params.get(optind) {
                self.assign("OPTARG", next.clone())?;
                optind += 2;
                pos = 0;
            } else {
                if silent {
                    self.assign(&var, b":".to_vec())?;
                    self.assign("OPTARG", vec![c])?;
                } else {
                    self.error(&format!("option requires an argument -- {}", c as char));
                    self.assign(&var, b"?".to_vec())?;
                }
                optind += 1;
                self.getopts_pos = 0;
                self.vars
                    .set_internal("OPTIND", optind.to_string().into_bytes());
                return Ok(0);
            }
            self.assign(&var, vec![c])?;
        } else {
            self.vars.unset_internal("OPTARG");
            self.assign(&var, vec![c])?;
            status = 0;
        }
        if pos != 0 && at_end {
            optind += 1;
            pos = 0;
        }
        self.getopts_pos = pos;
        self.vars
            .set_internal("OPTIND", optind.to_string().into_bytes());
        Ok(status)
    }
}
