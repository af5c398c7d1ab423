//! The line server's wire, written once for both ends: `guard-sh-client`
//! (no standard library, so this crate uses `core` alone) and
//! `guard-sh --serve`.
//!
//! A request is a [`Header`], then one `i32` per descriptor number
//! ([`Header::descriptors`] of them), then the arguments and the
//! `NAME=VALUE` variables, each ending in NUL, all little-endian. It comes
//! in one `SCM_RIGHTS` message with the descriptors attached: the working
//! folder, one per number, then the [`PROOF_FDS`] of the caller's
//! confinement. After it the client sends one byte per signal it
//! received; the server answers once, with a [`Reply`].

#![no_std]

/// The variable that names the server: `NAME PID START MARKER` (the
/// abstract socket's name, the server's pid and start time, the pid of
/// the process holding its token).
pub const SERVER_ENV: &str = "GUARD_SH_SERVER";

/// The variable that holds the trial's key (the audit log's seal), hex.
/// Not named `*KEY*`/`*TOKEN*`: Codex drops such variables from the
/// commands it runs.
pub const SEAL_ENV: &str = "GUARD_SH_TRIAL_SEAL";

/// What a client takes out of its environment block once its request is
/// sent, so that the line's own commands, which it shares memory with
/// through `/proc`, cannot read them there.
pub const SECRETS: [&str; 2] = [SEAL_ENV, SERVER_ENV];

/// The first bytes of a request.
pub const MAGIC: [u8; 4] = *b"GSH1";

/// A request's fixed part ([`Header`]).
pub const HEADER_LEN: usize = 40;

/// The strings of a request are refused past this many bytes (the kernel's
/// own limit on arguments and environment together is 2 MiB by default).
pub const MAX_STRINGS: usize = 8 << 20;

/// Numbered descriptors a request may carry: 0 to 63.
pub const MAX_NUMBERED: usize = 64;

/// The namespaces a client proves it is in, in this order, after the
/// server's token (it opens `/proc/self/ns/NAME` for each).
pub const NAMESPACES: [&str; 10] = [
    "cgroup",
    "ipc",
    "mnt",
    "net",
    "pid",
    "pid_for_children",
    "time",
    "time_for_children",
    "user",
    "uts",
];

/// Descriptors that show the caller's confinement: the token, then one per
/// namespace.
pub const PROOF_FDS: usize = 1 + NAMESPACES.len();

/// Descriptors one request carries at most: the folder, the numbered ones
/// and the proof.
pub const MAX_FDS: usize = 1 + MAX_NUMBERED + PROOF_FDS;

/// The descriptor the server's marker holds its token at: a client opens
/// `/proc/MARKER/fd/TOKEN_FD`.
pub const TOKEN_FD: i32 = 3;

/// Why a request's header is not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderError {
    /// It does not start with [`MAGIC`].
    NotARequest,
    /// It says more numbers than [`MAX_NUMBERED`] or more strings than
    /// [`MAX_STRINGS`].
    TooLarge,
}

/// A request's fixed part: the client's process state and the counts of
/// what follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// The client's umask.
    pub umask: u32,
    /// Bit N-1: signal N was ignored.
    pub ignored: u64,
    /// Bit N-1: signal N was blocked.
    pub blocked: u64,
    /// How many descriptor numbers follow.
    pub descriptors: u32,
    /// How many of the strings are arguments (`argv[0]` first).
    pub arguments: u32,
    /// How many of the strings are variables.
    pub variables: u32,
    /// The strings' length in bytes, NULs included.
    pub strings_len: u32,
}

