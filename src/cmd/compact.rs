//! `vercy compact STORE`: the store in the compact pipe line form, optionally only the records
//! a question needs (`--as-of`, `--concept`, `--reader`), with `--stats` on stderr.
//!
//! One pass when nothing needs the whole store first; two when it does (`--as-of` needs every
//! record's supersessors, `--policy-line` the store's policy before the first line, an inverse
//! supersedes map the pointers of the old records). The first pass keeps record ids only; stdin,
//! which cannot be read twice, is buffered instead.

use crate::cli::{CompactArgs, GlobalArgs};
use crate::error::{Result, VercyError};
use crate::mapping::FieldMap;
use crate::output;
use crate::profile::Profile;
use crate::record::{is_truthy, py_json, py_str, Record};
use crate::select::{self, Criteria, Supersession, SupersessionBuilder, Tally, Verdict};
use crate::store::compact::{self, Cell, Kind, LineWriter};
use crate::store::{self, Entry, Input, Keep, KeySlots, Shape};
use crate::time;
use crate::write::Sink;
use crate::Outcome;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::OnceLock;

pub fn run(args: CompactArgs, _global: &GlobalArgs) -> Result<Outcome> {
    let mut criteria = criteria(
        args.as_of.as_deref(),
        args.concept.clone(),
        args.reader.clone(),
    )?;
    criteria.known_at = match args.known_at.as_deref() {
        None => None,
        Some(text) => Some(time::parse_argument("--known-at", text)?),
    };
    let request = Request {
        map: FieldMap::parse(&args.map.map)?,
        map_given: !args.map.map.is_empty(),
        criteria,
        policy_line: args.policy_line,
    };
    let input = Input::new(&args.store).selecting(args.live.select());
    if input.path.is_some() {
        // a missing or unreadable store is an error before any output is written
        drop(input.open()?);
    }
    let mut out = Writer::new(
        Sink::open(args.output.as_deref(), &(&args.write).into())?,
        args.stats,
    );
    let done = write_lines(
        &input,
        &request,
        args.stats,
        &mut |record, text| match record {
            Some(record) => out.record(record, text),
            None => out.line(text),
        },
    )?;
    match (&request.criteria.reader, done.policy) {
        (_, Policy::Written | Policy::NotAsked) => {}
        (Some(party), Policy::Withheld) => output::notice(&format!(
            "vercy compact: the store's conflict policy is on a record whose release_to does not name {party:?}; --policy-line wrote none"
        )),
        _ => output::notice(
            "vercy compact: the store states no conflict policy; --policy-line wrote none",
        ),
    }

    let closed = out.closed;
    let stats = out.finish()?;
    if closed {
        return Ok(Outcome::Success);
    }
    report_selection(&request.criteria, &done.tally);
    if args.stats {
        output::print_stderr(&stats.table(&done.shape));
    }
    Ok(Outcome::Success)
}

/// What to compact: the map (and whether one was given: else an engrama dump reads through
/// the engrama map), the selection, and whether to add the store's policy line.
pub struct Request {
    pub map: FieldMap,
    pub map_given: bool,
    pub criteria: Criteria,
    pub policy_line: bool,
}

/// What [`write()`] did.
pub struct Written {
    pub shape: Shape,
    pub tally: Tally,
    /// What became of the `# conflict_policy:` line.
    pub policy: Policy,
}

/// The `# conflict_policy:` line: not asked for, written, or not written because the store
/// states no policy, or (with a reader) states it only on records not released to that reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    NotAsked,
    Written,
    None,
    Withheld,
}

/// The compact form of a store, line by line (without `\n`) through `emit`: the header, the
/// policy line when asked for, then each selected record's line. The library entry point:
/// `vercy compact` and the MCP server's `compact_records` both write through it. The first
/// argument of `emit` is always `None` here (see [`write_lines`]).
pub fn write(
    input: &Input,
    request: &Request,
    emit: &mut (dyn FnMut(Option<&Record>, &str) -> Result<()> + Send),
) -> Result<Written> {
    write_lines(input, request, false, emit)
}

