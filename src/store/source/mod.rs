//! Where a store's bytes come from: a file, stdin, bytes in memory, or a database whose rows
//! are rendered as the lines its dump would hold; and the stream they are read through.

mod database;
mod postgres;
mod sqlite;
mod stream;

pub use database::Select;
pub(super) use stream::{fill, leading_py_space, MAX_LINE_BYTES};
pub use stream::{Input, Stream};
