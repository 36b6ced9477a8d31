//! Spark event logs: one JSON event per line (`SparkListener*`), from Spark's
//! `JsonProtocol`.
//!
//! - A job is a `SparkListenerJobStart` (`Job ID`, `Submission Time`, `Stage IDs`); its name
//!   is the name of its last stage, as Spark's UI shows it. A bad `Submission Time` (of the
//!   wrong type, negative, implausible) costs that field alone: the job opens without it,
//!   and its start is counted as a skip naming it. A start of a job already started keeps
//!   the first's name, submission time and speculation setting: one giving another name
//!   or submission time is skipped as `"contradicts the job's submission"` naming it, one
//!   restating them (or leaving them out) is parsed, giving a value the first left
//!   unknown.
//! - A task is a partition (`Index`) of a stage attempt (`Stage ID`, `Stage Attempt ID`):
//!   its stage is `"<stage>.<stage attempt>"` and its id `"<stage>.<stage attempt>:<index>"`.
//!   Its kind is [`StageKind::Map`] for `ShuffleMapTask`, [`StageKind::Reduce`] for
//!   `ResultTask`.
//! - An attempt is a `Task ID`, from `SparkListenerTaskStart` to `SparkListenerTaskEnd`,
//!   the end going where the start filed it (`SparkReader::running`); a stage that
//!   running jobs share is the earliest's, and a `Stage Attempt ID` of `-1` the stage's
//!   latest attempt seen:
//!   `Launch Time` and `Finish Time` (ms, integers, see [`Millis`]; checked as
//!   [`plausible`], a negative one skipped as `"negative time"`), `Host`,
//!   `Speculative`; it `Killed` or `Failed`
//!   as `Task Info` says (a `TaskCommitDenied` end killed, whatever the flags: see
//!   `task_end`), else it succeeded if the end reason is `Success`.
//!   An end's `Launch Time` is checked as the start's is, and its `Task Info` against the
//!   start's: Spark writes the same `TaskInfo` in both, so an end (or a start again at the
//!   same launch time) that gives another `Launch Time`, `Index`, `Attempt`, `Executor ID`,
//!   `Host` or `Speculative` is damaged, and is skipped as `"contradicts the task start"`
//!   naming the field, the start standing (see `Started`).
//! - Input: from the successful attempt's `Task Metrics`: `Input Metrics` bytes and records
//!   plus `Shuffle Read Metrics` remote and local bytes and total records.
//!
//! A job is handed out at `SparkListenerJobEnd` once none of its attempts runs (Spark writes
//! the ends of killed speculative copies after the job's end), or at the end of the input;
//! a job without its end is then noted in [`ReadReport::truncated`] (the log may be cut at
//! a line end, or written while the job ran), unless `SparkListenerApplicationEnd` came,
//! on the last line read (in a rolling directory, naming its file, as skips do).
//! A `SparkListenerJobStart` or `SparkListenerJobEnd` of a job handed out already is
//! skipped as `"record of a job already ended"` (the [`Assembler`] keeps the ids), and
//! opens no second job of its id; a task event of it finds its stage forgotten, `"stage of
//! no open job"`, unless an open job lists the stage too, which then takes it. A
//! `SparkListenerJobEnd` of a job no `SparkListenerJobStart` opened is `"end of a job not
//! started"`.
//! The speculation setting: a `SparkListenerEnvironmentUpdate`'s `Spark Properties` give
//! `spark.speculation` (read as Spark reads a boolean, [`SpeculationSetting::spark`];
//! absent, Spark's default false) and every `spark.speculation.*` parameter, as written;
//! the jobs started after it carry them ([`TraceJob::speculation`]), those of a log without
//! one `None`. A `spark.speculation` Spark cannot read (`yes`, or not a string) makes the
//! setting [`SettingSource::Unreadable`](crate::SettingSource::Unreadable), and its update
//! is counted as a skip naming the field (`"not a boolean"`, `"field of the wrong type"`),
//! its setting standing, as a bad `Submission Time` costs its field alone; so is one
//! that writes a speculation property twice (`"duplicate key"`, the last standing). A
//! `spark.speculation.interval` is kept as written, whatever it holds: whether Spark can
//! read it is judged where a replay chooses each job's interval
//! ([`ScanInterval::engine`](crate::ScanInterval::engine)), for a run given one interval
//! for every job does not use it.
//!
//! Other events with no tasks in them (executors, SQL...) are parsed and dropped:
//! those `JsonProtocol` names (the [`CORE_EVENTS`]), and those it writes by their class's
//! full name (`org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart`, or a
//! library's own). Any other `Event` (a short name Spark does not write, as
//! `SparkListenerTaskEnX`) is skipped as `"unknown event type"`, and a task end whose
//! `Task Type` is missing or none of Spark's as `"missing field"` or `"unknown task type"`.

use std::collections::HashMap;

use serde::Deserialize;

use super::assemble::{Assembler, AttemptFields, Change, JobFields, Skip, plausible};
use super::input::{Lines, integer_read_as_float, is_blank, json_line_skipped};
use crate::{AttemptOutcome, LogLine, ReadReport, SpeculationSetting, StageKind, TraceJob};

