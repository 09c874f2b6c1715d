//! `vercy export STORE --to engrama|jsonl|json|compact [-o OUT] [--label L] [--map …]`:
//! read any store through the one reader and stream it to the chosen format's writer.

use super::Outcome;
use crate::cli::{ExportArgs, ExportFormat, GlobalArgs};
use crate::compact;
use crate::error::{Result, VercyError};
use crate::mapping::FieldMap;
use crate::output;
use crate::progress;
use crate::record::has_own_line;
use crate::store::engrama::DEFAULT_LABEL;
use crate::store::{self, Entry, Input, KeySelection, KeySlots, NonRecordLine};
use crate::write::copy::UnchangedRuns;
use crate::write::engrama::{EngramaWriter, NodeLines};
use crate::write::format::{write_line, EntryText, LineMaker, RecordLines, StoreWriter};
use crate::write::json_array::JsonArrayWriter;
use crate::write::jsonl::JsonlWriter;
use crate::write::target::WriteOptions;
use crate::write::Sink;

pub fn run(args: ExportArgs, _global: &GlobalArgs) -> Result<Outcome> {
    let map = FieldMap::parse(&args.map.map)?;
    let input = Input::new(&args.store).selecting(args.live.select());
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
        .fold(KeySelection::slots(KeySlots::default()), |keep, key| {
            keep.with(key)
        });
    let options = WriteOptions::from(&args.write);
    let (lines, mut writer): (Box<dyn LineMaker>, Box<dyn StoreWriter>) = match args.to {
        ExportFormat::Engrama => (
            Box::new(NodeLines::new(label, map, &input.display)),
            Box::new(EngramaWriter::default()),
        ),
        ExportFormat::Jsonl => (Box::new(RecordLines), Box::new(JsonlWriter::default())),
        ExportFormat::Json => (Box::new(RecordLines), Box::new(JsonArrayWriter::default())),
        ExportFormat::Compact => {
            return to_compact(
                &input,
                map,
                !args.map.map.is_empty(),
                args.output.as_deref(),
                &options,
            )
        }
    };
    let mut sink = Sink::open(args.output.as_deref(), &options)?;
    let bar = progress::bar(&input, "reading", true);
    let mut shown = 0;
    let mut open = true;
    let mut dump = false;
    // each entry's text is made on the decoding threads; an error making it counts only
    // while the output is open (after `| head` closed it, the rest is read and let go)
    let work = |entry: Entry| {
        let header = matches!(entry, Entry::NonRecord(NonRecordLine::EngramaHeader, _));
        let (Entry::Record(r) | Entry::NonRecord(_, r)) = &entry;
        let offset = r.origin.offset;
        let source = (r.spans.is_some() && has_own_line(r)).then_some((offset, r.raw.len()));
        Ok((header, offset, source, lines.prepare(entry)))
    };
    let mut runs = UnchangedRuns::new(&input, writer.writes_lines());
    store::read_parallel(&input, &keep, &work, &mut |(
        header,
        offset,
        source,
        piece,
    )| {
        dump |= header;
        if let Some(bar) = &bar {
            if offset >= shown {
                progress::show(bar, offset);
                shown = offset + progress::STEP;
            }
        }
        if open {
            let piece = piece?;
            open = match (source, &piece) {
                (Some((start, len)), EntryText::Line(_)) if runs.can_copy() => {
                    runs.take(start, len as u64, &mut sink)?
                }
                _ => runs.flush(&mut sink)? && writer.put(piece, &mut sink)?,
            };
        }
        Ok(())
    })?;
    if open && runs.flush(&mut sink)? {
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
fn to_compact(
    input: &Input,
    map: FieldMap,
    map_given: bool,
    output: Option<&str>,
    options: &WriteOptions,
) -> Result<Outcome> {
    let request = compact::Request {
        map,
        map_given,
        criteria: compact::criteria(None, None, None)?,
        policy_line: false,
        // no selection: the only table is an inverse map's supersedes, held in memory
        memory: crate::spill::DEFAULT_MEMORY,
    };
    let mut sink = Sink::open(output, options)?;
    let mut open = true;
    compact::write(input, &request, &mut |_, line| {
        if open {
            open = write_line(&mut sink, line)?;
        }
        Ok(())
    })?;
    sink.finish()?;
    Ok(Outcome::Success)
}
