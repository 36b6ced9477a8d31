//! What a log says about jobs, tasks and attempts, whatever its format.
//!
//! Times are seconds on the trace's own clock (epoch seconds for Hadoop and Spark logs,
//! seconds since the trace start for Google 2011 and Alibaba 2018); replay measures every
//! time from the job's first launch.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The formats this crate reads, detected from content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceFormat {
    /// Spark event log (JSON Lines; plain, gzip, zstd; or a rolling `eventlog_v2_*` directory).
    SparkEventLog,
    /// Hadoop MRv2 JobHistory `.jhist` (Avro-JSON events).
    HadoopJhist,
    /// Hadoop 1 JobHistory text log (`Key="value"` records).
    Hadoop1History,
    /// Rumen JSON (job objects back to back).
    Rumen,
    /// Google cluster trace 2011, `task_events` CSV.
    Google2011TaskEvents,
    /// Alibaba cluster trace 2018, `batch_instance` CSV.
    Alibaba2018BatchInstance,
}

impl TraceFormat {
    /// The name used in reports and JSON: `"spark"`, `"jhist"`, `"hadoop1"`, `"rumen"`,
    /// `"google-2011"`, `"alibaba-2018"`.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::SparkEventLog => "spark",
            TraceFormat::HadoopJhist => "jhist",
            TraceFormat::Hadoop1History => "hadoop1",
            TraceFormat::Rumen => "rumen",
            TraceFormat::Google2011TaskEvents => "google-2011",
            TraceFormat::Alibaba2018BatchInstance => "alibaba-2018",
        }
    }
}

/// The kind of stage a task belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StageKind {
    /// Hadoop map tasks; Spark shuffle-map stages.
    Map,
    /// Hadoop reduce tasks; Spark result stages.
    Reduce,
    /// Anything else (Hadoop setup and cleanup tasks, unknown kinds); not labelled.
    Other,
}

/// How an attempt ended, as the log says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AttemptOutcome {
    /// Finished its work.
    Succeeded,
    /// Killed (typically the loser of a speculative race).
    Killed,
    /// Failed (error, lost node).
    Failed,
    /// The log ends before the attempt does.
    Unfinished,
}

/// One execution of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceAttempt {
    /// The attempt id as the log writes it.
    pub id: String,
    /// The host it ran on, if the log says.
    pub host: Option<String>,
    /// Launch time, seconds (trace clock).
    pub start_secs: f64,
    /// Finish, kill or failure time; `None` if the log ends first.
    pub end_secs: Option<f64>,
    /// How it ended.
    pub outcome: AttemptOutcome,
    /// Whether the engine launched it as a speculative copy: `Some` when the log says so
    /// (jhist `avataar`, Spark `Speculative`), `None` when it does not (Hadoop 1, Rumen,
    /// Google, Alibaba), in which case replay infers it.
    pub speculative: Option<bool>,
    /// Progress over time, `(seconds since launch, progress in [0, 1])` in time order, from
    /// progress splits (`clockSplits`) where the log has them; empty otherwise, and when
    /// they cannot be used (the attempt is then named in
    /// [`ReadReport::unusable_splits`](crate::ReadReport::unusable_splits)).
    pub progress: Vec<(f64, f64)>,
    /// Whether the engine revoked the attempt's success: the log records a failure or kill
    /// of it after its success (Hadoop re-runs a map whose output was lost, with its
    /// TaskTracker or node or to fetch failures), or a `Resubmitted` end (Spark). The
    /// outcome stays `Succeeded`, and the task's later attempts are re-runs. `false` for an
    /// attempt whose success stands, or that did not succeed.
    #[serde(default)]
    pub revoked: bool,
    /// 1-based line (or record) of the input where the attempt ended or was last seen; in
    /// an input of several files (a Spark rolling event-log directory), the line of its
    /// file.
    pub line: u64,
}

/// A task: the unit a straggler is, with all its attempts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceTask {
    /// The task id as the log writes it.
    pub id: String,
    /// The stage it belongs to within its job (`"map"`, `"reduce"`, Spark `"3.0"`...).
    pub stage: String,
    /// The kind of that stage.
    pub kind: StageKind,
    /// Input size in bytes, if the log says.
    pub input_bytes: Option<u64>,
    /// Input records, if the log says.
    pub input_records: Option<u64>,
    /// Its attempts in launch order.
    pub attempts: Vec<TraceAttempt>,
}

