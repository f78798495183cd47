//! Giving the system back memory the allocator holds free.
//!
//! glibc returns freed memory to the system only from the top of a heap.
//! A server that has run a thousand sessions has freed nearly all they
//! allocated, but the free pages lie between allocations still in use, so
//! they stay resident: measured after 1,000 sessions had ended, 4.5 MB of
//! the heap's 30 MB was in use. `malloc_trim` hands those pages back.

use std::time::Duration;

/// How long a thread of the servers' blocking pool (where pages are
/// fetched into and snapshots run) waits for work before it exits. Each
/// thread keeps a cache of freed chunks that goes back to the heap only
/// when the thread exits, so the server gives memory back once more after
/// this long (see [`crate::serve`]).
pub const THREAD_KEEP_ALIVE: Duration = Duration::from_secs(10);

/// This process's resident memory in KiB, where the system says
/// (`VmRSS` in `/proc/self/status`).
pub fn resident_kib() -> Option<u64> {
    status_kib("VmRSS:")
}

/// A field of `/proc/self/status` given in kB (`VmRSS:`, `VmHWM:`, …),
/// where the system has one.
pub fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line[field.len()..].trim().trim_end_matches("kB").trim().parse().ok()
}

/// Returns the allocator's free pages to the system; whether it gave any.
/// It walks and locks every arena in turn, so it runs off the async
/// threads, once the sessions that freed the memory have ended (see
/// [`crate::serve`]). Where the allocator is not glibc's it does nothing.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[expect(unsafe_code, reason = "malloc_trim is an FFI call")]
pub fn give_back() -> bool {
    // SAFETY: malloc_trim takes no pointers and touches only glibc's own
    // free lists, under the locks every allocator call takes.
    unsafe { libc::malloc_trim(0) == 1 }
}

/// Returns the allocator's free pages to the system; whether it gave any.
/// Where the allocator is not glibc's it does nothing.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn give_back() -> bool {
    false
}
