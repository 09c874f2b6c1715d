//! `vercy split STORE --shards N -o DIR`: the shards' paths on stdout, one a line, for a job
//! runner to check.

use super::Outcome;
use crate::check::shard::split;
use crate::cli::SplitArgs;
use crate::error::Result;
use crate::output;
use crate::store::Input;
use std::path::Path;

pub fn run(args: SplitArgs) -> Result<Outcome> {
    let folder = Path::new(&args.output);
    let manifest = split::split(&Input::new(&args.store), &args.map.map, args.shards, folder)?;
    output::write_stdout(|out| {
        for shard in &manifest.shards {
            writeln!(out, "{}", folder.join(&shard.file).display())?;
        }
        Ok(())
    })?;
    Ok(Outcome::Success)
}