/// A job (a Spark application's job, a Hadoop job) and its tasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceJob {
    /// The job id as the log writes it.
    pub id: String,
    /// Its name, if the log says.
    pub name: Option<String>,
    /// Submit time (trace clock), if the log says.
    pub submit_secs: Option<f64>,
    /// Its tasks.
    pub tasks: Vec<TraceTask>,
    /// Whether the engine was configured to speculate in it, as the log's configuration
    /// says: `Some` for a Spark log with a `SparkListenerEnvironmentUpdate` (its
    /// application's `spark.speculation`), `None` when the log does not say (a Spark log
    /// without one; the Hadoop formats, whose history files carry no usable setting).
    /// With speculation off, the engine launched no copy by configuration: the recorded
    /// speculation's misses there are not misses of its rule.
    #[serde(default)]
    pub speculation: Option<SpeculationSetting>,
}

/// The engine's speculation setting for a job, as its log's configuration gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SpeculationSetting {
    /// Whether speculation was on; `None` when the log gives a value the engine cannot
    /// read as a boolean (`source` is then [`SettingSource::Unreadable`], and `value`
    /// holds it).
    pub enabled: Option<bool>,
    /// Where `enabled` comes from: set in the log, or the engine's default.
    pub source: SettingSource,
    /// The value as the log writes it (Spark: `"true"`, `" TRUE"`); `None` when unset.
    pub value: Option<String>,
    /// The parameters of speculation the log sets, by key, as written (Spark: every
    /// `spark.speculation.*` property, such as `spark.speculation.multiplier`, `quantile`,
    /// `minTaskRuntime` and `interval`). Empty when none is set: the engine ran with its
    /// version's defaults.
    pub parameters: BTreeMap<String, String>,
}

/// Where a [`SpeculationSetting`]'s `enabled` comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum SettingSource {
    /// The log sets it (Spark: `spark.speculation` among the application's properties).
    Set,
    /// The log's configuration does not set it: the engine's default (Spark: false).
    Default,
    /// The log sets it to a value the engine cannot read (Spark: neither `true` nor
    /// `false`, on which Spark throws where it reads it): whether it speculated is not
    /// known.
    Unreadable,
}

impl SpeculationSetting {
    /// Spark's setting from its `spark.speculation` property, `None` when the properties do
    /// not set it (Spark's default, false). The value is read as Spark 3 and 4 read a
    /// boolean property (`ConfigBuilder.booleanConf`): `true` or `false` in any ASCII case,
    /// blanks and control characters around it trimmed (Java's `String.trim`); anything
    /// else is [`SettingSource::Unreadable`]. No parameter is set: see
    /// [`SpeculationSetting::with_parameter`].
    pub fn spark(value: Option<&str>) -> SpeculationSetting {
        let (enabled, source) = match value {
            None => (Some(false), SettingSource::Default),
            Some(text) => match spark_boolean(text) {
                Some(on) => (Some(on), SettingSource::Set),
                None => (None, SettingSource::Unreadable),
            },
        };
        SpeculationSetting {
            enabled,
            source,
            value: value.map(str::to_owned),
            parameters: BTreeMap::new(),
        }
    }

    /// A setting whose value (`value`, as the log writes it) the engine cannot read.
    pub(crate) fn unreadable(value: &str) -> SpeculationSetting {
        SpeculationSetting {
            enabled: None,
            source: SettingSource::Unreadable,
            value: Some(value.to_owned()),
            parameters: BTreeMap::new(),
        }
    }

    /// The setting with parameter `key` set to `value`, as the log writes it.
    pub fn with_parameter(mut self, key: &str, value: &str) -> SpeculationSetting {
        self.parameters.insert(key.to_owned(), value.to_owned());
        self
    }
}

/// A Spark boolean property as Spark 3 and 4 read it (`ConfigHelpers.toBoolean`:
/// `s.trim.toBoolean`): `true` or `false` in any ASCII case once the characters up to
/// U+0020 around it are trimmed (Java's `String.trim`); `None` for any other text, on
/// which Spark throws (`should be boolean, but was ...`). Spark 1 and 2
/// (`SparkConf.getBoolean`: Scala's `toBoolean`) did not trim, and threw on a padded value.
pub(crate) fn spark_boolean(text: &str) -> Option<bool> {
    let trimmed = text.trim_matches(|c: char| c <= '\u{20}');
    if trimmed.eq_ignore_ascii_case("true") {
        Some(true)
    } else if trimmed.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}
