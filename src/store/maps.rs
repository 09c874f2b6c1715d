//! The map a store's records read through: the one given (`--map`), or, when none was given,
//! the store's own. An engrama dump, known by its header (always its first entry), reads
//! through the engrama map; every other store through the map given (the identity when none).
//! The one place this rule is written: `check`, `compact` and `resolve` read through it, the
//! looking commands as record views ([`read_views`]).

use super::decode::keep::KeySelection;
use super::shape::engrama::{NonRecordLine, KIND_KEY};
use super::shape::{self, Entry, ScannedLine, Shape};
use super::source::Input;
use super::view::{RecordView, RoleSet, ViewPlan};
use crate::error::Result;
use crate::mapping::FieldMap;
use crate::record::Record;
use std::sync::OnceLock;

/// The maps one read may go through, before its first entry says which.
#[derive(Debug, Clone)]
pub struct Maps {
    given: FieldMap,
    /// The engrama map, when no map was given.
    engrama: Option<FieldMap>,
}

impl Maps {
    /// `map_given`: the map came from the user (else an engrama dump reads through its own).
    pub fn new(given: FieldMap, map_given: bool) -> Result<Maps> {
        let engrama = match map_given {
            true => None,
            false => Some(engrama_map()?),
        };
        Ok(Maps { given, engrama })
    }

    /// The map given (the identity when none was).
    pub fn given(&self) -> &FieldMap {
        &self.given
    }

    /// Every map the records may read through, the given one first: the keys a reader keeps
    /// must serve each.
    pub fn each(&self) -> impl Iterator<Item = &FieldMap> {
        std::iter::once(&self.given).chain(&self.engrama)
    }

    /// The store's own map, when this entry (a store's first) names one: an engrama dump's
    /// header does, when no map was given. `None`: the records read through the given map.
    pub fn own(&self, entry: &Entry) -> Option<&FieldMap> {
        match entry {
            Entry::NonRecord(NonRecordLine::EngramaHeader, _) => self.engrama.as_ref(),
            _ => None,
        }
    }
}

/// What a looking command reads of each record (a [`RoleSet`] and literal keys), planned for
/// every map the store may read through: the reader builds, of each record, only what the
/// plans read, and hands the command one [`RecordView`] a record.
#[derive(Debug, Clone)]
pub struct RoleReading {
    maps: Maps,
    given: ViewPlan,
    /// The plan through a store's own map, when none was given.
    own: Option<ViewPlan>,
    keep: KeySelection,
}

impl RoleReading {
    /// Read `roles` and the `literal` top-level keys through `maps`; with `sized`, each view
    /// sizes up every role as it is made ([`RecordView::counts`]).
    pub fn new(maps: Maps, roles: &RoleSet, literal: &[&'static str], sized: bool) -> RoleReading {
        // a dump's lines are scanned for the keys of the plan they read through, and for
        // their kind: its own map's plan, or the given map's when a map was given
        let kind: &[&str] = &[KIND_KEY];
        let given_kind = if maps.engrama.is_none() { kind } else { &[] };
        let given = ViewPlan::new(&maps.given, roles, literal, given_kind, sized);
        let own = maps
            .engrama
            .as_ref()
            .map(|map| ViewPlan::new(map, roles, literal, kind, sized));
        let reading = RoleReading {
            maps,
            given,
            own,
            keep: KeySelection::all(),
        };
        // a line is seen in place when no role is inverse under the map given (a role that is
        // neither one plain key nor one key inside one object is computed from the keys its
        // path reads); else the keys the roles start with are built, under every map
        let own_slots = reading.own.as_ref().and_then(ViewPlan::key_slots).cloned();
        match reading.given.key_slots() {
            Some(slots) => {
                let keep = KeySelection::slots(slots.clone());
                RoleReading {
                    keep: match own_slots {
                        Some(own) => keep.with_dump_slots(own),
                        None => keep,
                    },
                    ..reading
                }
            }
            None => reading.built(),
        }
    }

    /// The same roles, each record built: only the keys the roles start with, read through
    /// the map (for a command that keeps records, or reads them in order).
    pub fn built(self) -> RoleReading {
        let keep = KeySelection::keys(
            std::iter::once(&self.given)
                .chain(&self.own)
                .flat_map(ViewPlan::top_keys),
        );
        self.without_slots(keep)
    }

    /// The same roles, every record built whole (every key, and its text), for a command that
    /// also looks at the records themselves.
    pub fn whole_records(self) -> RoleReading {
        self.without_slots(KeySelection::all())
    }

    fn without_slots(self, keep: KeySelection) -> RoleReading {
        RoleReading {
            given: self.given.without_slots(),
            own: self.own.as_ref().map(ViewPlan::without_slots),
            keep,
            maps: self.maps,
        }
    }

    pub fn maps(&self) -> &Maps {
        &self.maps
    }

    /// The plan the records of a store read through: its own map's, when `entry` (a store's
    /// first) names one; `None`: the map given.
    fn own_plan(&self, entry: &Entry) -> Option<&ViewPlan> {
        self.maps.own(entry).and(self.own.as_ref())
    }

    /// The view of a record read by this reading (or kept from it) through `plan`.
    pub fn view<'a>(&'a self, plan: &'a ViewPlan, record: &'a Record) -> RecordView<'a> {
        plan.view(record, self.builds_fields())
    }

    /// The reader builds the keys the roles start with; with slots it builds none of them,
    /// and a record's fields are read from its text.
    fn builds_fields(&self) -> bool {
        !self.keep.has_slots()
    }

    /// The plan through the map given.
    pub fn given(&self) -> &ViewPlan {
        &self.given
    }
}

