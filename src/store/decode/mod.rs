//! One line (or element) of a store decoded into a record: which of its keys are built
//! (`keep.rs`); the validating scanner of the fast path (`scan.rs`) and the key layout it
//! learns (`layout.rs`); Python's reading of what serde_json refuses (`pyline.rs` a line,
//! `pyjson.rs` a value); a failure named by its line and column (`locate.rs`).

pub mod keep;
pub mod layout;
pub mod locate;
pub mod pyjson;
pub mod pyline;
pub mod scan;
