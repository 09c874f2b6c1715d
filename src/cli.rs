//! The command line, and nothing else: clap definitions for every subcommand.
//! Man pages and shell completions are generated from these same definitions.

use crate::formats::Format as ReportFormat;
use crate::output::When;
use clap::{Args, Parser, Subcommand, ValueEnum};

pub const EXIT_CODES: &str = "\
Exit codes:
  0  success (check: every store reaches the level asked for)
  1  check: a store is below --min-level, or holds no records
  2  an input could not be read, or the arguments are wrong
  130 interrupted (Ctrl-C)";

#[derive(Debug, Parser)]
#[command(
    name = "vercy",
    version,
    about = "Check, compact, export and import agent-memory stores against the Vercy additive profile",
    long_about = "vercy rates JSON and JSONL memory stores (Graphiti and Zep edges, mem0 memories, engrama dumps, \
plain tables) against the additive profile's levels 1-3, writes them in the compact line form, and moves them \
between formats with every timestamp intact.",
    after_help = EXIT_CODES,
    propagate_version = true,
    // a unique prefix of a long option is the option, as the reference's argparse reads them
    infer_long_args = true,
    // a flag given twice is the flag, the value given last wins (argparse's reading too)
    args_override_self = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// Parse the process arguments like `try_parse`, except that nothing after `decay` can make
    /// the parse fail: legacy cron scripts pass flags that no longer exist or values that no
    /// longer parse (even `--color=bogus`), and `decay` must still run and exit 0.
    pub fn parse_lenient() -> Result<Cli, clap::Error> {
        Cli::parse_lenient_from(std::env::args_os())
    }

    pub fn parse_lenient_from<I, T>(args: I) -> Result<Cli, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
        // decay's arguments are never read as options: a legacy flag that is a prefix of one
        // (`--h`, `--q`) must not become `--help` or `--quiet`
        if let Some(cli) = decay_args_untouched(&args) {
            return Ok(cli);
        }
        match Cli::try_parse_from(&args) {
            Err(e) if e.use_stderr() => decay_fallback(&args).ok_or(e),
            other => other,
        }
    }
}

/// A `decay` command line (except `vercy decay --help`), read by [`decay_fallback`].
fn decay_args_untouched(args: &[std::ffi::OsString]) -> Option<Cli> {
    let cli = decay_fallback(args)?;
    match &cli.command {
        Command::Decay(d)
            if matches!(d.args.first().map(String::as_str), Some("-h" | "--help")) =>
        {
            None
        }
        _ => Some(cli),
    }
}

/// A `decay` command line clap refused: parse what comes before `decay` normally and hand
/// everything after it to decay untouched.
fn decay_fallback(args: &[std::ffi::OsString]) -> Option<Cli> {
    let mut i = 1;
    while let Some(a) = args.get(i).and_then(|a| a.to_str()) {
        match a {
            "-q" | "--quiet" => i += 1,
            "--color" | "--progress" => i += 2,
            _ if a.starts_with("--color=") || a.starts_with("--progress=") => i += 1,
            _ => break,
        }
    }
    if args.get(i)?.to_str()? != "decay" {
        return None;
    }
    let mut cli = Cli::try_parse_from(&args[..=i]).ok()?;
    cli.command = Command::Decay(DecayArgs {
        args: args[i + 1..]
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
    });
    Some(cli)
}

impl From<&WriteArgs> for crate::write::target::WriteOptions {
    fn from(args: &WriteArgs) -> Self {
        crate::write::target::WriteOptions {
            wait: !args.no_wait,
            break_hardlinks: args.break_hardlinks,
        }
    }
}

#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// When to use colour: auto follows the terminal, NO_COLOR, CLICOLOR_FORCE, CLICOLOR=0 and
    /// TERM=dumb
    #[arg(long, global = true, value_enum, default_value_t = When::Auto, value_name = "WHEN")]
    pub color: When,
    /// When to draw progress bars on stderr: auto on a terminal, never in CI logs or machine
    /// formats; always wherever stderr goes
    #[arg(long, global = true, value_enum, default_value_t = When::Auto, value_name = "WHEN")]
    pub progress: When,
    /// Print less: no per-field findings (check), no notices or summaries on stderr
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Rate stores against the profile's levels 1-3; exit 1 below --min-level
    #[command(after_help = "\
