//! The reference checker's rules, rule for rule (vercy 0.2.0, `vercy check`), driven by the
//! profile: which fields make each level, which apply to rule or restricted records, which are
//! SHOULD. Presence only; the values are judged in `values.rs`.
//!
//! The work is split in two so a store of millions of records can be checked on every core:
//! [`ReferenceRules::facts`] reads one record without touching shared state (records are read
//! in parallel), [`ReferenceRules::fold`] adds those facts to the tally, in store order.
//!
//! Memory: one pass, keeping only the offending records (the report lists them all), 4 bytes
//! each per field: a record is kept by `who`, the number the value checks name it by, so its
//! name is kept once however many fields it lacks. For an inverse-mapped role, the ids
//! pointed at and the names of the records waiting on them. Each grows at most by one entry
//! per record: linear, and nothing else grows with the store.

use super::index::id_text::RecordName;
use super::index::names::{NamesAhead, RecordNames};
use super::roles;
use super::table::Names;
use crate::mapping::{FieldMap, FieldPath};
use crate::profile::{Applies, CountsWhen, Field, Profile};
use crate::store::{Presence, PresenceBits, RecordView, Role};
use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

/// The one offender of the missing-policy finding.
pub const NO_POLICY: &str = "no conflict policy anywhere in the store";

/// A requirement some records did not meet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub field: String,
    pub requirement: String,
    pub offenders: Offenders,
    /// The line of the first offender (0: not known, or no record is named).
    pub first_line: u64,
}

/// The records a finding is about, in store order: each by `who`, 4 bytes a record whatever
/// its name (the names are the value checks' `RecordNames`, kept once for the whole
/// report), then the few named by text alone (an inverse field's offenders, known only at
/// the end; the store's missing policy). Shared, not copied, when the report hands it on.
#[derive(Debug, Clone, Default)]
pub struct Offenders(Arc<OffenderList>);

#[derive(Debug, Default)]
struct OffenderList {
    who: Vec<u32>,
    /// The names of `who` (`None` when it is empty).
    names: Option<Arc<RecordNames>>,
    texts: Names,
}

impl Offenders {
    pub fn one(name: &str) -> Offenders {
        let mut texts = Names::default();
        texts.push(name);
        Offenders(Arc::new(OffenderList {
            texts,
            ..OffenderList::default()
        }))
    }

    pub fn len(&self) -> usize {
        self.0.who.len() + self.0.texts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn first(&self) -> Option<RecordName<'_>> {
        self.iter().next()
    }

    /// The offenders' names, in order (those named by `who` read a batch ahead: a finding
    /// can name most of the store).
    pub fn iter(&self) -> impl Iterator<Item = RecordName<'_>> + '_ {
        self.range(0..self.len())
    }

    /// The names of the offenders in `range` (by their place in [`Self::iter`]), in order.
    pub fn range(&self, range: Range<usize>) -> impl Iterator<Item = RecordName<'_>> + '_ {
        let list = &*self.0;
        let by_who = list.who.len();
        let mut ahead = list
            .names
            .as_deref()
            .map(|names| NamesAhead::new(names, &list.who));
        let texts = range.start.max(by_who)..range.end.max(by_who);
        (range.start.min(by_who)..range.end.min(by_who))
            .map_while(move |k| ahead.as_mut().map(|a| a.get(k).0))
            .chain(texts.map(move |k| RecordName::Text(list.texts.get(k - by_who))))
    }
}

impl PartialEq for Offenders {
    fn eq(&self, other: &Offenders) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Offenders {}

/// Per-field state while the store streams past.
struct FieldState {
    field: &'static Field,
    role: Role,
    /// The role's path read forwards when it is an inverse pointer (`~replaced_by`).
    inverse: Option<FieldPath>,
    /// The records that lack the field, by `who`.
    offenders: Vec<u32>,
    /// The line of the first record that offends (0: none yet).
    first_line: u64,
    /// For a `~inverse` role: (name, record_id) of records that lack it unless pointed at.
    deferred: Vec<(String, String)>,
}

/// What the rules need from one record (serialised: a shard's facts, `check/shard/`).
#[derive(Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RuleFacts<'a> {
    /// The name the reference gives the record: its id, borrowed from the record when it can
    /// be; `None` for a record without one, which the reference names `#index` (see
    /// [`unnamed`]: the fold knows the index).
    pub name: Option<Cow<'a, str>>,
    /// Bit i: field i's requirement is met by this record (present, or filled).
    met: u64,
    /// Bit i: field i holds a filled, truthy value (the once-per-store policy test).
    truthy: u64,
    states_rule: bool,
    restricted: bool,
    /// For inverse roles (a map such as `supersedes=~replaced_by`; boxed, as few maps have
    /// them and the facts cross from core to core): what the record points at, and its id.
    inverse: Option<Box<InverseFacts>>,
}

