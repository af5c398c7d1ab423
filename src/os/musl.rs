//! What a build on musl replaces of that C library, and why.
//!
//! guard-sh is built on musl because a program linked with glibc asks the
//! CPU about itself some seventy times before `main` (glibc's cache
//! descriptors), and each `cpuid` traps to the hypervisor of a virtual
//! machine: about 0.5 ms of every `guard-sh -c` line there, more than the
//! rest of guard-sh's own start. musl's start asks nothing. Two of musl's
//! parts are slow for a program that allocates and copies as Rust does,
//! and are replaced here:
//!
//! - **The allocator.** musl's (mallocng) maps and unmaps pages for
//!   small blocks (80 `mmap`/`munmap` calls for one line), and the
//!   `dlmalloc` crate's global instance takes a pthread mutex per call,
//!   which cost a quarter of `--explain`'s time. Here it is dlmalloc
//!   behind a spin lock of its own (`Allocator`).
//! - **`memcpy` and `memmove`.** musl's copy bytes one at a time around
//!   `rep movsq`, which made them a third of `--explain`'s time. These use
//!   `rep movsb`, which CPUs with fast strings (ERMS, every x86-64 of the
//!   last decade) run at full speed for any length: the choice glibc makes
//!   on them. Both are defined because musl's `memmove` calls into its
//!   `memcpy`'s file, which would then be linked twice.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering};

/// Every allocation of a build on musl.
#[global_allocator]
static ALLOCATOR: Allocator = Allocator::new();

/// dlmalloc, one caller at a time. A caller that finds the lock held spins,
/// then yields its core: allocations are short, and threads are few (the
/// launcher's watcher; the shell has none).
struct Allocator {
    held: AtomicBool,
    heap: UnsafeCell<dlmalloc::Dlmalloc>,
}

// SAFETY: `heap` is only reached through `with`, which holds `held`.
unsafe impl Sync for Allocator {}

impl Allocator {
    /// An allocator whose heap is still empty.
    const fn new() -> Self {
        Allocator {
            held: AtomicBool::new(false),
            heap: UnsafeCell::new(dlmalloc::Dlmalloc::new()),
        }
    }

    /// Run `f` on the heap with the lock held.
    fn with<T>(&self, f: impl FnOnce(&mut dlmalloc::Dlmalloc) -> T) -> T {
        hold_across_forks();
        self.lock();
        // SAFETY: the lock is held, so no other reference to the heap lives.
        let out = f(unsafe { &mut *self.heap.get() });
        self.unlock();
        out
    }

    fn lock(&self) {
        let mut spins = 0u32;
        while self
            .held
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            spins += 1;
            if spins % 64 == 0 {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    }

    fn unlock(&self) {
        self.held.store(false, Ordering::Release);
    }
}

/// Make `fork` take the allocator's lock first and both processes free it
/// after, as glibc's allocator does: a child forked while another thread
/// allocates would otherwise find the lock held by a thread it does not
/// have, and wait for ever at its first allocation. Registered at the
/// first allocation, before the lock is taken (registering allocates).
fn hold_across_forks() {
    static REGISTERED: AtomicBool = AtomicBool::new(false);
    // A plain load first: a swap at every allocation would lock the bus.
    if REGISTERED.load(Ordering::Relaxed) || REGISTERED.swap(true, Ordering::AcqRel) {
        return;
    }
    extern "C" fn before() {
        ALLOCATOR.lock();
    }
    extern "C" fn after() {
        ALLOCATOR.unlock();
    }
    // SAFETY: registers three plain functions; the lock is not held here.
    unsafe { libc::pthread_atfork(Some(before), Some(after), Some(after)) };
}

// SAFETY: each call passes the caller's layout on to dlmalloc, whose
// functions have the same contract as GlobalAlloc's.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's promise about `layout`.
        self.with(|heap| unsafe { heap.malloc(layout.size(), layout.align()) })
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's promise: `ptr` came from this allocator with `layout`.
        self.with(|heap| unsafe { heap.free(ptr, layout.size(), layout.align()) })
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's promise about `layout`.
        self.with(|heap| unsafe { heap.calloc(layout.size(), layout.align()) })
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's promise: `ptr` came from this allocator with
        // `layout`, and `new_size` is valid for its alignment.
        self.with(|heap| unsafe { heap.realloc(ptr, layout.size(), layout.align(), new_size) })
    }
}

/// C's `memcpy`: `n` bytes from `src` to `dest`, which do not overlap.
#[cfg(target_arch = "x86_64")]
///
/// # Safety
/// `src` is readable and `dest` writable for `n` bytes, and they do not
/// overlap.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcpy(dest: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the caller's promise; the direction flag is clear (the ABI
    // guarantees it at every call).
    unsafe {
        std::arch::asm!(
            "rep movsb",
            inout("rcx") n => _,
            inout("rdi") dest => _,
            inout("rsi") src => _,
            options(nostack, preserves_flags)
        );
    }
    dest
}

