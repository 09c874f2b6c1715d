//! The compact line form of a store, as a library: `vercy compact`, `vercy export --to
//! compact` and the MCP server's `compact_records` all write through [`write()`].
//!
//! One pass when nothing needs the whole store first; two when it does (`--as-of` needs every
//! record's supersessors, `--policy-line` the store's policy before the first line, an inverse
//! supersedes map the pointers of the old records). The first pass keeps its tables (`select`'s
//! supersession, `withheld`) in `spill::Column`s, past `--memory` in a temporary file, and
//! leaves a bit a record; stdin, which cannot be read twice, is buffered instead.
//!
//! - `request`: what to compact, and the selection asked for, checked ([`criteria`]);
//! - `write`: the entry point: the header, the policy line, each selected record's line;
//! - `first_pass`: what must be known of the whole store before the first line;
//! - `withheld`: with a reader, the ids withheld from them that a record kept names;
//! - `encode`: a record, or the texts of a JSON line, into its line (on the decoding threads);
//! - `stats`: `--stats`, the characters of the records in JSON lines and in the form.
//!
//! The codec (escapes, a line's cells, reading the form back) is `store::compact`; which
//! records a question keeps is `select`.

mod encode;
mod first_pass;
mod request;
mod stats;
mod withheld;
mod write;

pub use encode::RecordSize;
pub use request::{criteria, Request};
pub use stats::{CountingSink, Stats};
pub use write::{write, write_lines, PolicyLine, Written};
