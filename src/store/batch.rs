//! The reading engine: read the store in large blocks, split them into items (lines with
//! memchr; a JSON array's elements, `elements.rs`), decode each block on one of several worker
//! threads, and hand the results to the visitor in file order.
//!
//! Each worker takes the next block from the source (under a lock: reading is in order),
//! decodes its lines, numbers them when the block before has been numbered, works on them,
//! and hands them on to be visited in file order. There are as many workers as cores (the
//! calling thread is one of them) and no other busy thread. Numbering is taken in turns.
//! Visiting is combined: a block whose turn has come is visited by its own worker, and a
//! block that comes before its turn is left for the worker visiting the blocks before it,
//! which visits it next, while its own worker goes on to the next block. So a worker never
//! waits on another's visit (unless as many blocks as there are workers are left already),
//! and memory stays at a few blocks and their records per worker whatever the store's size.
//! When the visitor stops (an error, a closed pipe), the workers stop at their next block.

use super::source::Stream;
use crate::error::{Result, VercyError};
use crate::record::Origin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Bytes per block: large enough that the per-block costs vanish, small enough that a block
/// and what its lines decode to stay in the reading core's cache (the sizes tried are in
/// bench/NOTES.md).
pub const BLOCK: usize = 1 << 19;

/// What decodes one line: its bytes (without the `\n`), origin and column (1 but for an
/// array's elements) → a value, or `None` to skip the line.
pub type Decode<'a, T> = dyn Fn(&[u8], Origin, u64) -> Result<Option<T>> + Sync + 'a;

/// What turns a decoded line into what the visitor gets, on any core.
pub type Work<'a, T, U> = dyn Fn(T) -> Result<U> + Sync + 'a;

/// A line's result as it waits in a block's list: an error boxed, so each entry is two words
/// (an error is rare and large: a list of error-sized entries would move mostly unused bytes).
type Item<T> = std::result::Result<Option<T>, Box<VercyError>>;

/// One item of a block, a line (without its `\n`) or an array's element: its bytes and where
/// it starts in the file.
pub struct BlockLine {
    pub start: usize,
    pub end: usize,
    /// The line it starts on.
    pub number: u64,
    pub offset: u64,
    /// The column it starts at.
    pub column: u64,
}

/// How a shape's bytes are cut into blocks of whole items (lines; a JSON array's elements),
/// each read and split under the reading lock, in file order.
pub trait Blocks: Send {
    /// Read the next block into `block` and list its items; an empty list at the end. An
    /// error found after some items is returned by the next call, so those items come first.
    fn next_block(&mut self, block: &mut Vec<u8>) -> Result<Vec<BlockLine>>;
}

/// Lines: the line-oriented shapes' items.
pub struct Lines<'s>(pub &'s mut Stream);

impl Blocks for Lines<'_> {
    fn next_block(&mut self, block: &mut Vec<u8>) -> Result<Vec<BlockLine>> {
        next_lines(self.0, block)
    }
}

/// Decode every remaining line of `src` and visit the results in order.
///
/// Three stages per block: `decode` each line (`None` skips the line; it gets the line's
/// bytes without its `\n` and its origin, `index` left 0); `number` each decoded line in file
/// order (cheap: it is where a running count such as a record's index is given); `work` on
/// each. Only what `work` returns reaches `visit`, in file order. Every stage but the visit
/// runs on the worker that read the block, so a command's per-record work runs on every core.
pub fn for_each_line<T: Send, U: Send>(
    src: &mut Stream,
    decode: &Decode<'_, T>,
    number: &mut (dyn FnMut(&mut T) + Send),
    work: &Work<'_, T, U>,
    visit: &mut (dyn FnMut(U) -> Result<()> + Send),
) -> Result<()> {
    for_each_item(&mut Lines(src), decode, number, work, visit)
}

/// [`for_each_line`] over any shape's items: `blocks` cuts them out.
pub fn for_each_item<T: Send, U: Send>(
    blocks: &mut dyn Blocks,
    decode: &Decode<'_, T>,
    number: &mut (dyn FnMut(&mut T) + Send),
    work: &Work<'_, T, U>,
    visit: &mut (dyn FnMut(U) -> Result<()> + Send),
) -> Result<()> {
    let workers = rayon::current_num_threads().max(1);
    let shared = Shared {
        reading: Mutex::new(BlockSource {
            blocks,
            next: 0,
            done: false,
        }),
        numbering: Turns::new(number),
        visiting: VisitTurns::new(
            Visiting {
                visit,
                failed: None,
            },
            workers,
        ),
        stop: AtomicBool::new(false),
    };
    std::thread::scope(|scope| {
        for _ in 1..workers {
            scope.spawn(|| run_worker(&shared, decode, work));
        }
        run_worker(&shared, decode, work);
    });
    let visiting = shared.visiting.visiting.into_inner();
    match visiting.unwrap_or_else(PoisonError::into_inner).failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// What the workers share.
struct Shared<'s, 'f, T, U> {
    reading: Mutex<BlockSource<'s>>,
    numbering: Turns<&'f mut (dyn FnMut(&mut T) + Send)>,
    visiting: VisitTurns<'f, U>,
    /// The visitor stopped, or a worker panicked: no more blocks are read.
    stop: AtomicBool,
}

/// The source, and the number the next block read gets.
struct BlockSource<'s> {
    blocks: &'s mut dyn Blocks,
    next: u64,
    /// The source is exhausted, or failed.
    done: bool,
}