/// Read a looking command's records as views: `work` runs on each record's view on the
/// decoding threads, several at once, and `visit` gets what it returns in store order (see
/// [`super::read_parallel`]). Each record reads through the map given, or through the
/// store's own (an engrama dump's header settles it before any record); a JSON line the
/// reader's scanner takes is seen in place, built into nothing. Returns the shape and the
/// plan the records read through.
pub fn read_views<'r, T: Send>(
    input: &Input,
    reading: &'r RoleReading,
    work: &(dyn Fn(&RecordView<'_>) -> Result<T> + Sync),
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<(Shape, &'r ViewPlan)> {
    let settled: OnceLock<&ViewPlan> = OnceLock::new();
    let entry = |entry: Entry| -> Result<Option<T>> {
        match entry {
            Entry::Record(record) => {
                let plan = *settled.get_or_init(|| &reading.given);
                plan.with_view(&record, reading.builds_fields(), work)
                    .map(Some)
            }
            other => {
                if let Some(own) = reading.own_plan(&other) {
                    let _ = settled.set(own);
                }
                Ok(None)
            }
        }
    };
    // a line seen in place reads through the plan settled so far: a dump's header has come
    // through `entry` before any of its node lines
    let look = |line: ScannedLine| -> Result<Option<T>> {
        settled
            .get()
            .copied()
            .unwrap_or(&reading.given)
            .with_spans(line.text, line.spans, line.plain, line.origin, None, work)
            .map(Some)
    };
    let shape = shape::read(
        input,
        &reading.keep,
        Some(&look),
        &entry,
        &mut |done| match done {
            Some(done) => visit(done),
            None => Ok(()),
        },
    )?;
    Ok((shape, settled.get().copied().unwrap_or(&reading.given)))
}

/// The engrama map: the one an engrama dump reads through unless a map was given.
pub fn engrama_map() -> Result<FieldMap> {
    FieldMap::parse(&["engrama".to_string()])
}

/// The records of a store built as `reading` builds them (see [`RoleReading::built`]), in
/// store order, each handed on with the plan it reads through ([`RoleReading::view`] gives its
/// view); returns the shape and that plan.
pub fn read_mapped<'r>(
    input: &Input,
    reading: &'r RoleReading,
    visit: &mut (dyn FnMut(&'r ViewPlan, Record) -> Result<()> + Send),
) -> Result<(Shape, &'r ViewPlan)> {
    let mut plan = &reading.given;
    let shape = shape::read(input, &reading.keep, None, &Ok, &mut |entry| match entry {
        Entry::Record(record) => visit(plan, record),
        non_record => {
            if let Some(own) = reading.own_plan(&non_record) {
                plan = own;
            }
            Ok(())
        }
    })?;
    Ok((shape, plan))
}
