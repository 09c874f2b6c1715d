//! The store reader on arbitrary bytes, whatever shape they look like (JSON lines, array,
//! envelope, engrama dump, compact): it returns records or an error, never panics or hangs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vercy::store::{self, Entry, Input};

fuzz_target!(|data: &[u8]| {
    let input = Input::from_bytes("fuzz.jsonl", data.to_vec());
    let mut last_line = 0;
    let _ = store::read(&input, &mut |entry| {
        let record = match &entry {
            Entry::Record(r) | Entry::Aside(_, r) => r,
        };
        // records come in file order and point inside the input
        assert!(record.origin.line >= last_line, "records out of order");
        assert!(record.origin.offset as usize <= data.len(), "origin past the end");
        last_line = record.origin.line;
        Ok(())
    });
});
