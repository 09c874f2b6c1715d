//! One file per subcommand, each a short composition of the library's parts.

pub mod check;
pub mod compact;
pub mod completions;
pub mod decay;
pub mod export;
pub mod import;
pub mod map;
pub mod mcp;
pub mod profile;
pub mod recency;
pub mod resolve;
pub mod status;