/// The visitor, and the first error it met (it sees nothing after).
struct Visiting<'f, U> {
    visit: &'f mut (dyn FnMut(U) -> Result<()> + Send),
    failed: Option<VercyError>,
}

impl<U> Visiting<'_, U> {
    /// Visit a block's items in order; false once the visitor has stopped.
    fn visit_all(&mut self, items: Vec<Item<U>>) -> bool {
        if self.failed.is_some() {
            return false;
        }
        for item in items {
            let visited = match item {
                Ok(Some(value)) => (self.visit)(value),
                Ok(None) => Ok(()),
                Err(e) => Err(*e),
            };
            if let Err(e) = visited {
                self.failed = Some(e);
                return false;
            }
        }
        true
    }
}

/// Whose turn it is among the blocks, in file order, with a state: [`Turns::take`] gives
/// block `n` the state once block `n - 1` is done with it; [`VisitTurns`] keeps the blocks
/// left for their turn in it.
struct Turns<S> {
    state: Mutex<Turn<S>>,
    passed: Condvar,
}

struct Turn<S> {
    /// The block whose turn it is.
    next: u64,
    /// A worker panicked: the blocks after its own never get their turn.
    abandoned: bool,
    state: S,
}

impl<S> Turns<S> {
    fn new(state: S) -> Turns<S> {
        Turns {
            state: Mutex::new(Turn {
                next: 0,
                abandoned: false,
                state,
            }),
            passed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Turn<S>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Wait for block `seq`'s turn, run `f` on the state, pass the turn on; `None` when the
    /// turn never comes (a worker panicked).
    fn take<R>(&self, seq: u64, f: impl FnOnce(&mut S) -> R) -> Option<R> {
        let mut turn = self.lock();
        while turn.next != seq && !turn.abandoned {
            turn = self
                .passed
                .wait(turn)
                .unwrap_or_else(PoisonError::into_inner);
        }
        if turn.abandoned {
            return None;
        }
        let result = f(&mut turn.state);
        turn.next += 1;
        drop(turn);
        self.passed.notify_all();
        Some(result)
    }

    fn abandon(&self) {
        self.lock().abandoned = true;
        self.passed.notify_all();
    }
}

/// The visitor, taken by the blocks in file order, combined: block `n` is visited once block
/// `n - 1` has been, by its own worker when it comes after that visit, else by the worker
/// that visited `n - 1`, right after.
struct VisitTurns<'f, U> {
    /// Whose turn it is, and the blocks left for it; passed on each block visited.
    turns: Turns<Left<U>>,
    /// Taken only by the worker visiting (`Left::busy`), outside the turns' lock.
    visiting: Mutex<Visiting<'f, U>>,
    /// How many blocks may be left at once: one a worker. Past it, a worker waits.
    room: usize,
}

struct Left<U> {
    /// A worker is visiting the block whose turn it is, and visits the blocks left after it.
    busy: bool,
    /// The blocks handed on before their turn, each with its results.
    blocks: Vec<(u64, Vec<Item<U>>)>,
}

impl<'f, U> VisitTurns<'f, U> {
    fn new(visiting: Visiting<'f, U>, workers: usize) -> VisitTurns<'f, U> {
        VisitTurns {
            turns: Turns::new(Left {
                busy: false,
                blocks: Vec::with_capacity(workers),
            }),
            visiting: Mutex::new(visiting),
            room: workers,
        }
    }

    /// Hand on block `seq`'s results, to be visited in file order: here and now when its
    /// turn has come and no worker is visiting (then every block left for the turns after
    /// it, too), else left for the worker visiting before it. `Some(false)` once the visitor
    /// has stopped; `None` when the turn never comes (a worker panicked).
    fn hand(&self, seq: u64, mut items: Vec<Item<U>>) -> Option<bool> {
        let mut turn = self.turns.lock();
        loop {
            if turn.abandoned {
                return None;
            }
            if turn.next == seq && !turn.state.busy {
                break;
            }
            // the worker visiting now visits this block when its turn comes: the check that
            // it is left and the end of that worker's visits are under one lock
            if turn.state.blocks.len() < self.room {
                turn.state.blocks.push((seq, items));
                return Some(true);
            }
            turn = self
                .turns
                .passed
                .wait(turn)
                .unwrap_or_else(PoisonError::into_inner);
        }
        turn.state.busy = true;
        let mut going = true;
        loop {
            drop(turn);
            going &= self
                .visiting
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .visit_all(items);
            turn = self.turns.lock();
            turn.next += 1;
            let next = turn.next;
            let left = &mut turn.state.blocks;
            match left.iter().position(|(seq, _)| *seq == next) {
                Some(at) => items = left.swap_remove(at).1,
                None => break,
            }
            // room for one more left block
            self.turns.passed.notify_all();
        }
        turn.state.busy = false;
        drop(turn);
        self.turns.passed.notify_all();
        Some(going)
    }
}

/// Wakes the other workers when this one unwinds from a panic: they would wait for its
/// turns forever (the panic itself reaches the caller when the scope ends).
struct WakeOnPanic<'a, 's, 'f, T, U>(&'a Shared<'s, 'f, T, U>);

impl<T, U> Drop for WakeOnPanic<'_, '_, '_, T, U> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stop.store(true, Ordering::Relaxed);
            self.0.numbering.abandon();
            self.0.visiting.turns.abandon();
        }
    }
}

