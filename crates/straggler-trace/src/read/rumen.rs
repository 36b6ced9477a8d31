//! Rumen JSON: `LoggedJob` objects written one after another (pretty-printed, no enclosing
//! array), gzipped or not.
//!
//! - A job: `jobID`, `jobName`, `submitTime`; its tasks from `mapTasks`, `reduceTasks`,
//!   `otherTasks` (`taskID`, `taskType`, `startTime`, `inputBytes`, `inputRecords`).
//! - An attempt: `attemptID`, `hostName` (the last part of `/rack/host`), `startTime`,
//!   `finishTime`, `result` (`SUCCESS`, `KILLED`, `FAILED`; none: unfinished),
//!   `clockSplits` (progress, as in `.jhist`). Rumen writes `-1` for unknown numbers.
//!   `speculative` is `None`: Rumen does not keep it.
//! - Input: the task's `inputBytes` / `inputRecords` when known, else the successful
//!   attempt's `hdfsBytesRead` / `mapInputRecords` (map) or `reduceShuffleBytes` /
//!   `reduceInputRecords` (reduce).
//!
//! Records: each top-level JSON object (found by matching braces and brackets outside
//! strings, each closer against its opener, so a malformed object is skipped and the next
//! one read: a closer of the wrong kind ends the object there as `"malformed JSON"`; an
//! object over 64 MiB is read to its end and skipped as `"record too long"`); an object
//! without `jobID` is
//! skipped as `"not a Rumen job"`; an attempt with no start time (its own or its task's)
//! is left out and counted as a record of its own, skipped as
//! `"attempt without start time"`. Text outside any object is skipped line by line; an
//! input that ends inside an object sets [`ReadReport::truncated`].

use std::collections::HashMap;
use std::io::BufRead;

use serde::Deserialize;