/// The events `JsonProtocol` writes under a short name (Spark 1.0 to 4.0), those this
/// reader does not use included. Every other event it writes under its class's full name.
const CORE_EVENTS: [&str; 20] = [
    "SparkListenerStageSubmitted",
    "SparkListenerStageCompleted",
    "SparkListenerTaskStart",
    "SparkListenerTaskGettingResult",
    "SparkListenerTaskEnd",
    "SparkListenerJobStart",
    "SparkListenerJobEnd",
    "SparkListenerEnvironmentUpdate",
    "SparkListenerBlockManagerAdded",
    "SparkListenerBlockManagerRemoved",
    "SparkListenerUnpersistRDD",
    "SparkListenerApplicationStart",
    "SparkListenerApplicationEnd",
    "SparkListenerExecutorAdded",
    "SparkListenerExecutorRemoved",
    "SparkListenerLogStart",
    "SparkListenerExecutorMetricsUpdate",
    "SparkListenerStageExecutorMetrics",
    "SparkListenerBlockUpdated",
    "SparkListenerResourceProfileAdded",
];

/// The fields of any event this reader uses; serde skips the rest.
#[derive(Debug, Deserialize)]
struct Event {
    #[serde(rename = "Event")]
    event: Option<String>,
    #[serde(rename = "Stage ID")]
    stage_id: Option<u64>,
    /// `-1` where Spark wrote a task of a stage no longer running (a start after its
    /// stage was cancelled, `DAGScheduler.handleBeginEvent`).
    #[serde(rename = "Stage Attempt ID")]
    stage_attempt_id: Option<i64>,
    #[serde(rename = "Task Type")]
    task_type: Option<String>,
    #[serde(rename = "Task End Reason")]
    end_reason: Option<EndReason>,
    #[serde(rename = "Task Info")]
    task_info: Option<TaskInfo>,
    #[serde(rename = "Task Metrics")]
    task_metrics: Option<TaskMetrics>,
    #[serde(rename = "Job ID")]
    job_id: Option<u64>,
    #[serde(rename = "Submission Time")]
    submission_time: Option<serde_json::Value>,
    #[serde(rename = "Stage IDs")]
    stage_ids: Option<Vec<u64>>,
    #[serde(rename = "Stage Infos")]
    stage_infos: Option<Vec<StageInfo>>,
    #[serde(rename = "App ID")]
    app_id: Option<String>,
    /// A `SparkListenerEnvironmentUpdate`'s `Spark Properties`: the speculation ones only.
    #[serde(rename = "Spark Properties")]
    spark_properties: Option<SpeculationProperties>,
}

/// The key of Spark's speculation switch.
const SPECULATION: &str = crate::trace::SPARK_SWITCH;

/// The `spark.speculation` and `spark.speculation.*` entries of a `Spark Properties`
/// object, in order, their values as JSON (Spark writes strings); the other properties are
/// passed over unread.
#[derive(Debug, Default)]
struct SpeculationProperties(Vec<(String, serde_json::Value)>);

impl<'de> Deserialize<'de> for SpeculationProperties {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Properties;
        impl<'de> serde::de::Visitor<'de> for Properties {
            type Value = SpeculationProperties;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of properties")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<SpeculationProperties, A::Error> {
                let mut kept = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    let speculation = key == SPECULATION
                        || key
                            .strip_prefix(SPECULATION)
                            .is_some_and(|k| k.starts_with('.'));
                    if speculation {
                        kept.push((key, map.next_value()?));
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(SpeculationProperties(kept))
            }
        }
        deserializer.deserialize_map(Properties)
    }
}

/// A time in milliseconds: any JSON integer, signed or past the 64-bit range, so that a
/// negative one is skipped as `"negative time"` and a huge one as `"implausible time"` (see
/// [`plausible`]), as in the other readers, not as a value of the wrong type. serde_json
/// reads `-0` and an integer past the 64-bit range as a float: those are read by their
/// value (`-0` is 0). Any other float (`1.5e3`, `1500.0`: Spark writes its times as
/// integers) or value (a string) is of the wrong type.
#[derive(Debug, Clone, Copy)]
struct Millis(i128);

impl Millis {
    /// The integer serde_json read as the float `ms`, if it can be one (see [`Millis`]).
    fn from_float(ms: f64) -> Option<Millis> {
        // `as` saturates: a value past `i128` stays past every plausible time; -0 is 0.
        integer_read_as_float(ms).then_some(Millis(ms as i128))
    }
}

/// Reads a [`Millis`]: an integer (`-0` and one past the 64-bit range included, read as
/// floats); any other value is of the wrong type.
struct Integer;

impl serde::de::Visitor<'_> for Integer {
    type Value = Millis;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an integer")
    }
    fn visit_i64<E>(self, ms: i64) -> Result<Millis, E> {
        Ok(Millis(ms.into()))
    }
    fn visit_u64<E>(self, ms: u64) -> Result<Millis, E> {
        Ok(Millis(ms.into()))
    }
    fn visit_f64<E: serde::de::Error>(self, ms: f64) -> Result<Millis, E> {
        Millis::from_float(ms)
            .ok_or_else(|| E::invalid_type(serde::de::Unexpected::Float(ms), &self))
    }
}

