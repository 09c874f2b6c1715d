//! The shards' facts merged into the report of the whole store: the places say, record by
//! record in store order, which shard holds it and the line it starts on in the store; each
//! shard's facts give its records in the shard's order (its own store order); the check's
//! own fold (`check::Fold`) takes them one by one, so every id, pointer, owner and conflict is
//! matched across shards exactly as one run over the store matches them, and the report is
//! that run's, in every format.
//!
//! Before a record is folded every input is held to the split: each shard's facts are there
//! once, were written by this vercy from the shard of this split (its size), whole (their end
//! line, as many records as the manifest says), and every shard was checked with the same
//! settings, through the split's map.
//!
//! Memory: the fold's (the check's index, with its budget), a line of the places, and two
//! batches of each shard's facts (each shard's are parsed ahead on a thread of its own).

use super::facts::{FactsReader, Settings};
use super::{shard_error, Manifest, MANIFEST, PLACES};
use crate::check::report::Report;
use crate::check::{Fold, Options, RecordFacts};
use crate::error::{Result, VercyError};
use crate::store::{Input, Shape};
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// A split to merge: its folder and manifest, and each shard's facts, in the manifest's order.
pub struct Merge {
    folder: PathBuf,
    manifest: Manifest,
    facts: Vec<FactsReader>,
    settings: Settings,
}

impl Merge {
    /// The split named by `split` (its folder, or its manifest) and the facts files given
    /// (none: each shard's `FILE.facts` beside it), held to the split.
    pub fn open(split: &str, given: &[String]) -> Result<Merge> {
        super::fixed_hashes()?;
        let path = Path::new(split);
        let (folder, manifest_path) = if path.is_dir() {
            (path.to_path_buf(), path.join(MANIFEST))
        } else {
            let folder = path.parent().unwrap_or(Path::new("")).to_path_buf();
            (folder, path.to_path_buf())
        };
        let manifest = Manifest::read(&manifest_path)?;
        let manifest_name = manifest_path.display().to_string();
        let paths: Vec<String> = if given.is_empty() {
            let default = |file: &str| folder.join(format!("{file}.facts"));
            let paths: Vec<PathBuf> = manifest.shards.iter().map(|s| default(&s.file)).collect();
            if let Some((shard, _)) = manifest
                .shards
                .iter()
                .zip(&paths)
                .find(|(_, p)| !p.exists())
            {
                return Err(missing(&manifest_name, &folder, &shard.file));
            }
            paths.iter().map(|p| p.display().to_string()).collect()
        } else {
            given.to_vec()
        };
        // each facts file to the shard it was checked from, by the shard's file name
        let mut facts: Vec<Option<FactsReader>> = manifest.shards.iter().map(|_| None).collect();
        for path in &paths {
            let reader = FactsReader::open(path)?;
            let checked = Path::new(&reader.header.store)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let Some(at) = manifest.shards.iter().position(|s| s.file == checked) else {
                return Err(shard_error(
                    path,
                    (1, 1),
                    format!(
                        "the facts of {}, which is no shard of {manifest_name}",
                        reader.header.store
                    ),
                    "give the facts of this split's shards only",
                ));
            };
            if let Some(first) = &facts[at] {
                return Err(shard_error(
                    path,
                    (1, 1),
                    format!(
                        "a second facts file of {checked} (the first: {})",
                        first.path
                    ),
                    "give each shard's facts once",
                ));
            }
            let shard = &manifest.shards[at];
            if reader.header.bytes != Some(shard.bytes) || reader.end.records != shard.records {
                return Err(shard_error(
                    path,
                    (1, 1),
                    format!(
                        "the facts of another {checked} ({} records, {} bytes) than the split's ({} records, {} bytes)",
                        reader.end.records,
                        reader.header.bytes.map_or("?".to_string(), |b| b.to_string()),
                        shard.records,
                        shard.bytes
                    ),
                    "check the split's shard again, or split the store again and check every shard",
                ));
            }
            facts[at] = Some(reader);
        }
        let mut readers = Vec::with_capacity(facts.len());
        for (shard, reader) in manifest.shards.iter().zip(facts) {
            readers.push(reader.ok_or_else(|| missing(&manifest_name, &folder, &shard.file))?);
        }
        let settings = match readers.first() {
            Some(first) => first.header.settings.clone(),
            None => Settings::of(&Options::with_map(&manifest.map)?, &manifest.map),
        };
        for reader in &readers {
            let theirs = &reader.header.settings;
            if theirs.map != manifest.map {
                return Err(shard_error(
                    &reader.path,
                    (1, 1),
                    format!(
                        "a shard checked through --map {:?}, split through --map {:?}",
                        theirs.map.join(","),
                        manifest.map.join(",")
                    ),
                    "check every shard with the --map the store was split with",
                ));
            }
            if *theirs != settings {
                return Err(shard_error(
                    &reader.path,
                    (1, 1),
                    format!(
                        "a shard checked with other settings than {}'s: {}",
                        readers[0].path,
                        theirs.differences(&settings)
                    ),
                    "check every shard with the same --policy, --min-level, --strict and --expected",
                ));
            }
        }
        Ok(Merge {
            folder,
            manifest,
            facts: readers,
            settings,
        })
    }

