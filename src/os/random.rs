//! Random bytes from the kernel (`getrandom(2)`): one system call where
//! reading `/dev/urandom` costs three, and no descriptor that could land in
//! the range a line's redirections use.

use std::io;

/// Fill `buf` from the kernel's urandom source. No flags: it blocks only
/// until the pool is first seeded at boot (`GRND_INSECURE` would need
/// Linux 5.6).
pub fn fill(buf: &mut [u8]) -> io::Result<()> {
    let mut filled = 0;
    while filled < buf.len() {
        let rest = &mut buf[filled..];
        // SAFETY: the kernel writes at most `rest.len()` bytes into `rest`.
        let n = unsafe { libc::getrandom(rest.as_mut_ptr().cast(), rest.len(), 0) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            return Err(io::Error::from(io::ErrorKind::UnexpectedEof));
        }
        filled += n as usize;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // test code reports failures by panicking
    use super::*;

    #[test]
    fn two_fills_differ_and_leave_no_zero_block() {
        let (mut a, mut b) = ([0u8; 32], [0u8; 32]);
        fill(&mut a).unwrap();
        fill(&mut b).unwrap();
        assert_ne!(a, b);
        assert_ne!(a, [0u8; 32]);
    }
}
