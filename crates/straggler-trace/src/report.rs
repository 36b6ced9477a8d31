//! The account of one input: every record read is parsed or skipped with a reason.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::TraceFormat;

/// One record skipped, where and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skip {
    /// 1-based line (or record) number in the input (in its file, named by `file`, for an
    /// input of several files).
    pub line: u64,
    /// The field at fault, when one is.
    pub field: Option<String>,
    /// The reason, one of a small set of stable strings (the key of
    /// [`ReadReport::skip_reasons`]), e.g. `"malformed JSON"`, `"unknown event type"`.
    pub reason: String,
    /// The file the line is in, for an input of several files (a Spark rolling event-log
    /// directory): its name in the directory; `line` is then its own line. `None` when
    /// the input is one file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// Where a truncated input stops.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Truncation {
    /// 1-based line (or record) number of the cut record.
    pub line: u64,
    /// What was cut, for the note printed to the user.
    pub note: String,
}

/// What reading one input found: `records_read == records_parsed + records_skipped`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadReport {
    /// The input (a file, or a rolling event-log directory).
    pub path: PathBuf,
    /// Its format, detected from its content.
    pub format: TraceFormat,
    /// Records read (lines, events or JSON objects, as the format defines them).
    pub records_read: u64,
    /// Records turned into the trace.
    pub records_parsed: u64,
    /// Records skipped, each with a reason.
    pub records_skipped: u64,
    /// Skipped records counted by reason.
    pub skip_reasons: BTreeMap<String, u64>,
    /// The first skipped records with their line (at most [`ReadReport::MAX_SKIPS_KEPT`]);
    /// the counts above cover all of them.
    pub skips: Vec<Skip>,
    /// Set when the input ends in the middle of a record.
    pub truncated: Option<Truncation>,
}

impl ReadReport {
    /// How many skipped records are kept with their line.
    pub const MAX_SKIPS_KEPT: usize = 100;

    /// An empty report for `path` in `format`.
    pub fn new(path: impl Into<PathBuf>, format: TraceFormat) -> Self {
        ReadReport {
            path: path.into(),
            format,
            records_read: 0,
            records_parsed: 0,
            records_skipped: 0,
            skip_reasons: BTreeMap::new(),
            skips: Vec::new(),
            truncated: None,
        }
    }

    /// Counts one record read and parsed.
    pub fn parsed(&mut self) {
        self.records_read += 1;
        self.records_parsed += 1;
    }

    /// Notes that the input stops at `line`, with why, unless an earlier cut is noted: the
    /// first cut is the one reported.
    pub fn cut(&mut self, line: u64, note: String) {
        if self.truncated.is_none() {
            self.truncated = Some(Truncation { line, note });
        }
    }

    /// Counts one record read and skipped, with where and why.
    pub fn skipped(&mut self, line: u64, field: Option<&str>, reason: &str) {
        self.records_read += 1;
        self.records_skipped += 1;
        *self.skip_reasons.entry(reason.to_owned()).or_insert(0) += 1;
        if self.skips.len() < Self::MAX_SKIPS_KEPT {
            self.skips.push(Skip {
                line,
                field: field.map(str::to_owned),
                reason: reason.to_owned(),
                file: None,
            });
        }
    }

    /// Adds the account `part` of the file named `file` (of an input of several files):
    /// its counts, its skips (naming the file), and its cut if none is noted before (its
    /// note naming the file).
    pub(crate) fn add_file(&mut self, part: ReadReport, file: &str) {
        self.records_read += part.records_read;
        self.records_parsed += part.records_parsed;
        self.records_skipped += part.records_skipped;
        for (reason, n) in part.skip_reasons {
            *self.skip_reasons.entry(reason).or_insert(0) += n;
        }
        let room = Self::MAX_SKIPS_KEPT.saturating_sub(self.skips.len());
        self.skips
            .extend(part.skips.into_iter().take(room).map(|skip| Skip {
                file: Some(file.to_owned()),
                ..skip
            }));
        if let Some(cut) = part.truncated {
            self.cut(cut.line, format!("{file}: {}", cut.note));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_record_is_accounted_for() {
        let mut report = ReadReport::new("log", TraceFormat::SparkEventLog);
        report.parsed();
        report.skipped(2, Some("Event"), "unknown event type");
        report.skipped(3, None, "malformed JSON");
        report.skipped(4, Some("Event"), "unknown event type");
        assert_eq!(report.records_read, 4);
        assert_eq!(
            report.records_read,
            report.records_parsed + report.records_skipped
        );
        assert_eq!(report.skip_reasons["unknown event type"], 2);
        assert_eq!(report.skips[1].line, 3);
    }
}
