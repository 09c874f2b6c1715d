//! `vercy decay`: deprecated (DDR-007). It changes nothing, whatever it is given.
//!
//! Legacy cron scripts still call it with the old flags (`--rate/-r`, `--min-confidence/-c`,
//! `--max-age/-a`, `--label`, `--dry-run`), an optional store path, and whatever else they
//! pass. It prints one deprecation notice on stderr, opens the store read-only if there is one
//! and reports on stdout what the old job would have done and what it left behind
//! ([`crate::decay`]), and exits 0. It never writes: no store, no temporary file, no lock.

use super::Outcome;
use crate::cli::{Cli, DecayArgs, GlobalArgs};
use crate::decay::{report, survey, Legacy};
use crate::output;
use crate::store::Input;
use crate::time;
use clap::CommandFactory;

const NOTICE: &str = "warning: `vercy decay` is deprecated and changes nothing: stored confidence no longer \
decays and nothing is archived automatically (DDR-007). Recency is computed when reading: run \
`vercy recency STORE` (and `vercy status` for its settings). This command will be removed in a later \
minor release.";

pub fn run(args: DecayArgs, _global: &GlobalArgs) -> crate::error::Result<Outcome> {
    // the notice is the point of this command: --quiet does not silence it
    output::print_stderr(&format!("{NOTICE}\n"));
    let legacy = Legacy::parse(&args.args);
    if legacy.help {
        let mut cmd = Cli::command();
        cmd.build(); // so the usage line reads `vercy decay`
        if let Some(decay) = cmd.find_subcommand_mut("decay") {
            let _ = output::print_stdout(&format!("{}\n", decay.render_long_help()));
        }
        return Ok(Outcome::Success);
    }
    let Some(path) = legacy.store.clone() else {
        return Ok(Outcome::Success);
    };
    let input = Input::new(&path);
    match survey(&input, &legacy, &time::now()) {
        Ok(found) => {
            let _ = output::print_stdout(&report(&path, &legacy, &found));
        }
        Err(e) => {
            // not a notice: --quiet does not silence it; the path can hold any character
            let text = format!("vercy decay: {e}; nothing was read or changed");
            output::print_stderr(&format!("{}\n", crate::text::terminal_safe(&text)));
        }
    }
    Ok(Outcome::Success)
}