impl Header {
    /// The [`HEADER_LEN`] bytes on the wire: [`MAGIC`], the umask (u32),
    /// the ignored and the blocked signals (u64), then the four counts
    /// (u32).
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        out[..4].copy_from_slice(&MAGIC);
        out[4..8].copy_from_slice(&self.umask.to_le_bytes());
        out[8..16].copy_from_slice(&self.ignored.to_le_bytes());
        out[16..24].copy_from_slice(&self.blocked.to_le_bytes());
        let counts = [
            self.descriptors,
            self.arguments,
            self.variables,
            self.strings_len,
        ];
        for (i, count) in counts.iter().enumerate() {
            out[24 + 4 * i..28 + 4 * i].copy_from_slice(&count.to_le_bytes());
        }
        out
    }

    /// The header `bytes` hold, within the limits a server takes.
    pub fn decode(bytes: &[u8; HEADER_LEN]) -> Result<Header, HeaderError> {
        if bytes[..4] != MAGIC {
            return Err(HeaderError::NotARequest);
        }
        let u32_at = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let u64_at = |at: usize| u64::from(u32_at(at)) | (u64::from(u32_at(at + 4)) << 32);
        let header = Header {
            umask: u32_at(4),
            ignored: u64_at(8),
            blocked: u64_at(16),
            descriptors: u32_at(24),
            arguments: u32_at(28),
            variables: u32_at(32),
            strings_len: u32_at(36),
        };
        if header.descriptors as usize > MAX_NUMBERED || header.strings_len as usize > MAX_STRINGS {
            return Err(HeaderError::TooLarge);
        }
        Ok(header)
    }

    /// Bytes of the whole request: the header, the numbers and the
    /// strings.
    pub fn request_len(&self) -> usize {
        HEADER_LEN + 4 * self.descriptors as usize + self.strings_len as usize
    }
}

/// What the server says when a line ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// The line's process exited with this status.
    Exited(i32),
    /// A signal ended it.
    Killed(i32),
    /// Not served: the client runs guard-sh itself.
    Fallback,
}

impl Reply {
    /// The 8 bytes on the wire: a tag (`X`, `K`, `F`), three zeros and the
    /// value as an `i32`.
    pub fn encode(self) -> [u8; 8] {
        let (tag, value) = match self {
            Reply::Exited(code) => (b'X', code),
            Reply::Killed(signal) => (b'K', signal),
            Reply::Fallback => (b'F', 0),
        };
        let v = value.to_le_bytes();
        [tag, 0, 0, 0, v[0], v[1], v[2], v[3]]
    }

    /// The reply `bytes` hold; None for an unknown tag.
    pub fn decode(bytes: [u8; 8]) -> Option<Reply> {
        let value = i32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        match bytes[0] {
            b'X' => Some(Reply::Exited(value)),
            b'K' => Some(Reply::Killed(value)),
            b'F' => Some(Reply::Fallback),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_survives_its_encoding() {
        let header = Header {
            umask: 0o27,
            ignored: 1 << 1,
            blocked: 1 << 63,
            descriptors: 3,
            arguments: 2,
            variables: 5,
            strings_len: 70,
        };
        let bytes = header.encode();
        assert_eq!(&bytes[..4], b"GSH1");
        assert_eq!(Header::decode(&bytes), Ok(header));
        assert_eq!(header.request_len(), HEADER_LEN + 12 + 70);
    }

    #[test]
    fn a_header_past_the_limits_or_without_magic_is_refused() {
        let fine = Header {
            umask: 0,
            ignored: 0,
            blocked: 0,
            descriptors: MAX_NUMBERED as u32,
            arguments: 1,
            variables: 0,
            strings_len: MAX_STRINGS as u32,
        };
        assert!(Header::decode(&fine.encode()).is_ok());
        let more_numbers = Header {
            descriptors: fine.descriptors + 1,
            ..fine
        };
        let more_strings = Header {
            strings_len: fine.strings_len + 1,
            ..fine
        };
        for header in [more_numbers, more_strings] {
            assert_eq!(Header::decode(&header.encode()), Err(HeaderError::TooLarge));
        }
        let mut other = fine.encode();
        other[3] = b'2';
        assert_eq!(Header::decode(&other), Err(HeaderError::NotARequest));
    }

    #[test]
    fn every_reply_survives_its_encoding() {
        for reply in [
            Reply::Exited(0),
            Reply::Exited(255),
            Reply::Killed(9),
            Reply::Fallback,
        ] {
            assert_eq!(Reply::decode(reply.encode()), Some(reply));
        }
        assert_eq!(Reply::decode(*b"Y\0\0\0\0\0\0\0"), None);
    }
}
