//! The line server's wire, read (its layout is the `guard-sh-wire`
//! crate's, which the client writes with), and the socket calls the
//! server's processes share.
//!
//! A request (client → worker, [`decode_request`]) carries the client's
//! process state with its descriptors attached (`SCM_RIGHTS`); after it the
//! client sends a byte per signal it received. One reply ([`Reply`], 8
//! bytes) goes back to the client: the line's status, or `F` (run
//! guard-sh yourself).

use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStringExt;

pub use guard_sh_wire::Reply;
use nix::sys::socket::MsgFlags;

use crate::os::socket;
pub(super) use crate::os::socket::{peer_pid, send_all};
use guard_sh_wire::{HEADER_LEN, Header, HeaderError, MAX_FDS, MAX_STRINGS, PROOF_FDS};

/// One line's process state, as the client had it.
#[derive(Debug)]
pub struct Request {
    /// The client's arguments, `argv[0]` first.
    pub argv: Vec<OsString>,
    /// The client's environment.
    pub env: Vec<(OsString, OsString)>,
    /// Its umask.
    pub umask: u32,
    /// Bit N-1: signal N was ignored.
    pub ignored: u64,
    /// Bit N-1: signal N was blocked.
    pub blocked: u64,
    /// Its working folder.
    pub cwd: OwnedFd,
    /// Its open descriptors, each with its number there.
    pub fds: Vec<(RawFd, OwnedFd)>,
    /// What shows how it is confined: the token it opened and its
    /// namespaces ([`super::caller::Confinement::admits`]).
    pub proof: Vec<OwnedFd>,
}

/// Read a request ([`guard_sh_wire`] says its layout). `fds` are the
/// descriptors that came with it: the folder, one per number, then the
/// [`PROOF_FDS`] of the caller's confinement. `None`: incomplete so far;
/// `Err`: malformed.
pub fn decode_request(bytes: &[u8], fds: &mut Vec<OwnedFd>) -> Result<Option<Request>, String> {
    let Some(header) = bytes.first_chunk::<HEADER_LEN>() else {
        return Ok(None);
    };
    let header = Header::decode(header).map_err(|e| match e {
        HeaderError::NotARequest => "not a guard-sh request",
        HeaderError::TooLarge => "request too large",
    })?;
    let Header {
        umask,
        ignored,
        blocked,
        ..
    } = header;
    let count = |n: u32| usize::try_from(n).unwrap_or(usize::MAX);
    let (nfds, argc, envc) = (
        count(header.descriptors),
        count(header.arguments),
        count(header.variables),
    );
    let total = header.request_len();
    if bytes.len() < total {
        return Ok(None);
    }
    if bytes.len() > total {
        return Err("bytes after the request".into());
    }
    if fds.len() != nfds + 1 + PROOF_FDS {
        return Err(format!(
            "{} descriptors for {} numbers, the folder and the proof",
            fds.len(),
            nfds
        ));
    }
    let numbers: Vec<RawFd> = bytes[HEADER_LEN..HEADER_LEN + 4 * nfds]
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if numbers.iter().any(|&n| !(0..64).contains(&n)) {
        return Err("a descriptor number out of 0..64".into());
    }
    let strings = &bytes[HEADER_LEN + 4 * nfds..];
    if strings.last().is_some_and(|&b| b != 0) {
        return Err("a string without its NUL".into());
    }
    let mut parts = strings.split(|&b| b == 0);
    let mut take = || parts.next().map(<[u8]>::to_vec);
    let mut argv = Vec::with_capacity(argc);
    for _ in 0..argc {
        argv.push(OsString::from_vec(
            take().ok_or("fewer arguments than said")?,
        ));
    }
    let mut env = Vec::with_capacity(envc);
    for _ in 0..envc {
        let var = take().ok_or("fewer variables than said")?;
        // A string without `=` is not a variable; the kernel passes it,
        // the C library ignores it, and so does guard-sh.
        if let Some(eq) = var.iter().position(|&b| b == b'=') {
            env.push((
                OsString::from_vec(var[..eq].to_vec()),
                OsString::from_vec(var[eq + 1..].to_vec()),
            ));
        }
    }
    if argc + envc != strings.split(|&b| b == 0).count().saturating_sub(1) {
        return Err("more strings than said".into());
    }
    let mut received = std::mem::take(fds).into_iter();
    let cwd = received.next().ok_or("no folder")?;
    let numbered: Vec<OwnedFd> = received.by_ref().take(nfds).collect();
    let proof: Vec<OwnedFd> = received.collect();
    Ok(Some(Request {
        argv,
        env,
        umask,
        ignored,
        blocked,
        cwd,
        fds: numbers.into_iter().zip(numbered).collect(),
        proof,
    }))
}

