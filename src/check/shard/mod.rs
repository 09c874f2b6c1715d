//! A store checked in shards, and the shards' facts merged into the report one run over the
//! whole store gives (docs/SCALE.md): [`split`] writes a store's records into shards by
//! concept, with the split's manifest and places; [`facts`] is what a check of a shard
//! writes beside its report (every record's facts, in the shard's order); [`merge`] reads the
//! manifest, the places and every shard's facts, and folds the facts in the store's order
//! through the check's own fold, so the report is the one a single run makes, byte for byte,
//! in every format.
//!
//! The split's files, the contract between the three:
//! - `split.json` ([`Manifest`]): the store as a check names it, its shape, its records, the
//!   map its concepts were read through, and each shard's file, records and bytes;
//! - `places` ([`PLACES`]): one line a record of the store, in store order: the shard that
//!   holds it and the line it starts on in the store (`3 1207`), so the merge numbers each
//!   record (`#N`) and names its line as the whole store does;
//! - the shards, JSON lines, each a filter of the store in store order.

pub mod facts;
pub mod merge;
pub mod split;

use crate::error::{Position, Result, VercyError};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The manifest's name in a split's folder.
pub const MANIFEST: &str = "split.json";
/// The places' name in a split's folder.
pub const PLACES: &str = "places";

/// What `split.json` says of a split.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// The manifest's format (1).
    pub vercy_split: u32,
    /// The store as a check of it names it (the argument given to split).
    pub store: String,
    /// Its shape, as a report names it.
    pub shape: String,
    pub records: u64,
    /// What the records were split by (`concept`).
    pub by: String,
    /// The `--map` the concepts were read through.
    pub map: Vec<String>,
    pub shards: Vec<ShardFile>,
}

/// One shard of a split (a split writes no empty shard).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardFile {
    /// Its number, as the places name it.
    pub shard: usize,
    /// Its file name in the split's folder.
    pub file: String,
    pub records: u64,
    pub bytes: u64,
}

impl Manifest {
    /// Read a split's manifest.
    pub fn read(path: &Path) -> Result<Manifest> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| VercyError::Read {
            path: name.clone(),
            reason: crate::error::io_reason(&e),
        })?;
        let manifest: Manifest = serde_json::from_str(&text).map_err(|e| {
            shard_error(
                &name,
                (e.line() as u64, e.column() as u64),
                format!("not a split's manifest: {e}"),
                "name the split.json that `vercy split` wrote",
            )
        })?;
        if manifest.vercy_split != 1 {
            return Err(shard_error(
                &name,
                (1, 1),
                format!("a split's manifest of format {}", manifest.vercy_split),
                "split the store again with this vercy",
            ));
        }
        let mut seen = [false; split::MAX_SHARDS];
        for shard in &manifest.shards {
            match seen.get_mut(shard.shard) {
                Some(seen) if !*seen => *seen = true,
                _ => {
                    return Err(shard_error(
                        &name,
                        (1, 1),
                        format!(
                            "shard {} is no shard of a split, or twice in it",
                            shard.shard
                        ),
                        "split the store again: its manifest was changed",
                    ))
                }
            }
        }
        Ok(manifest)
    }
}

/// Hash as every check of a shard and every merge hashes ([`super::table::fix_seed`]): the
/// facts carry the hashes of their texts. Called before a shard is read or facts are folded.
fn fixed_hashes() -> Result<()> {
    if super::table::fix_seed() {
        return Ok(());
    }
    Err(VercyError::EmbeddedData {
        what: "hash seed".to_string(),
        message: "this process hashed with a random seed before it wrote or merged facts"
            .to_string(),
    })
}

/// An input of a merge that is not what it should be, at `(line, column)` of `path`.
pub fn shard_error(
    path: &str,
    (line, column): (u64, u64),
    message: impl Into<String>,
    help: impl Into<String>,
) -> VercyError {
    VercyError::Shard {
        path: path.to_string(),
        pos: Position {
            line: line.max(1),
            column: column.max(1),
        },
        message: message.into(),
        help: help.into(),
    }
}
