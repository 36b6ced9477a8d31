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
    /// A Hadoop job's configuration XML (`*_conf.xml`), beside its history: no tasks, its
    /// properties counted as records; read by [`read_job_conf`](crate::read_job_conf), not
    /// detected as a log.
    HadoopConf,
}

impl TraceFormat {
    /// The name used in reports and JSON: `"spark"`, `"jhist"`, `"hadoop1"`, `"rumen"`,
    /// `"google-2011"`, `"alibaba-2018"`, `"hadoop-conf"`.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::SparkEventLog => "spark",
            TraceFormat::HadoopJhist => "jhist",
            TraceFormat::Hadoop1History => "hadoop1",
            TraceFormat::Rumen => "rumen",
            TraceFormat::Google2011TaskEvents => "google-2011",
            TraceFormat::Alibaba2018BatchInstance => "alibaba-2018",
            TraceFormat::HadoopConf => "hadoop-conf",
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
    /// Whether the engine was configured to speculate in it, for each kind of stage, as the
    /// log's configuration says: `Some` for a Spark log with a
    /// `SparkListenerEnvironmentUpdate` (its application's `spark.speculation`) and a Rumen
    /// job with `jobProperties` (Hadoop's `mapreduce.map.speculative` and
    /// `mapreduce.reduce.speculative`, or their Hadoop 1 names); `None` when the log does not
    /// say (a Spark log without one, a Rumen job without `jobProperties`, a `.jhist` or
    /// Hadoop 1 history, whose files carry no usable setting: the job's configuration gives
    /// it, a `_conf.xml` read by [`read_job_conf`](crate::read_job_conf) or one a Hadoop 1
    /// log embeds, in [`ReadReport::confs`](crate::ReadReport::confs)). With speculation off for a
    /// kind, the engine launched no copy of its tasks by configuration: the recorded
    /// speculation's misses there are not misses of its rule.
    #[serde(default)]
    pub speculation: Option<SpeculationSetting>,
    /// Where the log gives [`TraceJob::speculation`]: the line of the Spark
    /// `SparkListenerEnvironmentUpdate` whose `Spark Properties` the job carries (and its
    /// file, in a rolling event-log directory), so that a note on a value Spark cannot read
    /// there (a `spark.speculation.interval`) names its line. `None` for the other formats,
    /// and for a Spark job without such an update before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speculation_line: Option<LogLine>,
}

/// A line of an input: its 1-based number, and in an input of several files (a Spark
/// rolling event-log directory) the name of its file there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    /// 1-based line number, in its file.
    pub line: u64,
    /// Its file's name in the input's directory; `None` for an input of one file.
    pub file: Option<String>,
}

/// The engine's speculation setting for a job, as its log's configuration gives it: a switch
/// for each kind of stage, and the parameters of speculation the log sets.
///
/// Spark has one switch (`spark.speculation`) for every stage, so its `map` and `reduce`
/// are the same switch ([`SpeculationSetting::one_switch`]); Hadoop has one for maps and
/// one for reduces (`mapreduce.map.speculative`, `mapreduce.reduce.speculative`). Setup and
/// cleanup tasks ([`StageKind::Other`]) are speculated by neither.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SpeculationSetting {
    /// The switch of the job's map stages (Hadoop's maps, Spark's shuffle-map stages).
    pub map: SpeculationSwitch,
    /// The switch of its reduce stages (Hadoop's reduces, Spark's result stages).
    pub reduce: SpeculationSwitch,
    /// The parameters of speculation the log sets, by key, as written (Spark: every
    /// `spark.speculation.*` property, such as `spark.speculation.multiplier`, `quantile`,
    /// `minTaskRuntime` and `interval`; Hadoop: every `mapreduce.job.speculative.*`,
    /// `mapred.speculative.execution*`, `yarn.app.mapreduce.am.job.speculator.*` and
    /// `yarn.app.mapreduce.am.job.task.estimator.*` property, the switches' own `.*`, and a
    /// switch's other name where both are set). Empty when none is set: the engine ran with
    /// its version's defaults.
    pub parameters: BTreeMap<String, String>,
}

