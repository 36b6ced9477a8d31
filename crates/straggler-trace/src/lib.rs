//! Real clusters' job history, read as it is.
//!
//! A reader turns a log (Hadoop MRv2 `.jhist`, Hadoop 1 JobHistory text, Rumen JSON, Spark
//! event logs, Google 2011 `task_events`, Alibaba 2018 `batch_instance`) into [`TraceJob`]s
//! and a [`ReadReport`] that accounts for every record read: parsed, or skipped with a
//! reason, file and line. See `docs/trace-formats.md` for the formats and `docs/replay.md`
//! for replay.
#![deny(missing_docs)]

mod error;
mod interval;
mod judge;
mod read;
mod recorded;
mod replay;
mod replay_error;
mod report;
mod table3;
mod trace;
mod truth;

pub use error::TraceError;
pub use interval::{
    HADOOP_PROGRESS_INTERVAL_SECS, HEARTBEAT_SECS, IntervalSource, SPARK_DEFAULT_INTERVAL_MS,
    ScanInterval, spark_time_ms,
};
pub use read::{
    HadoopVersion, JobConf, conf_job_id, detect_bytes, detect_format, read_bytes, read_job_conf,
    read_jobs, read_path, read_reader,
};
pub use report::{
    EmbeddedConf, ReadReport, RecoveredEnd, Skip, Truncation, UnknownKey, Unread, UnusableSplits,
};
pub use trace::{
    AttemptOutcome, LogLine, SettingSource, SpeculationSetting, SpeculationSwitch, StageKind,
    TraceAttempt, TraceFormat, TraceJob, TraceTask, java_trim, spark_boolean,
};

pub use judge::{ReplayMetrics, judge, task_records};
pub use recorded::{CopyCounts, Recorded, fakes_won_by_copy, recorded};
pub use replay::{MAX_SCANS_PER_JOB, ReplayConfig, ReplayOutcome, SkippedJob, replay, replay_each};
pub use replay_error::ReplayError;
pub use table3::{Correlation, Table3, Table3Row, pearson, table3};
pub use truth::{LabelledTask, Labels, TruthConfig, attempt_roles, job_origin_secs, label};
