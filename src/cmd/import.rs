//! `vercy import DUMP --into STORE [--purge] [--map …]`: load the store, stream the dump
//! through the merge (see `import`; a bad line anywhere refuses the import before
//! anything is written), then replace the store atomically: temp file in its folder, fsync,
//! rename, all under the store's lock (see `write::target`).

use super::Outcome;
use crate::cli::{GlobalArgs, ImportArgs};
use crate::error::{Result, VercyError};
use crate::import::{ImportCounts, Plan, Store, StoreKind};
use crate::mapping::FieldMap;
use crate::output;
use crate::progress;
use crate::store::Input;
use crate::write::target;
use indicatif::ProgressStyle;
use std::path::Path;

pub fn run(args: ImportArgs, _global: &GlobalArgs) -> Result<Outcome> {
    let map = FieldMap::parse(&args.map.map)?;
    if args.into == "-" || args.into.is_empty() {
        return Err(VercyError::argument(
            "--into",
            "the store must be a file",
            "name the JSONL store to merge into (it is created if missing)",
        ));
    }
    let dump = Input::new(&args.dump).selecting(args.live.select());
    let into = Input::new(&args.into);
    if into.is_database() {
        return Err(VercyError::argument(
            "--into",
            format!("{} is a database", into.display),
            "vercy does not write other programs' schemas: import into a JSONL store \
             (`--into store.jsonl`), and load that with the program that owns the database \
             (for engrama: `vercy export store.jsonl --to engrama -o dump.ndjson`, then \
             `engrama import dump.ndjson`)",
        ));
    }
    // Claimed before it is read, and held until the merged store has replaced it: a second
    // writer waits for the whole read–merge–rename cycle (see `write::lock`). Through a
    // symbolic link the store is the file it points to; a device or a FIFO holds no store
    // and is written through.
    let claim = target::claim(Path::new(&args.into), &(&args.write).into())?;
    let exists = claim.exists;
    let (out, _lock) = claim.into_parts();
    let path = out.path();
    let target = into.reading_file(path);

    // The store as it is (its kind from its first entry); a missing or purged store is empty.
    let plan = Plan::new(map.clone(), &dump.display);
    let mut store: Option<Store> = None;
    if exists && !args.purge {
        let (loaded, shape) = Store::load_file(&target, path, &plan)?;
        if !StoreKind::mergeable(&shape) {
            return Err(VercyError::argument(
                "--into",
                format!("{} is a {}; import merges into JSON lines", args.into, shape.name()),
                format!(
                    "convert it first (`vercy export {} --to jsonl -o store.jsonl`) and import into that",
                    args.into
                ),
            ));
        }
        store = loaded;
        if let Some(store) = &mut store {
            store.settle()?;
        }
    }

    // The dump streams through the merge; a new store takes its kind from the dump's first
    // entry. Nothing replaces the store before the whole dump has been read.
    let bar = progress::bar(&dump, "reading", true);
    let mut counts = ImportCounts::default();
    let mut shown = 0;
    Store::merge_file(&mut store, &dump, path, &plan, &mut counts, &mut |offset| {
        // the bar moves a block at a time (drawing it per line would cost more than the line)
        if let Some(bar) = &bar {
            if offset >= shown {
                progress::show(bar, offset);
                shown = offset + progress::STEP;
            }
        }
    })?;
    let merged = store.unwrap_or_else(|| Store::new(StoreKind::Flat, map, path, None));
    if let Some(bar) = &bar {
        bar.set_style(
            ProgressStyle::with_template("{spinner} writing {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(crate::text::terminal_safe(&args.into).into_owned());
        bar.enable_steady_tick(std::time::Duration::from_millis(100));
    }
    let write = merged.changed() || !exists || args.purge;
    let kind = merged.kind();
    if write {
        merged.write()?;
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    output::notice(&summary(&dump.display, &args.into, kind, &counts, write));
    Ok(Outcome::Success)
}

fn summary(dump: &str, store: &str, kind: StoreKind, c: &ImportCounts, written: bool) -> String {
    let mut s = format!(
        "vercy import: {dump} into {store}: {} added, {} updated, {} unchanged",
        c.added, c.updated, c.unchanged
    );
    if kind == StoreKind::Graph {
        s.push_str(&format!(
            "; {} relations ({} new), {} vectors ({} new)",
            c.relations, c.relations_new, c.vectors, c.vectors_new
        ));
    }
    if c.as_nodes > 0 {
        s.push_str(&format!(
            "; {} flat records went in as {} nodes (key_value = record_id; `vercy export --to engrama --label L` first to choose the label)",
            c.as_nodes,
            crate::store::engrama::DEFAULT_LABEL
        ));
    }
    if !written {
        s.push_str(&format!("; {} left as it was", Path::new(store).display()));
    }
    s
}