/// Whether the engine speculated on the tasks of one kind of stage, as the log's
/// configuration gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SpeculationSwitch {
    /// Whether speculation was on; `None` when what the engine read is not known (see
    /// [`SettingSource::Unreadable`] and [`SettingSource::Conflicting`]).
    pub enabled: Option<bool>,
    /// Where `enabled` comes from: set in the log, or the engine's default.
    pub source: SettingSource,
    /// The property the switch is read from: the one the log sets (Hadoop: its Hadoop 2
    /// name where both names are set and read alike; in a configuration file read as
    /// Hadoop 2 reads it, the later of two read otherwise), else the one the engine reads
    /// (`spark.speculation`; `mapreduce.map.speculative`, `mapreduce.reduce.speculative`,
    /// or, for a configuration read as Hadoop 1 reads it, their Hadoop 1 names).
    pub key: String,
    /// The value as the log writes it (`"true"`, `" TRUE"`; a value that is no JSON string
    /// as its JSON text); `None` when unset.
    pub value: Option<String>,
}

/// Where a [`SpeculationSwitch`]'s `enabled` comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum SettingSource {
    /// The log sets it (Spark: `spark.speculation` among the application's properties;
    /// Hadoop: the switch among the job's properties).
    Set,
    /// The log's configuration does not set it: the engine's default (Spark: false; Hadoop:
    /// true).
    Default,
    /// The log sets it to a value the engine cannot read. Spark throws where it reads a
    /// value other than `true` or `false`: `enabled` is `None`. Hadoop's
    /// `Configuration.getBoolean` takes its default (true) in place of one: `enabled` is
    /// that default, but `None` for a value that is no JSON string (damage: Rumen writes
    /// strings) or that holds a variable (`${name}`), which Hadoop expands first from
    /// what the log does not hold.
    Unreadable,
    /// Hadoop: a Rumen job's `jobProperties` set the switch under both its names (Hadoop
    /// 2's and Hadoop 1's) to values Hadoop reads differently. Hadoop 2 takes the one later
    /// in the job's configuration file, an order the JSON does not keep: `enabled` is
    /// `None`. (A configuration file keeps the order: read as Hadoop 2 reads it, the later
    /// one stands.)
    Conflicting,
}

impl SpeculationSetting {
    /// Spark's setting from its `spark.speculation` property, `None` when the properties do
    /// not set it (see [`SpeculationSwitch::spark`]): one switch for every kind of stage. No
    /// parameter is set: see [`SpeculationSetting::with_parameter`].
    pub fn spark(value: Option<&str>) -> SpeculationSetting {
        let switch = SpeculationSwitch::spark(value);
        SpeculationSetting {
            map: switch.clone(),
            reduce: switch,
            parameters: BTreeMap::new(),
        }
    }

    /// A Spark setting whose `spark.speculation` is no string (as its JSON text, `value`):
    /// one Spark cannot read.
    pub(crate) fn spark_unreadable(value: &str) -> SpeculationSetting {
        let switch = SpeculationSwitch::unknown(SPARK_SWITCH, value, SettingSource::Unreadable);
        SpeculationSetting {
            map: switch.clone(),
            reduce: switch,
            parameters: BTreeMap::new(),
        }
    }

    /// A Hadoop setting from the switches of its maps and of its reduces (see
    /// [`SpeculationSwitch::hadoop`]). No parameter is set: see
    /// [`SpeculationSetting::with_parameter`].
    pub fn hadoop(map: SpeculationSwitch, reduce: SpeculationSwitch) -> SpeculationSetting {
        SpeculationSetting {
            map,
            reduce,
            parameters: BTreeMap::new(),
        }
    }

    /// The setting with parameter `key` set to `value`, as the log writes it.
    pub fn with_parameter(mut self, key: &str, value: &str) -> SpeculationSetting {
        self.parameters.insert(key.to_owned(), value.to_owned());
        self
    }

    /// The parameters that tune how the engine speculates, not whether:
    /// [`SpeculationSetting::parameters`] but a switch kept among them (the other name of a
    /// Hadoop switch set under both, Hadoop 0.18's `mapred.speculative.execution`), as
    /// `(key, value)` in the order of their keys.
    pub fn tuning(&self) -> impl Iterator<Item = (&str, &str)> {
        (self.parameters.iter())
            .filter(|(key, _)| !crate::read::is_switch_key(key))
            .map(|(key, value)| (key.as_str(), value.as_str()))
    }

