//! Hadoop MRv2 JobHistory files (`.jhist`, "Avro-Json"): line 1 `Avro-Json`, line 2 the Avro
//! schema, then one event per line, `{"type": "<EVENT_TYPE>", "event": {"<class>": {...}}}`.
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
//! - Input from the counters of the successful attempt: `HDFS_BYTES_READ` (map) or
//!   `REDUCE_SHUFFLE_BYTES` (reduce), `MAP_INPUT_RECORDS` or `REDUCE_INPUT_RECORDS`.
//! - The job is handed out at `JOB_FINISHED`, `JOB_FAILED` or `JOB_KILLED` once none of its
//!   attempts runs, or at the end of the file.
//!
//! Optional fields written as Avro unions (`{"string": "VIRGIN"}`) are unwrapped. An event
//! whose `type` is none of the schema's is skipped as `"unknown event type"`; a task type
//! none of Hadoop's as `"unknown task type"` (see [`kind_of`]).

use std::io::BufRead;
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::assemble::{
    Assembler, AttemptFields, Skip, SplitsFault, plausible, progress_from_split_values,
};
use super::input::{Lines, is_blank, json_line_skipped};
use crate::{AttemptOutcome, ReadReport, StageKind, TraceError, TraceJob};

#[derive(Debug, Deserialize)]
struct Envelope {
    #[serde(rename = "type")]
    kind: Option<String>,
    event: Option<Map<String, Value>>,
}

