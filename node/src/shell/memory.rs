//! Memory the node freed, given back to the system.
//!
//! glibc's allocator keeps what a thread freed in that thread's arena, and gives pages
//! back only from the top of an arena. A flood of large messages (a stranger's pushes of
//! 8 MiB, deposits of 7 MiB) is read, stored and freed on several threads, and leaves the
//! resident set near its high-water mark long after: measured under the swarm's
//! `PushMany` flood (docs/RELIABILITY.md), the public node's heap peaked at 84 MB
//! (heaptrack) while its resident set peaked at 175 MiB and stayed at 146 MiB when the
//! flood was over. The next flood then starts from there, so the floods of a long run
//! add up past the budget though every one of them keeps within it.
//!
//! `malloc_trim(0)` walks every arena and returns its free pages (`madvise`); it takes
//! the arenas' locks in turn, so it runs on a thread of its own, once a second, and never
//! on the event loop. Other allocators (musl, macOS, Windows) give memory back on their
//! own and have no such call, so there it does nothing.

use std::sync::Once;
use std::time::Duration;

/// How often freed memory is given back: often enough that what one flood freed is
/// back before the next one, seldom enough that the walk over the arenas costs nothing
/// measurable.
const EVERY: Duration = Duration::from_secs(1);

/// Starts the thread that gives freed memory back, once for the process (several nodes
/// in one process, as in tests, share one allocator).
pub(super) fn give_back_freed_memory() {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        // A node without this thread only holds more memory; it still runs.
        let _ = std::thread::Builder::new()
            .name("sealed-trim".into())
            .spawn(|| {
                loop {
                    std::thread::sleep(EVERY);
                    trim();
                }
            });
    });
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)] // the workspace's only unsafe code: one FFI call, see Cargo.toml
fn trim() {
    // SAFETY: `malloc_trim` takes no pointer and has no precondition; glibc serialises it
    // with every other call into the allocator.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() {}