    /// The switch of the tasks of `kind`: `None` for [`StageKind::Other`] (setup and cleanup
    /// tasks, which no engine speculates).
    pub fn switch(&self, kind: StageKind) -> Option<&SpeculationSwitch> {
        match kind {
            StageKind::Map => Some(&self.map),
            StageKind::Reduce => Some(&self.reduce),
            StageKind::Other => None,
        }
    }

    /// The switch of every kind of stage, when one switch governs them all (Spark's
    /// `spark.speculation`); `None` when each kind has its own (Hadoop's).
    pub fn one_switch(&self) -> Option<&SpeculationSwitch> {
        (self.map == self.reduce).then_some(&self.map)
    }
}

/// The key of Spark's speculation switch.
pub(crate) const SPARK_SWITCH: &str = "spark.speculation";

impl SpeculationSwitch {
    /// Spark's switch from its `spark.speculation` property, `None` when the properties do
    /// not set it (Spark's default, false). The value is read as Spark 3 and 4 read a
    /// boolean property (`ConfigBuilder.booleanConf`): `true` or `false` in any ASCII case,
    /// blanks and control characters around it trimmed (Java's `String.trim`); anything
    /// else is [`SettingSource::Unreadable`], `enabled` `None` (Spark throws).
    pub fn spark(value: Option<&str>) -> SpeculationSwitch {
        let (enabled, source) = match value {
            None => (Some(false), SettingSource::Default),
            Some(text) => match spark_boolean(text) {
                Some(on) => (Some(on), SettingSource::Set),
                None => (None, SettingSource::Unreadable),
            },
        };
        SpeculationSwitch {
            enabled,
            source,
            key: SPARK_SWITCH.to_owned(),
            value: value.map(str::to_owned),
        }
    }

    /// Hadoop's switch from property `key` (`mapreduce.map.speculative`, or another name of
    /// a switch), set to `value` or unset (`None`: Hadoop's default, true). The value is
    /// read as Hadoop 2 and later read it (`Configuration.getBoolean`): `true` or `false`
    /// in any ASCII case, trimmed as Java's `String.trim` trims; any other text is
    /// [`SettingSource::Unreadable`] with Hadoop's default, true, but for a variable
    /// (`${name}`, which Hadoop expands first), whose `enabled` is `None`.
    pub fn hadoop(key: &str, value: Option<&str>) -> SpeculationSwitch {
        let (enabled, source) = match value.map(hadoop_boolean) {
            None => (Some(HADOOP_DEFAULT), SettingSource::Default),
            Some(HadoopBoolean::Value(on)) => (Some(on), SettingSource::Set),
            Some(HadoopBoolean::Default) => (Some(HADOOP_DEFAULT), SettingSource::Unreadable),
            Some(HadoopBoolean::Variable) => (None, SettingSource::Unreadable),
        };
        SpeculationSwitch {
            enabled,
            source,
            key: key.to_owned(),
            value: value.map(str::to_owned),
        }
    }

    /// Hadoop 1's switch from property `key` (`mapred.map.tasks.speculative.execution` or
    /// `mapred.reduce.tasks.speculative.execution`, the names `JobConf` reads), set to
    /// `value` or unset (`None`: Hadoop's default, true), as Hadoop 0.20 and 1 read it
    /// (`Configuration.getBoolean`: `"true".equals` or `"false".equals` of the value,
    /// variables expanded first): exactly `true` or `false`, no other case, nothing around
    /// it; any other text (`TRUE`, ` false`) is [`SettingSource::Unreadable`] with the
    /// default, true, but for a variable, whose `enabled` is `None`.
    pub fn hadoop1(key: &str, value: Option<&str>) -> SpeculationSwitch {
        let (enabled, source) = match value {
            None => (Some(HADOOP_DEFAULT), SettingSource::Default),
            Some(text) if has_variable(text) => (None, SettingSource::Unreadable),
            Some("true") => (Some(true), SettingSource::Set),
            Some("false") => (Some(false), SettingSource::Set),
            Some(_) => (Some(HADOOP_DEFAULT), SettingSource::Unreadable),
        };
        SpeculationSwitch {
            enabled,
            source,
            key: key.to_owned(),
            value: value.map(str::to_owned),
        }
    }

