//! Hadoop MRv2 JobHistory files (`.jhist`, "Avro-Json"): line 1 `Avro-Json`, line 2 the Avro
//! schema, then one event per line, `{"type": "<EVENT_TYPE>", "event": {"<class>": {...}}}`.
//! A file whose line 2 is not the schema (a JSON object of type `record`: an event where the
//! schema line was deleted, other JSON) is [`TraceError::Malformed`] (see `not_a_schema`).
//!
//! - Tasks from `TASK_STARTED` (`taskid`, `taskType`); stage `"map"`, `"reduce"`, `"setup"`,
//!   `"cleanup"`; kind Map, Reduce, or Other for setup and cleanup.
//! - Attempts from `*_ATTEMPT_STARTED` (`attemptId`, `startTime`, `trackerName`, `avataar`:
//!   `SPECULATIVE` gives `speculative = Some(true)`, `VIRGIN` `Some(false)`, absent (before
//!   Hadoop 2.4) `None`) to `*_ATTEMPT_FINISHED` (succeeded), `*_ATTEMPT_FAILED`,
//!   `*_ATTEMPT_KILLED` (`finishTime`, `hostname`, `clockSplits`).
//! - Progress from `clockSplits`, see
//!   [`progress_from_clock_splits`](super::assemble::progress_from_clock_splits); splits
//!   present but unusable (not an array, not integers, negative, a sum that overflows)
//!   leave the attempt without progress and are counted in
//!   [`ReadReport::unusable_splits`].
//! - `TASK_FINISHED` ends the task's successful attempt if that is still running (its own
//!   end record skipped or absent), succeeded at the task's `finishTime`, as Hadoop's
//!   `JobHistoryParser` takes the task's success from it: the attempt its
//!   `successfulAttemptId` names, or without one, the task's one attempt still running when
//!   none has succeeded, ended at its job's end event if still running then (not at the end
//!   of the input), and not taken where its original may be unknown (see `only_running`).
//!   Each is noted in [`ReadReport::recovered_ends`]; a `TASK_FINISHED` that contradicts the
//!   attempt's recorded end is skipped (see `successful_attempt`).
//! - Input from the counters of the successful attempt: `HDFS_BYTES_READ` (map) or
//!   `REDUCE_SHUFFLE_BYTES` (reduce), `MAP_INPUT_RECORDS` or `REDUCE_INPUT_RECORDS`. Such a
//!   count of a successful attempt's end or a `TASK_FINISHED` that is no size skips the
//!   event, naming it: `"negative size"`, `"missing field"` for a count without its value,
//!   or `"field of the wrong type"` for a value that is no integer.
//! - The job is handed out at `JOB_FINISHED`, `JOB_FAILED` or `JOB_KILLED` once none of its
//!   attempts runs, or at the end of the file; a job without any of them is noted in
//!   [`ReadReport::truncated`] (the file may be cut at a line end, or written while the
//!   job ran). A later event of a job handed out (its `JOB_SUBMITTED`, its end again, a
//!   task's or an attempt's) is skipped as `"record of a job already ended"`, naming
//!   `jobid` or `taskid`, and opens no second job of its id.
//!
//! A job's `submitTime` (`JOB_SUBMITTED`), optional, is checked as the attempts' times are
//! when written: of the wrong type, negative or implausible, it skips its event. So do the
//! optional strings `jobName`, `trackerName`, `avataar` and `hostname` when written as
//! anything but a string or `null`. A `JOB_SUBMITTED` of a job already submitted keeps the
//! first's `jobName` and `submitTime`: one giving another is skipped as `"contradicts the
//! job's submission"` naming it; one restating them, or leaving them out, is parsed, and a
//! value the first left unknown is taken from it.
//!
//! Only the fields above are read from an event, each as a small typed value: the others
//! are passed over as they are parsed, never built into a tree of JSON values, and
//! `clockSplits` are read as integers up to a cap (see [`ClockSplits`]), so that an event
//! takes about the memory of its text. Optional fields written as Avro unions (`{"string":
//! "VIRGIN"}`) are unwrapped. A key read written twice in one object (a field of the body,
//! `groups`, `counts`, a count's `name` or `value`, the event's class) skips the line as
//! `"duplicate key"` naming it, as serde_json has a Spark line's (see `once`). An event
//! whose `type` is none of the schema's is skipped as `"unknown event type"`; a task type
//! none of Hadoop's as `"unknown task type"` (see [`kind_of`]).

use std::collections::HashSet;
use std::fmt;
use std::io::BufRead;
use std::path::Path;