impl<'de> Deserialize<'de> for Millis {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_i64(Integer)
    }
}

impl Millis {
    /// The time `value` holds as [`Millis`] reads it, `None` for a value of another type:
    /// the optional `Submission Time`, read as any value so that it costs the field, not
    /// the job start (see `SparkReader::job_start`).
    fn of_value(value: &serde_json::Value) -> Option<Millis> {
        match value.as_i64() {
            Some(ms) => Some(Millis(ms.into())),
            None => match value.as_u64() {
                Some(ms) => Some(Millis(ms.into())),
                None => value.as_f64().and_then(Millis::from_float),
            },
        }
    }
}

#[derive(Debug, Deserialize)]
struct EndReason {
    #[serde(rename = "Reason")]
    reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct TaskInfo {
    #[serde(rename = "Task ID")]
    task_id: Option<u64>,
    #[serde(rename = "Index")]
    index: Option<u64>,
    #[serde(rename = "Attempt")]
    attempt: Option<u64>,
    #[serde(rename = "Launch Time")]
    launch_time: Option<Millis>,
    #[serde(rename = "Executor ID")]
    executor_id: Option<String>,
    #[serde(rename = "Host")]
    host: Option<String>,
    #[serde(rename = "Speculative")]
    speculative: Option<bool>,
    #[serde(rename = "Finish Time")]
    finish_time: Option<Millis>,
    #[serde(rename = "Failed")]
    failed: Option<bool>,
    #[serde(rename = "Killed")]
    killed: Option<bool>,
}

#[derive(Debug, Deserialize)]
struct TaskMetrics {
    #[serde(rename = "Input Metrics")]
    input: Option<InputMetrics>,
    #[serde(rename = "Shuffle Read Metrics")]
    shuffle_read: Option<ShuffleReadMetrics>,
}

#[derive(Debug, Deserialize)]
struct InputMetrics {
    #[serde(rename = "Bytes Read")]
    bytes_read: Option<u64>,
    #[serde(rename = "Records Read")]
    records_read: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct ShuffleReadMetrics {
    #[serde(rename = "Remote Bytes Read")]
    remote_bytes_read: Option<u64>,
    #[serde(rename = "Local Bytes Read")]
    local_bytes_read: Option<u64>,
    #[serde(rename = "Total Records Read")]
    total_records_read: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct StageInfo {
    #[serde(rename = "Stage ID")]
    stage_id: Option<u64>,
    #[serde(rename = "Stage Name")]
    stage_name: Option<String>,
}

/// The reader's state over one input (or the files of a rolling directory in turn).
pub(crate) struct SparkReader<F: FnMut(TraceJob)> {
    on_job: F,
    jobs: Assembler,
    app_id: Option<String>,
    /// Stage id to the id (in [`Assembler`]) of the job that runs it.
    stage_job: HashMap<u64, String>,
    /// Job id to its stages, to forget them when the job is handed out.
    job_stages: HashMap<String, Vec<u64>>,
    /// Each running attempt's `Task ID` to where its start filed it: its job, stage and
    /// task. Its end goes there, whatever stage attempt or index the end names (Spark 1
    /// wrote a success under the stage's latest attempt, SPARK-13054; and a stage that
    /// two jobs share is taken by the later one's start).
    running: HashMap<u64, Filed>,
    /// What each `Task ID` of an open job started with ([`Started`]), kept after its
    /// end (until the job is handed out), so that every later record of the attempt is
    /// checked against it.
    started: HashMap<u64, Started>,
    /// Each stage's latest attempt seen, for a task Spark wrote under attempt `-1`.
    latest_attempt: HashMap<u64, u64>,
    /// The order of each open job's `SparkListenerJobStart`, and whether its
    /// `SparkListenerJobEnd` came: a stage that open jobs share is the earliest running
    /// one's.
    job_order: HashMap<String, (u64, bool)>,
    /// `SparkListenerJobStart`s seen.
    jobs_started: u64,
    /// The task type of each open job's stages (by job and stage attempt) that an end
    /// has given.
    stage_kinds: HashMap<(String, String), StageKind>,
    /// Whether `SparkListenerApplicationEnd` came: the application is over, and a job
    /// without its end is not taken for a sign of a log cut short.
    app_ended: bool,
    /// The last line read (of the last file, in a rolling directory).
    last_line: u64,
    /// The file of `last_line`, in a rolling directory: its name in the directory.
    last_file: Option<String>,
    /// The speculation setting of the last `SparkListenerEnvironmentUpdate` with `Spark
    /// Properties`, which the jobs started after it carry; `None` before one.
    speculation: Option<SpeculationSetting>,
    /// The line (and file) of that update.
    speculation_line: Option<LogLine>,
    /// The field of the skip an event just returned, when it is named at run time (a
    /// property's key, which a [`Skip`]'s static field cannot hold): taken by `read_lines`
    /// in place of the skip's own.
    skip_field: Option<String>,
}

/// Where a task start filed its attempt.
#[derive(Debug, Clone)]
struct Filed {
    job: String,
    stage: String,
    task: String,
}

/// What a `SparkListenerTaskStart`'s `Task Info` said of its attempt. Spark writes the
/// same `TaskInfo` object in the attempt's start and end, and these fields of it never
/// change (they are `val`s of Spark's `TaskInfo`): an end (or a repeated start) that
/// gives another value is damaged, and is skipped as `"contradicts the task start"` naming
/// the field ([`Started::contradiction`]).
#[derive(Debug, Clone)]
struct Started {
    /// The job its start was filed in, to forget it with the job.
    job: String,
    launch: i128,
    index: u64,
    attempt: Option<u64>,
    executor_id: Option<String>,
    host: Option<String>,
    speculative: Option<bool>,
}

impl Started {
    fn new(job: &str, launch: Millis, index: u64, info: &TaskInfo) -> Started {
        Started {
            job: job.to_owned(),
            launch: launch.0,
            index,
            attempt: info.attempt,
            executor_id: info.executor_id.clone(),
            host: info.host.clone(),
            speculative: info.speculative,
        }
    }

    /// The first field that `info` (of a record of the same `Task ID`, with `index`) gives
    /// another value than the start did, if any: `Launch Time`, `Index`, `Attempt`,
    /// `Executor ID`, `Host`, `Speculative`. A field absent from either record is not
    /// compared.
    fn contradiction(&self, info: &TaskInfo, index: u64) -> Option<&'static str> {
        fn differ<T: PartialEq>(start: Option<&T>, other: Option<&T>) -> bool {
            start
                .zip(other)
                .is_some_and(|(start, other)| start != other)
        }
        if info.launch_time.is_some_and(|ms| ms.0 != self.launch) {
            Some("Launch Time")
        } else if index != self.index {
            Some("Index")
        } else if differ(self.attempt.as_ref(), info.attempt.as_ref()) {
            Some("Attempt")
        } else if differ(self.executor_id.as_ref(), info.executor_id.as_ref()) {
            Some("Executor ID")
        } else if differ(self.host.as_ref(), info.host.as_ref()) {
            Some("Host")
        } else if differ(self.speculative.as_ref(), info.speculative.as_ref()) {
            Some("Speculative")
        } else {
            None
        }
    }
}

/// The reason of a record whose `Task Info` contradicts its attempt's start.
const CONTRADICTS_START: &str = "contradicts the task start";

/// The reason of a `SparkListenerJobEnd` of a job that no `SparkListenerJobStart` opened.
const END_NOT_STARTED: &str = "end of a job not started";

/// The fields of a job start, as skips name them: the name is its last stage's.
const JOB_FIELDS: JobFields = JobFields {
    id: "Job ID",
    name: "Stage Name",
    submit: "Submission Time",
};

/// The fields of an attempt's events, as skips name them.
const FIELDS: AttemptFields = AttemptFields {
    job: "Stage ID",
    id: "Task ID",
    start: "Launch Time",
    end: "Finish Time",
    no_start: ("task end without launch time", "Launch Time"),
};

impl<F: FnMut(TraceJob)> SparkReader<F> {
    pub(crate) fn new(on_job: F) -> Self {
        SparkReader {
            on_job,
            jobs: Assembler::default(),
            app_id: None,
            stage_job: HashMap::new(),
            job_stages: HashMap::new(),
            running: HashMap::new(),
            started: HashMap::new(),
            latest_attempt: HashMap::new(),
            job_order: HashMap::new(),
            jobs_started: 0,
            stage_kinds: HashMap::new(),
            app_ended: false,
            last_line: 0,
            last_file: None,
            speculation: None,
            speculation_line: None,
            skip_field: None,
        }
    }

