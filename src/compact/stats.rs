//! `--stats`: how many characters the records written take in JSON lines and in the form.

use super::RecordSize;
use crate::error::Result;
use crate::store::Shape;
use crate::write::Sink;

/// Writes lines to the sink and counts characters for `--stats`. After a closed pipe it
/// writes nothing more (the rest of the input is still read, quietly).
pub struct CountingSink {
    sink: Sink,
    closed: bool,
    stats: Option<Stats>,
}

impl CountingSink {
    /// `stats`: count for `--stats`.
    pub fn new(sink: Sink, stats: bool) -> Self {
        CountingSink {
            sink,
            closed: false,
            stats: stats.then(Stats::default),
        }
    }

    /// One line of output; `\n` is added.
    pub fn line(&mut self, text: &str) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        if !self.sink.write(text.as_bytes())? || !self.sink.write(b"\n")? {
            self.closed = true;
            return Ok(());
        }
        if let Some(s) = &mut self.stats {
            s.compact_chars += text.chars().count() + 1;
        }
        Ok(())
    }

    /// A record's line, counted with its record's sizes.
    pub fn record(&mut self, size: RecordSize, text: &str) -> Result<()> {
        self.line(text)?;
        if let (Some(s), false) = (&mut self.stats, self.closed) {
            s.observe(size);
        }
        Ok(())
    }

    /// The output closed by its reader (`| head`): nothing more is written.
    pub fn closed(&self) -> bool {
        self.closed
    }

    pub fn finish(self) -> Result<Stats> {
        self.sink.finish()?;
        Ok(self.stats.unwrap_or_default())
    }
}

/// Characters of the records written, in JSON lines and in the compact form.
#[derive(Debug, Default)]
pub struct Stats {
    records: usize,
    /// Each record's own line as read, plus its `\n` (JSON lines and engrama dumps).
    raw_chars: usize,
    /// Each record as Python's `json.dumps` writes it, plus `\n` (other shapes).
    dumped_chars: usize,
    /// Everything written: header, policy line, record lines, each with its `\n`.
    compact_chars: usize,
}

impl Stats {
    pub fn observe(&mut self, size: RecordSize) {
        self.records += 1;
        self.raw_chars += size.raw_chars;
        self.dumped_chars += size.dumped_chars;
    }

    /// The seed's table, for this store.
    pub fn table(&self, shape: &Shape) -> String {
        let jsonl = match shape {
            Shape::JsonLines | Shape::Engrama => self.raw_chars,
            _ => self.dumped_chars,
        };
        let saving = if jsonl == 0 {
            "-".to_string()
        } else {
            format!(
                "{:.1}%",
                100.0 * (1.0 - self.compact_chars as f64 / jsonl as f64)
            )
        };
        let plural = if self.records == 1 { "" } else { "s" };
        format!(
            "{} record{plural} written\n\
             | serialisation | characters | saving |\n\
             |---|---|---|\n\
             | one JSON object per line | {jsonl} | - |\n\
             | compact line form | {} | {saving} |\n",
            self.records, self.compact_chars
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::python::json::py_json;
    use serde_json::Value;

    #[test]
    fn python_json_text() {
        let v: Value = serde_json::from_str(
            r#"{"a": [1, 1.50, 1E2, true, null], "é\n": "q\"\\\u0001\t", "e": {}, "l": []}"#,
        )
        .unwrap();
        let mut s = String::new();
        py_json(&v, &mut s);
        assert_eq!(
            s,
            r#"{"a": [1, 1.5, 100.0, true, null], "é\n": "q\"\\\u0001\t", "e": {}, "l": []}"#
        );
    }
}