/// [`write`]; with `with_records`, each record's line comes with its record (read whole), for
/// `--stats`. Without, each line is encoded on the decoding threads from only the fields the
/// form holds (borrowed from the line when the map reads plain keys) and only the finished
/// line reaches `emit`.
fn write_lines(
    input: &Input,
    request: &Request,
    with_records: bool,
    emit: &mut (dyn FnMut(Option<&Record>, &str) -> Result<()> + Send),
) -> Result<Written> {
    let (given, map_given, criteria) = (&request.map, request.map_given, &request.criteria);
    let order = &Profile::embedded().serialisation.field_order;
    let inverse_supersedes = given.inverse_path("supersedes").is_some();

    let maps = store::Maps::new(given.clone(), map_given)?;

    // the keys the roles read (every key, and the raw text, when records go on to --stats)
    let role_keep = match with_records {
        true => Keep::all(),
        false => Keep::keys(maps.each().flat_map(|map| role_keys(map, order))),
    };

    // First pass, when something needs the whole store before the first line.
    let mut first = FirstPass::default();
    // with a reader, the first pass also finds the ids withheld from them, which a visible
    // record's supersedes must not name either
    if criteria.needs_supersession()
        || request.policy_line
        || inverse_supersedes
        || criteria.reader.is_some()
    {
        let policy_for = request.policy_line.then_some(criteria.reader.as_deref());
        first = FirstPass::read(
            input,
            &role_keep,
            &maps,
            policy_for,
            criteria.known_at.as_ref(),
            criteria.reader.as_deref(),
        )?;
    }

    emit(None, &compact::header(order))?;
    let policy = match (request.policy_line, &first.policy) {
        (false, _) => Policy::NotAsked,
        (true, Some(text)) => {
            emit(
                None,
                &format!("# conflict_policy: {}", compact::escape(text, false)),
            )?;
            Policy::Written
        }
        (true, None) if first.policy_withheld => Policy::Withheld,
        (true, None) => Policy::None,
    };

    let encoder = Encoder {
        criteria,
        supersession: &first.supersession,
        inverse_supersedes,
        order,
        plain: Plain::new(
            given,
            order,
            criteria,
            inverse_supersedes,
            with_records || !first.hidden.is_empty(),
        ),
        hidden: &first.hidden,
        input_name: &input.display,
        engrama_keep: Keep::keys(role_keys(&store::engrama_map()?, order)),
    };
    let mut tally = Tally::default();
    let mut visit = |done: Option<Encoded>| -> Result<()> {
        let Some(done) = done else {
            return Ok(());
        };
        tally.count(done.verdict);
        match &done.line {
            Some(text) => emit(done.record.as_deref(), text),
            None => Ok(()),
        }
    };
    let shape = match first.buffered.take() {
        Some((shape, map, records)) => {
            for record in records {
                visit(Some(encoder.encode(&map, record, with_records)?))?;
            }
            shape
        }
        None => {
            let keep = encoder.keep(&role_keep);
            // the store's own map (an engrama dump's, unless `--map` was given), from its
            // header, which is worked on before any record
            let own_map: OnceLock<&FieldMap> = OnceLock::new();
            let work = |entry: Entry| -> Result<Option<Encoded>> {
                match entry {
                    Entry::Record(record) => match own_map.get() {
                        Some(map) if encoder.plain.is_some() => encoder
                            .encode(map, encoder.rebuild(record)?, false)
                            .map(Some),
                        Some(map) => encoder.encode(map, record, with_records).map(Some),
                        None => match &encoder.plain {
                            Some(plain) => encoder.encode_plain(plain, record).map(Some),
                            None => encoder.encode(given, record, with_records).map(Some),
                        },
                    },
                    aside => {
                        if let Some(own) = maps.own(&aside) {
                            let _ = own_map.set(own);
                        }
                        Ok(None)
                    }
                }
            };
            match &encoder.plain {
                // JSON lines the reader's scanner takes are looked at where they lie
                Some(plain) => {
                    let look = |view: store::View| encoder.encode_view(plain, view);
                    store::read_looking(input, &keep, &look, &work, &mut visit)?
                }
                None => store::read_parallel(input, &keep, &work, &mut visit)?,
            }
        }
    };
    Ok(Written {
        shape,
        tally,
        policy,
    })
}

