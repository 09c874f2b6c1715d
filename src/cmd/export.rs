//! `vercy export STORE --to engrama|jsonl|json|compact [-o OUT] [--label L] [--map …]`:
//! read any store through the one reader and stream it to the chosen format's writer.

use crate::cli::{ExportArgs, ExportFormat, GlobalArgs};
use crate::cmd::compact as cmd_compact;
use crate::cmd::import::{progress_bar, PROGRESS_STEP};
use crate::error::{Result, VercyError};
use crate::mapping::FieldMap;
use crate::output;
use crate::store::engrama::{EngramaWriter, NodeLines, DEFAULT_LABEL};
use crate::store::json_array::JsonArrayWriter;
use crate::store::jsonl::JsonlWriter;
use crate::store::writer::{write_line, LineMaker, RecordLines, StoreWriter};
use crate::store::{self, Aside, Entry, Input, Keep, KeySlots};
use crate::write::Sink;
use crate::Outcome;

pub fn run(args: ExportArgs, _global: &GlobalArgs) -> Result<Outcome> {
    let map = FieldMap::parse(&args.map.map)?;
    let input = Input::new(&args.store);
    let label = match args.label.as_deref() {
        Some(l) if l.trim().is_empty() || l.contains(|c: char| c.is_whitespace()) => {
            return Err(VercyError::argument(
                "--label",
                format!("{l:?} is not an engrama label"),
                "name one node label without spaces, such as Concept, Decision or Project",
            ))
        }
        Some(l) => l,
        None => DEFAULT_LABEL,
    };
    if args.label.is_some() && args.to != ExportFormat::Engrama {
        output::notice("vercy export: --label only applies to --to engrama; ignored");
    }
    // Records are written back as their own bytes: the reader builds only the keys that
    // node lines read (the record_id), and checks the rest of each record without building it.
    let keep = map
        .path("record_id")
        .top_keys()
        .fold(Keep::slots(KeySlots::default()), |keep, key| keep.with(key));
    let (lines, mut writer): (Box<dyn LineMaker>, Box<dyn StoreWriter>) = match args.to {
        ExportFormat::Engrama => (
            Box::new(NodeLines::new(label, map, &input.display)),
            Box::new(EngramaWriter::default()),
        ),
        ExportFormat::Jsonl => (Box::new(RecordLines), Box::new(JsonlWriter::default())),
        ExportFormat::Json => (Box::new(RecordLines), Box::new(JsonArrayWriter::default())),
        ExportFormat::Compact => {
            return compact(
                &input,
                map,
                !args.map.map.is_empty(),
                args.output.as_deref(),
            )
        }
    };
    let mut sink = Sink::open(args.output.as_deref())?;
    let bar = progress_bar(&input);
    let mut shown = 0;
    let mut open = true;
    let mut dump = false;
    // each entry's text is made on the decoding threads; an error making it counts only
    // while the output is open (after `| head` closed it, the rest is read and let go)
    let work = |entry: Entry| {
        let header = matches!(entry, Entry::Aside(Aside::EngramaHeader, _));
        let offset = match &entry {
            Entry::Record(r) | Entry::Aside(_, r) => r.origin.offset,
        };
        Ok((header, offset, lines.prepare(entry)))
    };
    store::read_parallel(&input, &keep, &work, &mut |(header, offset, piece)| {
        dump |= header;
        if let Some(bar) = &bar {
            if offset >= shown {
                bar.set_position(offset);
                shown = offset + PROGRESS_STEP;
            }
        }
        if open {
            open = writer.put(piece?, &mut sink)?;
        }
        Ok(())
    })?;
    if open {
        writer.finish(&mut sink)?;
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    sink.finish()?;
    if dump && args.label.is_some() && args.to == ExportFormat::Engrama {
        output::notice(
            "vercy export: --label applies to flat records; an engrama dump keeps its own labels",
        );
    }
    let dropped = writer.dropped();
    if dropped.relations + dropped.vectors > 0 {
        output::notice(&format!(
            "vercy export: {} relation and {} vector lines not written (only --to engrama carries them)",
            dropped.relations, dropped.vectors
        ));
    }
    Ok(Outcome::Success)
}

/// `--to compact`: exactly what `vercy compact STORE` writes, through the same entry point.
fn compact(input: &Input, map: FieldMap, map_given: bool, output: Option<&str>) -> Result<Outcome> {
    let request = cmd_compact::Request {
        map,
        map_given,
        criteria: cmd_compact::criteria(None, None, None)?,
        policy_line: false,
    };
    let mut sink = Sink::open(output)?;
    let mut open = true;
    cmd_compact::write(input, &request, &mut |_, line| {
        if open {
            open = write_line(&mut sink, line)?;
        }
        Ok(())
    })?;
    sink.finish()?;
    Ok(Outcome::Success)
}
