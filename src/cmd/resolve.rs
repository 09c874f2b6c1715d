//! `vercy resolve STORE --concept C --caller PARTY --host HOST.yaml`: the contract's read
//! path, printed for people or as `vercy-resolve/1`. Exit 0 answered, 1 abstained, refused or
//! empty (the store cannot answer this caller), 2 bad input.

use super::Outcome;
use crate::cli::{DataFormat, GlobalArgs, ResolveArgs};
use crate::error::Result;
use crate::mapping::FieldMap;
use crate::output;
use crate::resolve::answer::AnswerOutcome;
use crate::resolve::{self, host::Host, Question};
use crate::store::Input;

pub fn run(args: ResolveArgs, _global: &GlobalArgs) -> Result<Outcome> {
    let map = FieldMap::parse(&args.map.map)?;
    let host = Host::load(&args.host)?;
    let question = Question {
        concept: args.concept,
        as_of: args.as_of,
        known_at: args.known_at,
        scope: args.scope,
        caller: args.caller,
    };
    let input = Input::new(&args.store);
    let answer = resolve::resolve(&input, &map, !args.map.map.is_empty(), &host, &question)?;
    match args.format {
        DataFormat::Json => {
            output::machine_format();
            output::print_stdout(
                &(serde_json::to_string_pretty(&answer.to_json()).unwrap_or_default() + "\n"),
            )?
        }
        DataFormat::Human => output::print_stdout(&answer.human(&map))?,
    }
    Ok(match answer.outcome {
        AnswerOutcome::Answered => Outcome::Success,
        _ => Outcome::BelowLevel,
    })
}