/// One worker: blocks until the source is done or the visitor stops.
fn run_worker<T: Send, U: Send>(
    shared: &Shared<'_, '_, T, U>,
    decode: &Decode<'_, T>,
    work: &Work<'_, T, U>,
) {
    let _wake = WakeOnPanic(shared);
    let mut block = Vec::with_capacity(BLOCK + (BLOCK >> 2));
    while !shared.stop.load(Ordering::Relaxed) {
        let (seq, lines) = {
            let mut reading = shared
                .reading
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if reading.done {
                return;
            }
            let seq = reading.next;
            reading.next += 1;
            let lines = reading.blocks.next_block(&mut block);
            reading.done = lines.as_ref().map_or(true, Vec::is_empty);
            (seq, lines)
        };
        let lines = match lines {
            Ok(lines) if lines.is_empty() => return,
            Ok(lines) => lines,
            Err(e) => {
                // reported in its place: after the blocks before it, unless one of them failed
                shared.visiting.hand(seq, vec![Err(Box::new(e))]);
                return;
            }
        };
        let mut items = lines
            .iter()
            .map(|l| {
                let origin = Origin {
                    line: l.number,
                    offset: l.offset,
                    index: 0,
                };
                decode(&block[l.start..l.end], origin, l.column).map_err(Box::new)
            })
            .collect::<Vec<Item<T>>>();
        let numbered = shared.numbering.take(seq, |number| {
            for item in items.iter_mut().flatten().flatten() {
                number(item);
            }
        });
        if numbered.is_none() {
            return;
        }
        let items = items
            .into_iter()
            .map(|item| item.and_then(|t| t.map(work).transpose().map_err(Box::new)))
            .collect::<Vec<Item<U>>>();
        if shared.visiting.hand(seq, items) != Some(true) {
            shared.stop.store(true, Ordering::Relaxed);
            return;
        }
    }
}