/// A record's side of an inverse role: the ids it points at, and its own id.
#[derive(Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct InverseFacts {
    pointed: Vec<String>,
    own_id: String,
}

impl RuleFacts<'_> {
    /// The facts with nothing borrowed, to travel to the thread that folds them.
    pub fn into_owned(self) -> RuleFacts<'static> {
        RuleFacts {
            name: self.name.map(|n| Cow::Owned(n.into_owned())),
            ..self
        }
    }
}

/// Which fields a record must meet, by how they apply, as bit sets over `fields` (bit i:
/// field i): the fold tests a record against them in a few operations rather than field by
/// field.
#[derive(Debug, Clone, Copy, Default)]
struct AppliesTo {
    every_record: u64,
    rule_records: u64,
    restricted_records: u64,
    once_per_store: u64,
    /// Every-record fields read through an inverse role (their offenders wait for the end).
    inverse: u64,
}

/// How [`ReferenceRules::facts`] reads a record whose roles count as bit sets ([`PresenceBits`]):
/// by field, its role's bit and whether it counts only when filled (else when present); and
/// the markers' bits.
#[derive(Debug, Clone)]
struct CountPlan {
    fields: Vec<(u32, bool)>,
    rule_markers: u32,
    restriction_markers: u32,
}

pub struct ReferenceRules {
    profile: &'static Profile,
    applies: AppliesTo,
    /// `None` when some field or marker cannot be read from the bit sets (an inverse role, a
    /// role past them).
    count_plan: Option<CountPlan>,
    map: FieldMap,
    /// The checker's markers: a record states a rule, or is restricted, when it fills one.
    rule_markers: Vec<Role>,
    restriction_markers: Vec<Role>,
    record_id: Role,
    fields: Vec<FieldState>,
    /// ids named by inverse pointers (`supersedes=~replaced_by`): one entry per pointer, so
    /// linear in the store.
    pointed_at: HashSet<String>,
    policy_in_records: bool,
    restricted: usize,
    records: usize,
    /// About how many records the store holds (0: unknown), to size the lists of offenders
    /// once their first records show how often each field is missing.
    expected: usize,
}

/// Records folded before the lists of offenders are sized (see `expect_records`).
const SIZING_AFTER: usize = 2048;

