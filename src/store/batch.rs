//! The line-oriented shapes' engine: read the store in large blocks, split them into lines
//! with memchr, decode each block's lines in parallel (rayon), and hand the results to the
//! visitor in file order.
//!
//! Reading and decoding run on a producer thread while the caller's thread visits the block
//! before; a channel of [`IN_FLIGHT`] blocks between them keeps memory bounded whatever the
//! store's size. The visitor itself stays on the caller's thread, so it needs no locking.
//! When the visitor stops (an error, a closed pipe), the producer stops at its next block.

use super::input::Source;
use crate::error::{Result, VercyError};
use crate::record::Origin;
use rayon::prelude::*;
use std::sync::mpsc;

/// Bytes per block: large enough that the per-block costs vanish, small enough that the
/// decoded records of a few blocks stay a few megabytes.
const BLOCK: usize = 1 << 20;

/// Decoded blocks waiting for the visitor.
const IN_FLIGHT: usize = 2;

/// Lines per parallel task: below this, splitting work costs more than it saves.
const MIN_LINES_PER_TASK: usize = 64;

/// What decodes one line: its bytes (without the `\n`) and origin → a value, or `None` to
/// skip the line.
pub type Decode<'a, T> = dyn Fn(&[u8], Origin) -> Result<Option<T>> + Sync + 'a;

/// What turns a decoded line into what the visitor gets, on any core.
pub type Work<'a, T, U> = dyn Fn(T) -> Result<U> + Sync + 'a;

/// A line's result as it waits in a block's list: an error boxed, so each entry is two words
/// (an error is rare and large: a list of error-sized entries would move ten times the bytes).
type Item<T> = std::result::Result<Option<T>, Box<VercyError>>;

/// One line of a block: its bytes (without the `\n`) and where it starts in the file.
struct Line {
    start: usize,
    end: usize,
    number: u64,
    offset: u64,
}

/// Decode every remaining line of `src` and visit the results in order.
///
/// Three stages per block: `decode` each line in parallel (`None` skips the line; it gets the
/// line's bytes without its `\n` and its origin, `index` left 0); `number` each decoded line
/// in file order on the reading thread (cheap: it is where a running count such as a record's
/// index is given); `work` on each in parallel again. Only what `work` returns crosses to the
/// visitor, so a command's per-record work runs on every core, and what it drops is dropped
/// on the thread that built it.
pub fn for_each_line<T: Send, U: Send>(
    src: &mut Source,
    decode: &Decode<'_, T>,
    number: &mut (dyn FnMut(&mut T) + Send),
    work: &Work<'_, T, U>,
    visit: &mut dyn FnMut(U) -> Result<()>,
) -> Result<()> {
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<Result<Vec<Item<U>>>>(IN_FLIGHT);
        scope.spawn(move || {
            let mut block = Vec::with_capacity(BLOCK + (BLOCK >> 2));
            loop {
                let done = next_block(src, &mut block).map(|lines| {
                    let mut items = lines
                        .par_iter()
                        .with_min_len(MIN_LINES_PER_TASK)
                        .map(|l| {
                            let origin = Origin {
                                line: l.number,
                                offset: l.offset,
                                index: 0,
                            };
                            decode(&block[l.start..l.end], origin).map_err(Box::new)
                        })
                        .collect::<Vec<Item<T>>>();
                    for item in items.iter_mut().flatten().flatten() {
                        number(item);
                    }
                    items
                        .into_par_iter()
                        .with_min_len(MIN_LINES_PER_TASK)
                        .map(|item| item.and_then(|t| t.map(work).transpose().map_err(Box::new)))
                        .collect::<Vec<Item<U>>>()
                });
                let stop = match &done {
                    Ok(items) => items.is_empty(),
                    Err(_) => true,
                };
                // a closed channel means the visitor stopped: so does the producer
                if tx.send(done).is_err() || stop {
                    return;
                }
            }
        });
        for done in rx {
            for item in done? {
                if let Some(value) = item.map_err(|e| *e)? {
                    visit(value)?;
                }
            }
        }
        Ok(())
    })
}

/// Read the next block (whole lines) and split it; an empty list at the end of the input.
/// Advances the source's line and offset past the block.
fn next_block(src: &mut Source, block: &mut Vec<u8>) -> Result<Vec<Line>> {
    src.read_block(block, BLOCK)?;
    let mut lines = Vec::with_capacity(block.len() / 256 + 1);
    let mut start = 0;
    for nl in memchr::memchr_iter(b'\n', block) {
        lines.push(Line {
            start,
            end: nl,
            number: src.line,
            offset: src.offset + start as u64,
        });
        src.line += 1;
        start = nl + 1;
        src.line_start = src.offset + start as u64;
    }
    if start < block.len() {
        // the last line of a file without a final newline
        lines.push(Line {
            start,
            end: block.len(),
            number: src.line,
            offset: src.offset + start as u64,
        });
    }
    src.offset += block.len() as u64;
    Ok(lines)
}