    /// Whether job `key` is open and its end not seen yet.
    fn running_job(&self, key: &str) -> bool {
        self.job_order.get(key).is_some_and(|&(_, ended)| !ended)
    }

    /// Gives the stages that job `key` runs to the earliest running job that also lists
    /// each; with `drop`, a stage no other lists is forgotten, else it stays `key`'s.
    fn pass_stages(&mut self, key: &str, drop: bool) {
        let Some(stages) = self.job_stages.get(key) else {
            return;
        };
        for &stage in stages {
            if self.stage_job.get(&stage).is_none_or(|k| k != key) {
                continue;
            }
            let next = (self.job_stages.iter())
                .filter(|(job, stages)| {
                    job.as_str() != key && stages.contains(&stage) && self.running_job(job)
                })
                .min_by_key(|(job, _)| self.job_order.get(job.as_str()).map(|o| o.0))
                .map(|(job, _)| job.clone());
            match next {
                Some(next) => {
                    self.stage_job.insert(stage, next);
                }
                None if drop => {
                    self.stage_job.remove(&stage);
                }
                None => {}
            }
        }
    }

    /// The stage and stage attempt of a task event: a stage attempt of `-1` is the stage's
    /// latest seen (in an event applied: [`SparkReader::saw_stage_attempt`]), 0 if none
    /// was, and none is 0.
    fn stage_of(&self, event: &Event) -> Result<(u64, u64), Skip> {
        let stage = event.stage_id.ok_or(("missing field", Some("Stage ID")))?;
        let latest = self.latest_attempt.get(&stage).copied();
        let attempt = match event.stage_attempt_id {
            Some(attempt) if attempt >= 0 => attempt as u64,
            Some(-1) => latest.unwrap_or(0),
            Some(_) => return Err(("field of the wrong type", Some("Stage Attempt ID"))),
            None => 0,
        };
        Ok((stage, attempt))
    }

