//! Where output goes: stdout for reports and data, stderr for diagnostics and notices.
//! A closed stdout pipe (`vercy compact big.jsonl | head`) is success, not an error.

use crate::error::{Result, VercyError};
use crate::text::terminal_safe;
use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

static COLOR: AtomicBool = AtomicBool::new(false);
/// Colour for reports on stdout (auto follows stdout's terminal, not stderr's).
static COLOR_STDOUT: AtomicBool = AtomicBool::new(false);
static QUIET: AtomicBool = AtomicBool::new(false);
static PROGRESS: AtomicBool = AtomicBool::new(false);
/// `--progress always`: the user asked for bars even where they would not be drawn.
static PROGRESS_FORCED: AtomicBool = AtomicBool::new(false);

/// When colour or progress bars are shown (`--color`, `--progress`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum When {
    Auto,
    Always,
    Never,
}

/// Settle colour, quiet and progress once, from the flags and the environment.
pub fn configure(color: When, progress: When, quiet: bool) {
    let env_set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
    let decide = |terminal: bool| match color {
        When::Always => true,
        When::Never => false,
        When::Auto => {
            if env_set("NO_COLOR") {
                false
            } else if std::env::var("CLICOLOR_FORCE").is_ok_and(|v| !v.is_empty() && v != "0") {
                true
            } else if std::env::var("TERM").is_ok_and(|t| t == "dumb")
                || std::env::var("CLICOLOR").is_ok_and(|v| v == "0")
            {
                false // a terminal that cannot show colour, or a user who said not to
            } else {
                terminal
            }
        }
    };
    let color = decide(io::stderr().is_terminal());
    COLOR.store(color, Ordering::Relaxed);
    COLOR_STDOUT.store(decide(io::stdout().is_terminal()), Ordering::Relaxed);
    QUIET.store(quiet, Ordering::Relaxed);
    let progress_on = match progress {
        When::Always => true,
        When::Never => false,
        When::Auto => io::stderr().is_terminal() && !env_set("CI") && !quiet,
    };
    PROGRESS.store(progress_on, Ordering::Relaxed);
    PROGRESS_FORCED.store(progress == When::Always, Ordering::Relaxed);
    let theme = if color {
        miette::GraphicalTheme::unicode()
    } else {
        miette::GraphicalTheme::unicode_nocolor()
    };
    let _ = miette::set_hook(Box::new(move |_| {
        Box::new(
            miette::MietteHandlerOpts::new()
                .graphical_theme(theme.clone())
                .terminal_links(false)
                .build(),
        )
    }));
}

/// How a piece of a human report is shown when colour is on.
#[derive(Debug, Clone, Copy)]
pub enum Paint {
    Bold,
    Good,
    Bad,
    Warn,
    Dim,
}

/// `text` styled for stdout when colour is on there, else as it is.
pub fn paint(text: &str, style: Paint) -> String {
    if !COLOR_STDOUT.load(Ordering::Relaxed) {
        return text.to_string();
    }
    let code = match style {
        Paint::Bold => "1",
        Paint::Good => "1;32",
        Paint::Bad => "1;31",
        Paint::Warn => "33",
        Paint::Dim => "2",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

pub fn color() -> bool {
    COLOR.load(Ordering::Relaxed)
}

pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

pub fn progress_enabled() -> bool {
    PROGRESS.load(Ordering::Relaxed)
}

/// `--progress always` was given: bars are drawn even where stderr is no terminal.
pub fn progress_forced() -> bool {
    PROGRESS_FORCED.load(Ordering::Relaxed)
}

/// The command prints a machine format (JSON, SARIF, GitHub annotations): its runs are read
/// by programs and logged, so no progress bar unless `--progress always` asked for one.
pub fn machine_format() {
    if !PROGRESS_FORCED.load(Ordering::Relaxed) {
        PROGRESS.store(false, Ordering::Relaxed);
    }
}

/// Print a diagnostic on stderr.
pub fn report_error(e: VercyError) {
    let report = miette::Report::new(e.terminal_safe());
    print_stderr(&format!("{report:?}\n"));
}

/// A notice on stderr (suppressed by --quiet).
pub fn notice(message: &str) {
    if !quiet() {
        print_stderr(&format!("{}\n", terminal_safe(message)));
    }
}

/// Write text to stderr, the one way anything reaches it. A closed or failing stderr is
/// ignored: a notice or a diagnostic nobody can read must not turn the command's outcome into
/// a panic (`eprintln!` panics, exit 101), so the exit code stays the command's own.
pub fn print_stderr(text: &str) {
    let mut err = io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|_| err.flush());
}

/// Write text to stdout; a closed pipe ends the command quietly as success.
pub fn print_stdout(text: &str) -> Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(VercyError::Write {
            path: "<stdout>".into(),
            reason: crate::error::io_reason(&e),
        }),
    }
}

/// Write a report to stdout as it is made, through a buffer; a closed pipe ends the command
/// quietly as success.
pub fn write_stdout(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    match write(&mut out).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(VercyError::Write {
            path: "<stdout>".into(),
            reason: crate::error::io_reason(&e),
        }),
    }
}

/// `text` escaped for a GitHub Actions workflow command (`::warning file=F,title=T::MESSAGE`):
/// `%`, CR and LF always, so a value cannot end the command and start another
/// (`\n::add-mask::`); `:` and `,` too in a property (`property`), where they separate.
pub fn github_escape(text: &str, property: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' if property => out.push_str("%3A"),
            ',' if property => out.push_str("%2C"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_escape_ends_no_command_early() {
        assert_eq!(
            github_escape("50% a\r\n::add-mask::x", false),
            "50%25 a%0D%0A::add-mask::x"
        );
        assert_eq!(github_escape("a:b,c%", true), "a%3Ab%2Cc%25");
    }
}
