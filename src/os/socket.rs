//! Unix sockets and the descriptors they carry (`SCM_RIGHTS`): what the
//! line server and the exec supervisor pass between their processes.
//!
//! On `nix`, but for two calls that must not allocate or must not write
//! their buffer first: [`put_descriptor`] runs in a spawned child before
//! its exec, and [`receive_one_descriptor`] reads into memory left
//! unwritten (zeroing it would fault in every page of it per command).

use std::io::{self, IoSlice, IoSliceMut};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};

use nix::errno::Errno;
use nix::sys::socket::{
    AddressFamily, ControlMessage, ControlMessageOwned, MsgFlags, SockFlag, SockType, UnixAddr,
    getsockopt, recvmsg, sendmsg, socketpair, sockopt,
};

use super::Fd;

/// A connected pair of unix stream sockets, close-on-exec.
pub fn stream_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    pair(SockType::Stream)
}

/// A connected pair of unix `SOCK_SEQPACKET` sockets, close-on-exec: one
/// message a send, descriptors travelling with it.
pub fn seqpacket_pair() -> io::Result<(Fd, Fd)> {
    let (a, b) = pair(SockType::SeqPacket)?;
    Ok((a.into_raw_fd(), b.into_raw_fd()))
}

fn pair(kind: SockType) -> io::Result<(OwnedFd, OwnedFd)> {
    Ok(socketpair(
        AddressFamily::Unix,
        kind,
        None,
        SockFlag::SOCK_CLOEXEC,
    )?)
}

/// Send `bytes` with the descriptors `fds` attached, never raising
/// SIGPIPE; how many bytes went (a stream socket may take fewer).
pub fn send_with_descriptors(socket: impl AsFd, bytes: &[u8], fds: &[RawFd]) -> io::Result<usize> {
    let iov = [IoSlice::new(bytes)];
    let rights = [ControlMessage::ScmRights(fds)];
    loop {
        match sendmsg::<UnixAddr>(
            socket.as_fd().as_raw_fd(),
            &iov,
            &rights,
            MsgFlags::MSG_NOSIGNAL,
            None,
        ) {
            Err(Errno::EINTR) => continue,
            sent => return Ok(sent?),
        }
    }
}

