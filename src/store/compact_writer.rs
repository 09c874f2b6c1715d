//! `--to compact`: the profile's field order through the field map, written by the one compact
//! codec ([`super::compact::header`] and [`super::compact::line`]), as `vercy compact` writes.

use super::compact;
use super::writer::{write_line, Dropped, StoreWriter};
use super::Entry;
use crate::error::Result;
use crate::mapping::FieldMap;
use crate::write::Sink;
use serde_json::Value;

pub struct CompactWriter {
    order: Vec<String>,
    map: FieldMap,
    started: bool,
    dropped: Dropped,
}

impl CompactWriter {
    pub fn new(map: FieldMap) -> Self {
        CompactWriter {
            order: crate::profile::Profile::embedded()
                .serialisation
                .field_order
                .clone(),
            map,
            started: false,
            dropped: Dropped::default(),
        }
    }

    fn start(&mut self, sink: &mut Sink) -> Result<bool> {
        if self.started {
            return Ok(true);
        }
        self.started = true;
        write_line(sink, &compact::header(&self.order))
    }
}

impl StoreWriter for CompactWriter {
    fn entry(&mut self, entry: Entry, sink: &mut Sink) -> Result<bool> {
        let record = match entry {
            Entry::Record(r) => r,
            Entry::Aside(kind, _) => {
                self.dropped.count(kind);
                return Ok(true);
            }
        };
        if !self.start(sink)? {
            return Ok(false);
        }
        let values: Vec<_> = self
            .order
            .iter()
            .map(|role| self.map.get(role, &record.fields))
            .collect();
        let refs: Vec<Option<&Value>> = values.iter().map(|v| v.as_deref()).collect();
        write_line(sink, &compact::line(&refs, &self.order))
    }

    fn finish(&mut self, sink: &mut Sink) -> Result<bool> {
        self.start(sink)
    }

    fn dropped(&self) -> Dropped {
        self.dropped
    }
}