/// Read the next block (whole lines) and split it; an empty list at the end of the input.
/// Advances the source's line and offset past the block.
fn next_lines(src: &mut Stream, block: &mut Vec<u8>) -> Result<Vec<BlockLine>> {
    src.read_block(block, BLOCK)?;
    let mut lines = Vec::with_capacity(block.len() / 256 + 1);
    let mut start = 0;
    for nl in memchr::memchr_iter(b'\n', block) {
        lines.push(BlockLine {
            start,
            end: nl,
            number: src.line,
            offset: src.offset + start as u64,
            column: 1,
        });
        src.line += 1;
        start = nl + 1;
        src.line_start = src.offset + start as u64;
    }
    if start < block.len() {
        // the last line of a file without a final newline
        lines.push(BlockLine {
            start,
            end: block.len(),
            number: src.line,
            offset: src.offset + start as u64,
            column: 1,
        });
    }
    src.offset += block.len() as u64;
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Input;

    /// Lines of a few hundred bytes each, `n` of them: several blocks' worth.
    fn lines(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| format!("{i} {}\n", "x".repeat(i % 300)))
            .collect::<String>()
            .into_bytes()
    }

    fn failing(line: u64, what: &str) -> VercyError {
        VercyError::Shape {
            path: "t".into(),
            pos: crate::error::Position { line, column: 1 },
            message: what.into(),
            help: String::new(),
        }
    }

    /// Run the engine over `text` with `workers` threads: `decode` fails on the lines whose
    /// first word is in `bad`, `visit` stops after `stop_after` values; what was visited, and
    /// the error.
    fn run(
        text: Vec<u8>,
        workers: usize,
        bad: &[u64],
        stop_after: usize,
    ) -> (Vec<(u64, u64, usize)>, Option<String>) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .unwrap();
        let mut src = Input::from_bytes("t", text).open().unwrap();
        let decode = |bytes: &[u8], origin: Origin, _| -> Result<Option<(u64, Origin)>> {
            let text = std::str::from_utf8(bytes).unwrap();
            let word: u64 = text.split(' ').next().unwrap().parse().unwrap();
            if bad.contains(&word) {
                return Err(failing(origin.line, "bad"));
            }
            // every tenth line is skipped
            Ok((word % 10 != 5).then_some((word, origin)))
        };
        let mut index = 0;
        let mut number = |(_, origin): &mut (u64, Origin)| {
            origin.index = index;
            index += 1;
        };
        let work = |(word, origin): (u64, Origin)| Ok((word, origin.line, origin.index));
        let mut seen = Vec::new();
        let mut visit = |v: (u64, u64, usize)| {
            if seen.len() == stop_after {
                return Err(failing(v.1, "stop"));
            }
            seen.push(v);
            Ok(())
        };
        let result =
            pool.install(|| for_each_line(&mut src, &decode, &mut number, &work, &mut visit));
        (seen, result.err().map(|e| e.to_string()))
    }

    #[test]
    fn visits_every_line_in_file_order_numbered_in_order() {
        let n = 20_000; // about 3 MB: a few blocks
        for workers in [1, 2, 3] {
            let (seen, error) = run(lines(n), workers, &[], usize::MAX);
            assert_eq!(error, None);
            let expected: Vec<(u64, u64, usize)> = (0..n as u64)
                .filter(|w| w % 10 != 5)
                .enumerate()
                .map(|(index, w)| (w, w + 1, index))
                .collect();
            assert_eq!(seen, expected, "{workers} workers");
        }
    }

    #[test]
    fn the_first_error_in_file_order_ends_the_run_whatever_block_fails_first() {
        // the later bad line sits blocks after the first; the lines between are visited
        let (seen, error) = run(lines(20_000), 2, &[19_000, 9_000], usize::MAX);
        assert_eq!(seen.last().map(|v| v.0), Some(8_999));
        assert_eq!(seen.len(), 9_000 - 900);
        let error = error.expect("an error");
        assert!(error.contains("bad"), "{error}");
        // a bad line in the first block
        let (seen, _) = run(lines(20_000), 2, &[3], usize::MAX);
        assert_eq!(seen.len(), 3);
    }

    /// While the first block's visit is slow, the blocks after it are left to be visited by
    /// that worker, in file order, while their own workers go on.
    #[test]
    fn blocks_whose_turn_has_not_come_are_visited_by_the_worker_before_them_in_order() {
        let n = 40_000; // about 6 MB: a dozen blocks
        let text = lines(n);
        for workers in [2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(workers)
                .build()
                .unwrap();
            let mut src = Input::from_bytes("t", text.clone()).open().unwrap();
            let decode = |bytes: &[u8], _: Origin, _| -> Result<Option<u64>> {
                let text = std::str::from_utf8(bytes).unwrap();
                Ok(Some(text.split(' ').next().unwrap().parse().unwrap()))
            };
            let work = |word: u64| Ok((word, std::thread::current().id()));
            let mut seen = Vec::new();
            let mut elsewhere = 0;
            let mut visit = |(word, worker): (u64, std::thread::ThreadId)| {
                if word == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(200));
                }
                elsewhere += usize::from(worker != std::thread::current().id());
                seen.push(word);
                Ok(())
            };
            let result =
                pool.install(|| for_each_line(&mut src, &decode, &mut |_| {}, &work, &mut visit));
            assert!(result.is_ok());
            assert_eq!(seen, (0..n as u64).collect::<Vec<_>>(), "{workers} workers");
            assert!(
                elsewhere > 0,
                "{workers} workers: every block visited by its own worker"
            );
        }
    }

    #[test]
    fn a_visitor_that_stops_ends_the_run_with_its_error() {
        let (seen, error) = run(lines(20_000), 2, &[], 100);
        assert_eq!(seen.len(), 100);
        assert!(error.expect("the visitor's error").contains("stop"));
    }
}
