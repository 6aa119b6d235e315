//! A counting global allocator, so the benchmark can report each engine's heap memory in the
//! same process. The `blitty` binary installs it with `#[global_allocator]`; without that the
//! counters stay at zero and memory is reported as unknown.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

pub struct Counting;

// SAFETY: every call is forwarded unchanged to the system allocator; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout, under the caller's obligations.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (every allocation goes there).
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for dealloc; the caller guarantees `new_size` is valid for `layout`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            let now = if new_size >= layout.size() {
                CURRENT.fetch_add(new_size - layout.size(), Relaxed) + new_size - layout.size()
            } else {
                CURRENT.fetch_sub(layout.size() - new_size, Relaxed) - (layout.size() - new_size)
            };
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
}

/// Heap bytes allocated now.
pub fn current() -> usize {
    CURRENT.load(Relaxed)
}

/// Whether the counting allocator is installed (it has seen an allocation).
pub fn installed() -> bool {
    PEAK.load(Relaxed) > 0
}