use serde::Deserialize;
use serde::de::{Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::assemble::{
    Assembler, AttemptFields, ClockSplits, EndError, JOB_ENDED, JobFields, Skip, SplitsFault,
    plausible,
};
use super::input::{Lines, integer_read_as_float, is_blank, json_line_skipped};
use crate::{AttemptOutcome, ReadReport, StageKind, TraceError, TraceJob};

/// An event line. Only the fields the reader uses are kept, each as a small typed value:
/// the others (`cpuUsages`, `splitLocations`, `diagnostics`, a field of a later Hadoop...)
/// are passed over as they are parsed, never built into a tree of values, so that a line
/// of 60 MB holding an array of millions takes no more memory than its text.
#[derive(Debug, Deserialize)]
struct Envelope {
    #[serde(rename = "type")]
    kind: Option<String>,
    event: Option<Wrapper>,
}

/// The fields of a job's `JOB_SUBMITTED`, as skips name them.
const JOB_FIELDS: JobFields = JobFields {
    id: "jobid",
    name: "jobName",
    submit: "submitTime",
};

/// The fields of an attempt's events, as skips name them.
const FIELDS: AttemptFields = AttemptFields {
    job: "taskid",
    id: "attemptId",
    start: "startTime",
    end: "finishTime",
    no_start: ("attempt end without start", "attemptId"),
};

/// Reads a `.jhist` input.
pub(crate) fn read(
    input: Box<dyn BufRead + '_>,
    path: &Path,
    report: &mut ReadReport,
    mut on_job: impl FnMut(TraceJob),
) -> Result<(), TraceError> {
    let mut lines = Lines::new(input);
    let mut jobs = Assembler::default();
    let mut implied = Implied::default();
    let mut header_lines = 0;
    while let Some(line) = lines.next_or_note(report) {
        let no = line.no;
        if header_lines < 2 {
            let text = String::from_utf8_lossy(line.text);
            let malformed = |field: &str, reason: &str| TraceError::Malformed {
                path: path.to_owned(),
                line: no,
                field: field.to_owned(),
                reason: reason.to_owned(),
            };
            let field = if header_lines == 0 {
                "header"
            } else {
                "schema"
            };
            if line.too_long {
                return Err(malformed(field, "the line is longer than 64 MiB"));
            }
            if header_lines == 0 && text.trim() == super::detect::JHIST_BINARY_HEADER {
                return Err(malformed(
                    "header",
                    &format!(
                        "{} is not read: {}",
                        super::detect::JHIST_BINARY,
                        super::detect::JHIST_BINARY_WHY
                    ),
                ));
            }
            if header_lines == 0 && text.trim() != "Avro-Json" {
                return Err(malformed(
                    "header",
                    "the first line of a .jhist must be `Avro-Json`",
                ));
            }
            if header_lines == 1
                && let Some(reason) = not_a_schema(line.text)
            {
                return Err(malformed("schema", &reason));
            }
            header_lines += 1;
            report.parsed();
            continue;
        }
        if line.too_long {
            report.skipped(no, None, "line too long");
            continue;
        }
        if is_blank(line.text) {
            continue;
        }
        match serde_json::from_slice::<Envelope>(line.text) {
            Ok(envelope) => match event(envelope, no, &mut jobs, &mut implied, report, &mut on_job)
            {
                Ok(()) => report.parsed(),
                Err((reason, field)) => report.skipped(no, field, reason),
            },
            Err(error) => json_line_skipped(no, line.text, line.terminated, &error, report),
        }
    }
    if header_lines < 2 {
        return Err(TraceError::Malformed {
            path: path.to_owned(),
            line: lines.line() + 1,
            field: if header_lines == 0 {
                "header"
            } else {
                "schema"
            }
            .to_owned(),
            reason: "the input ends before its header and schema".to_owned(),
        });
    }
    let end = "JOB_FINISHED, JOB_FAILED or JOB_KILLED";
    // The recoveries still pending are of jobs the input leaves unended, and are not
    // applied: a copy still running there may yet be killed after its task's end.
    jobs.finish_noting_unended(&mut on_job, report, lines.line(), end);
    Ok(())
}

/// What the reader keeps for the `TASK_FINISHED`s without `successfulAttemptId`, whose
/// attempt it infers (see `only_running`).
#[derive(Debug, Default)]
struct Implied {
    /// The attempts inferred, ended if still running at their job's end event.
    pending: Vec<Recovery>,
    /// The tasks (ids) of which an attempt record was skipped that names no attempt of
    /// theirs seen starting (see `note_skipped`): the task may have attempts the reader
    /// does not know, the one that succeeded among them, and none of its attempts is
    /// inferred.
    attempts_unknown: HashSet<String>,
}

impl Implied {
    /// Notes the task of an attempt record (`body`) skipped for `reason`, if the record
    /// names no attempt of that task seen starting (its `attemptId` unreadable included):
    /// an attempt start lost, an end without start (`attempt end without start`), a start
    /// or end of an attempt id of another task. A record without a readable `taskid` names
    /// no task; an attempt killed before launch never ran, and is no lost attempt; nor is
    /// one of a job handed out already ([`JOB_ENDED`]), whose task no later record reads.
    fn note_skipped(&mut self, body: &Body, jobs: &Assembler, reason: &str) {
        if reason == KILLED_BEFORE_LAUNCH || reason == JOB_ENDED {
            return;
        }
        let Ok(task_id) = string(body, "taskid") else {
            return;
        };
        let Some(job_id) = job_of(task_id) else {
            return;
        };
        let attempts = jobs.task_attempts(&job_id, task_id).unwrap_or_default();
        let attempt_id = string(body, "attemptId").ok();
        if !attempt_id.is_some_and(|id| attempts.iter().any(|a| a.id == id)) {
            self.attempts_unknown.insert(task_id.to_owned());
        }
    }
}

/// An attempt that a `TASK_FINISHED` without `successfulAttemptId` ends if it is still
/// running at its job's end event (see `only_running`).
#[derive(Debug)]
struct Recovery {
    job: String,
    task: String,
    stage: String,
    kind: StageKind,
    attempt: String,
    finish: f64,
    /// The line of the `TASK_FINISHED`.
    line: u64,
}

/// At the end event of job `job_id`, ends its attempts of `pending` still running,
/// succeeded at their task's end, noting each in `report`; one that ended since (a kill
/// after its task's end: a copy, not the successful attempt) is left as its own records
/// say. Never called at the end of the input, which may cut a job before a copy's kill.
fn end_pending(
    pending: &mut Vec<Recovery>,
    job_id: &str,
    jobs: &mut Assembler,
    report: &mut ReadReport,
) {
    let (now, later) = std::mem::take(pending)
        .into_iter()
        .partition(|r| r.job == job_id);
    *pending = later;
    for r in now {
        let running = jobs.attempt(&r.job, &r.attempt);
        if running.is_none_or(|a| a.outcome != AttemptOutcome::Unfinished) {
            continue;
        }
        let Some(job) = jobs.get(&r.job) else {
            continue;
        };
        let task = job.task(&r.task, &r.stage, r.kind);
        let outcome = AttemptOutcome::Succeeded;
        if let Ok(Some(_)) = job.end_attempt(task, &r.attempt, r.finish, outcome, None, r.line) {
            report.end_recovered(r.line, &r.attempt);
        }
    }
}

/// The top of line 2 of a `.jhist`: the Avro schema, `{"type": "record", "name": "Event",
/// ...}`, or, when the schema line is missing, an event (`{"type": "AM_STARTED", "event":
/// ...}`).
#[derive(Debug, Deserialize)]
struct SchemaTop {
    #[serde(rename = "type")]
    kind: Option<serde_json::Value>,
    event: Option<IgnoredAny>,
}

/// Why line 2 of a `.jhist` (`text`) is not its Avro schema, if it is not: it must be a
/// JSON object of type `record` (Hadoop's `Event` schema). The reader reads the events by
/// their names and does not need the schema, but Hadoop's `EventReader` parses line 2 as
/// the schema and refuses the file without one; and a file whose line 2 is an event (the
/// schema line deleted) would lose that event without a word if the line were taken for
/// the schema.
fn not_a_schema(text: &[u8]) -> Option<String> {
    if serde_json::from_slice::<IgnoredAny>(text).is_err() {
        return Some("the second line of a .jhist must be the Avro schema (JSON)".to_owned());
    }
    // Valid JSON: `None` for anything but an object.
    let top = serde_json::from_slice::<SchemaTop>(text).ok();
    let kind = top.as_ref().and_then(|top| top.kind.as_ref());
    match (kind.and_then(serde_json::Value::as_str), top.as_ref()) {
        (Some("record"), _) => None,
        (kind, Some(top))
            if top.event.is_some() || kind.is_some_and(|k| EVENT_TYPES.contains(&k)) =>
        {
            Some(format!(
                "line 2 is an event ({}), not the Avro schema: the schema line is missing \
                 (Hadoop's EventReader refuses such a file too); put the schema back (a copy \
                 of line 2 of another .jhist of the same Hadoop version)",
                kind.unwrap_or("of no type")
            ))
        }
        _ => Some(
            "the second line of a .jhist must be the Avro schema, a JSON object of type \
             `record`"
                .to_owned(),
        ),
    }
}

fn string<'a>(body: &'a Body, name: &'static str) -> Result<&'a str, Skip> {
    body.field(name)
        .ok_or(("missing field", Some(name)))?
        .as_str()
        .ok_or(("field of the wrong type", Some(name)))
}

/// An optional string field: `None` when absent or `null`; a value of another type skips
/// the event, as a required field's does (read before the event changes anything).
fn optional_string<'a>(body: &'a Body, name: &'static str) -> Result<Option<&'a str>, Skip> {
    body.field(name)
        .map(|value| {
            value
                .as_str()
                .ok_or(("field of the wrong type", Some(name)))
        })
        .transpose()
}

/// A time in milliseconds, in seconds: an integer, one past `i64` read by its value (then
/// an implausible or negative time, as Spark's), `-0` as 0.
fn millis(body: &Body, name: &'static str) -> Result<f64, Skip> {
    let ms = match body.field(name).ok_or(("missing field", Some(name)))? {
        Plain::Int(ms) => *ms as f64,
        Plain::Big(ms) => *ms as f64,
        // `-0.0 + 0.0` is `+0.0`: nothing downstream sees a negative zero.
        Plain::Wide(ms) => ms + 0.0,
        _ => return Err(("field of the wrong type", Some(name))),
    };
    Ok(ms / 1000.0)
}

/// `task_1329348432655_0001_m_000005` or `attempt_..._0` to `job_1329348432655_0001`.
pub(crate) fn job_of(id: &str) -> Option<String> {
    let rest = id
        .strip_prefix("task_")
        .or_else(|| id.strip_prefix("attempt_"))?;
    let mut parts = rest.split('_');
    let (cluster, number) = (parts.next()?, parts.next()?);
    Some(format!("job_{cluster}_{number}"))
}

/// The stage (the type in lower case) and kind of a Hadoop task type read from `field`:
/// Map, Reduce, or Other for the setup and cleanup tasks; an empty type is skipped as
/// `"missing field"`, any other as `"unknown task type"` (not taken for a setup task).
pub(crate) fn kind_of(task_type: &str, field: &'static str) -> Result<(String, StageKind), Skip> {
    let stage = task_type.to_ascii_lowercase();
    let kind = match stage.as_str() {
        "map" | "m" => StageKind::Map,
        "reduce" | "r" => StageKind::Reduce,
        "setup" | "cleanup" | "job_setup" | "job_cleanup" | "task_cleanup" => StageKind::Other,
        "" => return Err(("missing field", Some(field))),
        _ => return Err(("unknown task type", Some(field))),
    };
    Ok((stage, kind))
}

/// The event types of the `.jhist` schema (`Events.avpr`'s `EventType`: the union of the schemas of Hadoop 0.23 to 3),
/// those this reader does not use included: an event of another type is skipped as
/// `"unknown event type"` rather than read as one that carries nothing.
const EVENT_TYPES: [&str; 32] = [
    "JOB_SUBMITTED",
    "JOB_INITED",
    "JOB_FINISHED",
    "JOB_PRIORITY_CHANGED",
    "JOB_STATUS_CHANGED",
    "JOB_QUEUE_CHANGED",
    "JOB_FAILED",
    "JOB_KILLED",
    "JOB_ERROR",
    "JOB_INFO_CHANGED",
    "TASK_STARTED",
    "TASK_FINISHED",
    "TASK_FAILED",
    "TASK_UPDATED",
    "NORMALIZED_RESOURCE",
    "MAP_ATTEMPT_STARTED",
    "MAP_ATTEMPT_FINISHED",
    "MAP_ATTEMPT_FAILED",
    "MAP_ATTEMPT_KILLED",
    "REDUCE_ATTEMPT_STARTED",
    "REDUCE_ATTEMPT_FINISHED",
    "REDUCE_ATTEMPT_FAILED",
    "REDUCE_ATTEMPT_KILLED",
    "SETUP_ATTEMPT_STARTED",
    "SETUP_ATTEMPT_FINISHED",
    "SETUP_ATTEMPT_FAILED",
    "SETUP_ATTEMPT_KILLED",
    "CLEANUP_ATTEMPT_STARTED",
    "CLEANUP_ATTEMPT_FINISHED",
    "CLEANUP_ATTEMPT_FAILED",
    "CLEANUP_ATTEMPT_KILLED",
    "AM_STARTED",
];

/// Applies the event on `line`; an attempt's end with unusable `clockSplits` is noted in
/// `report` (the event itself is counted by the caller, parsed or skipped), an attempt
/// record skipped in `implied` (`Implied::note_skipped`).
fn event(
    envelope: Envelope,
    line: u64,
    jobs: &mut Assembler,
    implied: &mut Implied,
    report: &mut ReadReport,
    on_job: &mut impl FnMut(TraceJob),
) -> Result<(), Skip> {
    let kind = envelope.kind.ok_or(("missing field", Some("type")))?;
    if !EVENT_TYPES.contains(&kind.as_str()) {
        return Err(("unknown event type", Some("type")));
    }
    let wrapper = envelope.event.ok_or(("missing field", Some("event")))?;
    let Some(EventBody::Object(body)) = &wrapper.first else {
        return Err(("missing field", Some("event")));
    };
    match kind.as_str() {
        "JOB_SUBMITTED" => {
            let id = string(body, "jobid")?;
            // Optional, but when written, a time like any other: a value of the wrong type,
            // a negative or implausible time skips the event (before, the job was left
            // without it, without a word).
            let submit = match body.field("submitTime") {
                None => None,
                Some(_) => Some(plausible(millis(body, "submitTime")?, "submitTime")?),
            };
            let name = optional_string(body, "jobName")?;
            // A job submitted again keeps its first name and submit time.
            jobs.check_submission(id, name, submit, JOB_FIELDS)?;
            jobs.job(id, JOB_FIELDS.id)?.fill_submission(name, submit);
        }
        "JOB_FINISHED" | "JOB_FAILED" | "JOB_KILLED" => {
            let id = string(body, "jobid")?;
            jobs.job(id, JOB_FIELDS.id)?;
            end_pending(&mut implied.pending, id, jobs, report);
            jobs.end_job(id, JOB_FIELDS.id, on_job)?;
        }
        "TASK_STARTED" => {
            let task_id = string(body, "taskid")?;
            let job_id = job_of(task_id).ok_or(("unrecognised task id", Some("taskid")))?;
            let (stage, stage_kind) = kind_of(string(body, "taskType")?, "taskType")?;
            jobs.job(&job_id, FIELDS.job)?
                .task(task_id, &stage, stage_kind);
        }
        "TASK_FINISHED" => {
            let task_id = string(body, "taskid")?;
            let job_id = job_of(task_id).ok_or(("unrecognised task id", Some("taskid")))?;
            let (stage, stage_kind) = kind_of(string(body, "taskType")?, "taskType")?;
            let (bytes, records) = input_of(body, stage_kind)?;
            let recover = successful_attempt(body, jobs, implied, &job_id, task_id)?;
            let job = jobs.job(&job_id, FIELDS.job)?;
            let task = job.task(task_id, &stage, stage_kind);
            match recover {
                Some((attempt_id, finish, true)) => {
                    let outcome = AttemptOutcome::Succeeded;
                    job.end_attempt(task, &attempt_id, finish, outcome, None, line)
                        .map_err(|e| e.skip(&FIELDS))?;
                    report.end_recovered(line, &attempt_id);
                }
                Some((attempt, finish, false)) => implied.pending.push(Recovery {
                    job: job_id.clone(),
                    task: task_id.to_owned(),
                    stage,
                    kind: stage_kind,
                    attempt,
                    finish,
                    line,
                }),
                None => {}
            }
            let task = job.task_mut(task);
            task.input_bytes = task.input_bytes.or(bytes);
            task.input_records = task.input_records.or(records);
        }
        k if k.ends_with("_ATTEMPT_STARTED") => attempt_started(body, line, jobs)
            .inspect_err(|&(reason, _)| implied.note_skipped(body, jobs, reason))?,
        k if k.ends_with("_ATTEMPT_FINISHED")
            || k.ends_with("_ATTEMPT_FAILED")
            || k.ends_with("_ATTEMPT_KILLED") =>
        {
            attempt_ended(k, body, line, jobs, report, on_job)
                .inspect_err(|&(reason, _)| implied.note_skipped(body, jobs, reason))?
        }
        _ => {}
    }
    Ok(())
}

/// Applies an `*_ATTEMPT_STARTED` event (`body`, on `line`).
fn attempt_started(body: &Body, line: u64, jobs: &mut Assembler) -> Result<(), Skip> {
    let task_id = string(body, "taskid")?;
    let job_id = job_of(task_id).ok_or(("unrecognised task id", Some("taskid")))?;
    let (stage, stage_kind) = kind_of(string(body, "taskType")?, "taskType")?;
    let attempt_id = string(body, "attemptId")?;
    let start = plausible(millis(body, "startTime")?, "startTime")?;
    let host = optional_string(body, "trackerName")?.map(str::to_owned);
    let avataar = optional_string(body, "avataar")?;
    // Checked before the job and task are opened: a start skipped leaves nothing.
    jobs.check_start(&job_id, task_id, attempt_id, start)
        .map_err(|e| e.skip(&FIELDS))?;
    let speculative = match avataar {
        Some("SPECULATIVE") => Some(true),
        Some("VIRGIN") => Some(false),
        _ => None,
    };
    let job = jobs.job(&job_id, FIELDS.job)?;
    let task = job.task(task_id, &stage, stage_kind);
    job.start_attempt(task, attempt_id, start, host, speculative, line)
        .map_err(|e| e.skip(&FIELDS))?;
    Ok(())
}

/// Applies an `*_ATTEMPT_FINISHED`, `_FAILED` or `_KILLED` event (of type `kind`, `body`,
/// on `line`); unusable `clockSplits` are noted in `report`.
fn attempt_ended(
    kind: &str,
    body: &Body,
    line: u64,
    jobs: &mut Assembler,
    report: &mut ReadReport,
    on_job: &mut impl FnMut(TraceJob),
) -> Result<(), Skip> {
    let outcome = if kind.ends_with("_FINISHED") {
        AttemptOutcome::Succeeded
    } else if kind.ends_with("_KILLED") {
        AttemptOutcome::Killed
    } else {
        AttemptOutcome::Failed
    };
    let task_id = string(body, "taskid")?;
    let job_id = job_of(task_id).ok_or(("unrecognised task id", Some("taskid")))?;
    let (stage, stage_kind) = kind_of(string(body, "taskType")?, "taskType")?;
    let attempt_id = string(body, "attemptId")?;
    let finish = plausible(millis(body, "finishTime")?, "finishTime")?;
    let hostname = optional_string(body, "hostname")?;
    // The input of a successful attempt, read before anything changes.
    let input = match outcome {
        AttemptOutcome::Succeeded => Some(input_of(body, stage_kind)?),
        _ => None,
    };
    // A record of a job handed out comes too late, whatever it says.
    jobs.check_not_handed_out(&job_id, FIELDS.job)?;
    // An attempt killed before it had a container: Hadoop (2.7.2 on, MAPREDUCE-5982)
    // logs its kill with no start, a finish time of 0 (set only once launched) and
    // no host. Not damage: a copy or a pending attempt given up on.
    if outcome != AttemptOutcome::Succeeded
        && finish == 0.0
        && jobs.attempt_start(&job_id, attempt_id).is_none()
    {
        return Err((KILLED_BEFORE_LAUNCH, Some("finishTime")));
    }
    jobs.check_end(&job_id, task_id, attempt_id, None, (finish, outcome))
        .map_err(|e| e.skip(&FIELDS))?;
    let job = jobs.job(&job_id, FIELDS.job)?;
    let task = job.task(task_id, &stage, stage_kind);
    let ended = job
        .end_attempt(task, attempt_id, finish, outcome, None, line)
        .map_err(|e| e.skip(&FIELDS))?;
    // A failure after the attempt's success (its output lost later) restates it.
    let Some(attempt) = ended else {
        return Ok(());
    };
    if let Some(host) = hostname {
        attempt.host = Some(host.to_owned());
    }
    let splits = match &body.clock_splits {
        None | Some(SplitsField::Null) => None,
        Some(SplitsField::NotArray) => Some(Err(SplitsFault::NotArray)),
        Some(SplitsField::Splits(splits)) => Some(Ok(splits)),
    };
    if let Some(splits) = splits {
        let duration = finish - attempt.start_secs;
        let progress = splits.and_then(|splits| splits.progress(Some(duration)));
        attempt.progress = progress.unwrap_or_else(|fault| {
            report.splits_unusable(line, attempt_id, fault.reason());
            Vec::new()
        });
    }
    if let Some((bytes, records)) = input {
        let task = job.task_mut(task);
        task.input_bytes = bytes.or(task.input_bytes);
        task.input_records = records.or(task.input_records);
    }
    jobs.emit_if_done(&job_id, on_job);
    Ok(())
}

/// The successful attempt a `TASK_FINISHED` names (`successfulAttemptId`, Hadoop 2.1 on;
/// `true` with it) or implies (`only_running`; `false`), and its `finishTime` (Hadoop's
/// `TaskImpl` writes the attempt's own), when that attempt of task `task_id` is still
/// running: its own end record was skipped or is absent, and the task's end ends it,
/// succeeded then (Hadoop's `JobHistoryParser` takes the task's success from this event,
/// whatever became of the attempt's): at once when named, at the job's end event when
/// implied (`end_pending`). `None` without an attempt (none implied: see `only_running`,
/// with the tasks of `implied` whose attempts may be unknown), for one not seen starting
/// (nothing to end: its start's skip, if any, is counted), and for one whose end says the
/// same. A `TASK_FINISHED` that contradicts the attempt's recorded end (another outcome or
/// time), names an attempt of another task, or ends before the attempt's start is skipped,
/// naming the field.
fn successful_attempt(
    body: &Body,
    jobs: &Assembler,
    implied: &Implied,
    job_id: &str,
    task_id: &str,
) -> Result<Option<(String, f64, bool)>, Skip> {
    let named = optional_string(body, "successfulAttemptId")?;
    let inferred = || match implied.attempts_unknown.contains(task_id) {
        true => None,
        false => only_running(jobs, job_id, task_id),
    };
    let Some(attempt_id) = named.or_else(inferred) else {
        return Ok(None);
    };
    let finish = plausible(millis(body, "finishTime")?, "finishTime")?;
    let end = (finish, AttemptOutcome::Succeeded);
    match jobs.check_end(job_id, task_id, attempt_id, None, end) {
        Ok(_) => Ok(Some((attempt_id.to_owned(), finish, named.is_some()))),
        Err(EndError::NoStart) => Ok(None),
        Err(EndError::OtherTask) => {
            Err(("attempt id of another task", Some("successfulAttemptId")))
        }
        Err(EndError::BeforeStart) => Err(("attempt ends before it starts", Some("finishTime"))),
        Err(error @ EndError::JobEnded) => Err(error.skip(&FIELDS)),
        Err(EndError::Twice) => match jobs.attempt(job_id, attempt_id) {
            Some(a) if a.outcome != AttemptOutcome::Succeeded => {
                Err((CONTRADICTS_END, Some("successfulAttemptId")))
            }
            Some(a) if a.end_secs != Some(finish) => Err((CONTRADICTS_END, Some("finishTime"))),
            _ => Ok(None),
        },
    }
}

/// For a `TASK_FINISHED` without `successfulAttemptId` (Hadoop before 2.1): the one attempt
/// of task `task_id` still running when none of its attempts has succeeded. The successful
/// attempt's end is written before its task's, and it is the only one that can have
/// succeeded, so its end record was skipped or is absent; copies still running at the
/// task's end (killed after it) make the attempt ambiguous, and none is taken. Nor is one
/// when the attempt taken may be a copy of an original the reader does not know: a task
/// with an attempt record skipped that names none of its attempts seen starting is left out
/// by the caller (`Implied::attempts_unknown`), and an attempt flagged `SPECULATIVE` is
/// taken only beside a known attempt not so flagged (its original, ended otherwise than
/// succeeded): a copy is launched beside a running attempt, so without one known, the
/// original's records are lost, and it may be the one that succeeded. Ended only if still
/// running at its job's end event: an attempt whose start is absent (not skipped) is not
/// seen here, and the one taken for it, a copy, is killed after the task's end.
fn only_running<'a>(jobs: &'a Assembler, job_id: &str, task_id: &str) -> Option<&'a str> {
    let attempts = jobs.task_attempts(job_id, task_id)?;
    if (attempts.iter()).any(|a| a.outcome == AttemptOutcome::Succeeded) {
        return None;
    }
    let mut running = attempts
        .iter()
        .filter(|a| a.outcome == AttemptOutcome::Unfinished);
    let only = match (running.next(), running.next()) {
        (Some(only), None) => only,
        _ => return None,
    };
    let original_known = || attempts.iter().any(|a| a.speculative != Some(true));
    if only.speculative == Some(true) && !original_known() {
        return None;
    }
    Some(only.id.as_str())
}