/// `fd` moved to a number at [`PRIVATE_FD_FLOOR`] or above, out of the
/// range the workers place their clients' descriptors in and out of a
/// line's reach. Not remembered in [`crate::os::private_fd`]'s set: the
/// server would remember every descriptor of every request, and each
/// worker would inherit the list.
///
/// [`PRIVATE_FD_FLOOR`]: crate::os::private_fd::PRIVATE_FD_FLOOR
pub(super) fn high(fd: OwnedFd) -> io::Result<OwnedFd> {
    crate::os::duplicate_at_least(fd.as_raw_fd(), crate::os::private_fd::PRIVATE_FD_FLOOR)
}

pub(super) fn pollin(fd: RawFd) -> libc::pollfd {
    libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    }
}

/// Read what the peer sent so far, up to `limit` bytes in all; its
/// descriptors moved to private numbers. False: its end closed.
pub(super) fn receive(
    conn: &OwnedFd,
    limit: usize,
    bytes: &mut Vec<u8>,
    fds: &mut Vec<OwnedFd>,
) -> io::Result<bool> {
    while bytes.len() < limit {
        let mut buf = [0u8; 16384];
        let room = buf.len().min(limit - bytes.len());
        let before = fds.len();
        let n = match socket::receive_with_descriptors(
            conn,
            &mut buf[..room],
            MsgFlags::MSG_DONTWAIT,
            MAX_FDS,
            fds,
        ) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(true),
            Err(e) => return Err(e),
        };
        let received: Vec<OwnedFd> = fds.drain(before..).collect();
        for fd in received {
            fds.push(high(fd)?);
        }
        if n == 0 {
            return Ok(false);
        }
        bytes.extend_from_slice(&buf[..n]);
        if bytes.len() > MAX_STRINGS + HEADER_LEN + 4 * MAX_FDS {
            return Err(io::Error::other("request too large"));
        }
    }
    Ok(true)
}

/// How long the request whose first bytes are `bytes` is: [`HEADER_LEN`]
/// until its header is in, then the whole (a header past the limits, or
/// none, is taken as complete, to be refused by [`decode_request`]; so a
/// lying header cannot make anyone wait for more than a request may hold).
pub(super) fn request_len(bytes: &[u8]) -> usize {
    match bytes.first_chunk::<HEADER_LEN>().map(Header::decode) {
        None => HEADER_LEN,
        Some(Ok(header)) => header.request_len(),
        Some(Err(_)) => bytes.len(),
    }
}

/// A connected pair of stream sockets at private numbers: the server's
/// end and an idle worker's.
pub(super) fn stream_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let (a, b) = socket::stream_pair()?;
    Ok((high(a)?, high(b)?))
}

/// Send `bytes` with the descriptors `fds` attached to the first of them.
pub(super) fn send_with_descriptors(conn: &OwnedFd, bytes: &[u8], fds: &[RawFd]) -> io::Result<()> {
    let first = bytes.len().min(65536);
    let sent = socket::send_with_descriptors(conn, &bytes[..first], fds)?;
    socket::send_all(conn, &bytes[sent..])
}

/// A pidfd of process `pid`, at a high descriptor number; None when the
/// kernel refuses it.
pub fn pidfd_open(pid: libc::pid_t) -> Option<OwnedFd> {
    high(socket::pidfd_open(pid)?).ok()
}

