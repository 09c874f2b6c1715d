//! The line-oriented shapes' engine: read the store in large blocks, split them into lines
//! with memchr, decode each block's lines in parallel (rayon), and hand the results to the
//! visitor in file order.
//!
//! Reading and decoding run on a producer thread while the caller's thread visits the block
//! before; a channel of [`IN_FLIGHT`] blocks between them keeps memory bounded whatever the
//! store's size. The visitor itself stays on the caller's thread, so it needs no locking.
//! When the visitor stops (an error, a closed pipe), the producer stops at its next block.

use super::input::Source;
use crate::error::Result;
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

/// One line of a block: its bytes (without the `\n`) and where it starts in the file.
struct Line {
    start: usize,
    end: usize,
    number: u64,
    offset: u64,
}

/// Decode every remaining line of `src` with `decode` (in parallel; `None` skips the line) and
/// visit the results in order, each with its line's bytes. `decode` gets the line's bytes
/// without its `\n` and its origin (`index` is left 0: the visitor knows which lines count as
/// records).
pub fn for_each_line<T: Send>(
    src: &mut Source,
    decode: &Decode<'_, T>,
    visit: &mut dyn FnMut(T, &[u8]) -> Result<()>,
) -> Result<()> {
    /// A decoded block: its bytes, each line's place in them, and what each line decoded to.
    type Decoded<T> = (Vec<u8>, Vec<Line>, Vec<Result<Option<T>>>);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<Result<Decoded<T>>>(IN_FLIGHT);
        scope.spawn(move || loop {
            // a block of its own: it travels with its lines to the visitor
            let mut block = Vec::with_capacity(BLOCK + (BLOCK >> 2));
            let decoded = next_block(src, &mut block).map(|lines| {
                let items = lines
                    .par_iter()
                    .with_min_len(MIN_LINES_PER_TASK)
                    .map(|l| {
                        let origin = Origin {
                            line: l.number,
                            offset: l.offset,
                            index: 0,
                        };
                        decode(&block[l.start..l.end], origin)
                    })
                    .collect::<Vec<_>>();
                (block, lines, items)
            });
            let stop = match &decoded {
                Ok((_, lines, _)) => lines.is_empty(),
                Err(_) => true,
            };
            // a closed channel means the visitor stopped: so does the producer
            if tx.send(decoded).is_err() || stop {
                return;
            }
        });
        for decoded in rx {
            let (block, lines, items) = decoded?;
            for (line, item) in lines.iter().zip(items) {
                if let Some(value) = item? {
                    visit(value, &block[line.start..line.end])?;
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