/// The reason of a kill or failure of an attempt never launched (not damage).
const KILLED_BEFORE_LAUNCH: &str = "attempt killed before launch";

/// The reason of a `TASK_FINISHED` that contradicts its successful attempt's end.
const CONTRADICTS_END: &str = "contradicts the attempt's end";

/// Input bytes and records from an event's `counters`, `None` where no count gives them;
/// the skip of the event when a count that would give one holds no size (`"negative
/// size"`, or `"field of the wrong type"` for a value that is no integer), naming it.
fn input_of(body: &Body, kind: StageKind) -> Result<(Option<u64>, Option<u64>), Skip> {
    let counts = body.counters.unwrap_or_default();
    let (first, second) = match kind {
        StageKind::Map => (0, 1),
        StageKind::Reduce => (2, 3),
        StageKind::Other => return Ok((None, None)),
    };
    let size = |index: usize| {
        counts[index]
            .map(|value| value.map_err(|reason| (reason, Some(COUNTER_NAMES[index]))))
            .transpose()
    };
    Ok((size(first)?, size(second)?))
}

/// The counters [`input_of`] reads, in the order of [`CounterValues`].
const COUNTER_NAMES: [&str; 4] = [
    "HDFS_BYTES_READ",
    "MAP_INPUT_RECORDS",
    "REDUCE_SHUFFLE_BYTES",
    "REDUCE_INPUT_RECORDS",
];