/// One record, encoded: what selection said, its line when kept, and the record itself when
/// the caller asked for records.
struct Encoded {
    verdict: Verdict,
    line: Option<String>,
    record: Option<Box<Record>>,
}

/// Turns records into lines, on any thread.
struct Encoder<'a> {
    criteria: &'a Criteria,
    /// Ids of records withheld from the reader: taken out of the supersedes written.
    hidden: &'a HashSet<String>,
    supersession: &'a Supersession,
    inverse_supersedes: bool,
    order: &'a [String],
    /// Set when the line can be written straight from the record's text (see [`Plain`]).
    plain: Option<Plain>,
    input_name: &'a str,
    /// The keys the engrama map reads.
    engrama_keep: Keep,
}

/// The fast path: no inverse map, no records handed on, and a map that reads every field of
/// the order, and every role the selection asked for reads, from one plain top-level key. The
/// reader then builds nothing: it notes where each key's value lies in the line, the line is
/// written from those texts (a string without escapes, nearly every value, is copied as it
/// stands), and only the few values selection reads are decoded.
struct Plain {
    map: FieldMap,
    /// Every key read, each in its slot.
    keys: Vec<String>,
    slots: KeySlots,
    /// The slot of each field of the order.
    slot_of: Vec<usize>,
    /// How each field of the order is written.
    kinds: Vec<Kind>,
    /// The keys (and slots) of the roles selection reads; empty without a selection.
    select: Vec<(String, usize)>,
}

impl Plain {
    fn new(
        map: &FieldMap,
        order: &[String],
        criteria: &Criteria,
        inverse_supersedes: bool,
        with_records: bool,
    ) -> Option<Plain> {
        if inverse_supersedes || with_records {
            return None;
        }
        let key_of = |role: &str| map.path(role).single_key().map(str::to_string);
        let order_keys = order
            .iter()
            .map(|role| key_of(role))
            .collect::<Option<Vec<String>>>()?;
        let mut select_roles = Vec::new();
        if criteria.concept.is_some() {
            select_roles.push("concept");
        }
        if criteria.as_of.is_some() {
            select_roles.extend(["valid_from", "valid_to", "record_id"]);
        }
        if criteria.reader.is_some() {
            select_roles.push("release_to");
        }
        if criteria.known_at.is_some() {
            select_roles.extend(["recorded_at", "expired_at"]);
        }
        let mut select_keys = Vec::new();
        for role in select_roles {
            let key = key_of(role)?;
            if !select_keys.contains(&key) {
                select_keys.push(key);
            }
        }
        let mut keys = order_keys.clone();
        keys.extend(
            select_keys
                .iter()
                .filter(|k| !order_keys.contains(k))
                .cloned(),
        );
        let slots = KeySlots::new(keys.iter().map(String::as_str));
        let slot_of = order_keys
            .iter()
            .map(|k| slots.slot(k))
            .collect::<Option<Vec<usize>>>()?;
        let select = select_keys
            .into_iter()
            .map(|k| slots.slot(&k).map(|slot| (k, slot)))
            .collect::<Option<Vec<_>>>()?;
        Some(Plain {
            map: map.clone(),
            keys,
            slots,
            slot_of,
            kinds: order.iter().map(|f| compact::kind(f)).collect(),
            select,
        })
    }
}

