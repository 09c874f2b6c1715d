//! `resolve`: which record holds for a concept, on a date, for a caller — the enforcement
//! contract's read path (ENFORCEMENT-CONTRACT.md draft 0.3, `ver-cy/vercy-py`; DESIGN.md,
//! "resolve"). The steps run in the contract's order, one module each: [`validity`],
//! [`applicability`], [`supersession`], [`precedence`], and [`disclosure`] last, applied by
//! [`answer::Answer::disclose`], the boundary every output goes through.
//!
//! Authority comes from the [`host`] file only: a record is authoritative for its concept when
//! its writer in the host's write log is the concept's owner in the host's register.
//!
//! The store is read once, through the one reader, and only the records of the concept are
//! kept (a small subset); the write log is then read for those records' ids only.

pub mod answer;
pub mod applicability;
pub mod disclosure;
pub mod host;
pub mod page;
pub mod precedence;
pub mod supersession;
pub mod validity;

use crate::error::Result;
use crate::mapping::FieldMap;
use crate::record::Record;
use crate::select::{self, SelectRoles};
use crate::store::{self, Input, RoleReading, RoleSet, ViewPlan};
use crate::time::{self, Timestamp};
use answer::{Answer, Asked, Code, Decision, Reasons};
use disclosure::Access;
use host::Host;
use std::collections::HashSet;
use validity::{Dates, ValidityVerdict};

/// One question: the concept, the dates and scope, the caller; store and host come with it.
#[derive(Debug, Clone)]
pub struct Question {
    pub concept: String,
    /// Valid time; the host clock when not given.
    pub as_of: Option<String>,
    /// Transaction time: the store as it was known then.
    pub known_at: Option<String>,
    pub scope: Vec<String>,
    pub caller: String,
}

/// A record of the concept, with what the steps read of it.
#[derive(Debug)]
pub struct Candidate {
    pub record: Record,
    pub id: Option<String>,
    /// How outputs name it: its record_id, or `#N` (its index in the store).
    pub name: String,
    pub authoritative: bool,
    pub access: Access,
    pub dates: Dates,
    pub validity: ValidityVerdict,
    pub recorded_at: Option<Timestamp>,
    /// The `value` role, for telling whether top records disagree.
    pub value: Option<serde_json::Value>,
}

/// Answer `question` from the store `input` (read through `map`; an engrama dump through the
/// engrama map unless `map_given`), with the authority of `host`.
pub fn resolve(
    input: &Input,
    map: &FieldMap,
    map_given: bool,
    host: &Host,
    question: &Question,
) -> Result<Answer> {
    let as_of_text = match &question.as_of {
        Some(t) => t.clone(),
        None => store::engrama::exported_at_now(),
    };
    let as_of = parse_date("as_of", &as_of_text)?;
    let known_at = match &question.known_at {
        Some(t) => Some(parse_date("known_at", t)?),
        None => None,
    };
    let (records, map) = records_of(input, map, map_given, &question.concept, known_at.as_ref())?;
    let plan = ViewPlan::fields(&map);
    let id_of =
        |record: &Record| select::record_id(&SelectRoles::by_name(), &plan.view(record, true));
    let ids: HashSet<String> = records.iter().filter_map(id_of).collect();
    let writers = host.writers_of(&ids)?;
    let owner = host.owner_of(&question.concept);
    let readers = host.readers_for(&question.caller);
    let all: Vec<Candidate> = records
        .into_iter()
        .map(|record| {
            let id = id_of(&record);
            let dates = Dates::read(&map, &record);
            Candidate {
                name: id
                    .clone()
                    .unwrap_or_else(|| format!("#{}", record.origin.index)),
                authoritative: match (&id, owner) {
                    (Some(id), Some(owner)) => writers.get(id).is_some_and(|w| w == owner),
                    _ => false,
                },
                access: disclosure::access(&map, &record, host, &readers),
                validity: validity::judge(&dates, &as_of),
                dates,
                recorded_at: map
                    .get("recorded_at", &record.fields)
                    .and_then(|v| time::parse_value(&v).ok()),
                value: map
                    .get("value", &record.fields)
                    .filter(|v| crate::record::is_filled(v))
                    .map(|v| v.into_owned()),
                id,
                record,
            }
        })
        .collect();
    let (decision, reasons) = decide(&map, &all, &question.scope, &host.policy);
    let asked = Asked {
        store: input.display.clone(),
        concept: question.concept.clone(),
        as_of: as_of_text,
        known_at: question.known_at.clone(),
        scope: question.scope.clone(),
        caller: question.caller.clone(),
    };
    Ok(Answer::disclose(asked, &map, &all, decision, reasons))
}

/// Steps 1 to 4, in order.
fn decide(
    map: &FieldMap,
    all: &[Candidate],
    scope: &[String],
    policy: &[host::Rule],
) -> (Decision, Reasons) {
    let mut reasons = Reasons::default();
    let mut alive: Vec<usize> = Vec::new();
    for (i, c) in all.iter().enumerate() {
        match c.validity {
            ValidityVerdict::Expired => reasons.add(Code::Expired, [i]),
            ValidityVerdict::Unknown => {
                reasons.add(Code::ValidityUnknown, [i]);
                alive.push(i);
            }
            ValidityVerdict::Valid => alive.push(i),
        }
    }
    alive.retain(|&i| {
        let applies = applicability::applies(map, &all[i].record, scope);
        if !applies {
            reasons.add(Code::OutOfScope, [i]);
        }
        applies
    });
    if alive.is_empty() {
        return (Decision::Empty, reasons);
    }
    let superseded = supersession::apply(map, all, &alive);
    reasons.add(Code::Superseded, superseded.superseded.iter().copied());
    reasons.add(
        Code::UnauthorizedSupersession,
        superseded.unauthorized.iter().copied(),
    );
    alive.retain(|i| !superseded.superseded.contains(i));
    let ranked = precedence::rank(all, &alive, policy);
    reasons.add(Code::UnauthorizedPrecedence, ranked.unauthorized);
    if ranked.no_authoritative {
        reasons.flag(Code::NoAuthoritativeRecord);
    }
    (
        Decision::Ranked {
            ranking: ranked.ranking,
            candidates: alive,
        },
        reasons,
    )
}

/// The records whose concept role is `concept` (and, with `known_at`, that the store knew
/// then), read once; and the map they read through.
fn records_of(
    input: &Input,
    given: &FieldMap,
    map_given: bool,
    concept: &str,
    known_at: Option<&Timestamp>,
) -> Result<(Vec<Record>, FieldMap)> {
    let maps = store::Maps::new(given.clone(), map_given)?;
    let set = RoleSet::new(select::ROLES);
    let roles = SelectRoles::of(&set);
    let reading = RoleReading::new(maps, &set, &[], false).whole_records();
    let mut kept = Vec::new();
    let (_, plan) = store::read_mapped(input, &reading, &mut |plan, record| {
        let view = reading.view(plan, &record);
        let wanted = select::holds_concept(&roles, &view, concept)
            && known_at.is_none_or(|t| select::known_at(&roles, &view, t));
        drop(view);
        if wanted {
            kept.push(record);
        }
        Ok(())
    })?;
    Ok((kept, plan.map().clone()))
}

fn parse_date(what: &str, text: &str) -> Result<Timestamp> {
    time::parse_argument(&format!("--{}", what.replace('_', "-")), text)
}
