//! How much of the calling thread's stack is left, so that deep recursion
//! through functions and nested groups ends with an error instead of a
//! crash.
//!
//! Why not ask the C library: `pthread_getattr_np` on the main thread reads
//! `/proc/self/maps` in glibc, and in musl reports only the part of the
//! stack mapped so far (a few pages at start), which would refuse the first
//! command. The main thread's stack is a mapping the kernel grows on demand
//! down from the top, where it put the program's arguments, to at most
//! `RLIMIT_STACK` bytes; both ends are known without a system call but one
//! `getrlimit`.

use std::cell::OnceCell;

/// The size assumed when `RLIMIT_STACK` is unlimited: the kernel then
/// grows the stack until it meets another mapping, which is nowhere known;
/// the usual default is the safe guess.
const UNLIMITED_STACK_BYTES: usize = 8 * 1024 * 1024;

thread_local! {
    /// The lowest address the calling thread's stack may reach; `None`
    /// when it cannot be known (then nothing is refused).
    static LIMIT: OnceCell<Option<usize>> = const { OnceCell::new() };
}

/// Bytes between the caller's frame and the end of its thread's stack;
/// `None` when the end is unknown.
pub fn remaining() -> Option<usize> {
    let marker = 0u8;
    let here = std::hint::black_box(&marker) as *const u8 as usize;
    let limit = LIMIT.with(|cell| *cell.get_or_init(thread_limit))?;
    Some(here.saturating_sub(limit))
}

fn thread_limit() -> Option<usize> {
    // SAFETY: system calls without arguments.
    let main_thread = unsafe { libc::gettid() == libc::getpid() };
    if main_thread {
        main_thread_limit()
    } else {
        spawned_thread_limit()
    }
}

/// The top of the main thread's stack is just above the program's file
/// name (`AT_EXECFN`), the first string `execve` copies there (followed
/// only by a null pointer); the stack may grow `RLIMIT_STACK` bytes below
/// that top, arguments and environment included.
fn main_thread_limit() -> Option<usize> {
    // SAFETY: getauxval with a valid type; the kernel's string, which
    // lives as long as the process, is read up to its NUL.
    let top = unsafe {
        let name = libc::getauxval(libc::AT_EXECFN) as *const libc::c_char;
        if name.is_null() {
            return None;
        }
        name as usize + std::ffi::CStr::from_ptr(name).to_bytes_with_nul().len()
    };
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit fills `limit`.
    if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut limit) } != 0 {
        return None;
    }
    let size = if limit.rlim_cur == libc::RLIM_INFINITY {
        UNLIMITED_STACK_BYTES
    } else {
        usize::try_from(limit.rlim_cur).unwrap_or(UNLIMITED_STACK_BYTES)
    };
    Some(top.saturating_sub(size))
}

/// A thread the program started has a fixed stack, which the C library
/// knows exactly.
fn spawned_thread_limit() -> Option<usize> {
    // SAFETY: the attribute object is initialised by pthread_getattr_np
    // before it is read, and destroyed once.
    unsafe {
        let mut attr = std::mem::MaybeUninit::<libc::pthread_attr_t>::uninit();
        if libc::pthread_getattr_np(libc::pthread_self(), attr.as_mut_ptr()) != 0 {
            return None;
        }
        let mut low = std::ptr::null_mut();
        let mut size = 0;
        let got = libc::pthread_attr_getstack(attr.as_ptr(), &mut low, &mut size);
        libc::pthread_attr_destroy(attr.as_mut_ptr());
        (got == 0).then_some(low as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recurse until `remaining` says less than `reserve` is left; the
    /// depth reached, which is only finite if the figure shrinks.
    fn depth_until(reserve: usize, depth: usize) -> usize {
        let frame = [0u8; 4096];
        std::hint::black_box(&frame);
        match remaining() {
            Some(left) if left > reserve => depth_until(reserve, depth + 1),
            _ => depth,
        }
    }

    #[test]
    fn a_test_thread_knows_its_stack_and_it_shrinks_with_depth() {
        let handle = std::thread::Builder::new()
            .stack_size(1024 * 1024)
            .spawn(|| {
                // At least what was asked for: the C library may hand a
                // thread a larger stack it kept from an earlier one.
                let start = remaining().expect("a spawned thread's stack is known");
                assert!(start > 900 * 1024, "{start} bytes left at the start");
                // 4 KiB frames down to 256 KiB: it stops (no overflow),
                // after about one frame per 4 KiB of what was left.
                (start, depth_until(256 * 1024, 0))
            })
            .expect("spawn");
        let (start, depth) = handle.join().expect("no overflow");
        let frames = (start - 256 * 1024) / 4096;
        assert!(
            depth >= frames / 2 && depth <= frames + 8,
            "depth {depth} for {start} bytes"
        );
    }
}