use super::assemble::{integer_splits, plausible, progress_from_clock_splits};
use super::hadoop1::host_of;
use super::input::{Lines, MAX_LINE_BYTES, json_field_at};
use super::jhist::kind_of;
use crate::{AttemptOutcome, ReadReport, StageKind, TraceAttempt, TraceJob, TraceTask};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoggedJob {
    #[serde(rename = "jobID")]
    job_id: Option<String>,
    job_name: Option<String>,
    submit_time: Option<i64>,
    map_tasks: Option<Vec<LoggedTask>>,
    reduce_tasks: Option<Vec<LoggedTask>>,
    other_tasks: Option<Vec<LoggedTask>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoggedTask {
    #[serde(rename = "taskID")]
    task_id: Option<String>,
    task_type: Option<String>,
    start_time: Option<i64>,
    input_bytes: Option<i64>,
    input_records: Option<i64>,
    attempts: Option<Vec<LoggedAttempt>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoggedAttempt {
    #[serde(rename = "attemptID")]
    attempt_id: Option<String>,
    host_name: Option<String>,
    start_time: Option<i64>,
    finish_time: Option<i64>,
    result: Option<String>,
    clock_splits: Option<Vec<serde_json::Value>>,
    hdfs_bytes_read: Option<i64>,
    map_input_records: Option<i64>,
    reduce_shuffle_bytes: Option<i64>,
    reduce_input_records: Option<i64>,
}

/// Where the bracket matcher is.
#[derive(Debug, Default)]
struct Scanner {
    /// The closers (`}` or `]`) the open brackets expect, innermost last; empty outside any
    /// object.
    open: Vec<u8>,
    /// Brackets open in an object too long to keep, whose kinds are no longer matched: its
    /// end is found by counting.
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The object being gathered and its first line.
    object: Vec<u8>,
    start: u64,
    /// Whether the object grew past [`MAX_LINE_BYTES`]: it is no longer kept, only read to
    /// its end, and skipped as `"record too long"`.
    too_long: bool,
}

impl Scanner {
    fn inside(&self) -> bool {
        !self.open.is_empty() || self.depth > 0
    }

    /// Forgets the object: the scan is outside any object again.
    fn reset(&mut self) {
        self.open.clear();
        self.depth = 0;
        self.in_string = false;
        self.escaped = false;
        self.object.clear();
        self.too_long = false;
    }
}

/// Reads a Rumen input.
pub(crate) fn read(
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    mut on_job: impl FnMut(TraceJob),
) {
    let mut lines = Lines::new(input);
    let mut scan = Scanner::default();
    while let Some(line) = lines.next_or_note(report) {
        let no = line.no;
        if line.too_long {
            // Its brackets are not known: the object it is in (if any) is lost with it.
            if scan.inside() {
                report.skipped(scan.start, None, "record too long");
                scan.reset();
            } else {
                report.skipped(no, None, "line too long");
            }
            continue;
        }
        let mut stray = false;
        for &byte in line.text {
            if !scan.inside() {
                if byte == b'{' {
                    scan.reset();
                    scan.open.push(b'}');
                    scan.start = no;
                    scan.object.push(byte);
                } else if !byte.is_ascii_whitespace() {
                    stray = true;
                }
                continue;
            }
            if !scan.too_long {
                scan.object.push(byte);
                if scan.object.len() > MAX_LINE_BYTES {
                    scan.too_long = true;
                    scan.depth = scan.open.len();
                    scan.open.clear();
                    scan.object = Vec::new();
                }
            }
            if scan.in_string {
                if scan.escaped {
                    scan.escaped = false;
                } else if byte == b'\\' {
                    scan.escaped = true;
                } else if byte == b'"' {
                    scan.in_string = false;
                }
                continue;
            }
            match byte {
                b'"' => scan.in_string = true,
                b'{' | b'[' if scan.too_long => scan.depth += 1,
                b'}' | b']' if scan.too_long => {
                    scan.depth -= 1;
                    if scan.depth == 0 {
                        report.skipped(scan.start, None, "record too long");
                        scan.reset();
                    }
                }
                b'{' => scan.open.push(b'}'),
                b'[' => scan.open.push(b']'),
                b'}' | b']' => {
                    if scan.open.pop() != Some(byte) {
                        // A closer of the wrong kind: the object is broken here, and what
                        // follows is read as if outside any object.
                        report.skipped(scan.start, None, "malformed JSON");
                        scan.reset();
                    } else if scan.open.is_empty() {
                        object_done(&scan.object, scan.start, no, report, &mut on_job);
                        scan.reset();
                    }
                }
                _ => {}
            }
        }
        if scan.inside() && !scan.too_long {
            scan.object.push(b'\n');
        }
        if stray {
            report.skipped(no, None, "text outside any JSON object");
        }
    }
    if scan.inside() {
        report.skipped(scan.start, None, "truncated record");
        report.cut(
            scan.start,
            format!(
                "the input ends inside the JSON object that starts on line {}",
                scan.start
            ),
        );
    }
}

fn object_done(
    bytes: &[u8],
    start: u64,
    end: u64,
    report: &mut ReadReport,
    on_job: &mut impl FnMut(TraceJob),
) {
    let logged: LoggedJob = match serde_json::from_slice(bytes) {
        Ok(job) => job,
        Err(error) if error.is_data() => {
            let field = json_field_at(bytes, &error);
            report.skipped(start, field.as_deref(), "field of the wrong type");
            return;
        }
        Err(_) => {
            report.skipped(start, None, "malformed JSON");
            return;
        }
    };
    let Some(id) = logged.job_id else {
        report.skipped(start, Some("jobID"), "not a Rumen job");
        return;
    };
    let mut job = TraceJob {
        id,
        name: logged.job_name,
        submit_secs: known(logged.submit_time).map(ms_to_secs),
        tasks: Vec::new(),
    };
    // The task of each attempt id read, so that an id read again is skipped, the first
    // standing, as in the other readers.
    let mut attempt_tasks: HashMap<String, usize> = HashMap::new();
    let all_tasks = [logged.map_tasks, logged.reduce_tasks, logged.other_tasks];
    for logged_task in all_tasks.into_iter().flatten().flatten() {
        let task_type = logged_task.task_type.as_deref().unwrap_or("");
        let (stage, kind) = match kind_of(task_type, "taskType") {
            Ok(stage_and_kind) => stage_and_kind,
            Err((reason, field)) => {
                // Each of the task's attempts is a record of its own, skipped with it.
                for _ in logged_task.attempts.into_iter().flatten() {
                    report.skipped(start, field, reason);
                }
                continue;
            }
        };
        let task_start = known(logged_task.start_time);
        let mut task = TraceTask {
            id: logged_task.task_id.unwrap_or_default(),
            stage,
            kind,
            input_bytes: known_u64(logged_task.input_bytes),
            input_records: known_u64(logged_task.input_records),
            attempts: Vec::new(),
        };
        for logged_attempt in logged_task.attempts.into_iter().flatten() {
            let Some(start_ms) = known(logged_attempt.start_time).or(task_start) else {
                report.skipped(start, Some("startTime"), "attempt without start time");
                continue;
            };
            let start_secs = ms_to_secs(start_ms);
            let end_secs = known(logged_attempt.finish_time).map(ms_to_secs);
            let times = plausible(start_secs, "startTime")
                .and_then(|_| end_secs.map(|end| plausible(end, "finishTime")).transpose());
            if let Err((reason, field)) = times {
                report.skipped(start, field, reason);
                continue;
            }
            let outcome = match logged_attempt.result.as_deref() {
                Some("SUCCESS") => AttemptOutcome::Succeeded,
                Some("KILLED") => AttemptOutcome::Killed,
                Some("FAILED") => AttemptOutcome::Failed,
                None => AttemptOutcome::Unfinished,
                Some(_) => {
                    report.skipped(start, Some("result"), "unknown status");
                    continue;
                }
            };
            match end_secs {
                None if outcome != AttemptOutcome::Unfinished => {
                    report.skipped(start, Some("finishTime"), "missing field");
                    continue;
                }
                Some(end) if end < start_secs => {
                    report.skipped(start, Some("finishTime"), "attempt ends before it starts");
                    continue;
                }
                _ => {}
            }
            let id = logged_attempt.attempt_id.unwrap_or_default();
            if !id.is_empty() {
                let this_task = job.tasks.len();
                match attempt_tasks.get(&id) {
                    Some(&t) if t != this_task => {
                        report.skipped(start, Some("attemptID"), "attempt id of another task");
                        continue;
                    }
                    Some(_) => {
                        report.skipped(start, Some("attemptID"), "attempt started twice");
                        continue;
                    }
                    None => {
                        attempt_tasks.insert(id.clone(), this_task);
                    }
                }
            }
            if outcome == AttemptOutcome::Succeeded {
                let (bytes, records) = match kind {
                    StageKind::Map => (
                        logged_attempt.hdfs_bytes_read,
                        logged_attempt.map_input_records,
                    ),
                    StageKind::Reduce => (
                        logged_attempt.reduce_shuffle_bytes,
                        logged_attempt.reduce_input_records,
                    ),
                    StageKind::Other => (None, None),
                };
                task.input_bytes = task.input_bytes.or(known_u64(bytes));
                task.input_records = task.input_records.or(known_u64(records));
            }
            let progress = logged_attempt
                .clock_splits
                .as_deref()
                .map(|splits| {
                    let splits = integer_splits(splits);
                    progress_from_clock_splits(&splits, end_secs.map(|end| end - start_secs))
                })
                .unwrap_or_default();
            task.attempts.push(TraceAttempt {
                id,
                // Rumen keeps Hadoop 1's escapes (`cluster1020\\.example\\.com`).
                host: logged_attempt
                    .host_name
                    .as_deref()
                    .map(|name| host_of(&unescape(name))),
                start_secs,
                end_secs,
                outcome,
                speculative: None,
                progress,
                line: end,
            });
        }
        task.attempts
            .sort_by(|a, b| a.start_secs.total_cmp(&b.start_secs));
        job.tasks.push(task);
    }
    report.parsed();
    on_job(job);
}

/// `text` without Hadoop 1's history escapes: a `\\` takes the next character as it is.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        out.push(if c == '\\' {
            chars.next().unwrap_or(c)
        } else {
            c
        });
    }
    out
}