/// C's `memmove`: `n` bytes from `src` to `dest`, which may overlap.
#[cfg(target_arch = "x86_64")]
/// Forwards unless `dest` starts inside the source; then backwards, from
/// the last byte (the direction flag set only for that copy).
///
/// # Safety
/// `src` is readable and `dest` writable for `n` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memmove(dest: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    if (dest as usize).wrapping_sub(src as usize) >= n {
        // SAFETY: `dest` does not start inside the source, so a forward
        // copy reads each byte before it is written over.
        return unsafe { memcpy(dest, src, n) };
    }
    // SAFETY: 0 < dest - src < n, so n > 0 and both last bytes are in
    // their ranges; a backward copy reads each byte before it is written
    // over. The direction flag is put back before returning, as the ABI
    // requires.
    unsafe {
        std::arch::asm!(
            "std",
            "rep movsb",
            "cld",
            inout("rcx") n => _,
            inout("rdi") dest.add(n - 1) => _,
            inout("rsi") src.add(n - 1) => _,
            options(nostack)
        );
    }
    dest
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[cfg(target_arch = "x86_64")]
    proptest! {
        /// memmove copies as a copy through a separate buffer would, for
        /// every overlap in both directions, and memcpy when apart.
        #[test]
        fn memmove_and_memcpy_copy_as_through_a_buffer(
            data in proptest::collection::vec(any::<u8>(), 0..300),
            from in 0usize..300,
            to in 0usize..300,
            len in 0usize..300,
        ) {
            let mut buf = data.clone();
            let size = buf.len();
            let (from, to) = (from.min(size), to.min(size));
            let len = len.min(size - from).min(size - to);
            let mut expected = data.clone();
            let copied: Vec<u8> = data[from..from + len].to_vec();
            expected[to..to + len].copy_from_slice(&copied);
            // SAFETY: both ranges are inside `buf`.
            unsafe { memmove(buf.as_mut_ptr().add(to), buf.as_ptr().add(from), len) };
            prop_assert_eq!(&buf, &expected);

            let mut apart = vec![0u8; len];
            // SAFETY: separate buffers of `len` bytes.
            unsafe { memcpy(apart.as_mut_ptr(), data.as_ptr().add(from), len) };
            prop_assert_eq!(&apart[..], &data[from..from + len]);
        }
    }

    #[test]
    fn the_allocator_keeps_blocks_apart_and_their_bytes() {
        let blocks: Vec<Vec<u8>> = (0..2000usize)
            .map(|i| vec![(i % 251) as u8; i % 700 + 1])
            .collect();
        for (i, block) in blocks.iter().enumerate() {
            assert!(block.iter().all(|&b| b == (i % 251) as u8), "block {i}");
        }
        let mut grown = Vec::new();
        for i in 0..100_000u32 {
            grown.push(i);
        }
        assert!(grown.iter().enumerate().all(|(i, &v)| v as usize == i));
    }

    /// A child forked while another thread allocates can allocate: without
    /// the fork handlers it would inherit the lock held and wait for ever
    /// (each child here gets 5 s, then is killed and the test fails).
    #[test]
    fn a_child_forked_while_another_thread_allocates_can_allocate() {
        use std::sync::atomic::AtomicBool;
        static STOP: AtomicBool = AtomicBool::new(false);
        let busy = std::thread::spawn(|| {
            let mut kept = Vec::new();
            while !STOP.load(Ordering::Relaxed) {
                kept.push(vec![1u8; 64]);
                if kept.len() > 1000 {
                    kept.clear();
                }
            }
        });
        for _ in 0..200 {
            // SAFETY: the child allocates (the point of the test) and ends
            // with _exit.
            let pid = unsafe { libc::fork() };
            if pid == 0 {
                let v = vec![7u8; 4096];
                // SAFETY: ending the child.
                unsafe { libc::_exit(i32::from(v[4095] != 7)) };
            }
            assert!(pid > 0);
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
            let mut status = 0;
            let mut reaped = false;
            while !reaped && std::time::Instant::now() < deadline {
                // SAFETY: polling our own child.
                reaped = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } == pid;
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            let stuck = !reaped;
            if stuck {
                // SAFETY: killing and reaping our own stuck child.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, &mut status, 0);
                }
                STOP.store(true, Ordering::Relaxed);
            }
            assert!(!stuck, "a forked child waited for the allocator's lock");
            assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
        }
        STOP.store(true, Ordering::Relaxed);
        busy.join().expect("test set-up");
    }
}