/// The worker's end, once its pidfd says it ended.
pub(super) fn reap(worker: libc::pid_t) -> Option<Reply> {
    let mut status = 0;
    // SAFETY: waitpid(2) of our own child with a valid status pointer.
    if unsafe { libc::waitpid(worker, &mut status, 0) } != worker {
        return None;
    }
    if libc::WIFSIGNALED(status) {
        Some(Reply::Killed(libc::WTERMSIG(status)))
    } else {
        Some(Reply::Exited(libc::WEXITSTATUS(status)))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, clippy::panic)] // test code reports failures by panicking
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    /// A request's bytes as the client writes them.
    fn encode_request(
        argv: &[&[u8]],
        env: &[&[u8]],
        umask: u32,
        ignored: u64,
        blocked: u64,
        numbers: &[RawFd],
    ) -> Vec<u8> {
        let strings: Vec<u8> = argv
            .iter()
            .chain(env)
            .flat_map(|s| s.iter().copied().chain([0]))
            .collect();
        let len = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let header = Header {
            umask,
            ignored,
            blocked,
            descriptors: len(numbers.len()),
            arguments: len(argv.len()),
            variables: len(env.len()),
            strings_len: len(strings.len()),
        };
        let mut out = header.encode().to_vec();
        for n in numbers {
            out.extend(n.to_le_bytes());
        }
        out.extend(strings);
        out
    }

    fn descriptors(n: usize) -> Vec<OwnedFd> {
        (0..n)
            .map(|_| {
                std::fs::File::open("/dev/null")
                    .expect("open /dev/null")
                    .into()
            })
            .collect()
    }

    #[test]
    fn a_request_survives_its_encoding() {
        let bytes = encode_request(
            &[b"sh", b"-c", b"echo hi"],
            &[b"A=1", b"B=x=y", b"junk"],
            0o27,
            1 << 1,
            1 << 14,
            &[0, 1, 63],
        );
        let mut fds = descriptors(4 + PROOF_FDS);
        let request = decode_request(&bytes, &mut fds)
            .expect("well formed")
            .expect("complete");
        assert!(fds.is_empty(), "the descriptors went into the request");
        let argv: Vec<&[u8]> = request.argv.iter().map(|a| a.as_bytes()).collect();
        assert_eq!(argv, [&b"sh"[..], b"-c", b"echo hi"]);
        // A string without `=` is no variable; a value may hold `=`.
        let env: Vec<(&[u8], &[u8])> = (request.env.iter())
            .map(|(k, v)| (k.as_bytes(), v.as_bytes()))
            .collect();
        assert_eq!(env, [(&b"A"[..], &b"1"[..]), (b"B", b"x=y")]);
        assert_eq!(
            (request.umask, request.ignored, request.blocked),
            (0o27, 2, 1 << 14)
        );
        let numbers: Vec<RawFd> = request.fds.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, [0, 1, 63]);
        assert_eq!(request.proof.len(), PROOF_FDS);
        assert_eq!(request_len(&bytes), bytes.len());
    }

    #[test]
    fn a_partial_or_malformed_request_is_not_taken() {
        let bytes = encode_request(&[b"sh"], &[], 0, 0, 0, &[2]);
        for cut in [0, HEADER_LEN - 1, HEADER_LEN, bytes.len() - 1] {
            let mut fds = descriptors(2 + PROOF_FDS);
            assert!(
                matches!(decode_request(&bytes[..cut], &mut fds), Ok(None)),
                "cut at {cut}"
            );
        }
        let mut wrong_magic = bytes.clone();
        wrong_magic[0] = b'X';
        let mut extra = bytes.clone();
        extra.push(1);
        let out_of_range = encode_request(&[b"sh"], &[], 0, 0, 0, &[64]);
        let too_few_strings = {
            let mut b = encode_request(&[b"sh", b"x"], &[], 0, 0, 0, &[2]);
            b[28] = 3; // three arguments said, two given
            b
        };
        // Each with the descriptors sent: the folder, one number, the proof.
        let whole = 2 + PROOF_FDS;
        for (what, bytes, fds) in [
            ("magic", &wrong_magic, whole),
            ("trailing bytes", &extra, whole),
            ("a descriptor missing", &bytes, whole - 1),
            ("no proof", &bytes, 2),
            ("a number past 63", &out_of_range, whole),
            ("fewer strings than said", &too_few_strings, whole),
        ] {
            let mut fds = descriptors(fds);
            assert!(decode_request(bytes, &mut fds).is_err(), "{what}");
        }
    }
}
