//! What the databases share (`sqlite.rs`, `postgres.rs`): a database is read where it lives,
//! read-only, through the same reader as a dump. It is read on a thread of its own that
//! renders its rows as the JSON lines a dump of it would hold (an engrama database as
//! `engrama export` writes it, any other row as one JSON object a line) and hands them over in
//! blocks through a bounded channel: the reader's line scanner, the roles and every command
//! then work on them unchanged, so the reports are the ones the dump gives, and memory stays
//! bounded whatever the table's size.

use super::Opened;
use crate::error::{Result, VercyError};
use std::io::{self, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Bytes of lines gathered before they are handed to the reader.
const BLOCK_BYTES: usize = 1 << 20;

/// Blocks in flight between the database thread and the reader.
const BLOCKS_IN_FLIGHT: usize = 4;

/// What to read from a database: what its schema says (an engrama graph, a LangGraph store),
/// one table, or the rows of one query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Select {
    Detect,
    Table(String),
    Query(String),
}

impl Select {
    /// The `--table` / `--sql` flags (clap keeps them apart).
    pub fn from_flags(table: Option<&str>, query: Option<&str>) -> Select {
        match (table, query) {
            (Some(t), _) => Select::Table(t.to_string()),
            (None, Some(q)) => Select::Query(q.to_string()),
            (None, None) => Select::Detect,
        }
    }
}

/// An error reading a database, named by the store.
pub fn error(name: &str, message: impl Into<String>, help: impl Into<String>) -> VercyError {
    VercyError::Database {
        store: name.to_string(),
        message: message.into(),
        help: help.into(),
    }
}

/// The database thread's side of the channel: lines gathered into blocks.
pub struct Lines {
    block: Vec<u8>,
    tx: SyncSender<Message>,
}

enum Message {
    Block(Vec<u8>),
    Failed(String),
    Done,
}

impl Lines {
    /// One line (without its line feed). `Interrupted` when the reader has gone (it stopped
    /// early, or failed): the database thread then stops too.
    pub fn line(&mut self, text: &[u8]) -> Result<()> {
        self.block.extend_from_slice(text);
        self.block.push(b'\n');
        if self.block.len() >= BLOCK_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        let block = std::mem::replace(&mut self.block, Vec::with_capacity(BLOCK_BYTES + 4096));
        self.tx
            .send(Message::Block(block))
            .map_err(|_| VercyError::Interrupted)
    }
}

/// Said by the database thread once the database is open, its read transaction begun and its
/// schema understood; an error before that is the open's error.
pub struct OpenSignal(Option<SyncSender<Result<String>>>);

impl OpenSignal {
    pub fn ok(&mut self, described: impl Into<String>) {
        if let Some(tx) = self.0.take() {
            let _ = tx.send(Ok(described.into()));
        }
    }
}

/// Run `job` on a thread of its own: it opens the database, says so ([`OpenSignal`]), and writes
/// lines. Returns the lines as they come, and what it said it read.
pub fn start(
    job: impl FnOnce(&mut OpenSignal, &mut Lines) -> Result<()> + Send + 'static,
) -> Result<Opened> {
    let (ready_tx, ready_rx) = sync_channel(1);
    let (tx, rx) = sync_channel(BLOCKS_IN_FLIGHT);
    std::thread::spawn(move || {
        let mut ready = OpenSignal(Some(ready_tx));
        let mut lines = Lines {
            block: Vec::with_capacity(BLOCK_BYTES + 4096),
            tx,
        };
        let outcome = job(&mut ready, &mut lines).and_then(|()| lines.flush());
        match (outcome, ready.0.take()) {
            (Err(e), Some(ready)) => {
                let _ = ready.send(Err(e));
            }
            (Err(VercyError::Interrupted), None) => {}
            (Err(e), None) => {
                let _ = lines.tx.send(Message::Failed(e.to_string()));
            }
            (Ok(()), ready) => {
                if let Some(ready) = ready {
                    let _ = ready.send(Ok("database".into()));
                }
                let _ = lines.tx.send(Message::Done);
            }
        }
    });
    match ready_rx.recv() {
        Ok(Ok(described)) => Ok(Opened::Rows(
            Box::new(Pipe {
                rx,
                block: Vec::new(),
                at: 0,
                done: false,
            }),
            described,
        )),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(VercyError::Interrupted),
    }
}

/// The reader's side: the lines as one stream of bytes. A database thread that stopped
/// without saying it was done is an error, never a store cut short.
struct Pipe {
    rx: Receiver<Message>,
    block: Vec<u8>,
    at: usize,
    done: bool,
}

impl Read for Pipe {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.block.len() {
            if self.done {
                return Ok(0);
            }
            match self.rx.recv() {
                Ok(Message::Block(block)) => {
                    self.block = block;
                    self.at = 0;
                }
                Ok(Message::Done) => self.done = true,
                Ok(Message::Failed(message)) => return Err(io::Error::other(message)),
                Err(_) => return Err(io::Error::other("the database reader stopped")),
            }
        }
        let n = buf.len().min(self.block.len() - self.at);
        buf[..n].copy_from_slice(&self.block[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// JSON text on one line: a raw line break in valid JSON is whitespace between tokens (strings
/// cannot hold one), so it becomes a space.
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if memchr::memchr2(b'\n', b'\r', text.as_bytes()).is_some() {
        text.replace(['\n', '\r'], " ").into()
    } else {
        text.into()
    }
}

/// Quote an SQL identifier (`schema.table` quoted part by part).
pub fn quote_ident(name: &str) -> String {
    name.split('.')
        .map(|part| format!("\"{}\"", part.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(".")
}

/// The help of an unknown schema: the tables found and the flags that read them.
pub fn unknown_schema(name: &str, what: &str, tables: &[String]) -> VercyError {
    let found = if tables.is_empty() {
        "no tables".to_string()
    } else {
        format!("tables {}", tables.join(", "))
    };
    let example = tables.first().map_or("memories", String::as_str);
    error(
        name,
        format!("{what}: found {found}"),
        format!(
            "read one table as records with `--table {example}`, or any rows with \
             `--sql \"SELECT … FROM {example}\"`"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_quoted_part_by_part() {
        assert_eq!(quote_ident("memories"), "\"memories\"");
        assert_eq!(quote_ident("public.my\"t"), "\"public\".\"my\"\"t\"");
    }
}