/// For each of [`COUNTER_NAMES`], the value of the last count of that name in the
/// counters' groups (the skip reason inside when that value is no unsigned integer, see
/// [`count_value`]), or `None` when no count has the name.
type CounterValues = [Option<Result<u64, &'static str>>; 4];

/// The scalar fields of an event body the reader uses, in the order of [`Body::scalars`].
const SCALAR_FIELDS: [&str; 12] = [
    "jobid",
    "jobName",
    "submitTime",
    "taskid",
    "taskType",
    "attemptId",
    "startTime",
    "finishTime",
    "trackerName",
    "avataar",
    "hostname",
    "successfulAttemptId",
];

/// The `event` of a line: `{"<class>": {...}}`, the first entry by name standing for the
/// whole (as it would in a map sorted by key), each entry's body read as [`EventBody`]; that
/// name written twice fails the line as a key read written twice in a body does ([`once`]).
#[derive(Debug)]
struct Wrapper {
    first: Option<EventBody>,
}

/// What a `.jhist` event holds: its body, an object, or anything else.
#[derive(Debug)]
enum EventBody {
    Object(Box<Body>),
    NotObject,
}

/// The fields of an event body the reader uses; every other field is passed over unread.
/// A field it uses written twice fails the line as serde_json fails a derived struct's
/// (`duplicate field`), see [`once`].
#[derive(Debug, Default)]
struct Body {
    /// The values of [`SCALAR_FIELDS`], an Avro union unwrapped.
    scalars: [Option<Plain>; SCALAR_FIELDS.len()],
    clock_splits: Option<SplitsField>,
    counters: Option<CounterValues>,
}

impl Body {
    /// The value of the scalar field `name` (one of [`SCALAR_FIELDS`]), an Avro union
    /// (`{"string": "VIRGIN"}`) unwrapped; `None` when absent or `null`.
    fn field(&self, name: &str) -> Option<&Plain> {
        let index = SCALAR_FIELDS.iter().position(|field| *field == name)?;
        self.scalars[index]
            .as_ref()
            .filter(|value| !matches!(value, Plain::Null))
    }
}

/// A JSON value the reader may read as a string or an integer; arrays and objects are
/// passed over, not kept ([`Plain::Other`]). Integers as serde_json keeps them: an `i64`,
/// a `u64` past `i64::MAX`, or a float for `-0` and one past the 64-bit range
/// ([`integer_read_as_float`]); any other float is [`Plain::Other`].
#[derive(Debug, Clone, PartialEq)]
enum Plain {
    Null,
    Str(String),
    Int(i64),
    Big(u64),
    Wide(f64),
    Other,
}

impl Plain {
    fn as_str(&self) -> Option<&str> {
        match self {
            Plain::Str(text) => Some(text),
            _ => None,
        }
    }

    fn as_u64(&self) -> Option<u64> {
        match *self {
            Plain::Int(value) => u64::try_from(value).ok(),
            Plain::Big(value) => Some(value),
            _ => None,
        }
    }
}

/// The value of `clockSplits`: `null`, no array, or its splits (read as integers, up to a
/// cap: [`ClockSplits`]).
#[derive(Debug)]
enum SplitsField {
    Null,
    NotArray,
    Splits(ClockSplits),
}

/// Fails an object whose key `name`, one the reader reads, is written again (`seen`
/// holding its first value), with the error serde_json gives for a derived struct's field
/// written twice (`duplicate field `name``): the line is then skipped as `"duplicate key"`
/// naming it (`json_line_skipped`), as a Spark line is, which value to take not being
/// known. Keys passed over unread are not checked, as in a derived struct.
fn once<T, E: serde::de::Error>(seen: &Option<T>, name: &'static str) -> Result<(), E> {
    match seen {
        Some(_) => Err(E::duplicate_field(name)),
        None => Ok(()),
    }
}

/// Passes over the rest of a map.
fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Passes over the rest of a sequence.
fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Reads the value of an Avro union, `{"<type>": value}`: an object of one entry gives
/// its value, read with `seed`; `None` for any other object, passed over.
fn union_value<'de, A, S>(mut map: A, seed: S) -> Result<Option<S::Value>, A::Error>
where
    A: MapAccess<'de>,
    S: serde::de::DeserializeSeed<'de>,
{
    if map.next_key::<IgnoredAny>()?.is_none() {
        return Ok(None);
    }
    let value = map.next_value_seed(seed)?;
    if map.next_key::<IgnoredAny>()?.is_some() {
        map.next_value::<IgnoredAny>()?;
        drain_map(map)?;
        return Ok(None);
    }
    Ok(Some(value))
}

/// An object's value where an Avro union may stand (`unwrap`): the value of its one entry,
/// read with `seed`; `other` for an object of more or fewer entries, or for any object
/// without `unwrap`, passed over.
fn union_or<'de, A, S>(map: A, unwrap: bool, seed: S, other: S::Value) -> Result<S::Value, A::Error>
where
    A: MapAccess<'de>,
    S: serde::de::DeserializeSeed<'de>,
{
    if !unwrap {
        drain_map(map)?;
        return Ok(other);
    }
    Ok(union_value(map, seed)?.unwrap_or(other))
}

/// Implements, in a visitor of any JSON value into `$value`, its `Value` type, what it
/// expects, and the visits of the scalars but `null`, which it passes over: each gives
/// `$other`; with `object`, the visits of `null` and of arrays as well.
macro_rules! any_value_visitor {
    ($value:ty, $other:expr) => {
        type Value = $value;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<$value, E> {
            Ok($other)
        }
        fn visit_i64<E>(self, _: i64) -> Result<$value, E> {
            Ok($other)
        }
        fn visit_u64<E>(self, _: u64) -> Result<$value, E> {
            Ok($other)
        }
        fn visit_f64<E>(self, _: f64) -> Result<$value, E> {
            Ok($other)
        }
        fn visit_str<E>(self, _: &str) -> Result<$value, E> {
            Ok($other)
        }
    };
    // A visitor of objects: `null` and arrays passed over too.
    (object $value:ty, $other:expr) => {
        any_value_visitor!($value, $other);
        fn visit_unit<E>(self) -> Result<$value, E> {
            Ok($other)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<$value, A::Error> {
            drain_seq(seq)?;
            Ok($other)
        }
    };
}

/// Implements `DeserializeSeed` for `$seed`, a visitor of any JSON value into `$value`.
macro_rules! seed_of_any {
    ($seed:ty, $value:ty) => {
        impl<'de> serde::de::DeserializeSeed<'de> for $seed {
            type Value = $value;
            fn deserialize<D: Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<$value, D::Error> {
                deserializer.deserialize_any(self)
            }
        }
    };
}

/// Reads a [`Plain`], an Avro union unwrapped first if `unwrap` (once: a union's value is
/// read as it is).
#[derive(Clone, Copy)]
struct PlainSeed {
    unwrap: bool,
}

seed_of_any!(PlainSeed, Plain);

impl<'de> Visitor<'de> for PlainSeed {
    type Value = Plain;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Plain, E> {
        Ok(Plain::Other)
    }
    fn visit_i64<E>(self, value: i64) -> Result<Plain, E> {
        Ok(Plain::Int(value))
    }
    fn visit_u64<E>(self, value: u64) -> Result<Plain, E> {
        Ok(i64::try_from(value).map_or(Plain::Big(value), Plain::Int))
    }
    fn visit_f64<E>(self, value: f64) -> Result<Plain, E> {
        Ok(if integer_read_as_float(value) {
            Plain::Wide(value)
        } else {
            Plain::Other
        })
    }
    fn visit_str<E>(self, text: &str) -> Result<Plain, E> {
        Ok(Plain::Str(text.to_owned()))
    }
    fn visit_string<E>(self, text: String) -> Result<Plain, E> {
        Ok(Plain::Str(text))
    }
    fn visit_unit<E>(self) -> Result<Plain, E> {
        Ok(Plain::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Plain, A::Error> {
        drain_seq(seq)?;
        Ok(Plain::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Plain, A::Error> {
        union_or(map, self.unwrap, PlainSeed { unwrap: false }, Plain::Other)
    }
}

/// Reads a [`SplitsField`], an Avro union unwrapped first if `unwrap`.
#[derive(Clone, Copy)]
struct SplitsSeed {
    unwrap: bool,
}

seed_of_any!(SplitsSeed, SplitsField);

impl<'de> Visitor<'de> for SplitsSeed {
    any_value_visitor!(SplitsField, SplitsField::NotArray);
    fn visit_unit<E>(self) -> Result<SplitsField, E> {
        Ok(SplitsField::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<SplitsField, A::Error> {
        ClockSplits::from_seq(seq).map(SplitsField::Splits)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<SplitsField, A::Error> {
        union_or(
            map,
            self.unwrap,
            SplitsSeed { unwrap: false },
            SplitsField::NotArray,
        )
    }
}

/// Reads the [`CounterValues`] of a `counters` value (`{"name": ..., "groups": [{"counts":
/// [{"name": ..., "value": ...}]}]}`), an Avro union unwrapped first if `unwrap` (so that an
/// object of the one key `groups` is taken for a union, as in a map read whole); nothing
/// but the counts of [`COUNTER_NAMES`] is kept.
#[derive(Clone, Copy)]
struct CountersSeed {
    unwrap: bool,
}

seed_of_any!(CountersSeed, CounterValues);

impl<'de> Visitor<'de> for CountersSeed {
    any_value_visitor!(object CounterValues, CounterValues::default());
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CounterValues, A::Error> {
        let mut entries = 0;
        // The value of the last `groups` key, and, for a union, the counters its one
        // entry holds (`None` when that entry is `groups` itself: an array, no counters).
        let mut groups = None;
        let mut union = None;
        while let Some(key) = map.next_key::<String>()? {
            entries += 1;
            if key == "groups" {
                once(&groups, "groups")?;
                groups = Some(map.next_value_seed(GroupsSeed)?);
            } else if self.unwrap && entries == 1 {
                union = Some(map.next_value_seed(CountersSeed { unwrap: false })?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        let values = if self.unwrap && entries == 1 {
            union
        } else {
            groups
        };
        Ok(values.unwrap_or_default())
    }
}

/// Reads the [`CounterValues`] of a `groups` array, the last group naming a count
/// standing for it.
struct GroupsSeed;

seed_of_any!(GroupsSeed, CounterValues);

impl<'de> Visitor<'de> for GroupsSeed {
    any_value_visitor!(CounterValues, CounterValues::default());
    fn visit_unit<E>(self) -> Result<CounterValues, E> {
        Ok(CounterValues::default())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CounterValues, A::Error> {
        let mut values = CounterValues::default();
        while let Some(group) = seq.next_element_seed(GroupSeed)? {
            for (value, in_group) in values.iter_mut().zip(group) {
                if in_group.is_some() {
                    *value = in_group;
                }
            }
        }
        Ok(values)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<CounterValues, A::Error> {
        drain_map(map)?;
        Ok(CounterValues::default())
    }
}

/// Reads the [`CounterValues`] of a group: those of its (last) `counts` array.
struct GroupSeed;

seed_of_any!(GroupSeed, CounterValues);

impl<'de> Visitor<'de> for GroupSeed {
    any_value_visitor!(object CounterValues, CounterValues::default());
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CounterValues, A::Error> {
        let mut values = CounterValues::default();
        let mut counts = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "counts" {
                once(&counts, "counts")?;
                counts = Some(());
                values = map.next_value_seed(CountsSeed)?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(values)
    }
}

/// Reads the [`CounterValues`] of a `counts` array: `{"name": ..., "value": ...}` objects,
/// the last of a name standing.
struct CountsSeed;

seed_of_any!(CountsSeed, CounterValues);

impl<'de> Visitor<'de> for CountsSeed {
    any_value_visitor!(CounterValues, CounterValues::default());
    fn visit_unit<E>(self) -> Result<CounterValues, E> {
        Ok(CounterValues::default())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CounterValues, A::Error> {
        let mut values = CounterValues::default();
        while let Some(count) = seq.next_element_seed(CountSeed)? {
            if let Some((index, value)) = count {
                values[index] = Some(value);
            }
        }
        Ok(values)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<CounterValues, A::Error> {
        drain_map(map)?;
        Ok(CounterValues::default())
    }
}

/// Reads a count: the index of its `name` in [`COUNTER_NAMES`] and its `value` (see
/// [`count_value`]); `None` for another name or no object.
struct CountSeed;

/// A count of one of [`COUNTER_NAMES`] (its index) and its value.
type Count = Option<(usize, Result<u64, &'static str>)>;

/// A count's `value` as a size: an unsigned integer (`-0` is 0, as in [`millis`]); a
/// negative integer is `"negative size"`, an absent value `"missing field"`, any other (a
/// string, a float, `null`) `"field of the wrong type"`.
fn count_value(value: Option<&Plain>) -> Result<u64, &'static str> {
    let value = value.ok_or("missing field")?;
    if let Some(size) = value.as_u64() {
        return Ok(size);
    }
    match *value {
        Plain::Wide(0.0) => Ok(0),
        Plain::Int(_) => Err("negative size"),
        Plain::Wide(wide) if wide < 0.0 => Err("negative size"),
        _ => Err("field of the wrong type"),
    }
}

seed_of_any!(CountSeed, Count);

impl<'de> Visitor<'de> for CountSeed {
    any_value_visitor!(object Count, None);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Count, A::Error> {
        let plain = PlainSeed { unwrap: false };
        let (mut name, mut value) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "name" => {
                    once(&name, "name")?;
                    name = Some(map.next_value_seed(plain)?);
                }
                "value" => {
                    once(&value, "value")?;
                    value = Some(map.next_value_seed(plain)?);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let index = name
            .as_ref()
            .and_then(Plain::as_str)
            .and_then(|name| COUNTER_NAMES.iter().position(|known| *known == name));
        Ok(index.map(|index| (index, count_value(value.as_ref()))))
    }
}

/// Reads an [`EventBody`].
struct EventBodySeed;

seed_of_any!(EventBodySeed, EventBody);

impl<'de> Visitor<'de> for EventBodySeed {
    any_value_visitor!(object EventBody, EventBody::NotObject);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EventBody, A::Error> {
        let mut body = Body::default();
        while let Some(key) = map.next_key::<String>()? {
            if let Some(index) = SCALAR_FIELDS.iter().position(|field| *field == key) {
                once(&body.scalars[index], SCALAR_FIELDS[index])?;
                body.scalars[index] = Some(map.next_value_seed(PlainSeed { unwrap: true })?);
            } else if key == "clockSplits" {
                once(&body.clock_splits, "clockSplits")?;
                body.clock_splits = Some(map.next_value_seed(SplitsSeed { unwrap: true })?);
            } else if key == "counters" {
                once(&body.counters, "counters")?;
                body.counters = Some(map.next_value_seed(CountersSeed { unwrap: true })?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(EventBody::Object(Box::new(body)))
    }
}

impl<'de> Deserialize<'de> for Wrapper {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Wrapper, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Wrapper;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Wrapper, A::Error> {
                // The first entry by name. That name written twice fails the line, as a
                // key read written twice in a body does (the other entries are not read).
                let mut first: Option<(String, EventBody)> = None;
                let mut first_twice = false;
                while let Some(key) = map.next_key::<String>()? {
                    let body = map.next_value_seed(EventBodySeed)?;
                    match &first {
                        Some((name, _)) if key == *name => first_twice = true,
                        Some((name, _)) if key > *name => {}
                        _ => {
                            first = Some((key, body));
                            first_twice = false;
                        }
                    }
                }
                match first {
                    Some((name, _)) if first_twice => {
                        Err(A::Error::custom(format_args!("duplicate field `{name}`")))
                    }
                    first => Ok(Wrapper {
                        first: first.map(|(_, body)| body),
                    }),
                }
            }
        }
        deserializer.deserialize_map(Entries)
    }
}
