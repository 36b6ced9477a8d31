//! The account of one input: every record read is parsed or skipped with a reason.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::{JobConf, TraceFormat};

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
    /// 1-based line (or record) number of the cut record (in its file, named by `file`,
    /// for an input of several files).
    pub line: u64,
    /// What was cut, for the note printed to the user.
    pub note: String,
    /// The file the line is in, for an input of several files (a Spark rolling event-log
    /// directory): its name in the directory, as [`Skip::file`]. `None` when the input is
    /// one file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// A part of an input that holds no record read, and why it was not read: bytes after the
/// end of a compressed stream, or a file of a rolling event-log directory that is not an
/// event file. It is not a record ([`ReadReport::records_read`] does not count it): it is
/// listed so that nothing of an input goes unread without a word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unread {
    /// Why, one of a few stable strings: `"trailing zero bytes"` (padding after the last
    /// gzip member or zstd frame, as tape and transfer tools add; `gzip -d` ignores it too),
    /// `"trailing garbage"` (bytes after the end of the compressed stream that are not
    /// compressed data), `"not an event file"` (an entry of a rolling directory that is
    /// not an `events_<N>_<app>` file: a stray file, a backup copy of an event file, a
    /// subdirectory), `"Spark status file"` (the empty `appstatus_<app>` file Spark writes
    /// in each rolling directory: expected, and no events), `"replaced by a compacted
    /// file"` (an event file before the directory's last compacted file, which holds its
    /// events), `"missing event file"` (a gap in a rolling directory's indices, or an index
    /// two files have), `"unexpected event file index"` (event files from index 0, which
    /// Spark's writer never numbers: read, and noted).
    pub reason: String,
    /// What was not read and where, in words for the user.
    pub note: String,
    /// The file it is in or is, for an input of several files (a rolling event-log
    /// directory): its name in the directory. `None` when the input is one file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// A key outside the format's own set, seen in records that were read all the same.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnknownKey {
    /// How many records carry it.
    pub records: u64,
    /// The 1-based line (or record) of the first of them.
    pub first_line: u64,
    /// The file of that line, for an input of several files; `None` when the input is one
    /// file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// An attempt read whose progress splits (`clockSplits`, in `.jhist` and Rumen) are present
/// but cannot be used. The attempt is kept, with no progress from splits (its progress is
/// then linear, as without splits): it is no skip, and [`ReadReport::records_skipped`] does
/// not count it. Splits absent, empty or all zero (an attempt that never reported progress)
/// are not listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnusableSplits {
    /// 1-based line of the splits: the `.jhist` event that ends the attempt, the line of the
    /// `clockSplits` key in a Rumen job.
    pub line: u64,
    /// The attempt's id, empty when its record names none (a Rumen attempt without
    /// `attemptID`).
    pub attempt: String,
    /// Why, one of a few stable strings: `"clockSplits not an array"` (`.jhist`; in Rumen
    /// such a value costs the attempt, as any value of the wrong type), `"clockSplits not
    /// integers"` (an element that is a float, as `1.5` or a Rumen `NaN`, a string,
    /// `null`...), `"clockSplits negative"` (below zero, other than a run of `-1`, Hadoop's
    /// intervals never reached, that ends the array), `"clockSplits sum overflows"` (the sum in
    /// milliseconds does not fit in an `i64`), checked in that order.
    pub reason: String,
    /// The file of the line, for an input of several files; `None` when the input is one
    /// file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// A `.jhist` attempt whose own end record was skipped or is absent, ended from its task's
/// `TASK_FINISHED`, which names it (`successfulAttemptId`) and gives its finish time
/// (`finishTime`: Hadoop's `TaskImpl` writes the successful attempt's). It succeeded then,
/// as Hadoop's `JobHistoryParser` takes the task's success from that event; what only its
/// own end gives (`hostname`, `clockSplits`, counters) is not known. No skip: the `TASK_FINISHED` is
/// parsed, and the attempt's end record, if damaged, is counted as skipped on its line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecoveredEnd {
    /// 1-based line of the `TASK_FINISHED` event that ended the attempt.
    pub line: u64,
    /// The attempt's id.
    pub attempt: String,
    /// The file of the line, for an input of several files; `None` when the input is one
    /// file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// A job's configuration embedded in a log (Rumen's concatenated Hadoop 1 form: a