Examples:
  vercy check fixtures/reference-store.jsonl
  vercy check edges.jsonl --map record_id=uuid,valid_from=valid_at,valid_to=invalid_at,source=episode
  vercy check memories.jsonl --map mem0 --min-level 2 --format github
  cat store.jsonl | vercy check - --json")]
    Check(CheckArgs),

    /// Split a JSON lines store into shards by concept, to check apart and merge
    #[command(after_help = "\
Examples:
  vercy split store.jsonl --shards 8 -o parts
  vercy split store.jsonl --shards 8 -o parts | parallel vercy check {} --facts {}.facts --quiet")]
    Split(SplitArgs),

    /// The report of a split store, from its shards' facts: the one `check` gives the whole
    #[command(after_help = "\
Examples:
  vercy merge-reports parts
  vercy merge-reports parts/split.json facts/*.facts --format sarif")]
    MergeReports(MergeReportsArgs),

    /// Compare two versions of one store: exit 1 when history was edited, not only added to
    #[command(after_help = "\
Exit codes: 0 history was only added to; 1 a record was edited, ended by hand, deleted, rewired \
or its id reused (codes not --allow'ed); 2 bad input.

Examples:
  vercy diff git:origin/main:memory/store.jsonl memory/store.jsonl
  vercy diff yesterday.ndjson engrama.db --format json
  vercy diff before.jsonl after.jsonl --allow deleted --format github")]
    Diff(DiffArgs),

    /// Write a store in the compact pipe line form, optionally only the records a question needs
    #[command(after_help = "\
Examples:
  vercy compact fixtures/reference-store.jsonl --stats
  vercy compact store.jsonl --as-of 2026-01-01 --reader finance -o context.txt
  vercy compact store.jsonl --concept data_retention")]
    Compact(CompactArgs),

    /// Write a store as an engrama NDJSON dump, JSON lines, a JSON array or the compact form
    #[command(after_help = "\
Examples:
  vercy export store.jsonl --to engrama --label Decision -o dump.ndjson
  vercy export dump.ndjson --to jsonl
  vercy export lines.txt --to json")]
    Export(ExportArgs),

    /// Merge records from any readable input into a JSONL store, atomically, timestamps intact
    #[command(after_help = "\
Examples:
  vercy import dump.ndjson --into store.jsonl
  vercy import dump.ndjson --into store.jsonl --purge")]
    Import(ImportArgs),

    // `[deprecated]` opens the help text clap shows, not a link
    #[allow(rustdoc::broken_intra_doc_links)]
    /// [deprecated] Changes nothing: stored confidence no longer decays; see `vercy recency`
    #[command(
        after_help = "\
Kept so legacy cron scripts keep working: it accepts the old flags (--rate/-r, --min-confidence/-c, \
--max-age/-a, --label, --dry-run) and anything else, writes nothing and exits 0. \
With a store path it prints a read-only report. It will be removed in a later minor release.

Example:
  vercy decay --rate 0.01 --min-confidence 0.1 store.ndjson",
        disable_version_flag = true
    )]
    Decay(DecayArgs),

    /// Read-time recency: 2^(-age/half_life) from last activity, ranked
    #[command(after_help = "\
Examples:
  vercy recency dump.ndjson --as-of 2026-11-29T00:00:00Z --top 10
  ENGRAMA_RECENCY_HALF_LIFE=90 vercy recency dump.ndjson --format json")]
    Recency(RecencyArgs),

    /// Show the effective settings: profile, recency parameters and where each came from
    #[command(after_help = "Example:\n  vercy status --format json")]
    Status(StatusArgs),

    /// Print the profile: fields, levels and measured effects
    #[command(
        after_help = "Examples:\n  vercy profile\n  vercy profile --format yaml\n  vercy profile --field release_to"
    )]
    Profile(ProfileArgs),

    /// Show where each profile field goes in each kind of store, and the named key maps
    #[command(
        after_help = "Examples:\n  vercy map\n  vercy map --target vector_memory\n  vercy map --target graphiti"
    )]
    Map(MapArgs),

    /// Print shell completions
    #[command(after_help = "Example:\n  vercy completions bash > /etc/bash_completion.d/vercy")]
    Completions(CompletionsArgs),

    /// Which record holds for a concept, on a date, for a caller: answered, abstained or refused
    #[command(after_help = "\
Exit codes: 0 answered; 1 abstained, refused or empty; 2 bad input or host file.

Examples:
  vercy resolve fixtures/reference-store.jsonl --concept data_retention --as-of 2026-07-01 \\
    --caller finance --host fixtures/resolve/host.yaml
  vercy resolve edges.jsonl --map graphiti --concept retention --known-at 2026-01-01T00:00:00Z \\
    --caller hr --host host.yaml --format json")]
    Resolve(ResolveArgs),

    /// Serve the profile to agents: a read-only MCP server on stdio
    #[command(
        after_help = "Example (an MCP client's configuration):\n  {\"mcpServers\": {\"vercy\": {\"command\": \"vercy\", \"args\": [\"mcp\"]}}}"
    )]
    Mcp(McpArgs),
}

#[derive(Debug, Clone, Args)]
pub struct MapArg {
    /// Where each role lives: role=path pairs (paths: key, a.b, a[], a[].b, ~inverse,
    /// list(a) for a list written in a string, a + b gathered, a | b the first there) and named
    /// maps (graphiti, zep, mem0, chroma, engrama, langgraph, dimension, profile),
    /// comma-separated or repeated
    #[arg(long = "map", value_name = "MAP", value_parser = MapValue, hide_possible_values = true)]
    pub map: Vec<String>,
}

/// What to read from a database store (sqlite:PATH, postgresql://…, an SQLite file).
#[derive(Debug, Clone, Args)]
pub struct MemoryArg {
    /// What the command keeps in memory of what grows with the store before the rest goes to
    /// temporary files (e.g. 64M, 1G); more is faster on large stores
    #[arg(
        long,
        value_name = "SIZE",
        default_value = "128M",
        allow_hyphen_values = true
    )]
    pub memory: String,
}

impl MemoryArg {
    /// The budget in bytes, or why the size given is not one.
    pub fn bytes(&self) -> crate::error::Result<usize> {
        crate::spill::memory_budget(&self.memory).map_err(|message| {
            crate::error::VercyError::argument(
                "--memory",
                message,
                "give a size above zero: bytes, or a number with K, M, G or T (64M, 1.5G)",
            )
        })
    }
}

#[derive(Debug, Clone, Args)]
pub struct LiveArg {
    /// Read this table of a database store: each row a record
    #[arg(long, value_name = "TABLE", conflicts_with = "sql")]
    pub table: Option<String>,
    // not `--query`: `--qu` would no longer abbreviate `--quiet`, as it does for the reference
    /// Read the rows of this SELECT from a database store: each row a record
    #[arg(long, value_name = "SELECT")]
    pub sql: Option<String>,
}

impl LiveArg {
    pub fn select(&self) -> crate::store::Select {
        crate::store::Select::from_flags(self.table.as_deref(), self.sql.as_deref())
    }
}

/// How a command that writes a file meets another writer and a hard-linked file.
#[derive(Debug, Clone, Args)]
pub struct WriteArgs {
    /// Fail at once (exit 2) when another vercy is writing the same file, instead of waiting
    #[arg(long)]
    pub no_wait: bool,
    /// Replace a file that has other names (hard links) under this name only
    #[arg(long)]
    pub break_hardlinks: bool,
}

/// A `--map` value: any text (role=path pairs are checked when the map is built), offering the
/// named maps to shell completion as its possible values.
#[derive(Debug, Clone, Copy)]
pub struct MapValue;

impl clap::builder::TypedValueParser for MapValue {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let names = crate::mapping::named_maps()
            .iter()
            .map(|(name, _)| name.as_str());
        Some(Box::new(names.map(clap::builder::PossibleValue::new)))
    }
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Stores to check (JSON array, JSON lines, envelope, engrama dump, compact); `-` is stdin
    #[arg(required = true, value_name = "STORE")]
    pub stores: Vec<String>,
    #[command(flatten)]
    pub map: MapArg,
    #[command(flatten)]
    pub live: LiveArg,
    /// The conflict policy is configured outside the records
    #[arg(long)]
    pub policy: bool,
    /// Level needed to pass
    #[arg(long, default_value_t = 1, value_parser = crate::python::min_level, value_name = "N")]
    pub min_level: u8,
    /// Print the machine-readable report (same as --format json)
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Output format
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<ReportFormat>,
    /// Write the report here instead of stdout (atomically)
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<String>,
    /// Count value warnings against the level
    #[arg(long)]
    pub strict: bool,
    /// A register of expected concepts (experimental): JSON list, YAML list, or one per line
    #[arg(long, value_name = "FILE")]
    pub expected: Option<String>,
    #[command(flatten)]
    pub memory: MemoryArg,
    /// Also write every record's facts here, for `vercy merge-reports` (one store: a shard)
    #[arg(long, value_name = "FILE")]
    pub facts: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SplitBy {
    /// Every record of one concept in one shard
    Concept,
}

#[derive(Debug, Args)]
pub struct SplitArgs {
    /// The store to split (JSON lines); `-` is stdin
    #[arg(value_name = "STORE")]
    pub store: String,
    /// What decides a record's shard
    #[arg(long, value_enum, default_value_t = SplitBy::Concept)]
    pub by: SplitBy,
    /// How many shards (1 to 64)
    #[arg(long, value_name = "N")]
    pub shards: usize,
    /// The folder to write the shards, their places and split.json into
    #[arg(short, long, value_name = "DIR")]
    pub output: String,
    #[command(flatten)]
    pub map: MapArg,
}

#[derive(Debug, Args)]
pub struct MergeReportsArgs {
    /// The split: its folder, or its split.json
    #[arg(value_name = "SPLIT")]
    pub split: String,
    /// Each shard's facts (`check --facts`); none: each shard's FILE.facts beside it
    #[arg(value_name = "FACTS")]
    pub facts: Vec<String>,
    /// Print the machine-readable report (same as --format json)
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Output format
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<ReportFormat>,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The store before the change: a file, git:REV:PATH (git:origin/main:memory/store.jsonl),
    /// a database, or `-` for stdin
    #[arg(value_name = "BASE")]
    pub base: String,
    /// The store after the change (as BASE)
    #[arg(value_name = "HEAD")]
    pub head: String,
    #[command(flatten)]
    pub map: MapArg,
    #[command(flatten)]
    pub live: LiveArg,
    /// Output format
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = ReportFormat::Human)]
    pub format: ReportFormat,
    /// Write the report here instead of stdout (atomically)
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<String>,
    /// Accept a code deliberately (a migration): still reported, no longer failing; repeatable
    /// (history.edited, or edited)
    #[arg(long, value_name = "CODE")]
    pub allow: Vec<String>,
    #[command(flatten)]
    pub memory: MemoryArg,
}

#[derive(Debug, Args)]
pub struct CompactArgs {
    /// The store to write in the compact form; `-` is stdin
    #[arg(value_name = "STORE")]
    pub store: String,
    /// Write here instead of stdout (atomically)
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<String>,
    #[command(flatten)]
    pub map: MapArg,
    #[command(flatten)]
    pub live: LiveArg,
    /// Keep only the records in force on this date
    #[arg(long, value_name = "DATE")]
    pub as_of: Option<String>,
    /// Keep only the records of this concept
    #[arg(long, value_name = "NAME")]
    pub concept: Option<String>,
    /// Keep only the records whose release_to names this party (exactly); withhold the rest
    #[arg(long, value_name = "PARTY")]
    pub reader: Option<String>,
    /// The store as known at this time: recorded_at on or before it, not expired_at by then
    #[arg(long, value_name = "TIME")]
    pub known_at: Option<String>,
    /// Print JSONL characters, compact characters and the saving on stderr
    #[arg(long)]
    pub stats: bool,
    /// Add the store's conflict policy once, as a `# conflict_policy: ...` line
    #[arg(long)]
    pub policy_line: bool,
    #[command(flatten)]
    pub memory: MemoryArg,
    #[command(flatten)]
    pub write: WriteArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Engrama,
    Jsonl,
    Json,
    Compact,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The store to export; `-` is stdin
    #[arg(value_name = "STORE")]
    pub store: String,
    /// Output format
    #[arg(long, value_enum, default_value_t = ExportFormat::Jsonl)]
    pub to: ExportFormat,
    /// Write here instead of stdout (atomically)
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<String>,
    /// engrama label for the records of a flat store
    #[arg(long, value_name = "LABEL")]
    pub label: Option<String>,
    #[command(flatten)]
    pub map: MapArg,
    #[command(flatten)]
    pub live: LiveArg,
    #[command(flatten)]
    pub write: WriteArgs,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// What to import: any store vercy reads (engrama dump, JSONL, JSON, compact); `-` is stdin
    #[arg(value_name = "DUMP")]
    pub dump: String,
    /// The JSONL store to merge into (created if missing)
    #[arg(long, value_name = "STORE")]
    pub into: String,
    /// Replace the store instead of merging
    #[arg(long)]
    pub purge: bool,
    #[command(flatten)]
    pub map: MapArg,
    #[command(flatten)]
    pub live: LiveArg,
    #[command(flatten)]
    pub write: WriteArgs,
}

#[derive(Debug, Args)]
pub struct DecayArgs {
    /// Legacy flags and an optional store path; all accepted, none applied
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0.., value_name = "ARGS")]
    pub args: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DataFormat {
    Human,
    Json,
}

#[derive(Debug, Args)]
pub struct RecencyArgs {
    /// The store (engrama dump or flat store); `-` is stdin
    #[arg(value_name = "STORE")]
    pub store: String,
    /// Score as of this time (default: now)
    #[arg(long, value_name = "TIME")]
    pub as_of: Option<String>,
    /// Half-life in days (default 180; env ENGRAMA_RECENCY_HALF_LIFE)
    #[arg(long, value_name = "DAYS", allow_negative_numbers = true)]
    pub half_life: Option<f64>,
    /// Half-life in days for system Insights (default 30; env ENGRAMA_RECENCY_INSIGHT_HALF_LIFE)
    #[arg(long, value_name = "DAYS", allow_negative_numbers = true)]
    pub insight_half_life: Option<f64>,
    /// Turn the degree factor off (env ENGRAMA_RECENCY_DEGREE)
    #[arg(long)]
    pub no_degree: bool,
    /// Show only the N highest scores
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
    #[command(flatten)]
    pub map: MapArg,
    #[command(flatten)]
    pub live: LiveArg,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProfileFormat {
    Table,
    Yaml,
    Json,
}

#[derive(Debug, Args)]
pub struct ProfileArgs {
    #[arg(long, value_enum, default_value_t = ProfileFormat::Table)]
    pub format: ProfileFormat,
    /// Show one field only
    #[arg(long, value_name = "FIELD")]
    pub field: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MapFormat {
    Table,
    Csv,
    Json,
}

#[derive(Debug, Args)]
pub struct MapArgs {
    /// A target form (bitemporal_graph, vector_memory, catalogue, documents, relational,
    /// dimension) or a named key map (graphiti, zep, mem0, engrama, ...)
    #[arg(long, value_name = "TARGET")]
    pub target: Option<String>,
    #[arg(long, value_enum, default_value_t = MapFormat::Table)]
    pub format: MapFormat,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ResolveArgs {
    /// The store (any shape vercy reads); `-` is stdin
    #[arg(value_name = "STORE")]
    pub store: String,
    /// The concept asked about (the records whose concept role is exactly this)
    #[arg(long, value_name = "NAME")]
    pub concept: String,
    /// Valid time: the date the answer holds on (default: now)
    #[arg(long, value_name = "DATE")]
    pub as_of: Option<String>,
    /// Transaction time: the store as known at this time (recorded_at, expired_at)
    #[arg(long, value_name = "TIME")]
    pub known_at: Option<String>,
    /// A scope value of the question (exact); repeat for several
    #[arg(long = "scope", value_name = "SCOPE")]
    pub scope: Vec<String>,
    /// Who is asking (host configuration: the caller's audiences come from the host file)
    #[arg(long, value_name = "PARTY")]
    pub caller: String,
    /// The host file: owners, writers (the write log), policy, audiences, unrestricted
    #[arg(long, value_name = "HOST.yaml")]
    pub host: String,
    #[command(flatten)]
    pub map: MapArg,
    #[arg(long, value_enum, default_value_t = ResolveFormat::Human)]
    pub format: ResolveFormat,
    /// Also list every record of the concept the caller may read, with its dates, owner and
    /// what decided it (json: a `records` array; the HTML page always draws them)
    #[arg(long)]
    pub explain: bool,
    /// Write the answer here instead of stdout (atomically)
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<String>,
}

/// How `resolve` prints its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ResolveFormat {
    /// For people: the outcome, the record that holds, the reasons.
    Human,
    /// The `vercy-resolve/1` object.
    Json,
    /// One self-contained HTML page: the answer and the concept's timeline with the date line.
    Html,
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// The store the `resolve` tool answers from (with --host and --caller)
    #[arg(long, value_name = "STORE", requires_all = ["host", "caller"])]
    pub store: Option<String>,
    /// The host file for `resolve`; without it the tool is not offered
    #[arg(long, value_name = "HOST.yaml", requires_all = ["store", "caller"])]
    pub host: Option<String>,
    /// The caller every `resolve` answer is for (never a tool argument)
    #[arg(long, value_name = "PARTY", requires_all = ["store", "host"])]
    pub caller: Option<String>,
    /// Offer the `diff` tool over these two versions of a store (BASE, then HEAD; a file,
    /// git:REV:PATH, a database)
    #[arg(long, num_args = 2, value_names = ["BASE", "HEAD"])]
    pub diff: Option<Vec<String>>,
    #[command(flatten)]
    pub map: MapArg,
}