impl ReferenceRules {
    pub fn new(map: FieldMap) -> Self {
        let profile = Profile::embedded();
        let fields: Vec<FieldState> = profile
            .fields
            .iter()
            .filter(|f| !f.is_experimental())
            .map(|field| FieldState {
                field,
                role: roles::named(field.id.as_str()),
                inverse: map.inverse_path(&field.id),
                offenders: Vec::new(),
                first_line: 0,
                deferred: Vec::new(),
            })
            .collect();
        assert!(fields.len() <= 64, "the profile's fields fit a u64 bit set");
        let markers = |names: &'static [String]| -> Vec<Role> {
            names.iter().map(|m| roles::named(m.as_str())).collect()
        };
        let mut applies = AppliesTo::default();
        for (i, state) in fields.iter().enumerate() {
            let set = match state.field.check.applies {
                Applies::EveryRecord if state.inverse.is_some() => &mut applies.inverse,
                Applies::EveryRecord => &mut applies.every_record,
                Applies::OncePerStore => &mut applies.once_per_store,
                Applies::RuleRecords => &mut applies.rule_records,
                Applies::RestrictedRecords => &mut applies.restricted_records,
                Applies::Register => continue,
            };
            *set |= 1 << i;
        }
        let rule_markers = markers(&profile.checker.rule_markers);
        let restriction_markers = markers(&profile.checker.restriction_markers);
        let count_plan = Self::count_plan(&fields, &rule_markers, &restriction_markers);
        ReferenceRules {
            profile,
            applies,
            count_plan,
            map,
            rule_markers,
            restriction_markers,
            record_id: roles::named("record_id"),
            fields,
            pointed_at: HashSet::new(),
            policy_in_records: false,
            restricted: 0,
            records: 0,
            expected: 0,
        }
    }

    /// How to read these fields and markers from the bit sets, if every one of them is in
    /// them.
    fn count_plan(
        fields: &[FieldState],
        rule_markers: &[Role],
        restriction_markers: &[Role],
    ) -> Option<CountPlan> {
        let bit = |role: Role| Some(PresenceBits::bit(role)).filter(|&bit| bit != 0);
        let bits = |roles: &[Role]| -> Option<u32> {
            roles
                .iter()
                .try_fold(0, |set, &role| Some(set | bit(role)?))
        };
        let fields = fields
            .iter()
            .map(|state| {
                let non_empty = state.field.check.counts_when == CountsWhen::NonEmpty;
                state.inverse.is_none().then_some(())?;
                Some((bit(state.role)?, non_empty))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(CountPlan {
            fields,
            rule_markers: bits(rule_markers)?,
            restriction_markers: bits(restriction_markers)?,
        })
    }

    /// The store holds about `records` records: once the first of them are folded, each list
    /// of offenders is sized for the whole store in proportion, so the long lists (a SHOULD
    /// field most records lack) do not grow by doubling, copying themselves each time and
    /// leaving the old buffer behind for a while.
    pub fn expect_records(&mut self, records: usize) {
        self.expected = records;
    }

    fn size_offenders(&mut self) {
        let (seen, expected) = (self.records, self.expected);
        if expected <= seen {
            return;
        }
        for state in &mut self.fields {
            let more = state.offenders.len().saturating_mul(expected - seen) / seen;
            state.offenders.reserve(more);
        }
    }

    pub fn map(&self) -> &FieldMap {
        &self.map
    }

    /// The roles these rules read (the profile's fields and the checker's markers).
    pub fn role_names() -> Vec<&'static str> {
        let profile = Profile::embedded();
        let checker = &profile.checker;
        profile
            .fields
            .iter()
            .filter(|f| !f.is_experimental())
            .map(|f| f.id.as_str())
            .chain(checker.rule_markers.iter().map(String::as_str))
            .chain(checker.restriction_markers.iter().map(String::as_str))
            .chain(["record_id"])
            .collect()
    }

    fn name<'a>(roles: &'a RecordView, record_id: Role) -> Option<Cow<'a, str>> {
        if roles.presence(record_id) != Presence::Truthy {
            return None;
        }
        roles.filled_str(record_id)
    }

    /// Read one record (no shared state: safe to run on many records at once).
    pub fn facts<'a>(&self, roles: &'a RecordView) -> RuleFacts<'a> {
        if let (Some(counts), Some(plan)) = (roles.counts(), &self.count_plan) {
            return self.facts_counted(roles, counts, plan);
        }
        let mut facts = RuleFacts {
            name: Self::name(roles, self.record_id),
            met: 0,
            truthy: 0,
            states_rule: self
                .rule_markers
                .iter()
                .any(|&m| roles.presence(m).is_filled()),
            restricted: self
                .restriction_markers
                .iter()
                .any(|&m| roles.presence(m).is_filled()),
            inverse: None,
        };
        for (i, state) in self.fields.iter().enumerate() {
            if let Some(path) = &state.inverse {
                // an inverse role is read across the store, and only for every-record fields
                if state.field.check.applies != Applies::EveryRecord {
                    continue;
                }
                let inverse = facts.inverse.get_or_insert_default();
                if let Some(v) = roles.path(path) {
                    let mut ids = HashSet::new();
                    v.collect_ids(&mut ids);
                    inverse.pointed.extend(ids);
                }
                inverse.own_id = roles
                    .filled(self.record_id)
                    .map(|v| v.py_str())
                    .unwrap_or_default();
                continue;
            }
            let presence = roles.presence(state.role);
            let met = match state.field.check.counts_when {
                CountsWhen::Present => presence.is_present(),
                CountsWhen::NonEmpty => presence.is_filled(),
            };
            if met {
                facts.met |= 1 << i;
            }
            // the reference tests the policy with Python truthiness (`any(...)`)
            if presence == Presence::Truthy {
                facts.truthy |= 1 << i;
            }
        }
        facts
    }

    /// [`Self::facts`] from the bit sets of how the record's roles count: the same facts, a few
    /// operations a field.
    fn facts_counted<'a>(
        &self,
        roles: &'a RecordView,
        counts: PresenceBits,
        plan: &CountPlan,
    ) -> RuleFacts<'a> {
        let (mut met, mut truthy) = (0u64, 0u64);
        for (i, &(bit, non_empty)) in plan.fields.iter().enumerate() {
            let counted = if non_empty {
                counts.filled
            } else {
                counts.present
            };
            met |= u64::from(counted & bit != 0) << i;
            // the reference tests the policy with Python truthiness (`any(...)`)
            truthy |= u64::from(counts.truthy & bit != 0) << i;
        }
        RuleFacts {
            name: Self::name(roles, self.record_id),
            met,
            truthy,
            states_rule: counts.filled & plan.rule_markers != 0,
            restricted: counts.filled & plan.restriction_markers != 0,
            inverse: None,
        }
    }

    /// Add one record's facts, in store order; `name` is what the reference calls it (its
    /// id, or [`unnamed`]); `line` is where it starts; `who` names it as the value checks
    /// do (asked only when the record lacks a field).
    pub fn fold(&mut self, facts: &RuleFacts, name: &str, line: u64, who: &mut dyn FnMut() -> u32) {
        self.records += 1;
        if self.records == SIZING_AFTER {
            self.size_offenders();
        }
        if facts.restricted {
            self.restricted += 1;
        }
        let own_id = match &facts.inverse {
            Some(inverse) => {
                self.pointed_at.extend(inverse.pointed.iter().cloned());
                inverse.own_id.as_str()
            }
            None => "",
        };
        let applies = self.applies;
        let mut must = applies.every_record;
        if facts.states_rule {
            must |= applies.rule_records;
        }
        if facts.restricted {
            must |= applies.restricted_records;
        }
        let mut named = None;
        for i in bits(must & !facts.met) {
            let state = &mut self.fields[i];
            if state.first_line == 0 {
                state.first_line = line;
            }
            state.offenders.push(*named.get_or_insert_with(&mut *who));
        }
        if facts.truthy & applies.once_per_store != 0 {
            self.policy_in_records = true;
        }
        for i in bits(applies.inverse) {
            self.fields[i]
                .deferred
                .push((name.to_string(), own_id.to_string()));
        }
    }

    pub fn records(&self) -> usize {
        self.records
    }

    pub fn has_policy_in_records(&self) -> bool {
        self.policy_in_records
    }

    /// The level reached and the findings, in the reference's order: the fields of the levels
    /// tried (stopping at the first that fails), then the rule fields, then the SHOULD fields.
    /// `names` are the value checks' names of the records, by `who`.
    pub fn finish(
        mut self,
        policy_outside_records: bool,
        names: &Arc<RecordNames>,
    ) -> (u8, Vec<Finding>) {
        if self.records == 0 {
            return (0, Vec::new());
        }
        // each field's list moves into the report (a field may be asked for twice: shared)
        let lists: Vec<(&str, Offenders, u64)> = self
            .fields
            .iter_mut()
            .map(|s| {
                let mut texts = Names::default();
                for (name, id) in std::mem::take(&mut s.deferred) {
                    if id.is_empty() || !self.pointed_at.contains(&id) {
                        texts.push(&name);
                    }
                }
                let who = std::mem::take(&mut s.offenders);
                let list = OffenderList {
                    names: (!who.is_empty()).then(|| Arc::clone(names)),
                    who,
                    texts,
                };
                (s.field.id.as_str(), Offenders(Arc::new(list)), s.first_line)
            })
            .collect();
        let offenders = |field: &Field| -> Offenders {
            lists
                .iter()
                .find(|(id, ..)| *id == field.id)
                .map(|(_, list, _)| list.clone())
                .unwrap_or_default()
        };
        let finding = |field: &Field, offenders: Offenders| Finding {
            field: field.id.clone(),
            requirement: field.check.label.clone(),
            // a deferred (inverse) offender's line is not kept: the first one folded stands
            first_line: lists
                .iter()
                .find(|(id, ..)| *id == field.id)
                .filter(|(_, list, _)| list.first() == offenders.first())
                .map_or(0, |(.., line)| *line),
            offenders,
        };
        let mut findings = Vec::new();
        let mut reached = 0;
        for level in 1..=self.profile.top_level() {
            let mut ok = true;
            for field in self.profile.level_fields(level) {
                let missing = match field.check.applies {
                    Applies::OncePerStore if !policy_outside_records && !self.policy_in_records => {
                        Offenders::one(NO_POLICY)
                    }
                    Applies::OncePerStore => Offenders::default(),
                    Applies::RestrictedRecords if self.restricted == 0 => Offenders::default(),
                    _ => offenders(field),
                };
                if !missing.is_empty() {
                    findings.push(finding(field, missing));
                    ok = false;
                }
            }
            if !ok {
                break;
            }
            reached = level;
        }
        for field in self.profile.rule_fields() {
            let missing = offenders(field);
            if !missing.is_empty() {
                findings.push(finding(field, missing));
                if reached >= 2 {
                    reached = 1;
                }
            }
        }
        for field in self.profile.should_fields() {
            let missing = offenders(field);
            if !missing.is_empty() {
                findings.push(finding(field, missing));
            }
        }
        (reached, findings)
    }
}

/// The numbers of the bits set in `set`, lowest first.
fn bits(mut set: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let i = (set != 0).then(|| set.trailing_zeros() as usize)?;
        set &= set - 1;
        Some(i)
    })
}

/// The name the reference gives the record at `index` that has no id.
pub fn unnamed(index: usize) -> String {
    format!("#{index}")
}