impl Encoder<'_> {
    /// What the reader builds of each record: on the fast path nothing (the values' places
    /// in the line are noted instead), else `role_keep`: the keys the roles read.
    fn keep(&self, role_keep: &Keep) -> Keep {
        match &self.plain {
            // an engrama dump's node lines are decoded again from their text (`rebuild`)
            Some(plain) => Keep::slots(plain.slots.clone()),
            None => role_keep.clone(),
        }
    }

    /// A record the fast path's reader built nothing of, when the store turns out to be an
    /// engrama dump: the keys the engrama map reads, from the line's text (validated already).
    fn rebuild(&self, mut record: Record) -> Result<Record> {
        let keep = &self.engrama_keep;
        record.fields = match keep.decode_object(&record.raw) {
            Some(decoded) => decoded.fields,
            None => {
                let value: Value = serde_json::from_str(&record.raw).map_err(|e| {
                    store::json_error(self.input_name, &record.raw, record.origin.line, &e)
                })?;
                match value {
                    Value::Object(fields) => keep.trimmed(fields).fields,
                    _ => Map::new(),
                }
            }
        };
        record.spans = None;
        Ok(record)
    }

    /// Judge a record read through `map` and write its line when kept.
    fn encode(&self, map: &FieldMap, record: Record, with_record: bool) -> Result<Encoded> {
        let verdict = select::judge(self.criteria, map, self.supersession, &record);
        let line = (verdict == Verdict::Keep).then(|| {
            record_line(
                &record,
                map,
                self.supersession,
                self.inverse_supersedes,
                self.order,
                self.hidden,
            )
        });
        Ok(Encoded {
            verdict,
            line,
            record: with_record.then(|| Box::new(record)),
        })
    }

    /// The fast path (see [`Plain`]) for a record the reader built: from its values' places
    /// when it has them, else from its fields.
    fn encode_plain(&self, plain: &Plain, record: Record) -> Result<Encoded> {
        if record.spans.is_some() {
            return self.encode_texts(
                plain,
                |slot| record.span_text(slot),
                &record.raw,
                record.origin.line,
            );
        }
        // decoded whole (a store's first line, an array element, a compact line): when the
        // reader kept none of the keys, they are in the line's text
        if plain.keys.iter().any(|k| record.fields.contains_key(k)) {
            return self.encode(&plain.map, record, false);
        }
        match serde_json::from_str::<Value>(&record.raw) {
            Ok(Value::Object(fields)) => {
                let whole = Record::new(fields, "", record.origin);
                self.encode(&plain.map, whole, false)
            }
            _ => self.encode(&plain.map, record, false),
        }
    }

    /// The fast path for a JSON line the reader's scanner took: judged and written from the
    /// values' texts where they lie in the line, nothing built, nothing copied but the line.
    fn encode_view(&self, plain: &Plain, view: store::View) -> Result<Option<Encoded>> {
        self.encode_texts(plain, |slot| view.slot_text(slot), view.text, view.line)
            .map(Some)
    }

    /// Judge and write a record from each key's JSON text, by slot (`text_of`); `whole` and
    /// `line_no` are the record's text and line, for an error.
    fn encode_texts<'t>(
        &self,
        plain: &Plain,
        text_of: impl Fn(usize) -> Option<&'t str>,
        whole: &str,
        line_no: u64,
    ) -> Result<Encoded> {
        let verdict = match plain.select.is_empty() {
            true => Verdict::Keep,
            false => {
                // only the values selection reads are built
                let mut fields = Map::new();
                for (key, slot) in &plain.select {
                    if let Some(text) = text_of(*slot) {
                        let value: Value = serde_json::from_str(text)
                            .map_err(|e| store::json_error(self.input_name, whole, line_no, &e))?;
                        fields.insert(key.clone(), value);
                    }
                }
                let record = Record::new(fields, "", Default::default());
                select::judge(self.criteria, &plain.map, self.supersession, &record)
            }
        };
        let line = match verdict {
            Verdict::Keep => Some(self.line_from_texts(plain, &text_of, whole, line_no)?),
            _ => None,
        };
        Ok(Encoded {
            verdict,
            line,
            record: None,
        })
    }

    /// A line from each field's JSON text, by slot (`text_of`); `whole` and `line_no` are the
    /// record's text and line, for an error.
    fn line_from_texts<'t>(
        &self,
        plain: &Plain,
        text_of: &impl Fn(usize) -> Option<&'t str>,
        whole: &str,
        line_no: u64,
    ) -> Result<String> {
        let mut line = String::with_capacity(whole.len());
        let mut writer = LineWriter::new(&mut line);
        for (&slot, &kind) in plain.slot_of.iter().zip(&plain.kinds) {
            self.raw_cell(&mut writer, text_of(slot), kind, whole, line_no)?;
        }
        writer.finish();
        Ok(line)
    }

    /// Write one field from its JSON text (`None`: absent): a string without escapes is taken
    /// as it stands (nearly every value), null is null, anything else is decoded first.
    fn raw_cell(
        &self,
        writer: &mut LineWriter,
        text: Option<&str>,
        kind: Kind,
        whole: &str,
        line_no: u64,
    ) -> Result<()> {
        match text {
            None => writer.cell(Cell::Absent, kind),
            Some("null") => writer.cell(Cell::Value(&Value::Null), kind),
            Some(t)
                if t.len() >= 2
                    && t.starts_with('"')
                    && memchr::memchr(b'\\', t.as_bytes()).is_none() =>
            {
                writer.cell(Cell::Text(&t[1..t.len() - 1]), kind)
            }
            Some(t) => {
                let value: Value = serde_json::from_str(t)
                    .map_err(|e| store::json_error(self.input_name, whole, line_no, &e))?;
                writer.cell(Cell::Value(&value), kind);
            }
        }
        Ok(())
    }
}