    /// Records stage attempt `attempt` of `stage` as seen, once a task event of it has
    /// been applied: a skipped event leaves the stage's latest attempt as it was. A stage
    /// that no open job runs any more (its job handed out by the event) is not recorded:
    /// [`SparkReader::forget_if_gone`] has forgotten it whole.
    fn saw_stage_attempt(&mut self, stage: u64, attempt: u64) {
        if !self.stage_job.contains_key(&stage) {
            return;
        }
        let latest = self.latest_attempt.get(&stage).copied();
        if latest.is_none_or(|l| attempt > l) {
            self.latest_attempt.insert(stage, attempt);
        }
    }

    /// Reads every line of `lines`, counting each in `report`; `file` names their file in
    /// a rolling directory (`None` for an input of one file).
    pub(crate) fn read_lines(
        &mut self,
        lines: &mut Lines<'_>,
        report: &mut ReadReport,
        file: Option<&str>,
    ) {
        let mut file = file.map(str::to_owned);
        loop {
            let Some(line) = lines.next_or_note(report) else {
                return;
            };
            if line.too_long {
                report.skipped(line.no, None, "line too long");
                continue;
            }
            if is_blank(line.text) {
                continue;
            }
            let (no, terminated) = (line.no, line.terminated);
            self.last_line = no;
            if file.is_some() {
                self.last_file = file.take();
            }
            match serde_json::from_slice::<Event>(line.text) {
                Ok(event) => match self.event(event, no) {
                    Ok(()) => report.parsed(),
                    Err((reason, field)) => {
                        let named = self.skip_field.take();
                        report.skipped(no, named.as_deref().or(field), reason);
                    }
                },
                Err(error) => json_line_skipped(no, line.text, terminated, &error, report),
            }
        }
    }

    /// Hands out the jobs still open: the end of input. Those without their
    /// `SparkListenerJobEnd` are noted in `report` (the log may be cut short, or written
    /// while they ran), unless the application's end came; on the last line read, naming
    /// its file in a rolling directory, as skips do.
    pub(crate) fn finish(&mut self, report: &mut ReadReport) {
        if self.app_ended {
            self.jobs.finish(&mut self.on_job);
        } else {
            let end = "SparkListenerJobEnd, nor SparkListenerApplicationEnd";
            let cut_before = report.truncated.is_some();
            (self.jobs).finish_noting_unended(&mut self.on_job, report, self.last_line, end);
            if !cut_before && let Some(cut) = report.truncated.as_mut() {
                cut.file = self.last_file.take();
            }
        }
    }

    fn job_key(&self, job_id: u64) -> String {
        match &self.app_id {
            Some(app) => format!("{app}/job {job_id}"),
            None => format!("job {job_id}"),
        }
    }

    fn event(&mut self, event: Event, line: u64) -> Result<(), Skip> {
        let Some(name) = event.event.as_deref() else {
            return Err(("no Event field", Some("Event")));
        };
        match name {
            "SparkListenerApplicationStart" => {
                if event.app_id.is_some() {
                    self.app_id = event.app_id;
                }
                Ok(())
            }
            "SparkListenerApplicationEnd" => {
                self.app_ended = true;
                Ok(())
            }
            "SparkListenerEnvironmentUpdate" => self.environment_update(event),
            "SparkListenerJobStart" => self.job_start(event),
            "SparkListenerJobEnd" => {
                let job_id = event.job_id.ok_or(("missing field", Some("Job ID")))?;
                let key = self.job_key(job_id);
                // Checked before anything of the job is touched, so that the skip leaves
                // nothing behind.
                self.jobs.check_not_handed_out(&key, "Job ID")?;
                if self.jobs.get(&key).is_none() {
                    return Err((END_NOT_STARTED, Some("Job ID")));
                }
                if let Some(order) = self.job_order.get_mut(&key) {
                    order.1 = true;
                }
                self.pass_stages(&key, false);
                self.jobs.end_job(&key, "Job ID", &mut self.on_job)?;
                self.forget_if_gone(&key);
                Ok(())
            }
            "SparkListenerTaskStart" | "SparkListenerTaskEnd" => {
                let start = name == "SparkListenerTaskStart";
                let (stage, attempt) = self.stage_of(&event)?;
                if start {
                    self.task_start(event, line)?;
                } else {
                    self.task_end(event, line)?;
                }
                self.saw_stage_attempt(stage, attempt);
                Ok(())
            }
            name if CORE_EVENTS.contains(&name) || name.contains('.') => Ok(()),
            _ => Err(("unknown event type", Some("Event"))),
        }
    }