    /// Fold every record's facts in store order, and make the whole store's report.
    pub fn report(mut self) -> Result<Report> {
        let opts = self.settings.options()?;
        let places_path = self.folder.join(PLACES);
        let places_name = places_path.display().to_string();
        let read_error = |e: std::io::Error| VercyError::Read {
            path: places_name.clone(),
            reason: crate::error::io_reason(&e),
        };
        let places = std::fs::File::open(&places_path).map_err(read_error)?;
        let places = std::io::BufReader::with_capacity(1 << 16, places);
        // the places name shards by number, the facts are in the manifest's order
        let mut by_number = vec![
            usize::MAX;
            self.manifest
                .shards
                .iter()
                .map(|s| s.shard + 1)
                .max()
                .unwrap_or(0)
        ];
        for (at, shard) in self.manifest.shards.iter().enumerate() {
            by_number[shard.shard] = at;
        }
        let expected = usize::try_from(self.manifest.records).unwrap_or(usize::MAX);
        let records = self.manifest.records;
        let facts = std::mem::take(&mut self.facts);
        let fold = std::thread::scope(|scope| -> Result<Fold> {
            let mut shards: Vec<Ahead> =
                facts.into_iter().map(|f| Ahead::start(scope, f)).collect();
            let mut fold = Fold::default();
            let mut count = 0u64;
            for (at, text) in places.lines().enumerate() {
                let text = text.map_err(read_error)?;
                let bad_place = |why: &str| {
                    shard_error(
                        &places_name,
                        (at as u64 + 1, 1),
                        format!("{why}: {text:?}"),
                        "split the store again: its places were changed or cut",
                    )
                };
                let (shard, line) = parse_place(&text).ok_or_else(|| bad_place("not a place"))?;
                let shard = by_number
                    .get(shard)
                    .and_then(|&at| shards.get_mut(at))
                    .ok_or_else(|| bad_place("a place in no shard of the split"))?;
                let mut facts = shard.next()?.ok_or_else(|| {
                    shard_error(
                        &shard.path,
                        (shard.records + 1, 1),
                        "the facts end before the places do",
                        "split the store again and check every shard",
                    )
                })?;
                facts.set_line(line);
                fold.fold(&facts, &opts.map, expected);
                count += 1;
            }
            if count != records {
                return Err(shard_error(
                    &places_name,
                    (count + 1, 1),
                    format!("{count} places of the {records} records the split holds"),
                    "split the store again: its places were cut",
                ));
            }
            Ok(fold)
        })?;
        let shape = match self.manifest.shape.as_str() {
            "empty" => Shape::Empty,
            _ => Shape::JsonLines,
        };
        fold.report(&Input::new(&self.manifest.store), &opts, shape, &opts.map)
    }
}

/// Records a batch of a shard's facts holds: the merge takes them one shard at a time, in
/// the places' order, while each shard's thread parses its next batch.
const BATCH: usize = 512;

/// A shard's facts, parsed a batch ahead on a thread of its own: parsing the facts is most
/// of a merge's reading, and it runs beside the fold.
struct Ahead {
    path: String,
    records: u64,
    batches: std::sync::mpsc::Receiver<Result<Vec<RecordFacts>>>,
    batch: std::vec::IntoIter<RecordFacts>,
}

impl Ahead {
    fn start<'s>(scope: &'s std::thread::Scope<'s, '_>, mut reader: FactsReader) -> Ahead {
        let (path, records) = (reader.path.clone(), reader.end.records);
        // one batch waiting while the next is parsed: memory stays at two batches a shard
        let (send, batches) = std::sync::mpsc::sync_channel(1);
        scope.spawn(move || loop {
            let mut batch = Vec::with_capacity(BATCH);
            let read = loop {
                match reader.next() {
                    Ok(Some(facts)) if batch.len() + 1 < BATCH => batch.push(facts),
                    Ok(Some(facts)) => {
                        batch.push(facts);
                        break Ok(true);
                    }
                    Ok(None) => break Ok(false),
                    Err(e) => break Err(e),
                }
            };
            let more = matches!(read, Ok(true));
            let sent = match read {
                Ok(_) if batch.is_empty() => return,
                Ok(_) => send.send(Ok(batch)),
                Err(e) => send.send(Err(e)),
            };
            // the merge stopped (an error elsewhere), or this shard is done
            if sent.is_err() || !more {
                return;
            }
        });
        Ahead {
            path,
            records,
            batches,
            batch: Vec::new().into_iter(),
        }
    }

    /// The shard's next record's facts; `None` past its last.
    fn next(&mut self) -> Result<Option<RecordFacts>> {
        loop {
            if let Some(facts) = self.batch.next() {
                return Ok(Some(facts));
            }
            match self.batches.recv() {
                Ok(batch) => self.batch = batch?.into_iter(),
                Err(_) => return Ok(None),
            }
        }
    }
}

/// A place: the shard, and the line the record starts on in the store.
fn parse_place(text: &str) -> Option<(usize, u64)> {
    let (shard, line) = text.split_once(' ')?;
    Some((shard.parse().ok()?, line.parse().ok()?))
}

/// No facts were found for the shard `file` of the split in `folder`.
fn missing(manifest: &str, folder: &Path, file: &str) -> VercyError {
    let shard = folder.join(file).display().to_string();
    shard_error(
        manifest,
        (1, 1),
        format!("no facts for the shard {shard}"),
        format!("check it first: vercy check {shard} --facts {shard}.facts"),
    )
}
