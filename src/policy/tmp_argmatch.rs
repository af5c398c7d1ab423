impl super::ArgRule {
    pub fn matches(&self, args: &[&[u8]]) -> bool {
        match self {
            super::ArgRule::Subcommand { name, .. } => args.iter().find(|a| !a.starts_with(b"-")).is_some_and(|a| *a == name.as_bytes()),
            super::ArgRule::LongOption { name, .. } => args.iter().take_while(|a| **a != b"--").any(|a| {
                a.strip_prefix(b"--").is_some_and(|r| { let n = r.split(|&b| b == b'=').next().unwrap_or(r); !n.is_empty() && name.as_bytes().starts_with(n) })
            }),
            super::ArgRule::ShortOption { letter, .. } => args.iter().take_while(|a| **a != b"--").any(|a| a.len() > 1 && a[0] == b'-' && a[1] != b'-' && a.contains(&(*letter as u8))),
            super::ArgRule::Argument { value, .. } => args.iter().any(|a| *a == value.as_bytes()),
        }
    }
}
