//! `guard-sh-client`: hands its line to the trial's `guard-sh --serve`
//! (see `guard_sh::cli::serve`) and ends as the line ends; or, when no
//! server is named or the server does not serve this call, becomes the
//! `guard-sh` beside it (`execve`, same arguments and environment).
//!
//! It starts without a C library (on x86-64 Linux): glibc's start-up asks
//! the CPU for its features some seventy times, each a trap under a
//! hypervisor, and costs more than this whole program. Every step is a
//! system call; nothing is allocated but one mapping for the request.
//! Elsewhere it is a plain program that runs `guard-sh`.
//!
//! What it passes: its arguments, environment, working folder, umask,
//! ignored and blocked signals and open descriptors 0–63 (not those it
//! opened itself, close-on-exec). What it never does: send anything to a
//! process other than the server [`SERVER_ENV`] names (the pid the kernel
//! gives for the listener must be the server's, and that process must have
//! started when the server did: a process that took the name after the
//! server ended learns no line, even under a reused pid). Signals it
//! receives (HUP, INT, QUIT, USR1, USR2, ALRM, TERM) are passed to the
//! line's process group; it exits with the line's status, or is ended by
//! the line's signal. Once its request is sent, the trial's key and the
//! server's address leave its environment block (put back only if the
//! server sends the line back, for the guard-sh it then becomes).
//! Statuses of its own: 126 the server ended before the line's reply, 127
//! `guard-sh` cannot be run.

