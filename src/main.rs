//! The `vercy` binary: parse the command line, run it, turn the outcome into an exit code.

/// mimalloc: records are built and dropped on every core at once, and the ones a command keeps
/// are freed by another thread later, which glibc's per-thread arenas handle slowly
/// (figures in bench/NOTES.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option: its place in mimalloc 3's `mi_option_e` (libmimalloc-sys
/// names only the older options).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() -> std::process::ExitCode {
    // Freed memory goes back to the system after 10 ms rather than mimalloc's default second:
    // a check of a million records frees as much as it keeps, and would otherwise peak higher
    // for no gain in speed (figures in bench/NOTES.md).
    // SAFETY: sets one integer option of the allocator; no precondition, any value is valid.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 10) };
    vercy::main_entry()
}