    /// Reads the speculation setting of a `SparkListenerEnvironmentUpdate`'s `Spark
    /// Properties` (an update without them says nothing, and changes nothing): Spark posts
    /// one as its context starts, before any job, and again with the same properties when
    /// a jar or file is added. A `spark.speculation` that is not a string, or that Spark
    /// cannot read as a boolean, makes the setting unreadable, and the update is counted as
    /// a skip naming it; else a speculation property written twice, the last standing (as
    /// Spark reads the object into a map), is a skip as `"duplicate key"` naming it; a parameter that is not a string is kept as its JSON text. A
    /// `spark.speculation.interval` is kept as written, and judged where the interval is
    /// chosen (`ScanInterval::engine`), not here.
    fn environment_update(&mut self, event: Event) -> Result<(), Skip> {
        let Some(SpeculationProperties(properties)) = event.spark_properties else {
            return Ok(());
        };
        let mut switch: Option<serde_json::Value> = None;
        let mut parameters = Vec::new();
        // The first key written twice: the last value stands, as Spark's `JsonProtocol`
        // reads the object into a map, and the update is counted as a skip naming it.
        let mut seen = std::collections::HashSet::new();
        let mut duplicate = None;
        for (key, value) in properties {
            if !seen.insert(key.clone()) && duplicate.is_none() {
                duplicate = Some(key.clone());
            }
            if key == SPECULATION {
                switch = Some(value);
            } else {
                let text = match value {
                    serde_json::Value::String(text) => text,
                    other => other.to_string(),
                };
                parameters.push((key, text));
            }
        }
        // Spark writes every property as a string: any other value is damage, and unreadable.
        let wrong_type = switch.as_ref().is_some_and(|v| !v.is_string());
        let mut setting = match &switch {
            None => SpeculationSetting::spark(None),
            Some(serde_json::Value::String(text)) => SpeculationSetting::spark(Some(text)),
            Some(other) => SpeculationSetting::spark_unreadable(&other.to_string()),
        };
        for (key, value) in &parameters {
            setting = setting.with_parameter(key, value);
        }
        let unreadable = setting.map.enabled.is_none();
        self.speculation = Some(setting);
        self.speculation_line = Some(LogLine {
            line: self.last_line,
            file: self.last_file.clone(),
        });
        match (wrong_type, unreadable) {
            (true, _) => Err(("field of the wrong type", Some(SPECULATION))),
            (false, true) => Err(("not a boolean", Some(SPECULATION))),
            (false, false) => match duplicate {
                Some(key) => {
                    self.skip_field = Some(key);
                    Err(("duplicate key", None))
                }
                None => Ok(()),
            },
        }
    }

    /// Opens the job of a `SparkListenerJobStart`. A bad `Submission Time` (of the wrong
    /// type, negative, implausible) costs that field alone: the job opens without it, and
    /// the start is counted as a skip naming it (as a `.jhist` `JOB_SUBMITTED` is), for
    /// without the start the job's tasks would have no job. A start of a job already
    /// started keeps the first's name, submission time and speculation setting (the one
    /// the job started under); one that gives another name or submission time is skipped
    /// whole, naming it (`OpenJob::check_submission`).
    fn job_start(&mut self, event: Event) -> Result<(), Skip> {
        let job_id = event.job_id.ok_or(("missing field", Some("Job ID")))?;
        let submit = match event.submission_time.filter(|v| !v.is_null()) {
            None => Ok(None),
            Some(value) => match Millis::of_value(&value) {
                Some(ms) => plausible(ms_to_secs(ms), "Submission Time").map(Some),
                None => Err(("field of the wrong type", Some("Submission Time"))),
            },
        };
        let infos = event.stage_infos.unwrap_or_default();
        let stages: Vec<u64> = match event.stage_ids {
            Some(ids) => ids,
            None => infos.iter().filter_map(|s| s.stage_id).collect(),
        };
        let name = infos
            .iter()
            .filter(|s| s.stage_id.is_some())
            .max_by_key(|s| s.stage_id)
            .and_then(|s| s.stage_name.clone());
        let key = self.job_key(job_id);
        let submit_secs = submit.unwrap_or(None);
        (self.jobs).check_submission(&key, name.as_deref(), submit_secs, JOB_FIELDS)?;
        let started = self.jobs.get(&key).is_some();
        let job = self.jobs.job(&key, JOB_FIELDS.id)?;
        job.fill_submission(name.as_deref(), submit_secs);
        if !started {
            let job = job.job_mut();
            job.speculation = self.speculation.clone();
            job.speculation_line = self.speculation_line.clone();
        }
        // A stage that a running job runs stays that job's (Spark runs a stage that jobs
        // share for the earliest, `DAGScheduler.activeJobForStage`); it passes to this one
        // when that one ends (`pass_stages`).
        if !self.job_order.contains_key(&key) {
            self.job_order
                .insert(key.clone(), (self.jobs_started, false));
            self.jobs_started += 1;
        }
        for &stage in &stages {
            let taken = (self.stage_job.get(&stage)).is_some_and(|k| self.running_job(k));
            if !taken {
                self.stage_job.insert(stage, key.clone());
            }
        }
        self.job_stages.entry(key).or_default().extend(stages);
        submit.map(|_| ())
    }