/// The top-level keys the roles of the order, selection and the first pass read through a map.
fn role_keys(map: &FieldMap, order: &[String]) -> Vec<String> {
    let roles = order.iter().map(String::as_str).chain([
        "record_id",
        "concept",
        "valid_from",
        "valid_to",
        "release_to",
        "supersedes",
        "conflict_policy",
        "recorded_at",
        "expired_at",
    ]);
    let mut keys = Vec::new();
    for role in roles {
        let path = map.path(role);
        keys.extend(path.top_keys().map(str::to_string));
        if let Some(forward) = map.inverse_path(role) {
            keys.extend(forward.top_keys().map(str::to_string));
        }
    }
    keys
}

/// An input that cannot be read a second time (stdin, a pipe, a process substitution): its
/// records are kept from the first pass instead.
fn read_once(input: &Input) -> bool {
    match &input.path {
        None => true,
        Some(path) => std::fs::metadata(path).map_or(true, |m| !m.is_file()),
    }
}

/// The selection asked for, checked: a date that parses (the one date parser), a party that
/// is not empty. Errors name the CLI flag (`--as-of`, `--reader`).
pub fn criteria(
    as_of: Option<&str>,
    concept: Option<String>,
    reader: Option<String>,
) -> Result<Criteria> {
    let as_of = match as_of {
        None => None,
        Some(text) => Some(time::parse_argument("--as-of", text)?),
    };
    if reader.as_deref() == Some("") {
        return Err(VercyError::argument(
            "--reader",
            "the party is empty",
            "name the party exactly as release_to lists it (--reader finance)",
        ));
    }
    Ok(Criteria {
        as_of,
        concept,
        reader,
        known_at: None,
    })
}

/// What the first pass learns: who supersedes whom, the store's policy, and (inputs that read
/// once only) the records themselves with the map they read through.
#[derive(Default)]
struct FirstPass {
    supersession: Supersession,
    /// With a reader: the ids of the records not released to them.
    hidden: HashSet<String>,
    /// The first truthy conflict_policy the reader may see.
    policy: Option<String>,
    /// A policy exists, but only on records not released to the reader.
    policy_withheld: bool,
    buffered: Option<(Shape, FieldMap, Vec<Record>)>,
}