    /// A switch of property `key`, set to `value` (as written), whose reading is not known
    /// (`source` [`SettingSource::Unreadable`] or [`SettingSource::Conflicting`]).
    pub(crate) fn unknown(key: &str, value: &str, source: SettingSource) -> SpeculationSwitch {
        SpeculationSwitch {
            enabled: None,
            source,
            key: key.to_owned(),
            value: Some(value.to_owned()),
        }
    }
}

/// Hadoop's default for both switches, `mapreduce.map.speculative` and
/// `mapreduce.reduce.speculative` (`mapred-default.xml`; Hadoop 1's
/// `JobConf.getMapSpeculativeExecution` and `getReduceSpeculativeExecution` too).
pub(crate) const HADOOP_DEFAULT: bool = true;

/// What Hadoop reads a boolean property's text as (see [`hadoop_boolean`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HadoopBoolean {
    /// `true` or `false`.
    Value(bool),
    /// Any other text: the caller's default.
    Default,
    /// A variable Hadoop expands first (`${name}`), from the configuration or the JVM's
    /// system properties: what it reads is not known.
    Variable,
}

/// A Hadoop boolean property as Hadoop 2 and later read it (`Configuration.getBoolean`:
/// `getTrimmed`, then `true` or `false` in any case, by `toLowerCase` or, in later
/// releases, `equalsIgnoreCase`; any other text, the empty one included, gives the
/// caller's default). Java's `String.trim` strips the characters up to U+0020. Only ASCII
/// case is folded here: Java's `equalsIgnoreCase` also takes a long s (U+017F) for `s`, so
/// a `falſe`, read here as the default, is false to those releases. Hadoop expands variables first (`${name}`, its
/// `\$\{[^\}\$ ]+\}`): such a text is [`HadoopBoolean::Variable`]. Hadoop 1
/// (`"true".equals(get(name))`) neither trimmed nor folded case: it took its default for
/// `FALSE` or ` false`.
pub(crate) fn hadoop_boolean(text: &str) -> HadoopBoolean {
    if has_variable(text) {
        return HadoopBoolean::Variable;
    }
    let trimmed = java_trim(text);
    if trimmed.eq_ignore_ascii_case("true") {
        HadoopBoolean::Value(true)
    } else if trimmed.eq_ignore_ascii_case("false") {
        HadoopBoolean::Value(false)
    } else {
        HadoopBoolean::Default
    }
}

/// `text` trimmed as Java's `String.trim` trims: the characters up to U+0020 (controls and
/// the space) at both ends, and no other (a no-break space stays). Spark and Hadoop trim
/// their properties so before they read them.
pub fn java_trim(text: &str) -> &str {
    text.trim_matches(|c: char| c <= '\u{20}')
}

/// Whether `text` holds a variable Hadoop's `Configuration` expands: `${`, one or more
/// characters other than `}`, `$` and a space, then `}`.
fn has_variable(text: &str) -> bool {
    let mut rest = text;
    while let Some(open) = rest.find("${") {
        let after = &rest[open + 2..];
        let name = after.find(['}', '$', ' ']).unwrap_or(after.len());
        if name > 0 && after[name..].starts_with('}') {
            return true;
        }
        rest = after;
    }
    false
}

/// A Spark boolean property as Spark 3 and 4 read it (`ConfigHelpers.toBoolean`:
/// `s.trim.toBoolean`): `true` or `false` in any ASCII case once the characters up to
/// U+0020 around it are trimmed (Java's `String.trim`); `None` for any other text, on
/// which Spark throws (`should be boolean, but was ...`). Spark 1 and 2
/// (`SparkConf.getBoolean`: Scala's `toBoolean`) did not trim, and threw on a padded value.
pub fn spark_boolean(text: &str) -> Option<bool> {
    let trimmed = java_trim(text);
    if trimmed.eq_ignore_ascii_case("true") {
        Some(true)
    } else if trimmed.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}