/// `!!FILE=<host>_<start>_job_<id>_conf.xml!!` line, then the job's configuration XML),
/// read as a `_conf.xml` file is ([`read_job_conf`](crate::read_job_conf)): its properties
/// are records of the log, each parsed or skipped on its line, and the speculation setting
/// they give is here, for the caller to give to the job of that id (`stragglers replay`
/// does, as it does a `_conf.xml`'s). The reader gives it to no job itself: a log may hold
/// a job's configuration after the job's end, when the job was handed out already.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedConf {
    /// 1-based line of the `!!FILE=` line that names it (in its file, named by `file`, for
    /// an input of several files).
    pub line: u64,
    /// The job its name gives, and the speculation setting it gives that job.
    pub conf: JobConf,
    /// The file the line is in, for an input of several files; `None` when the input is
    /// one file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
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
    /// Set when the input ends in the middle of a record, or (`.jhist`, Spark, Hadoop 1)
    /// before the end of a job the log opened: a log cut at a line end, or written while
    /// the job ran.
    pub truncated: Option<Truncation>,
    /// What of the input was not read as records, and why (bytes after the end of its
    /// compressed stream, files of a rolling directory that hold no events).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<Unread>,
    /// Keys outside the format's own set (Hadoop 1: its `JobHistory.Keys`), by key: the
    /// first [`ReadReport::MAX_UNKNOWN_KEYS_KEPT`] seen. The records carrying them are read
    /// as if the key were absent (logs of other versions carry keys of their own), so a
    /// misspelt key (`TASK_STATUX`) loses what it holds: it is listed here for the user to
    /// see.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unknown_keys: BTreeMap<String, UnknownKey>,
    /// Unknown keys seen, each time a record carries one, those past the first
    /// [`ReadReport::MAX_UNKNOWN_KEYS_KEPT`] keys included: the count above covers them all.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unknown_keys_seen: u64,
    /// Attempts read whose progress splits were present but unusable, with their line and
    /// why: the first [`ReadReport::MAX_UNUSABLE_SPLITS_KEPT`]. Each attempt is kept without
    /// progress from its splits; it is not a skip.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unusable_splits: Vec<UnusableSplits>,
    /// Attempts read whose progress splits were present but unusable, those past the first
    /// [`ReadReport::MAX_UNUSABLE_SPLITS_KEPT`] included: the count above covers them all.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unusable_splits_seen: u64,
    /// Attempts ended from their task's end, their own end record skipped or absent
    /// ([`RecoveredEnd`]): the first [`ReadReport::MAX_RECOVERED_ENDS_KEPT`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recovered_ends: Vec<RecoveredEnd>,
    /// Attempts ended from their task's end, those past the first
    /// [`ReadReport::MAX_RECOVERED_ENDS_KEPT`] included.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub recovered_ends_seen: u64,
    /// The job configurations embedded in the input ([`EmbeddedConf`]), in the order of
    /// their lines: one per configuration the log holds whose XML is read, each naming its
    /// job (one that cannot be read is a skipped record instead).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub confs: Vec<EmbeddedConf>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl ReadReport {
    /// How many skipped records are kept with their line.
    pub const MAX_SKIPS_KEPT: usize = 100;

    /// How many distinct unknown keys are kept, each with its count and first line: a
    /// damaged or hostile input could hold millions of them.
    pub const MAX_UNKNOWN_KEYS_KEPT: usize = 100;

    /// How many attempts with unusable progress splits are kept with their line and reason:
    /// a damaged input could hold millions of them.
    pub const MAX_UNUSABLE_SPLITS_KEPT: usize = 100;

    /// How many attempts ended from their task's end are kept with their line.
    pub const MAX_RECOVERED_ENDS_KEPT: usize = 100;

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
            unread: Vec::new(),
            unknown_keys: BTreeMap::new(),
            unknown_keys_seen: 0,
            unusable_splits: Vec::new(),
            unusable_splits_seen: 0,
            recovered_ends: Vec::new(),
            recovered_ends_seen: 0,
            confs: Vec::new(),
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
            self.truncated = Some(Truncation {
                line,
                note,
                file: None,
            });
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

    /// Notes that a part of the input (named in `note`) was not read, and why (`reason`,
    /// one of the stable strings of [`Unread::reason`]).
    pub(crate) fn not_read(&mut self, reason: &str, note: String) {
        self.unread.push(Unread {
            reason: reason.to_owned(),
            note,
            file: None,
        });
    }

    /// Counts a record on `line` that carries `key`, a key outside the format's own set.
    pub(crate) fn unknown_key(&mut self, key: &str, line: u64) {
        self.unknown_keys_seen += 1;
        if let Some(seen) = self.unknown_keys.get_mut(key) {
            seen.records += 1;
        } else if self.unknown_keys.len() < Self::MAX_UNKNOWN_KEYS_KEPT {
            let seen = UnknownKey {
                records: 1,
                first_line: line,
                file: None,
            };
            self.unknown_keys.insert(key.to_owned(), seen);
        }
    }

    /// Counts an attempt, read and kept, whose progress splits on `line` are present but
    /// unusable, with why (`reason`, one of the stable strings of
    /// [`UnusableSplits::reason`]).
    pub(crate) fn splits_unusable(&mut self, line: u64, attempt: &str, reason: &str) {
        self.unusable_splits_seen += 1;
        if self.unusable_splits.len() < Self::MAX_UNUSABLE_SPLITS_KEPT {
            self.unusable_splits.push(UnusableSplits {
                line,
                attempt: attempt.to_owned(),
                reason: reason.to_owned(),
                file: None,
            });
        }
    }

    /// Counts attempt `attempt`, ended by the `TASK_FINISHED` on `line` ([`RecoveredEnd`]).
    pub(crate) fn end_recovered(&mut self, line: u64, attempt: &str) {
        self.recovered_ends_seen += 1;
        if self.recovered_ends.len() < Self::MAX_RECOVERED_ENDS_KEPT {
            self.recovered_ends.push(RecoveredEnd {
                line,
                attempt: attempt.to_owned(),
                file: None,
            });
        }
    }

    /// Adds the account `part` of the file named `file` (of an input of several files):
    /// its counts, its skips, unread parts, unknown keys, attempts with unusable splits and
    /// embedded configurations (naming the file), and its cut if none is noted before
    /// (naming the file).
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
        if self.truncated.is_none()
            && let Some(cut) = part.truncated
        {
            let file = cut.file.or_else(|| Some(file.to_owned()));
            self.truncated = Some(Truncation { file, ..cut });
        }
        self.unread
            .extend(part.unread.into_iter().map(|unread| Unread {
                file: unread.file.or_else(|| Some(file.to_owned())),
                ..unread
            }));
        self.unknown_keys_seen += part.unknown_keys_seen;
        for (key, seen) in part.unknown_keys {
            if let Some(kept) = self.unknown_keys.get_mut(&key) {
                kept.records += seen.records;
            } else if self.unknown_keys.len() < Self::MAX_UNKNOWN_KEYS_KEPT {
                let seen = UnknownKey {
                    file: Some(file.to_owned()),
                    ..seen
                };
                self.unknown_keys.insert(key, seen);
            }
        }
        self.unusable_splits_seen += part.unusable_splits_seen;
        let room = Self::MAX_UNUSABLE_SPLITS_KEPT.saturating_sub(self.unusable_splits.len());
        self.unusable_splits
            .extend(
                part.unusable_splits
                    .into_iter()
                    .take(room)
                    .map(|splits| UnusableSplits {
                        file: Some(file.to_owned()),
                        ..splits
                    }),
            );
        self.recovered_ends_seen += part.recovered_ends_seen;
        let room = Self::MAX_RECOVERED_ENDS_KEPT.saturating_sub(self.recovered_ends.len());
        (self.recovered_ends).extend(part.recovered_ends.into_iter().take(room).map(|end| {
            RecoveredEnd {
                file: Some(file.to_owned()),
                ..end
            }
        }));
        (self.confs).extend(part.confs.into_iter().map(|conf| EmbeddedConf {
            file: conf.file.or_else(|| Some(file.to_owned())),
            ..conf
        }));
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

    #[test]
    fn unusable_splits_are_counted_not_skipped_and_merged_naming_their_file() {
        let mut part = ReadReport::new("part", TraceFormat::Rumen);
        for line in 1..=3 {
            part.splits_unusable(line, "a", "clockSplits negative");
        }
        assert_eq!((part.records_read, part.records_skipped), (0, 0));
        assert_eq!(part.unusable_splits_seen, 3);
        let mut report = ReadReport::new("dir", TraceFormat::Rumen);
        for line in 0..ReadReport::MAX_UNUSABLE_SPLITS_KEPT as u64 - 1 {
            report.splits_unusable(line, "b", "clockSplits not integers");
        }
        report.add_file(part, "f1");
        // Room for one more kept: the first of the part's, naming its file; all counted.
        assert_eq!(
            report.unusable_splits.len(),
            ReadReport::MAX_UNUSABLE_SPLITS_KEPT
        );
        assert_eq!(
            report.unusable_splits_seen,
            ReadReport::MAX_UNUSABLE_SPLITS_KEPT as u64 + 2
        );
        let last = &report.unusable_splits[ReadReport::MAX_UNUSABLE_SPLITS_KEPT - 1];
        assert_eq!(
            (last.line, last.reason.as_str(), last.file.as_deref()),
            (1, "clockSplits negative", Some("f1"))
        );
        assert_eq!(report.unusable_splits[0].file, None);
    }
}
