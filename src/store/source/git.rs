//! A store as a git revision holds it: `git:REV:PATH` (`git:origin/main:memory/store.jsonl`),
//! PATH as git names it in REV (from the repository's root, or `./PATH` from the current
//! folder). Its bytes are the blob's, streamed from a `git cat-file blob` child's stdout (the
//! plumbing `git show REV:PATH` stands on, without the textconv filters and pager a user's
//! configuration can put on `show`); the shape is then found as for a file. git runs in the
//! current folder, with no shell between: the revision and the path are arguments, never
//! text a shell reads.
//!
//! Before anything is streamed the revision and the path are looked up, so a revision that is
//! not there (a shallow clone that never fetched it) or a path the revision does not hold is a
//! diagnostic that says which, rather than a store that reads as empty.

use super::{Opened, Select, Source};
use crate::error::{Result, VercyError};
use std::io::{self, Read};
use std::process::{Child, ChildStdout, Command, Stdio};

/// `git:REV:PATH`: a revision's version of a store.
#[derive(Debug)]
pub struct Git {
    rev: String,
    path: String,
}

/// `git:REV:PATH` names a store in a git revision (REV ends at the first `:` after `git:`).
pub fn named(arg: &str) -> Option<Box<dyn Source>> {
    parse(arg).map(|git| Box::new(git) as Box<dyn Source>)
}

fn parse(arg: &str) -> Option<Git> {
    let rest = arg.strip_prefix("git:")?;
    let (rev, path) = rest.split_once(':').unwrap_or((rest, ""));
    Some(Git {
        rev: rev.to_string(),
        path: path.to_string(),
    })
}

/// How a git failure reads: which store, what went wrong, what to do.
fn error(name: &str, message: impl Into<String>, help: impl Into<String>) -> VercyError {
    VercyError::Git {
        store: name.to_string(),
        message: message.into(),
        help: help.into(),
    }
}

/// What git said on stderr, its first lines (a `fatal: …` is one line).
fn said(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(3)
        .collect();
    lines.join("; ")
}

impl Git {
    /// Run git with `args` to its end: its status, stdout and stderr.
    fn run(&self, name: &str, args: &[&str]) -> Result<std::process::Output> {
        Command::new("git")
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| spawn_error(name, &e))
    }

    /// The revision names a commit, and the path a file in it.
    fn look_up(&self, name: &str) -> Result<()> {
        let usage = "write git:REV:PATH, for example git:origin/main:memory/store.jsonl";
        if self.rev.is_empty() || self.path.is_empty() {
            return Err(error(name, "names no revision and path", usage));
        }
        // a revision is never read as one of git's options
        if self.rev.starts_with('-') {
            return Err(error(
                name,
                format!("{:?} is not a revision", self.rev),
                usage,
            ));
        }
        let commit = format!("{}^{{commit}}", self.rev);
        let out = self.run(name, &["rev-parse", "--verify", "--quiet", &commit])?;
        if !out.status.success() {
            let why = said(&out.stderr);
            // `--quiet` leaves stderr empty for a revision that is not there; anything it
            // says is another failure (not a repository)
            return Err(match why.is_empty() {
                true => error(
                    name,
                    format!("the revision {} is not in this repository", self.rev),
                    "fetch it first (git fetch origin main); actions/checkout fetches one \
                     commit unless it is given fetch-depth: 0",
                ),
                false => error(name, format!("git cannot read {}: {why}", self.rev), usage),
            });
        }
        let object = format!("{}:{}", self.rev, self.path);
        let out = self.run(name, &["cat-file", "-t", &object])?;
        let kind = String::from_utf8_lossy(&out.stdout).trim().to_string();
        match (out.status.success(), kind.as_str()) {
            (true, "blob") => Ok(()),
            (true, _) => Err(error(
                name,
                format!("{} is a {kind} in {}, not a file", self.path, self.rev),
                "name a store file inside it",
            )),
            (false, _) => Err(error(
                name,
                format!("{} is not in the revision {}", self.path, self.rev),
                "name the path as the revision holds it: from the repository's root, or \
                 ./PATH from the current folder (a store added since that revision has no \
                 earlier version to read)",
            )),
        }
    }
}

fn spawn_error(name: &str, e: &io::Error) -> VercyError {
    match e.kind() {
        io::ErrorKind::NotFound => error(
            name,
            "git is not installed, or not on PATH",
            "install git, or read the store from a file",
        ),
        _ => error(
            name,
            format!("cannot run git: {}", crate::error::io_reason(e)),
            "check that git runs here",
        ),
    }
}

impl Source for Git {
    fn open(&self, name: &str, _select: &Select) -> Result<Opened> {
        self.look_up(name)?;
        let object = format!("{}:{}", self.rev, self.path);
        let mut child = Command::new("git")
            .args(["cat-file", "blob", &object])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| spawn_error(name, &e))?;
        let Some(stdout) = child.stdout.take() else {
            return Err(error(
                name,
                "git gave no output",
                "check that git runs here",
            ));
        };
        Ok(Opened::Bytes(Box::new(Blob {
            child: Some(child),
            stdout,
        })))
    }

    fn is_pipe(&self) -> bool {
        true
    }
}

/// The blob as git streams it; at its end, git's exit status says whether it was all of it.
struct Blob {
    /// `None` once git has been waited for.
    child: Option<Child>,
    stdout: ChildStdout,
}

impl Read for Blob {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.stdout.read(buf)?;
        if n == 0 && !buf.is_empty() {
            if let Some(mut child) = self.child.take() {
                let mut stderr = Vec::new();
                if let Some(mut err) = child.stderr.take() {
                    let _ = err.read_to_end(&mut stderr);
                }
                let status = child.wait()?;
                if !status.success() {
                    return Err(io::Error::other(format!(
                        "git stopped before the end of the blob ({status}): {}",
                        said(&stderr)
                    )));
                }
            }
        }
        Ok(n)
    }
}

impl Drop for Blob {
    /// A reader that stops early (a bad line) leaves no git behind.
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_revision_ends_at_the_first_colon() {
        let parts = |arg: &str| parse(arg).map(|g| (g.rev, g.path));
        assert_eq!(
            parts("git:origin/main:memory/a:b.jsonl"),
            Some(("origin/main".into(), "memory/a:b.jsonl".into()))
        );
        // no path: named, and refused when opened with what to write
        assert_eq!(parts("git:HEAD"), Some(("HEAD".into(), String::new())));
        let err = parse("git:HEAD").unwrap().look_up("git:HEAD").unwrap_err();
        assert!(
            err.to_string().contains("names no revision and path"),
            "{err}"
        );
        assert!(parts("gitx:HEAD:x").is_none());
    }
}