/// Rumen writes -1 (or any negative number) for unknown.
fn known(value: Option<i64>) -> Option<i64> {
    value.filter(|&v| v >= 0)
}

fn known_u64(value: Option<i64>) -> Option<u64> {
    known(value).and_then(|v| u64::try_from(v).ok())
}

fn ms_to_secs(ms: i64) -> f64 {
    ms as f64 / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_that_are_not_integers_leave_the_job_and_give_no_progress() {
        let text = r#"{"jobID": "job_1", "mapTasks": [{"taskID": "task_1_m_0",
            "taskType": "MAP", "attempts": [{"attemptID": "a", "startTime": 1000,
            "finishTime": 5000, "result": "SUCCESS", "clockSplits": [1.5, 2]}]}]}"#;
        let mut report = ReadReport::new("t.json", crate::TraceFormat::Rumen);
        let mut jobs = Vec::new();
        read(Box::new(text.as_bytes()), &mut report, |job| jobs.push(job));
        assert_eq!((report.records_parsed, report.records_skipped), (1, 0));
        let attempt = &jobs[0].tasks[0].attempts[0];
        assert_eq!((attempt.start_secs, attempt.end_secs), (1.0, Some(5.0)));
        assert!(attempt.progress.is_empty());
    }

    #[test]
    fn history_escapes_are_undone() {
        assert_eq!(
            host_of(&unescape(r"/192\.30\.63\.192/cluster1020\.example\.com")),
            "cluster1020.example.com"
        );
        // `\\` is a backslash, `\"` a quote; a lone backslash at the end stays.
        assert_eq!(unescape("a\\\\b\\\"c\\"), "a\\b\"c\\");
    }
}