/// The fields of an attempt's events, as skips name them.
const FIELDS: AttemptFields = AttemptFields {
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
            if header_lines == 0 && text.trim() != "Avro-Json" {
                return Err(malformed(
                    "header",
                    "the first line of a .jhist must be `Avro-Json`",
                ));
            }
            if header_lines == 1 && serde_json::from_str::<Value>(&text).is_err() {
                return Err(malformed(
                    "schema",
                    "the second line of a .jhist must be the Avro schema (JSON)",
                ));
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
            Ok(envelope) => match event(envelope, no, &mut jobs, report, &mut on_job) {
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
    jobs.finish(&mut on_job);
    Ok(())
}

/// Avro-JSON writes a value of an optional (union) field as `{"<type>": value}`.
fn unwrap_union(value: &Value) -> &Value {
    match value {
        Value::Object(map) if map.len() == 1 => map.values().next().unwrap_or(value),
        _ => value,
    }
}

fn field<'a>(body: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    body.get(name).map(unwrap_union).filter(|v| !v.is_null())
}

fn string<'a>(body: &'a Map<String, Value>, name: &'static str) -> Result<&'a str, Skip> {
    field(body, name)
        .ok_or(("missing field", Some(name)))?
        .as_str()
        .ok_or(("field of the wrong type", Some(name)))
}

fn millis(body: &Map<String, Value>, name: &'static str) -> Result<f64, Skip> {
    let ms = field(body, name)
        .ok_or(("missing field", Some(name)))?
        .as_i64()
        .ok_or(("field of the wrong type", Some(name)))?;
    Ok(ms as f64 / 1000.0)
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
/// `report` (the event itself is counted by the caller, parsed or skipped).
fn event(
    envelope: Envelope,
    line: u64,
    jobs: &mut Assembler,
    report: &mut ReadReport,
    on_job: &mut impl FnMut(TraceJob),
) -> Result<(), Skip> {
    let kind = envelope.kind.ok_or(("missing field", Some("type")))?;
    if !EVENT_TYPES.contains(&kind.as_str()) {
        return Err(("unknown event type", Some("type")));
    }
    let wrapper = envelope.event.ok_or(("missing field", Some("event")))?;
    let Some(Value::Object(body)) = wrapper.values().next() else {
        return Err(("missing field", Some("event")));
    };
    match kind.as_str() {
        "JOB_SUBMITTED" => {
            let id = string(body, "jobid")?;
            let job = jobs.job(id).job_mut();
            job.name = field(body, "jobName")
                .and_then(Value::as_str)
                .map(str::to_owned);
            job.submit_secs = millis(body, "submitTime").ok();
        }
        "JOB_FINISHED" | "JOB_FAILED" | "JOB_KILLED" => {
            let id = string(body, "jobid")?;
            jobs.job(id);
            jobs.end_job(id, on_job);
        }
        "TASK_STARTED" => {
            let task_id = string(body, "taskid")?;
            let job_id = job_of(task_id).ok_or(("unrecognised task id", Some("taskid")))?;
            let (stage, stage_kind) = kind_of(string(body, "taskType")?, "taskType")?;
            jobs.job(&job_id).task(task_id, &stage, stage_kind);
        }
        "TASK_FINISHED" => {
            let task_id = string(body, "taskid")?;
            let job_id = job_of(task_id).ok_or(("unrecognised task id", Some("taskid")))?;
            let (stage, stage_kind) = kind_of(string(body, "taskType")?, "taskType")?;
            let job = jobs.job(&job_id);
            let task = job.task(task_id, &stage, stage_kind);
            let (bytes, records) = input_of(body, stage_kind);
            let task = job.task_mut(task);
            task.input_bytes = task.input_bytes.or(bytes);
            task.input_records = task.input_records.or(records);
        }
        k if k.ends_with("_ATTEMPT_STARTED") => {
            let task_id = string(body, "taskid")?;
            let job_id = job_of(task_id).ok_or(("unrecognised task id", Some("taskid")))?;
            let (stage, stage_kind) = kind_of(string(body, "taskType")?, "taskType")?;
            let attempt_id = string(body, "attemptId")?;
            let start = plausible(millis(body, "startTime")?, "startTime")?;
            // Checked before the job and task are opened: a start skipped leaves nothing.
            jobs.check_start(&job_id, task_id, attempt_id, start)
                .map_err(|e| e.skip(&FIELDS))?;
            let host = field(body, "trackerName")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let speculative = match field(body, "avataar").and_then(Value::as_str) {
                Some("SPECULATIVE") => Some(true),
                Some("VIRGIN") => Some(false),
                _ => None,
            };
            let job = jobs.job(&job_id);
            let task = job.task(task_id, &stage, stage_kind);
            job.start_attempt(task, attempt_id, start, host, speculative, line)
                .map_err(|e| e.skip(&FIELDS))?;
        }
        k if k.ends_with("_ATTEMPT_FINISHED")
            || k.ends_with("_ATTEMPT_FAILED")
            || k.ends_with("_ATTEMPT_KILLED") =>
        {
            let outcome = if k.ends_with("_FINISHED") {
                AttemptOutcome::Succeeded
            } else if k.ends_with("_KILLED") {
                AttemptOutcome::Killed
            } else {
                AttemptOutcome::Failed
            };
            let task_id = string(body, "taskid")?;
            let job_id = job_of(task_id).ok_or(("unrecognised task id", Some("taskid")))?;
            let (stage, stage_kind) = kind_of(string(body, "taskType")?, "taskType")?;
            let attempt_id = string(body, "attemptId")?;
            let finish = plausible(millis(body, "finishTime")?, "finishTime")?;
            jobs.check_end(&job_id, task_id, attempt_id, None, (finish, outcome))
                .map_err(|e| e.skip(&FIELDS))?;
            let job = jobs.job(&job_id);
            let task = job.task(task_id, &stage, stage_kind);
            let ended = job
                .end_attempt(task, attempt_id, finish, outcome, None, line)
                .map_err(|e| e.skip(&FIELDS))?;
            // A failure after the attempt's success (its output lost later) restates it.
            let Some(attempt) = ended else {
                return Ok(());
            };
            if let Some(host) = field(body, "hostname").and_then(Value::as_str) {
                attempt.host = Some(host.to_owned());
            }
            if let Some(splits) = field(body, "clockSplits") {
                let duration = finish - attempt.start_secs;
                let progress = splits
                    .as_array()
                    .ok_or(SplitsFault::NotArray)
                    .and_then(|splits| progress_from_split_values(splits, Some(duration)));
                attempt.progress = progress.unwrap_or_else(|fault| {
                    report.splits_unusable(line, attempt_id, fault.reason());
                    Vec::new()
                });
            }
            if outcome == AttemptOutcome::Succeeded {
                let (bytes, records) = input_of(body, stage_kind);
                let task = job.task_mut(task);
                task.input_bytes = bytes.or(task.input_bytes);
                task.input_records = records.or(task.input_records);
            }
            jobs.emit_if_done(&job_id, on_job);
        }
        _ => {}
    }
    Ok(())
}

/// Input bytes and records from an event's `counters`.
fn input_of(body: &Map<String, Value>, kind: StageKind) -> (Option<u64>, Option<u64>) {
    let (bytes_name, records_name) = match kind {
        StageKind::Map => ("HDFS_BYTES_READ", "MAP_INPUT_RECORDS"),
        StageKind::Reduce => ("REDUCE_SHUFFLE_BYTES", "REDUCE_INPUT_RECORDS"),
        StageKind::Other => return (None, None),
    };
    let Some(counters) = field(body, "counters") else {
        return (None, None);
    };
    let mut bytes = None;
    let mut records = None;
    let groups = counters.get("groups").and_then(Value::as_array);
    for group in groups.into_iter().flatten() {
        let counts = group.get("counts").and_then(Value::as_array);
        for count in counts.into_iter().flatten() {
            let name = count.get("name").and_then(Value::as_str);
            let value = count.get("value").and_then(Value::as_u64);
            if name == Some(bytes_name) {
                bytes = value;
            } else if name == Some(records_name) {
                records = value;
            }
        }
    }
    (bytes, records)
}