impl FirstPass {
    /// `keep_keys`: what the reader builds of each record (and what buffered records hold).
    /// `policy_for`: find the policy, for this reader (`Some(None)`: no reader, anyone).
    /// With a reader, the policy is taken only from a record whose release_to names them:
    /// absence is never permission, for the policy line too.
    fn read(
        input: &Input,
        keep_keys: &Keep,
        maps: &store::Maps,
        policy_for: Option<Option<&str>>,
        known_at: Option<&time::Timestamp>,
        hide_from: Option<&str>,
    ) -> Result<Self> {
        let mut hidden = HashSet::new();
        let mut builder: Option<SupersessionBuilder> = None;
        let mut policy = None;
        let mut policy_withheld = false;
        let mut records = Vec::new();
        let mut last_map = maps.given().clone();
        let keep = read_once(input);
        let (shape, _) = store::read_mapped(input, keep_keys, maps, &mut |map, record| {
            if let Some(party) = hide_from {
                if !select::releases_to(map.get("release_to", &record.fields).as_deref(), party) {
                    hidden.extend(select::record_id(map, &record));
                }
            }
            // a record the store did not know yet at --known-at supersedes nothing
            if known_at.is_none_or(|t| select::known_at(map, &record, t)) {
                builder
                    .get_or_insert_with(|| SupersessionBuilder::new(map))
                    .observe(&record);
            }
            if let (Some(reader), None) = (policy_for, &policy) {
                if let Some(text) = map
                    .get("conflict_policy", &record.fields)
                    .filter(|v| is_truthy(v))
                    .map(|v| py_str(&v))
                {
                    let released = reader.is_none_or(|party| {
                        select::releases_to(map.get("release_to", &record.fields).as_deref(), party)
                    });
                    if released {
                        policy = Some(text);
                    } else {
                        policy_withheld = true;
                    }
                }
            }
            if keep {
                if records.is_empty() {
                    last_map = map.clone();
                }
                records.push(record);
            }
            Ok(())
        })?;
        Ok(FirstPass {
            supersession: builder.map(SupersessionBuilder::finish).unwrap_or_default(),
            policy,
            policy_withheld,
            hidden,
            buffered: keep.then_some((shape, last_map, records)),
        })
    }
}

/// A record's compact line: each role of the order read through the map. With an inverse
/// supersedes map the supersedes field is derived from the old records' pointers, so the line
/// form (which has no inverse) still says who supersedes whom.
fn record_line(
    record: &Record,
    map: &FieldMap,
    supersession: &Supersession,
    inverse_supersedes: bool,
    order: &[String],
    hidden: &HashSet<String>,
) -> String {
    let values: Vec<Option<Cow<Value>>> = order
        .iter()
        .map(|role| {
            if role == "supersedes" && inverse_supersedes {
                let ids: Vec<String> = select::record_id(map, record)
                    .map(|id| supersession.superseded_by_record(&id).to_vec())
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|id| !hidden.contains(id))
                    .collect();
                return match ids.len() {
                    0 => None,
                    1 => Some(Cow::Owned(Value::String(ids[0].clone()))),
                    _ => Some(Cow::Owned(Value::Array(
                        ids.into_iter().map(Value::String).collect(),
                    ))),
                };
            }
            match map.get(role, &record.fields) {
                Some(v) if role == "supersedes" && !hidden.is_empty() => without_hidden(v, hidden),
                other => other,
            }
        })
        .collect();
    let mut line = String::new();
    compact::write_line(
        &mut line,
        values.iter().zip(order).map(|(v, field)| {
            let cell = v.as_deref().map_or(Cell::Absent, Cell::Value);
            (cell, field.as_str())
        }),
    );
    line
}

/// A supersedes value without the ids of records withheld from the reader (a visible
/// record's pointer must not name what the reader may not see); `None` when nothing is left.
fn without_hidden<'v>(value: Cow<'v, Value>, hidden: &HashSet<String>) -> Option<Cow<'v, Value>> {
    match value.as_ref() {
        Value::Array(items) => {
            let kept: Vec<Value> = items
                .iter()
                .filter(|i| !hidden.contains(&py_str(i)))
                .cloned()
                .collect();
            match (kept.len(), items.len()) {
                (0, _) => None,
                (k, n) if k == n => Some(value),
                _ => Some(Cow::Owned(Value::Array(kept))),
            }
        }
        v if hidden.contains(&py_str(v)) => None,
        _ => Some(value),
    }
}

/// Writes lines to the sink and counts characters for `--stats`. After a closed pipe it
/// writes nothing more (the rest of the input is still read, quietly).
struct Writer {
    sink: Sink,
    closed: bool,
    stats: Option<Stats>,
}

impl Writer {
    fn new(sink: Sink, stats: bool) -> Self {
        Writer {
            sink,
            closed: false,
            stats: stats.then(Stats::default),
        }
    }

