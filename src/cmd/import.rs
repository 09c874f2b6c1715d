//! `vercy import DUMP --into STORE [--purge] [--map …]`: read the dump whole (a bad line
//! anywhere refuses the import before anything is written), merge it into the store (see
//! `store::merge`), and replace the store atomically: temp file in its folder, fsync, rename.

use crate::cli::{GlobalArgs, ImportArgs};
use crate::error::{Result, VercyError};
use crate::mapping::FieldMap;
use crate::output;
use crate::store::merge::{Counts, Kind, Store};
use crate::store::{self, Entry, Input, Shape};
use crate::write::AtomicFile;
use crate::Outcome;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
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
    let dump = Input::new(&args.dump);
    let bar = progress_bar(&dump);
    let (dump_shape, entries) = read_whole(&dump, bar.as_ref())?;
    if let Some(bar) = &bar {
        bar.set_style(
            ProgressStyle::with_template("{spinner} merging into {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(args.into.clone());
        bar.enable_steady_tick(std::time::Duration::from_millis(100));
    }

    let target = Input::new(&args.into);
    let exists = match std::fs::metadata(&args.into) {
        Ok(meta) if meta.is_dir() => {
            return Err(VercyError::Directory {
                path: args.into.clone(),
            })
        }
        Ok(_) => true,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => return Err(target.read_error(&e)),
    };
    let (store_shape, existing) = if exists && !args.purge {
        store::read_all(&target)?
    } else {
        (Shape::Empty, Vec::new())
    };
    let kind = match Kind::of_store(&store_shape) {
        Some(Some(kind)) => kind,
        Some(None) => Kind::for_new_store(&dump_shape, &entries),
        None => {
            return Err(VercyError::argument(
                "--into",
                format!(
                    "{} is a {}; import merges into JSON lines",
                    args.into,
                    store_shape.name()
                ),
                format!(
                    "convert it first (`vercy export {} --to jsonl -o store.jsonl`) and import into that",
                    args.into
                ),
            ))
        }
    };

    let mut merged = Store::new(kind, map, existing);
    let counts = merged.merge(&dump_shape, entries, &dump.display)?;
    let write = merged.changed() || !exists || args.purge;
    if write {
        let mut file = AtomicFile::create(&args.into)?;
        merged.write(file.writer()).map_err(|e| VercyError::Write {
            path: args.into.clone(),
            reason: store::input_reason(&e),
        })?;
        file.commit()?;
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    output::notice(&summary(
        &dump.display,
        &args.into,
        merged.kind(),
        &counts,
        write,
    ));
    Ok(Outcome::Success)
}

/// Every entry of the dump, advancing the progress bar by the bytes read.
fn read_whole(dump: &Input, bar: Option<&ProgressBar>) -> Result<(Shape, Vec<Entry>)> {
    let mut entries = Vec::new();
    let shape = store::read(dump, &mut |entry| {
        if let Some(bar) = bar {
            let origin = match &entry {
                Entry::Record(r) | Entry::Aside(_, r) => r.origin,
            };
            bar.set_position(origin.offset);
        }
        entries.push(entry);
        Ok(())
    })?;
    Ok((shape, entries))
}

/// A bar by bytes read (a spinner for stdin), on stderr, when progress is enabled.
fn progress_bar(dump: &Input) -> Option<ProgressBar> {
    if !output::progress_enabled() {
        return None;
    }
    let size = dump
        .path
        .as_deref()
        .and_then(|p| std::fs::metadata(p).ok())
        .map(|m| m.len());
    let bar = match size {
        Some(len) => ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr())
            .with_style(
                ProgressStyle::with_template("reading {bar:30} {bytes}/{total_bytes} {eta}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            ),
        None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(
            ProgressStyle::with_template("reading {spinner} {bytes}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        ),
    };
    Some(bar)
}

fn summary(dump: &str, store: &str, kind: Kind, c: &Counts, written: bool) -> String {
    let mut s = format!(
        "vercy import: {dump} into {store}: {} added, {} updated, {} unchanged",
        c.added, c.updated, c.unchanged
    );
    if kind == Kind::Graph {
        s.push_str(&format!(
            "; {} relations ({} new), {} vectors ({} new)",
            c.relations, c.relations_new, c.vectors, c.vectors_new
        ));
    }
    if !written {
        s.push_str(&format!("; {} left as it was", Path::new(store).display()));
    }
    s
}
