//! `vercy resolve STORE --concept C --caller PARTY --host HOST.yaml`: the contract's read
//! path, printed for people or as `vercy-resolve/1`. Exit 0 answered, 1 abstained, refused or
//! empty (the store cannot answer this caller), 2 bad input.

use super::Outcome;
use crate::cli::{GlobalArgs, ResolveArgs, ResolveFormat};
use crate::error::Result;
use crate::html;
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
    if args.format != ResolveFormat::Human {
        output::machine_format();
    }
    super::write_to(args.output.as_deref(), &mut |out| match args.format {
        ResolveFormat::Json => writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&answer.to_json(args.explain)).unwrap_or_default()
        ),
        ResolveFormat::Human => {
            out.write_all(answer.human(&map).as_bytes())?;
            match args.explain {
                true => out.write_all(answer.explained_human().as_bytes()),
                false => Ok(()),
            }
        }
        ResolveFormat::Html => html::write(&[resolve::page::page(&answer, &map)], out),
    })?;
    Ok(match answer.outcome {
        AnswerOutcome::Answered => Outcome::Success,
        _ => Outcome::BelowLevel,
    })
}