    /// The stage, stage attempt ([`SparkReader::stage_of`]), task info (taken out of the
    /// event), task id and index of a task start or end event.
    fn task_of(&self, event: &mut Event) -> Result<(u64, u64, TaskInfo, u64, u64), Skip> {
        let (stage, stage_attempt) = self.stage_of(event)?;
        let info = event
            .task_info
            .take()
            .ok_or(("missing field", Some("Task Info")))?;
        let task_id = info.task_id.ok_or(("missing field", Some("Task ID")))?;
        let index = info.index.ok_or(("missing field", Some("Index")))?;
        Ok((stage, stage_attempt, info, task_id, index))
    }

    fn task_start(&mut self, mut event: Event, line: u64) -> Result<(), Skip> {
        let (stage, stage_attempt, info, task_id, index) = self.task_of(&mut event)?;
        let launch_ms = info
            .launch_time
            .ok_or(("missing field", Some("Launch Time")))?;
        let launch = plausible(ms_to_secs(launch_ms), "Launch Time")?;
        let key = self
            .stage_job
            .get(&stage)
            .ok_or(("stage of no open job", Some("Stage ID")))?
            .clone();
        let Some(job) = self.jobs.get(&key) else {
            return Err(("stage of no open job", Some("Stage ID")));
        };
        let stage_name = format!("{stage}.{stage_attempt}");
        let task_name = format!("{stage_name}:{index}");
        let id = task_id.to_string();
        // Checked before the task is opened: a start skipped leaves nothing behind. A start
        // again at the recorded launch time restates the attempt, unless another field of
        // its `Task Info` contradicts the first start.
        let change = (job.check_start(&task_name, &id, launch)).map_err(|e| e.skip(&FIELDS))?;
        if change == Change::Restates
            && let Some(field) =
                (self.started.get(&task_id)).and_then(|s| s.contradiction(&info, index))
        {
            return Err((CONTRADICTS_START, Some(field)));
        }
        let started = Started::new(&key, launch_ms, index, &info);
        // A start says no task type: the stage's, if an end of it said.
        let stage_key = (key.clone(), stage_name.clone());
        let kind = (self.stage_kinds.get(&stage_key).copied()).unwrap_or(StageKind::Other);
        let task = job.task(&task_name, &stage_name, kind);
        job.start_attempt(task, &id, launch, info.host, info.speculative, line)
            .map_err(|e| e.skip(&FIELDS))?;
        self.started.entry(task_id).or_insert(started);
        let filed = Filed {
            job: key,
            stage: stage_name,
            task: task_name,
        };
        self.running.insert(task_id, filed);
        Ok(())
    }

