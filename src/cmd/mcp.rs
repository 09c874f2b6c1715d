//! `vercy mcp`: serve the profile's tools to agents over stdio until stdin ends.

use super::Outcome;
use crate::error::Result;
use std::io;

pub fn run(args: crate::cli::McpArgs) -> Result<Outcome> {
    if let Some([base, head]) = args.diff.as_deref() {
        // stdin carries the protocol: neither side can be read from it
        if base == "-" || head == "-" {
            return Err(crate::error::VercyError::argument(
                "--diff",
                "stdin carries the protocol",
                "name the stores' files",
            ));
        }
        crate::mcp::tools::diff::configure(crate::mcp::tools::diff::DiffConfig {
            base: base.clone(),
            head: head.clone(),
            map: crate::mapping::FieldMap::parse(&args.map.map)?,
            map_given: !args.map.map.is_empty(),
        });
    }
    if let (Some(store), Some(host), Some(caller)) = (args.store, args.host, args.caller) {
        // checked before serving: a bad host file or a missing store is exit 2, not a broken tool
        if store == "-" {
            return Err(crate::error::VercyError::argument(
                "--store",
                "stdin carries the protocol",
                "name the store's file",
            ));
        }
        drop(crate::store::Input::new(&store).open()?);
        crate::mcp::tools::resolve::configure(crate::mcp::tools::resolve::ResolveConfig {
            map: crate::mapping::FieldMap::parse(&args.map.map)?,
            map_given: !args.map.map.is_empty(),
            host: crate::resolve::host::Host::load(&host)?,
            store,
            caller,
        });
    }
    crate::mcp::serve(io::stdin().lock(), io::stdout().lock())?;
    Ok(Outcome::Success)
}