/// Write all of `bytes` to a stream socket, never raising SIGPIPE (a peer
/// that is gone must not end the sender); a socket that stays full for a
/// second is given up on.
pub fn send_all(socket: impl AsFd, mut bytes: &[u8]) -> io::Result<()> {
    let socket = socket.as_fd();
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use nix::sys::socket::send;
    while !bytes.is_empty() {
        match send(socket.as_raw_fd(), bytes, MsgFlags::MSG_NOSIGNAL) {
            Ok(n) => bytes = &bytes[n..],
            Err(Errno::EINTR) => {}
            Err(Errno::EAGAIN) => {
                let mut writable = [PollFd::new(socket, PollFlags::POLLOUT)];
                if poll(&mut writable, PollTimeout::from(1000u16))? == 0 {
                    return Err(io::Error::from(io::ErrorKind::TimedOut));
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Receive into `buf`, the descriptors that came with it appended to
/// `fds` (close-on-exec), at most `max_fds` of them: more is an error.
/// `Ok(0)`: the peer closed its end.
pub fn receive_with_descriptors(
    socket: impl AsFd,
    buf: &mut [u8],
    flags: MsgFlags,
    max_fds: usize,
    fds: &mut Vec<OwnedFd>,
) -> io::Result<usize> {
    let mut iov = [IoSliceMut::new(buf)];
    let payload = u32::try_from(max_fds * std::mem::size_of::<RawFd>()).unwrap_or(u32::MAX);
    // SAFETY: CMSG_SPACE only computes a size.
    let mut control = vec![0u8; unsafe { libc::CMSG_SPACE(payload) } as usize];
    let message = loop {
        match recvmsg::<()>(
            socket.as_fd().as_raw_fd(),
            &mut iov,
            Some(&mut control),
            flags | MsgFlags::MSG_CMSG_CLOEXEC,
        ) {
            Err(Errno::EINTR) => continue,
            message => break message?,
        }
    };
    // A message whose descriptors did not all fit is an error (the kernel
    // closed those that did not fit; `nix` will not read a cut control
    // buffer, so those that did stay open until the caller, which gives
    // up on its peer, ends).
    let cmsgs = message
        .cmsgs()
        .map_err(|_| io::Error::other("too many descriptors"))?;
    for cmsg in cmsgs {
        if let ControlMessageOwned::ScmRights(received) = cmsg {
            for fd in received {
                // SAFETY: the kernel just installed `fd` for this process;
                // nothing else owns it.
                fds.push(unsafe { OwnedFd::from_raw_fd(fd) });
            }
        }
    }
    if fds.len() > max_fds {
        return Err(io::Error::other("too many descriptors"));
    }
    Ok(message.bytes)
}

/// What [`receive_one_descriptor`] got.
#[derive(Debug, PartialEq, Eq)]
pub enum Received {
    /// The peer closed its end.
    Closed,
    /// A message, and the descriptor that came with it, if one did.
    Message(Option<Fd>),
}

/// Receive one message into the unwritten capacity of `buf` (its length
/// set to what came) with at most one descriptor.
pub fn receive_one_descriptor(socket: Fd, buf: &mut Vec<u8>) -> io::Result<Received> {
    buf.clear();
    let mut control = [0u64; 4];
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.capacity(),
    };
    // SAFETY: a zeroed msghdr pointing at live locals and at `buf`'s
    // capacity; the received descriptor is read out of the control buffer
    // as the kernel wrote it.
    let (n, fd) = unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = std::mem::size_of_val(&control) as _;
        let n = libc::recvmsg(socket, &mut msg, libc::MSG_CMSG_CLOEXEC);
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        let fd = if n > 0
            && !cmsg.is_null()
            && (*cmsg).cmsg_level == libc::SOL_SOCKET
            && (*cmsg).cmsg_type == libc::SCM_RIGHTS
        {
            let mut fd: libc::c_int = -1;
            std::ptr::copy_nonoverlapping(
                libc::CMSG_DATA(cmsg),
                (&mut fd as *mut libc::c_int).cast::<u8>(),
                std::mem::size_of::<libc::c_int>(),
            );
            fd
        } else {
            -1
        };
        (n, fd)
    };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    if n == 0 {
        return Ok(Received::Closed);
    }
    // SAFETY: recvmsg wrote `n` bytes (at most the capacity) at the start
    // of `buf`.
    unsafe { buf.set_len(n as usize) };
    Ok(Received::Message((fd >= 0).then_some(fd)))
}

/// Put descriptor `fd` into `msg`'s control buffer as its one
/// `SCM_RIGHTS` message; false if the buffer has no room. Only stack
/// memory and no call: safe in a spawned child before its exec.
///
/// # Safety
/// `msg.msg_control` points at `msg.msg_controllen` writable bytes,
/// aligned for `cmsghdr`.
pub unsafe fn put_descriptor(msg: &libc::msghdr, fd: Fd) -> bool {
    // SAFETY: the caller's buffer; CMSG_FIRSTHDR checks it holds a header.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(msg);
        if cmsg.is_null() {
            return false;
        }
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<libc::c_int>() as u32) as _;
        std::ptr::copy_nonoverlapping(
            (&fd as *const libc::c_int).cast::<u8>(),
            libc::CMSG_DATA(cmsg),
            std::mem::size_of::<libc::c_int>(),
        );
    }
    true
}

/// The pid of the process at the other end of `socket`, as the kernel saw
/// it connect.
pub fn peer_pid(socket: &impl AsFd) -> Option<u32> {
    let cred = getsockopt(socket, sockopt::PeerCredentials).ok()?;
    u32::try_from(cred.pid()).ok().filter(|&pid| pid > 0)
}

/// A pidfd of process `pid`, close-on-exec; None when the kernel refuses
/// it.
pub fn pidfd_open(pid: libc::pid_t) -> Option<OwnedFd> {
    // SAFETY: pidfd_open(2) with integer arguments.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let fd = RawFd::try_from(fd).ok().filter(|&fd| fd >= 0)?;
    // SAFETY: `fd` was just returned by pidfd_open and nothing else owns it.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, clippy::panic)] // test code reports failures by panicking
    use super::*;

    fn null() -> OwnedFd {
        std::fs::File::open("/dev/null")
            .expect("open /dev/null")
            .into()
    }

    #[test]
    fn descriptors_travel_with_their_bytes() {
        let (a, b) = stream_pair().expect("pair");
        let sent = [null(), null()];
        let raw: Vec<RawFd> = sent.iter().map(|fd| fd.as_raw_fd()).collect();
        let n = send_with_descriptors(&a, b"hello", &raw).expect("send");
        assert_eq!(n, 5);
        let (mut buf, mut fds) = ([0u8; 16], Vec::new());
        let got = receive_with_descriptors(&b, &mut buf, MsgFlags::empty(), 2, &mut fds)
            .expect("receive");
        assert_eq!(&buf[..got], b"hello");
        assert_eq!(fds.len(), 2);
        for fd in &fds {
            let link =
                std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())).expect("readlink");
            assert_eq!(link, std::path::Path::new("/dev/null"));
        }
        assert_eq!(peer_pid(&b), Some(std::process::id()));
    }

    #[test]
    fn more_descriptors_than_asked_for_are_an_error() {
        let (a, b) = stream_pair().expect("pair");
        let sent = [null(), null(), null()];
        let raw: Vec<RawFd> = sent.iter().map(|fd| fd.as_raw_fd()).collect();
        send_with_descriptors(&a, b"x", &raw).expect("send");
        let (mut buf, mut fds) = ([0u8; 4], Vec::new());
        assert!(receive_with_descriptors(&b, &mut buf, MsgFlags::empty(), 2, &mut fds).is_err());
    }

    #[test]
    fn one_message_and_its_descriptor_come_whole_or_not_at_all() {
        let (a, b) = seqpacket_pair().expect("pair");
        // SAFETY: both were just made and are owned here alone.
        let (a, b) = unsafe { (OwnedFd::from_raw_fd(a), OwnedFd::from_raw_fd(b)) };
        let file = null();
        send_with_descriptors(&a, b"plan", &[file.as_raw_fd()]).expect("send");
        let mut buf = Vec::with_capacity(64);
        let Received::Message(Some(fd)) =
            receive_one_descriptor(b.as_raw_fd(), &mut buf).expect("receive")
        else {
            panic!("no message with a descriptor");
        };
        // SAFETY: received just now; owned here alone.
        drop(unsafe { OwnedFd::from_raw_fd(fd) });
        assert_eq!(buf, b"plan");
        drop(a);
        assert_eq!(
            receive_one_descriptor(b.as_raw_fd(), &mut buf).expect("receive"),
            Received::Closed
        );
    }
}