    fn task_end(&mut self, mut event: Event, line: u64) -> Result<(), Skip> {
        let (stage, stage_attempt, info, task_id, index) = self.task_of(&mut event)?;
        let finish = info
            .finish_time
            .ok_or(("missing field", Some("Finish Time")))?;
        let reason = event.end_reason.and_then(|r| r.reason);
        // A commit denied is a lost race (the other attempt committed first), not a
        // failure (`TaskCommitDenied.countTowardsTaskFailures` is false): Spark reported it
        // as FAILED until 2.3 (SPARK-20713), KILLED since; killed either way here, so that
        // an original whose copy won is not taken for a failed one.
        let killed = ["TaskKilled", "TaskCommitDenied"].contains(&reason.as_deref().unwrap_or(""));
        let outcome = if info.killed == Some(true) || killed {
            AttemptOutcome::Killed
        } else if info.failed == Some(true) || reason.as_deref().is_some_and(|r| r != "Success") {
            AttemptOutcome::Failed
        } else {
            AttemptOutcome::Succeeded
        };
        let kind = match event.task_type.as_deref() {
            Some("ShuffleMapTask") => StageKind::Map,
            Some("ResultTask") => StageKind::Reduce,
            Some(_) => return Err(("unknown task type", Some("Task Type"))),
            None => return Err(("missing field", Some("Task Type"))),
        };
        // Where its start filed the attempt; else where the end itself says.
        let Filed {
            job: key,
            stage: stage_name,
            task: task_name,
        } = match self.running.get(&task_id) {
            Some(filed) => filed.clone(),
            None => {
                let job = self
                    .stage_job
                    .get(&stage)
                    .ok_or(("stage of no open job", Some("Stage ID")))?
                    .clone();
                let stage = format!("{stage}.{stage_attempt}");
                let task = format!("{stage}:{index}");
                Filed { job, stage, task }
            }
        };
        let id = task_id.to_string();
        // The end's `Task Info` is the object its start's was: its launch time is checked
        // as the start's is, and a field that contradicts the start skips the end (below).
        if let Some(ms) = info.launch_time {
            plausible(ms_to_secs(ms), "Launch Time")?;
        }
        // A `Resubmitted` end follows the success of a map task whose output was lost
        // later: the attempt did succeed, and its success is revoked (nothing is opened
        // for an attempt not seen).
        if reason.as_deref() == Some("Resubmitted") {
            self.check_against_start(task_id, &info, index)?;
            if let Some(job) = self.jobs.get(&key) {
                job.revoke(&id);
            }
            return Ok(());
        }
        let finish = plausible(ms_to_secs(finish), "Finish Time")?;
        // The end's launch time (checked above) stands in only for an attempt not seen
        // starting, as in `end_attempt` below.
        let launch = match info.launch_time {
            Some(ms) if self.jobs.attempt_start(&key, &id).is_none() => Some(ms_to_secs(ms)),
            _ => None,
        };
        self.jobs
            .check_end(&key, &task_name, &id, launch, (finish, outcome))
            .map_err(|e| e.skip(&FIELDS))?;
        // After the checks of the attempt's record, so that an end they refuse (a second
        // end, an id of another task) is named as before.
        self.check_against_start(task_id, &info, index)?;
        let Some(job) = self.jobs.get(&key) else {
            return Err(("stage of no open job", Some("Stage ID")));
        };
        let task = job.task(&task_name, &stage_name, kind);
        // Every task of a stage attempt has its type: the stage's tasks not ended yet too
        // (a log cut, or `.inprogress`, leaves some running), once, at its first end.
        let stage_key = (key.clone(), stage_name.clone());
        if let std::collections::hash_map::Entry::Vacant(entry) = self.stage_kinds.entry(stage_key)
        {
            for other in &mut job.job_mut().tasks {
                if other.stage == stage_name && other.kind == StageKind::Other {
                    other.kind = kind;
                }
            }
            entry.insert(kind);
        }
        let ended = job
            .end_attempt(task, &id, finish, outcome, launch, line)
            .map_err(|e| e.skip(&FIELDS))?;
        self.running.remove(&task_id);
        // A failure or kill after the attempt's success restates it, as `Resubmitted` does.
        let Some(attempt) = ended else {
            return Ok(());
        };
        if attempt.host.is_none() {
            attempt.host = info.host;
        }
        if attempt.speculative.is_none() {
            attempt.speculative = info.speculative;
        }
        if outcome == AttemptOutcome::Succeeded
            && let Some(metrics) = event.task_metrics
        {
            let (bytes, records) = input_of(&metrics);
            let task = job.task_mut(task);
            task.input_bytes = bytes.or(task.input_bytes);
            task.input_records = records.or(task.input_records);
        }
        self.jobs.emit_if_done(&key, &mut self.on_job);
        self.forget_if_gone(&key);
        Ok(())
    }

    /// The skip of a record of attempt `task_id` (its `Task Info` and `index`) that
    /// contradicts the attempt's start ([`Started::contradiction`]): a damaged record, for
    /// Spark writes the same `TaskInfo` in both, and which of the two is right cannot be
    /// told; the start, applied first, stands.
    fn check_against_start(&self, task_id: u64, info: &TaskInfo, index: u64) -> Result<(), Skip> {
        match (self.started.get(&task_id)).and_then(|s| s.contradiction(info, index)) {
            Some(field) => Err((CONTRADICTS_START, Some(field))),
            None => Ok(()),
        }
    }

    /// Forgets the stages of job `key` once it has been handed out, so that memory stays
    /// flat over a long log.
    fn forget_if_gone(&mut self, key: &str) {
        if self.jobs.get(key).is_some() {
            return;
        }
        self.running.retain(|_, filed| filed.job != key);
        self.started.retain(|_, started| started.job != key);
        self.stage_kinds.retain(|(job, _), _| job != key);
        self.job_order.remove(key);
        self.pass_stages(key, true);
        // A stage no open job runs any more is forgotten whole, its latest attempt too, so
        // that memory stays flat over a long log.
        for stage in self.job_stages.remove(key).unwrap_or_default() {
            if !self.stage_job.contains_key(&stage) {
                self.latest_attempt.remove(&stage);
            }
        }
    }
}

/// Input bytes and records of a task: what it read from storage plus what it fetched in
/// the shuffle; `None` when the metrics say nothing of either.
fn input_of(metrics: &TaskMetrics) -> (Option<u64>, Option<u64>) {
    let sum = |values: [Option<u64>; 3]| -> Option<u64> {
        values
            .into_iter()
            .flatten()
            .fold(None, |acc, v| Some(acc.unwrap_or(0u64).saturating_add(v)))
    };
    let input = metrics.input.as_ref();
    let shuffle = metrics.shuffle_read.as_ref();
    let bytes = sum([
        input.and_then(|i| i.bytes_read),
        shuffle.and_then(|s| s.remote_bytes_read),
        shuffle.and_then(|s| s.local_bytes_read),
    ]);
    let records = sum([
        input.and_then(|i| i.records_read),
        shuffle.and_then(|s| s.total_records_read),
        None,
    ]);
    (bytes, records)
}

fn ms_to_secs(ms: Millis) -> f64 {
    ms.0 as f64 / 1000.0
}
