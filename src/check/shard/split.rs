//! A store split into shards by concept: every record of one concept in one shard, each shard
//! a JSON lines file holding its records' lines exactly as the store holds them, in store
//! order; beside them the places (which shard holds each record of the store, and the line it
//! starts on there) and last the manifest, which names the whole.
//!
//! Every file is written atomically; the manifest goes last, and an earlier split's manifest
//! is removed first, so a split cut short leaves no manifest that names its shards.
//!
//! Memory: a block of the store and its records per reading core, and each shard's write
//! buffer (so the number of shards is capped at [`MAX_SHARDS`]).

use super::{Manifest, ShardFile, MANIFEST, PLACES};
use crate::check::{role_reading, roles, Options};
use crate::error::{Result, VercyError};
use crate::store::{Input, RecordView, Shape};
use crate::write::AtomicFile;
use std::io::Write;
use std::path::Path;

/// At most this many shards: each holds a write buffer while the store is read.
pub const MAX_SHARDS: usize = 64;

/// A record as the split moves it: the shard it goes to, its line, and its text.
struct Routed {
    shard: usize,
    line: u64,
    text: String,
}

/// The shard a concept goes to among `shards`: FNV-1a over its bytes, a hash every tool can
/// compute (a database or Spark splitting the same way, docs/SCALE.md). A record without a
/// concept goes by its line: no check reads it together with another by concept.
pub fn shard_of(concept: Option<&str>, line: u64, shards: usize) -> usize {
    let Some(concept) = concept else {
        return (line % shards as u64) as usize;
    };
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in concept.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    (hash % shards as u64) as usize
}

/// Split the store `input` into `shards` shards by concept, read through `map` (`--map` as
/// given), into the folder `out`.
pub fn split(input: &Input, map: &[String], shards: usize, out: &Path) -> Result<Manifest> {
    if !(1..=MAX_SHARDS).contains(&shards) {
        return Err(VercyError::Argument {
            what: format!("--shards {shards}"),
            message: format!("a split makes 1 to {MAX_SHARDS} shards"),
            help: format!("give --shards a number from 1 to {MAX_SHARDS}"),
        });
    }
    std::fs::create_dir_all(out).map_err(|e| VercyError::Write {
        path: out.display().to_string(),
        reason: crate::error::io_reason(&e),
    })?;
    let opts = Options::with_map(map)?;
    let reading = role_reading(&opts)?;
    let concept = roles::values().concept;
    let work = |view: &RecordView| -> Result<Routed> {
        let line = view.origin.line;
        Ok(Routed {
            shard: shard_of(view.filled_str(concept).as_deref(), line, shards),
            line,
            text: view.text.to_string(),
        })
    };
    let name = |shard: usize| format!("shard-{shard:03}.jsonl");
    let mut files: Vec<Option<AtomicFile>> = (0..shards).map(|_| None).collect();
    let mut counts = vec![(0u64, 0u64); shards];
    let mut places = AtomicFile::create(out.join(PLACES))?;
    let places_path = places.target().display().to_string();
    let (shape, _) = crate::store::read_views(input, &reading, &work, &mut |routed: Routed| {
        let file = match &mut files[routed.shard] {
            Some(file) => file,
            empty => empty.insert(AtomicFile::create(out.join(name(routed.shard)))?),
        };
        let path = file.target().display().to_string();
        let out = file.writer();
        let written = out
            .write_all(routed.text.as_bytes())
            .and_then(|()| out.write_all(b"\n"));
        written.map_err(|e| write_error(&path, &e))?;
        let (records, bytes) = &mut counts[routed.shard];
        *records += 1;
        *bytes += routed.text.len() as u64 + 1;
        writeln!(places.writer(), "{} {}", routed.shard, routed.line)
            .map_err(|e| write_error(&places_path, &e))
    })?;
    if !matches!(shape, Shape::JsonLines | Shape::Empty) {
        // the files written so far are dropped, their targets untouched
        return Err(VercyError::Argument {
            what: input.arg.clone(),
            message: format!(
                "a split reads a store of JSON lines, not a {}",
                shape.name()
            ),
            help: format!(
                "write it as JSON lines first: vercy export {} --to jsonl -o store.jsonl",
                input.arg
            ),
        });
    }
    let records = counts.iter().map(|c| c.0).sum();
    let manifest = Manifest {
        vercy_split: 1,
        store: input.arg.clone(),
        shape: shape.name(),
        records,
        by: "concept".to_string(),
        map: map.to_vec(),
        shards: files
            .iter()
            .enumerate()
            .filter(|(_, file)| file.is_some())
            .map(|(shard, _)| ShardFile {
                shard,
                file: name(shard),
                records: counts[shard].0,
                bytes: counts[shard].1,
            })
            .collect(),
    };
    // an earlier split's manifest goes first: until the new one is in place, none names the
    // shards being replaced
    let manifest_path = out.join(MANIFEST);
    match std::fs::remove_file(&manifest_path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(write_error(&manifest_path.display().to_string(), &e))
        }
        _ => {}
    }
    for file in files.into_iter().flatten() {
        file.commit()?;
    }
    places.commit()?;
    let mut file = AtomicFile::create(&manifest_path)?;
    let text = serde_json::to_string_pretty(&manifest).map_err(std::io::Error::from);
    text.and_then(|text| writeln!(file.writer(), "{text}"))
        .map_err(|e| write_error(&manifest_path.display().to_string(), &e))?;
    file.commit()?;
    Ok(manifest)
}

fn write_error(path: &str, e: &std::io::Error) -> VercyError {
    VercyError::Write {
        path: path.to_string(),
        reason: crate::error::io_reason(e),
    }
}