    /// One line of output; `\n` is added.
    fn line(&mut self, text: &str) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        if !self.sink.write(text.as_bytes())? || !self.sink.write(b"\n")? {
            self.closed = true;
            return Ok(());
        }
        if let Some(s) = &mut self.stats {
            s.compact_chars += text.chars().count() + 1;
        }
        Ok(())
    }

    fn record(&mut self, record: &Record, text: &str) -> Result<()> {
        self.line(text)?;
        if let (Some(s), false) = (&mut self.stats, self.closed) {
            s.observe(record);
        }
        Ok(())
    }

    fn finish(self) -> Result<Stats> {
        self.sink.finish()?;
        Ok(self.stats.unwrap_or_default())
    }
}

/// Characters of the records written, in JSON lines and in the compact form.
#[derive(Debug, Default)]
struct Stats {
    records: usize,
    /// Each record's own line as read, plus its `\n` (JSON lines and engrama dumps).
    raw_chars: usize,
    /// Each record as Python's `json.dumps` writes it, plus `\n` (other shapes).
    dumped_chars: usize,
    /// Everything written: header, policy line, record lines, each with its `\n`.
    compact_chars: usize,
}

impl Stats {
    fn observe(&mut self, record: &Record) {
        self.records += 1;
        self.raw_chars += record.raw.chars().count() + 1;
        let mut text = String::new();
        py_json(&Value::Object(record.fields.clone()), &mut text);
        self.dumped_chars += text.chars().count() + 1;
    }

    /// The seed's table, for this store.
    fn table(&self, shape: &Shape) -> String {
        let jsonl = match shape {
            Shape::JsonLines | Shape::Engrama => self.raw_chars,
            _ => self.dumped_chars,
        };
        let saving = if jsonl == 0 {
            "-".to_string()
        } else {
            format!(
                "{:.1}%",
                100.0 * (1.0 - self.compact_chars as f64 / jsonl as f64)
            )
        };
        let plural = if self.records == 1 { "" } else { "s" };
        format!(
            "{} record{plural} written\n\
             | serialisation | characters | saving |\n\
             |---|---|---|\n\
             | one JSON object per line | {jsonl} | - |\n\
             | compact line form | {} | {saving} |\n",
            self.records, self.compact_chars
        )
    }
}

/// A value as Python's `json.dumps(value, ensure_ascii=False)` writes it (separators `, ` and
/// `: `), for counting the JSON-lines characters of a store that was not read as JSON lines.
/// What selection left out, on stderr (suppressed by --quiet).
fn report_selection(criteria: &Criteria, tally: &Tally) {
    let records = |n: usize| format!("{n} record{}", if n == 1 { "" } else { "s" });
    if criteria.as_of.is_some() && tally.undated > 0 {
        output::notice(&format!(
            "vercy compact: left out {} whose valid_from is missing or not a date (or whose valid_to is not a date): never in force",
            records(tally.undated)
        ));
    }
    if criteria.known_at.is_some() && tally.not_known > 0 {
        output::notice(&format!(
            "vercy compact: left out {} not recorded by --known-at (or expired by then, or without a readable recorded_at)",
            records(tally.not_known)
        ));
    }
    if let Some(party) = &criteria.reader {
        output::notice(&format!(
            "vercy compact: withheld {} without release_to naming {party:?}",
            records(tally.withheld)
        ));
    }
    if criteria.as_of.is_some()
        || criteria.concept.is_some()
        || criteria.reader.is_some()
        || criteria.known_at.is_some()
    {
        output::notice(&format!(
            "vercy compact: wrote {} of {}",
            tally.kept,
            records(tally.read)
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_json_text() {
        let v: Value = serde_json::from_str(
            r#"{"a": [1, 1.50, 1E2, true, null], "é\n": "q\"\\\u0001\t", "e": {}, "l": []}"#,
        )
        .unwrap();
        let mut s = String::new();
        py_json(&v, &mut s);
        assert_eq!(
            s,
            r#"{"a": [1, 1.5, 100.0, true, null], "é\n": "q\"\\\u0001\t", "e": {}, "l": []}"#
        );
    }
}