#![cfg_attr(all(target_arch = "x86_64", target_os = "linux"), no_std, no_main)]

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
fn main() {
    use std::os::unix::process::CommandExt;
    let mut args = std::env::args_os();
    let arg0 = args.next().unwrap_or_default();
    let guard_sh = std::env::current_exe()
        .map(|exe| exe.with_file_name("guard-sh"))
        .unwrap_or_default();
    let error = std::process::Command::new(guard_sh)
        .arg0(arg0)
        .args(args)
        .exec();
    eprintln!("guard-sh-client: cannot run guard-sh: {error}");
    std::process::exit(127);
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
mod client {
    use core::arch::asm;
    #[cfg(target_env = "gnu")]
    use core::arch::global_asm;
    use guard_sh_wire::{
        HEADER_LEN, Header, MAX_FDS, NAMESPACES, PROOF_FDS, Reply, SECRETS, SERVER_ENV, TOKEN_FD,
    };

    // The kernel starts the program with the stack holding argc, the
    // argument pointers, NULL, the environment pointers, NULL.
    #[cfg(target_env = "gnu")]
    global_asm!(
        ".globl _start",
        "_start:",
        "xor ebp, ebp",
        "mov rdi, rsp",
        "and rsp, -16",
        "call {start}",
        "ud2",
        start = sym start,
    );

    // Built on musl, whose start asks the CPU nothing: its `_start` (which
    // rustc links in, with the C library: build.rs) calls this with the
    // kernel's argument pointers, one word above argc on the initial stack.
    /// # Safety
    /// Called once, by the C library's start, with the kernel's `argv`.
    #[cfg(not(target_env = "gnu"))]
    #[unsafe(no_mangle)]
    unsafe extern "C" fn main(_argc: i32, argv: *const *const u8) -> i32 {
        // SAFETY: musl passes the initial stack's own argv, after argc.
        unsafe { start(argv.cast::<usize>().sub(1)) }
    }

    const SYS_READ: usize = 0;
    const SYS_WRITE: usize = 1;
    const SYS_CLOSE: usize = 3;
    const SYS_POLL: usize = 7;
    const SYS_MMAP: usize = 9;
    const SYS_RT_SIGACTION: usize = 13;
    const SYS_RT_SIGPROCMASK: usize = 14;
    const SYS_IOCTL: usize = 16;
    const SYS_GETPID: usize = 39;
    const SYS_SOCKET: usize = 41;
    const SYS_CONNECT: usize = 42;
    /// sendto(2) without an address is send(2).
    const SYS_SENDTO: usize = 44;
    const SYS_SENDMSG: usize = 46;
    const SYS_GETSOCKOPT: usize = 55;
    const SYS_EXECVE: usize = 59;
    const SYS_KILL: usize = 62;
    const SYS_FCNTL: usize = 72;
    const SYS_READLINK: usize = 89;
    const SYS_UMASK: usize = 95;
    const SYS_PRCTL: usize = 157;
    const SYS_EXIT_GROUP: usize = 231;
    const SYS_OPENAT: usize = 257;
    const SYS_SIGNALFD4: usize = 289;

    const EINTR: isize = -4;
    const PR_SET_DUMPABLE: usize = 4;
    const AT_FDCWD: isize = -100;
    const O_PATH: usize = 0o10000000;
    const O_DIRECTORY: usize = 0o200000;
    const O_CLOEXEC: usize = 0o2000000;
    const AF_UNIX: usize = 1;
    const SOCK_STREAM: usize = 1;
    const F_GETFD: usize = 1;
    const FD_CLOEXEC: isize = 1;
    const TCGETS: usize = 0x5401;
    const SIG_BLOCK: usize = 0;
    const SIG_UNBLOCK: usize = 1;
    const SIG_SETMASK: usize = 2;
    const SIG_IGN: usize = 1;
    const POLLIN: i16 = 1;
    const POLLNVAL: i16 = 0x20;
    const SOL_SOCKET: i32 = 1;
    const SCM_RIGHTS: i32 = 1;
    const MSG_NOSIGNAL: usize = 0x4000;
    const SO_PEERCRED: usize = 17;

    /// Signals passed on to the line: what a harness or a terminal sends
    /// to end or wake a shell.
    const FORWARDED: [usize; 7] = [1, 2, 3, 10, 12, 14, 15];

    /// # Safety
    /// A raw system call: the caller passes what the kernel expects.
    unsafe fn syscall(n: usize, a: [usize; 6]) -> isize {
        let ret: isize;
        // SAFETY: the x86-64 Linux system call convention; the kernel
        // clobbers rcx and r11 only.
        unsafe {
            asm!(
                "syscall",
                inlateout("rax") n as isize => ret,
                in("rdi") a[0], in("rsi") a[1], in("rdx") a[2],
                in("r10") a[3], in("r8") a[4], in("r9") a[5],
                lateout("rcx") _, lateout("r11") _,
                options(nostack),
            );
        }
        ret
    }

    fn sys(n: usize, a: &[usize]) -> isize {
        let mut args = [0usize; 6];
        args[..a.len()].copy_from_slice(a);
        // SAFETY: each caller below passes valid pointers and lengths.
        unsafe { syscall(n, args) }
    }

    fn exit(code: usize) -> ! {
        loop {
            // exit_group(2) does not return; the loop tells the compiler.
            sys(SYS_EXIT_GROUP, &[code]);
        }
    }

    fn say(message: &[u8]) {
        sys(SYS_WRITE, &[2, b"guard-sh-client: ".as_ptr() as usize, 17]);
        sys(SYS_WRITE, &[2, message.as_ptr() as usize, message.len()]);
        sys(SYS_WRITE, &[2, b"\n".as_ptr() as usize, 1]);
    }

    /// # Safety
    /// `p` points at a NUL-terminated string.
    unsafe fn c_str<'a>(p: *const u8) -> &'a [u8] {
        let mut len = 0;
        // SAFETY: the caller's string ends in NUL.
        unsafe {
            while *p.add(len) != 0 {
                len += 1;
            }
            core::slice::from_raw_parts(p, len)
        }
    }

    /// The process's arguments and environment, as the kernel laid them out.
    struct Start {
        argv: *const *const u8,
        envp: *const *const u8,
        argc: usize,
    }

    impl Start {
        fn strings(&self, list: *const *const u8) -> impl Iterator<Item = &'static [u8]> {
            let mut at = 0;
            core::iter::from_fn(move || {
                // SAFETY: the kernel's NULL-terminated pointer array.
                let p = unsafe { *list.add(at) };
                if p.is_null() {
                    return None;
                }
                at += 1;
                // SAFETY: each entry is a NUL-terminated string.
                Some(unsafe { c_str(p) })
            })
        }

        fn var(&self, name: &[u8]) -> Option<&'static [u8]> {
            self.strings(self.envp).find_map(|var| {
                var.strip_prefix(name)
                    .and_then(|rest| rest.strip_prefix(b"="))
            })
        }
    }

    /// Run `guard-sh` from the folder this program's real file lies in,
    /// with the same arguments and environment.
    fn become_guard_sh(start: &Start) -> ! {
        let mut path = [0u8; 4096 + 16];
        let n = sys(
            SYS_READLINK,
            &[
                c"/proc/self/exe".as_ptr() as usize,
                path.as_mut_ptr() as usize,
                4096,
            ],
        );
        if n <= 0 {
            say(b"cannot find guard-sh: /proc/self/exe cannot be read");
            exit(127);
        }
        let n = n as usize;
        let slash = path[..n].iter().rposition(|&b| b == b'/').unwrap_or(0);
        let name = b"guard-sh\0";
        path[slash + 1..slash + 1 + name.len()].copy_from_slice(name);
        sys(
            SYS_EXECVE,
            &[
                path.as_ptr() as usize,
                start.argv as usize,
                start.envp as usize,
            ],
        );
        say(b"cannot run the guard-sh beside this program");
        exit(127);
    }

    fn read_exact(fd: usize, buf: &mut [u8]) -> bool {
        let mut got = 0;
        while got < buf.len() {
            let n = sys(
                SYS_READ,
                &[fd, buf[got..].as_mut_ptr() as usize, buf.len() - got],
            );
            if n == EINTR {
                continue;
            }
            if n <= 0 {
                return false;
            }
            got += n as usize;
        }
        true
    }

    fn write_all(fd: usize, mut bytes: &[u8]) -> bool {
        while !bytes.is_empty() {
            let n = sys(
                SYS_SENDTO,
                &[fd, bytes.as_ptr() as usize, bytes.len(), MSG_NOSIGNAL],
            );
            if n == EINTR {
                continue;
            }
            if n <= 0 {
                return false;
            }
            bytes = &bytes[n as usize..];
        }
        true
    }

    /// Connect to the abstract socket `name` and check that the process
    /// listening there is the server: the kernel says its pid
    /// (`SO_PEERCRED`), which must be `pid`, and that process must have
    /// started at `start` (field 22 of `/proc/PID/stat`), so a reused pid
    /// does not pass either. The socket, or None (nothing was sent).
    fn connect(name: &[u8], pid: &[u8], start: &[u8]) -> Option<usize> {
        let fd = sys(SYS_SOCKET, &[AF_UNIX, SOCK_STREAM | O_CLOEXEC, 0]);
        if fd < 0 {
            return None;
        }
        let fd = fd as usize;
        let mut address = [0u8; 110];
        address[0] = AF_UNIX as u8;
        let valid = !name.is_empty() && name.len() <= 107 && !pid.is_empty() && pid.len() <= 10;
        let ok = valid && {
            address[3..3 + name.len()].copy_from_slice(name);
            let len = 2 + 1 + name.len();
            // struct ucred: pid, uid, gid.
            let mut cred = [0i32; 3];
            let mut cred_len = 12u32;
            sys(SYS_CONNECT, &[fd, address.as_ptr() as usize, len]) == 0
                && sys(
                    SYS_GETSOCKOPT,
                    &[
                        fd,
                        SOL_SOCKET as usize,
                        SO_PEERCRED,
                        cred.as_mut_ptr() as usize,
                        &mut cred_len as *mut u32 as usize,
                    ],
                ) == 0
                && decimal(pid) == Some(cred[0] as u64)
                && started_at(pid).is_some()
                && started_at(pid) == decimal(start)
        };
        if !ok {
            sys(SYS_CLOSE, &[fd]);
            return None;
        }
        Some(fd)
    }

    /// `digits` as a number; None if it is not one.
    fn decimal(digits: &[u8]) -> Option<u64> {
        if digits.is_empty() || digits.len() > 19 || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        Some(digits.iter().fold(0, |n, d| n * 10 + u64::from(d - b'0')))
    }

    /// When the process `pid` (decimal, at most 10 digits) started: field
    /// 22 of its `/proc/PID/stat`, counted after the command name, which
    /// ends at the last `)`.
    fn started_at(pid: &[u8]) -> Option<u64> {
        let mut path = [0u8; 32];
        path[..6].copy_from_slice(b"/proc/");
        path[6..6 + pid.len()].copy_from_slice(pid);
        path[6 + pid.len()..6 + pid.len() + 5].copy_from_slice(b"/stat");
        let fd = sys(
            SYS_OPENAT,
            &[AT_FDCWD as usize, path.as_ptr() as usize, O_CLOEXEC],
        );
        if fd < 0 {
            return None;
        }
        let mut stat = [0u8; 1024];
        let n = sys(
            SYS_READ,
            &[fd as usize, stat.as_mut_ptr() as usize, stat.len()],
        );
        sys(SYS_CLOSE, &[fd as usize]);
        let stat = stat.get(..usize::try_from(n).ok()?)?;
        let after = stat.iter().rposition(|&b| b == b')')? + 1;
        stat[after..]
            .split(|&b| b == b' ')
            .filter(|f| !f.is_empty())
            .nth(19)
            .and_then(decimal)
    }

    /// Open the server's token (`/proc/MARKER/fd/3`: the kernel lets only
    /// a process in the marker's Landlock domain, or in none, open it) and
    /// this process's namespaces into `proof`. False (all closed again)
    /// when one cannot be opened.
    fn open_proof(marker: &[u8], proof: &mut [i32; PROOF_FDS]) -> bool {
        // The token's number is written as one digit.
        const _: () = assert!(TOKEN_FD >= 0 && TOKEN_FD < 10);
        if decimal(marker).is_none() || marker.len() > 10 {
            return false;
        }
        let mut path = [0u8; 48];
        path[..6].copy_from_slice(b"/proc/");
        path[6..6 + marker.len()].copy_from_slice(marker);
        let token = [b'/', b'f', b'd', b'/', b'0' + TOKEN_FD as u8, 0];
        path[6 + marker.len()..6 + marker.len() + 6].copy_from_slice(&token);
        let mut opened = 0;
        let mut open = |path: &[u8]| {
            let fd = sys(
                SYS_OPENAT,
                &[AT_FDCWD as usize, path.as_ptr() as usize, O_CLOEXEC],
            );
            if fd >= 0 {
                proof[opened] = fd as i32;
                opened += 1;
            }
            fd >= 0
        };
        let mut all = open(&path);
        let mut ns = [0u8; 48];
        ns[..14].copy_from_slice(b"/proc/self/ns/");
        for name in NAMESPACES {
            if !all {
                break;
            }
            ns[14..14 + name.len()].copy_from_slice(name.as_bytes());
            ns[14 + name.len()] = 0;
            all = open(&ns);
        }
        if !all {
            for &fd in &proof[..opened] {
                sys(SYS_CLOSE, &[fd as usize]);
            }
        }
        all
    }

    /// The process's signal mask.
    fn signal_mask() -> u64 {
        let mut mask = 0u64;
        sys(
            SYS_RT_SIGPROCMASK,
            &[SIG_BLOCK, 0, &mut mask as *mut u64 as usize, 8],
        );
        mask
    }

    /// Bit N-1 set: signal N is ignored.
    fn ignored_signals() -> u64 {
        let mut ignored = 0u64;
        for signal in 1..=64usize {
            // handler, flags, restorer, mask: the kernel's sigaction.
            let mut old = [0usize; 4];
            if sys(SYS_RT_SIGACTION, &[signal, 0, old.as_mut_ptr() as usize, 8]) == 0
                && old[0] == SIG_IGN
            {
                ignored |= 1 << (signal - 1);
            }
        }
        ignored
    }

    /// How handing the request over went.
    enum Sent {
        All,
        /// Nothing reached the server: guard-sh may run the line here.
        Nothing,
        /// Part of it did: the server has it, the line's fate is unknown.
        Part,
    }

    /// Build the request (`guard_sh::cli::serve::decode_request`) in a fresh
    /// mapping and send it with `fds` (the folder first, then `numbers`).
    fn send_request(
        sock: usize,
        start: &Start,
        state: [u64; 3],
        fds: &[i32],
        numbers: &[i32],
    ) -> Sent {
        let mut strings_len = 0;
        let (mut argc, mut envc) = (0u32, 0u32);
        for s in start.strings(start.argv) {
            strings_len += s.len() + 1;
            argc += 1;
        }
        for s in start.strings(start.envp) {
            strings_len += s.len() + 1;
            envc += 1;
        }
        let header = Header {
            umask: state[0] as u32,
            ignored: state[1],
            blocked: state[2],
            descriptors: numbers.len() as u32,
            arguments: argc,
            variables: envc,
            strings_len: strings_len as u32,
        };
        let total = header.request_len();
        // PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS.
        let mapped = sys(SYS_MMAP, &[0, total, 3, 0x22, usize::MAX, 0]);
        if mapped < 0 {
            return Sent::Nothing;
        }
        // SAFETY: a fresh private mapping of `total` bytes.
        let buf = unsafe { core::slice::from_raw_parts_mut(mapped as *mut u8, total) };
        buf[..HEADER_LEN].copy_from_slice(&header.encode());
        let mut at = HEADER_LEN;
        for n in numbers {
            buf[at..at + 4].copy_from_slice(&n.to_le_bytes());
            at += 4;
        }
        for s in start.strings(start.argv).chain(start.strings(start.envp)) {
            buf[at..at + s.len()].copy_from_slice(s);
            buf[at + s.len()] = 0;
            at += s.len() + 1;
        }
        // One control message: cmsghdr (len, level, type) and the numbers.
        let mut control = [0u64; 2 + MAX_FDS.div_ceil(2)];
        let cmsg_len = 16 + 4 * fds.len();
        control[0] = cmsg_len as u64;
        control[1] = (SOL_SOCKET as u32 as u64) | ((SCM_RIGHTS as u32 as u64) << 32);
        // SAFETY: `control` has room for MAX_FDS descriptors after its header.
        let data = unsafe {
            core::slice::from_raw_parts_mut(control.as_mut_ptr().add(2).cast::<i32>(), MAX_FDS)
        };
        data[..fds.len()].copy_from_slice(fds);
        let mut iov = [buf.as_ptr() as usize, total];
        // msghdr: name, namelen, iov, iovlen, control, controllen, flags.
        let msg = [
            0usize,
            0,
            iov.as_mut_ptr() as usize,
            1,
            control.as_ptr() as usize,
            (cmsg_len + 7) & !7,
            0,
        ];
        let sent = loop {
            let n = sys(SYS_SENDMSG, &[sock, msg.as_ptr() as usize, MSG_NOSIGNAL]);
            if n != EINTR {
                break n;
            }
        };
        if sent <= 0 {
            Sent::Nothing
        } else if write_all(sock, &buf[sent as usize..]) {
            Sent::All
        } else {
            Sent::Part
        }
    }

    fn set_mask(how: usize, mask: u64) {
        sys(
            SYS_RT_SIGPROCMASK,
            &[how, &mask as *const u64 as usize, 0, 8],
        );
    }

    /// The variables whose values leave this process's environment block
    /// (what `/proc/PID/environ` shows) once the request is sent: the
    /// trial's key and the server's address.
    /// The value of `var` (`NAME=VALUE`) when it is one of the
    /// [`SECRETS`].
    fn secret_value(var: &[u8]) -> Option<&[u8]> {
        SECRETS.iter().find_map(|name| {
            var.strip_prefix(name.as_bytes())
                .and_then(|rest| rest.strip_prefix(b"="))
        })
    }

    /// Room for the secrets' values while a worker may run the line, and
    /// for how many of them (a block may name a variable twice).
    const HIDDEN_ROOM: usize = 1024;
    const HIDDEN_VALUES: usize = 8;

    /// The secrets' values, taken out of the environment block and kept
    /// here to be put back if the server does not serve the line (then
    /// guard-sh runs here, and needs them).
    struct Hidden {
        bytes: [u8; HIDDEN_ROOM],
        /// Where each value lies in the block, and its length.
        spans: [(*mut u8, usize); HIDDEN_VALUES],
        count: usize,
    }

    impl Hidden {
        /// Whether the secrets' values fit in [`HIDDEN_ROOM`] and
        /// [`HIDDEN_VALUES`] (else the line is not handed over).
        fn fit(start: &Start) -> bool {
            let (mut total, mut count) = (0, 0);
            for var in start.strings(start.envp) {
                if let Some(value) = secret_value(var) {
                    total += value.len();
                    count += 1;
                }
            }
            total <= HIDDEN_ROOM && count <= HIDDEN_VALUES
        }

        /// Take the values out (zeros in their place, lengths kept).
        fn take(start: &Start) -> Hidden {
            let mut hidden = Hidden {
                bytes: [0; HIDDEN_ROOM],
                spans: [(core::ptr::null_mut(), 0); HIDDEN_VALUES],
                count: 0,
            };
            let mut used = 0;
            for var in start.strings(start.envp) {
                let Some(value) = secret_value(var) else {
                    continue;
                };
                let at = value.as_ptr().cast_mut();
                hidden.bytes[used..used + value.len()].copy_from_slice(value);
                used += value.len();
                for i in 0..value.len() {
                    // SAFETY: the environment block is this process's own
                    // writable memory; the string's length is kept.
                    unsafe { core::ptr::write_volatile(at.add(i), b'0') };
                }
                hidden.spans[hidden.count] = (at, value.len());
                hidden.count += 1;
            }
            hidden
        }

        /// Put the values back where they were.
        fn put_back(&self) {
            let mut used = 0;
            for &(at, len) in &self.spans[..self.count] {
                for i in 0..len {
                    // SAFETY: as in `take`: the same bytes of the block.
                    unsafe { core::ptr::write_volatile(at.add(i), self.bytes[used + i]) };
                }
                used += len;
            }
        }
    }

    /// `struct pollfd`.
    #[repr(C)]
    struct PollFd {
        fd: i32,
        events: i16,
        revents: i16,
    }

    impl PollFd {
        const fn new(fd: usize) -> PollFd {
            PollFd {
                fd: fd as i32,
                events: POLLIN,
                revents: 0,
            }
        }
    }

    /// Wait for the reply, passing on signals meanwhile; end as it says.
    fn wait(sock: usize, sigfd: usize, start: &Start, blocked: u64, hidden: &Hidden) -> ! {
        loop {
            let mut polled = [PollFd::new(sock), PollFd::new(sigfd)];
            if sys(SYS_POLL, &[polled.as_mut_ptr() as usize, 2, usize::MAX]) < 0 {
                continue;
            }
            if polled[1].revents != 0 {
                let mut info = [0u8; 128];
                if sys(SYS_READ, &[sigfd, info.as_mut_ptr() as usize, 128]) == 128 {
                    let signal = info[0];
                    write_all(sock, &[signal]);
                }
            }
            if polled[0].revents == 0 {
                continue;
            }
            let mut reply = [0u8; 8];
            if !read_exact(sock, &mut reply) {
                say(b"the guard-sh server ended before the line did");
                exit(126);
            }
            match Reply::decode(reply) {
                Some(Reply::Exited(status)) => exit((status & 0xff) as usize),
                Some(Reply::Killed(signal)) => {
                    let signal = signal as usize;
                    let default = [0usize; 4];
                    sys(SYS_RT_SIGACTION, &[signal, default.as_ptr() as usize, 0, 8]);
                    set_mask(SIG_UNBLOCK, 1 << (signal.wrapping_sub(1) & 63));
                    let pid = sys(SYS_GETPID, &[]);
                    sys(SYS_KILL, &[pid as usize, signal]);
                    exit(128 + (signal & 0x7f));
                }
                Some(Reply::Fallback) => {
                    sys(SYS_CLOSE, &[sock]);
                    sys(SYS_CLOSE, &[sigfd]);
                    set_mask(SIG_SETMASK, blocked);
                    hidden.put_back();
                    become_guard_sh(start);
                }
                None => {
                    say(b"the guard-sh server sent something else than a status");
                    exit(126);
                }
            }
        }
    }

    /// # Safety
    /// Called once, from `_start` (or `main`), with the kernel's initial stack.
    unsafe extern "C" fn start(stack: *const usize) -> ! {
        // SAFETY: the kernel's initial stack layout (see `_start`).
        let start = unsafe {
            let argc = *stack;
            let argv = stack.add(1).cast::<*const u8>();
            Start {
                argv,
                envp: argv.add(argc + 1),
                argc,
            }
        };
        if start.argc == 0 {
            exit(127);
        }
        // Other processes of the user may not read this one's memory or
        // environment (root still may; Landlock's scoping holds there).
        sys(SYS_PRCTL, &[PR_SET_DUMPABLE, 0]);
        let Some(server) = start.var(SERVER_ENV.as_bytes()) else {
            become_guard_sh(&start);
        };
        // A terminal on standard input: an interactive or job-controlled
        // session, which guard-sh runs in this process.
        let mut termios = [0u8; 64];
        if sys(SYS_IOCTL, &[0, TCGETS, termios.as_mut_ptr() as usize]) == 0 {
            become_guard_sh(&start);
        }
        let mut fields = server.split(|&b| b == b' ');
        let (name, pid, started, marker) = (
            fields.next().unwrap_or_default(),
            fields.next().unwrap_or_default(),
            fields.next().unwrap_or_default(),
            fields.next().unwrap_or_default(),
        );
        if !Hidden::fit(&start) {
            become_guard_sh(&start);
        }
        // What shows the server how this process is confined; a process
        // that cannot open the server's token is confined otherwise, and
        // runs guard-sh itself.
        let mut proof = [0i32; PROOF_FDS];
        if !open_proof(marker, &mut proof) {
            become_guard_sh(&start);
        }
        let Some(sock) = connect(name, pid, started) else {
            become_guard_sh(&start);
        };
        let old_umask = sys(SYS_UMASK, &[0o22]) as usize;
        sys(SYS_UMASK, &[old_umask]);
        let blocked = signal_mask();
        let ignored = ignored_signals();
        // Signals wait in the signalfd from now on, to be passed on.
        let forwarded = FORWARDED.iter().fold(0u64, |m, s| m | 1 << (s - 1));
        set_mask(SIG_BLOCK, forwarded);
        let sigfd = sys(
            SYS_SIGNALFD4,
            &[usize::MAX, &forwarded as *const u64 as usize, 8, O_CLOEXEC],
        );
        let cwd = sys(
            SYS_OPENAT,
            &[
                AT_FDCWD as usize,
                c".".as_ptr() as usize,
                O_PATH | O_DIRECTORY | O_CLOEXEC,
            ],
        );
        if sigfd < 0 || cwd < 0 {
            sys(SYS_CLOSE, &[sock]);
            set_mask(SIG_SETMASK, blocked);
            become_guard_sh(&start);
        }
        let mut fds = [0i32; MAX_FDS];
        let mut numbers = [0i32; 64];
        fds[0] = cwd as i32;
        let mut count = 0;
        // One poll finds the open ones (a closed number says POLLNVAL).
        let mut open = [const { PollFd::new(0) }; 64];
        for (n, p) in open.iter_mut().enumerate() {
            p.fd = n as i32;
            p.events = 0;
        }
        sys(SYS_POLL, &[open.as_mut_ptr() as usize, 64, 0]);
        for p in open.iter().filter(|p| p.revents & POLLNVAL == 0) {
            let flags = sys(SYS_FCNTL, &[p.fd as usize, F_GETFD]);
            if flags >= 0 && flags & FD_CLOEXEC == 0 {
                numbers[count] = p.fd;
                fds[count + 1] = p.fd;
                count += 1;
            }
        }
        fds[count + 1..count + 1 + PROOF_FDS].copy_from_slice(&proof);
        let state = [old_umask as u64, ignored, blocked];
        let fds = &fds[..count + 1 + PROOF_FDS];
        match send_request(sock, &start, state, fds, &numbers[..count]) {
            Sent::All => {}
            Sent::Nothing => {
                sys(SYS_CLOSE, &[sock]);
                sys(SYS_CLOSE, &[cwd as usize]);
                set_mask(SIG_SETMASK, blocked);
                become_guard_sh(&start);
            }
            Sent::Part => {
                say(b"cannot hand the line to the guard-sh server");
                exit(126);
            }
        }
        sys(SYS_CLOSE, &[cwd as usize]);
        for fd in proof {
            sys(SYS_CLOSE, &[fd as usize]);
        }
        // The worker has its copy of the environment now.
        let hidden = Hidden::take(&start);
        wait(sock, sigfd as usize, &start, blocked, &hidden)
    }

    // The memory functions the compiler calls, which a C library would
    // give: string instructions (a loop here could be compiled back into
    // a call to the function itself).

    /// # Safety
    /// `dest` and `src` are valid for `n` bytes and do not overlap.
    #[unsafe(no_mangle)]
    unsafe extern "C" fn memcpy(dest: *mut u8, src: *const u8, n: usize) -> *mut u8 {
        // SAFETY: the caller's contract; `rep movsb` copies forwards.
        unsafe {
            asm!("rep movsb", inout("rdi") dest => _, inout("rsi") src => _, inout("rcx") n => _,
                 options(nostack, preserves_flags));
        }
        dest
    }

    /// # Safety
    /// `dest` and `src` are valid for `n` bytes; they may overlap.
    #[unsafe(no_mangle)]
    unsafe extern "C" fn memmove(dest: *mut u8, src: *const u8, n: usize) -> *mut u8 {
        if (dest as usize).wrapping_sub(src as usize) >= n {
            // SAFETY: forwards is safe when `dest` does not start inside `src`.
            return unsafe { memcpy(dest, src, n) };
        }
        // SAFETY: copying backwards from the last byte; the direction flag
        // is set for the copy and cleared after it.
        unsafe {
            asm!("std", "rep movsb", "cld",
                 inout("rdi") dest.add(n).wrapping_sub(1) => _,
                 inout("rsi") src.add(n).wrapping_sub(1) => _,
                 inout("rcx") n => _, options(nostack));
        }
        dest
    }

    /// # Safety
    /// `dest` is valid for `n` bytes.
    #[unsafe(no_mangle)]
    unsafe extern "C" fn memset(dest: *mut u8, byte: i32, n: usize) -> *mut u8 {
        // SAFETY: the caller's contract.
        unsafe {
            asm!("rep stosb", inout("rdi") dest => _, inout("rcx") n => _, in("al") byte as u8,
                 options(nostack, preserves_flags));
        }
        dest
    }

    /// # Safety
    /// `a` and `b` are valid for `n` bytes.
    #[unsafe(no_mangle)]
    unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
        for i in 0..n {
            // SAFETY: the caller's contract; volatile keeps the loop a loop.
            let (x, y) = unsafe {
                (
                    core::ptr::read_volatile(a.add(i)),
                    core::ptr::read_volatile(b.add(i)),
                )
            };
            if x != y {
                return i32::from(x) - i32::from(y);
            }
        }
        0
    }

    /// # Safety
    /// `a` and `b` are valid for `n` bytes.
    #[unsafe(no_mangle)]
    unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
        // SAFETY: the caller's contract.
        unsafe { memcmp(a, b, n) }
    }

    /// # Safety
    /// `s` is a NUL-terminated string.
    #[unsafe(no_mangle)]
    unsafe extern "C" fn strlen(s: *const u8) -> usize {
        let mut n = 0;
        // SAFETY: the caller's contract; volatile keeps the loop a loop.
        while unsafe { core::ptr::read_volatile(s.add(n)) } != 0 {
            n += 1;
        }
        n
    }

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        exit(127)
    }

    /// Named by the precompiled `core`'s unwinding tables; never called
    /// (this program's panics abort).
    #[unsafe(no_mangle)]
    extern "C" fn rust_eh_personality() {}
}
