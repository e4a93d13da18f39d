//! Standard output in pipes: when its reader goes away (`keel … | head -n 3`), keel ends at
//! once, quietly and with exit status 0, as ripgrep does — whichever command was writing and
//! however it writes (`println!`, a locked writer, the event renderer, the JSONL handler).
//!
//! Rust ignores SIGPIPE, so a write to a closed pipe fails with EPIPE and `println!` panics on
//! it. [`end_quietly_when_closed`], called first thing in `main`, handles SIGPIPE instead: when
//! the signal comes while standard output's reader is gone (`poll` reports `POLLERR` on fd 1),
//! the process exits 0; a SIGPIPE from any other pipe or socket (an MCP server's stdin, a
//! model connection) is ignored as before, and that write fails with EPIPE for its caller.

use std::io::{ErrorKind, Write as _};

/// Installs the SIGPIPE handler described in the module docs.
#[allow(unsafe_code)]
pub fn end_quietly_when_closed() {
    // SAFETY: a zeroed `sigaction` is a valid empty one; the handler only calls functions that
    // are async-signal-safe (`poll`, `_exit`) and keeps `errno` as it found it.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigpipe as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        // Fails only for an invalid signal or action, and these are valid.
        libc::sigaction(libc::SIGPIPE, &action, std::ptr::null_mut());
    }
}

extern "C" fn on_sigpipe(_signal: libc::c_int) {
    // SAFETY: the calling thread's errno location is always valid.
    #[allow(unsafe_code)]
    let saved = unsafe { *libc::__errno_location() };
    let mut stdout = libc::pollfd {
        fd: libc::STDOUT_FILENO,
        events: libc::POLLOUT,
        revents: 0,
    };
    // SAFETY: `poll` on one valid `pollfd` without waiting, and `_exit`, are async-signal-safe.
    #[allow(unsafe_code)]
    unsafe {
        if libc::poll(&mut stdout, 1, 0) == 1 && stdout.revents & libc::POLLERR != 0 {
            libc::_exit(0);
        }
        *libc::__errno_location() = saved;
    };
}

/// Writes `text` to standard output and flushes it; a closed pipe is not an error (the
/// SIGPIPE handler has normally ended the process already), another write error is printed
/// on standard error.
pub fn print(text: &str) {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {}
        Err(e) => eprintln!("keel: cannot write the output: {e}"),
    }
}
