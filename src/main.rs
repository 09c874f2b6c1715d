//! The `vercy` binary: parse the command line, run it, turn the outcome into an exit code.

/// mimalloc: records are built on the decoding threads and dropped or kept on others; glibc's
/// per-thread arenas made that several times slower (a 1M-node import: 17 s against 6 s).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    vercy::main_entry()
}
