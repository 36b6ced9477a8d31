//! How often a replay scans each job: every given number of seconds, or at the interval
//! its engine checks for stragglers at, as its log's configuration gives it.
//!
//! ```text
//! Spark   spark.speculation.interval as the log's SparkListenerEnvironmentUpdate sets it,
//!         read as Spark reads a time in ms (spark_time_ms); else Spark's default, 100 ms
//! Hadoop  3 s (.jhist, Rumen, Hadoop 1): its tasks report progress every 3 s
//!         (Task.PROGRESS_INTERVAL); the speculator scans every 1 s (MRv2's
//!         DefaultSpeculator) but sees only those reports, and a replay reports progress
//!         at every scan
//! others  3 s (Google 2011, Alibaba 2018: no engine speculation recorded), the simulator's
//!         heartbeat
//! ```
//!
//! A `spark.speculation.interval` Spark cannot read, or one it reads as no positive time
//! (`0`, `-1s`, `999us`: Spark's scheduler refuses a period of 0 ms or less), leaves the
//! job at Spark's default, its source [`IntervalSource::Unreadable`] and why in
//! [`ScanInterval::fault`], never unsaid. It is judged here, where the interval is chosen,
//! not by the reader, which keeps the value as written
//! ([`SpeculationSetting::parameters`](crate::SpeculationSetting::parameters)) and counts
//! its update as parsed: a run given one interval for every job ([`ScanInterval::given`])
//! does not use the value, and has nothing to say of it.

use serde::{Deserialize, Serialize};

use crate::{TraceFormat, TraceJob};

/// The Spark property of the speculation check's interval.
pub(crate) const SPARK_INTERVAL_KEY: &str = "spark.speculation.interval";

/// Spark's default `spark.speculation.interval`, milliseconds (`SPECULATION_INTERVAL` in
/// Spark's `internal/config/package.scala`; 100 in every release).
pub const SPARK_DEFAULT_INTERVAL_MS: i64 = 100;

/// The scan interval of the Hadoop formats, seconds: a task reports its progress every 3 s
/// (`Task.PROGRESS_INTERVAL`, Hadoop 1 and 2), and a replay reports progress at every scan.
pub const HADOOP_PROGRESS_INTERVAL_SECS: f64 = 3.0;

/// The scan interval of the formats without engine speculation (Google 2011, Alibaba
/// 2018), seconds: the simulator's heartbeat.
pub const HEARTBEAT_SECS: f64 = 3.0;

/// The interval a job is replayed at, and where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScanInterval {
    /// Seconds between two scans.
    pub secs: f64,
    /// Where `secs` comes from.
    pub source: IntervalSource,
    /// The value the log sets, as written (Spark's `spark.speculation.interval`, `"250ms"`),
    /// when `source` is [`IntervalSource::Set`] or [`IntervalSource::Unreadable`]; `None`
    /// otherwise.
    pub value: Option<String>,
}

/// Where a [`ScanInterval`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum IntervalSource {
    /// Given for every job (`stragglers replay --scan-interval`).
    Given,
    /// The log's configuration sets it (Spark: `spark.speculation.interval`).
    Set,
    /// The log does not set it: its engine's default (Spark 0.1 s, Hadoop's progress
    /// reports 3 s), or the simulator's heartbeat (3 s) for a trace of no engine that
    /// speculates.
    Default,
    /// The log sets a value its engine cannot read as a positive time: the engine's
    /// default is used, and `value` holds what the log sets.
    Unreadable,
}

impl ScanInterval {
    /// `secs` for a job, given for every one.
    pub fn given(secs: f64) -> ScanInterval {
        ScanInterval {
            secs,
            source: IntervalSource::Given,
            value: None,
        }
    }

    /// The interval the engine of `job` (read from a log of `format`) checks for stragglers
    /// at (see the module docs).
    pub fn engine(format: TraceFormat, job: &TraceJob) -> ScanInterval {
        let default = |secs| ScanInterval {
            secs,
            source: IntervalSource::Default,
            value: None,
        };
        match format {
            TraceFormat::SparkEventLog => {
                let set =
                    (job.speculation.as_ref()).and_then(|s| s.parameters.get(SPARK_INTERVAL_KEY));
                let Some(text) = set else {
                    return default(ms_to_secs(SPARK_DEFAULT_INTERVAL_MS));
                };
                let (ms, source) = match spark_time_ms(text).filter(|&ms| ms > 0) {
                    Some(ms) => (ms, IntervalSource::Set),
                    None => (SPARK_DEFAULT_INTERVAL_MS, IntervalSource::Unreadable),
                };
                ScanInterval {
                    secs: ms_to_secs(ms),
                    source,
                    value: Some(text.clone()),
                }
            }
            // A configuration holds no job; a Hadoop one's, were it asked.
            TraceFormat::HadoopJhist
            | TraceFormat::Hadoop1History
            | TraceFormat::Rumen
            | TraceFormat::HadoopConf => default(HADOOP_PROGRESS_INTERVAL_SECS),
            TraceFormat::Google2011TaskEvents | TraceFormat::Alibaba2018BatchInstance => {
                default(HEARTBEAT_SECS)
            }
        }
    }

    /// Why the log's value is not used, for an interval of [`IntervalSource::Unreadable`]:
    /// `"not a time"` where Spark throws reading it, `"not a positive time"` where it reads
    /// 0 ms or less; `None` for any other interval.
    pub fn fault(&self) -> Option<&'static str> {
        match (self.source, &self.value) {
            (IntervalSource::Unreadable, Some(text)) => spark_interval_fault(text),
            _ => None,
        }
    }
}

/// Milliseconds as seconds.
fn ms_to_secs(ms: i64) -> f64 {
    ms as f64 / 1000.0
}

/// Why Spark cannot use a `spark.speculation.interval` as its check's period:
/// `"not a time"` where Spark throws reading it, `"not a positive time"` where it reads
/// 0 ms or less; `None` for a period Spark runs its check at.
fn spark_interval_fault(text: &str) -> Option<&'static str> {
    match spark_time_ms(text) {
        None => Some("not a time"),
        Some(ms) if ms <= 0 => Some("not a positive time"),
        Some(_) => None,
    }
}

/// A Spark time property in milliseconds, read as Spark 1.4 to 4 read one whose unit
/// defaults to milliseconds (`JavaUtils.timeStringAs(text, MILLISECONDS)`, behind
/// `ConfigBuilder.timeConf` and `SparkConf.getTimeAsMs`); `None` where Spark throws
/// (`Time must be specified as seconds (s), ...`).
///
/// The text, lowercased and trimmed of the characters up to U+0020 at its ends (Java's
/// `String.trim`), must be a whole number with an optional `-` and an optional unit:
/// `us`, `ms`, `s`, `m` or `min`, `h`, `d`; no unit means milliseconds (`100` is 100 ms,
/// `1s` 1000 ms, `2MIN` 120 000 ms). No fraction (`0.5s`), `+`, inner blank (`100 ms`) or
/// other unit (`sec`), and no number past the 64-bit range. The value is converted as
/// Java's `TimeUnit.convert` does: microseconds truncated toward zero (`1500us` is 1 ms,
/// `999us` 0), larger units saturated at the 64-bit range. Spark before 1.4 read the
/// interval as a bare number of milliseconds (`SparkConf.getLong`), which reads the same.
pub fn spark_time_ms(text: &str) -> Option<i64> {
    // Java's `toLowerCase(Locale.ROOT)` maps no character outside ASCII to `[0-9a-z]` but
    // the Kelvin sign (to `k`, a letter of no unit): lowercasing ASCII alone reads the same.
    let lower = text.to_ascii_lowercase();
    let trimmed = crate::trace::java_trim(&lower);
    let unsigned = trimmed.strip_prefix('-').unwrap_or(trimmed);
    let digits = unsigned.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let number_len = trimmed.len() - unsigned.len() + digits;
    let (number, unit) = trimmed.split_at(number_len);
    let value: i64 = number.parse().ok()?;
    let ms_per_unit = match unit {
        "us" => return Some(value / 1000),
        "" | "ms" => 1,
        "s" => 1000,
        "m" | "min" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return None,
    };
    Some(value.saturating_mul(ms_per_unit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SpeculationSetting, TraceTask};

    #[test]
    fn spark_time_strings_are_read_in_each_unit() {
        for (text, ms) in [
            // A bare number is milliseconds.
            ("100", 100),
            ("0", 0),
            ("007", 7),
            ("250ms", 250),
            ("1s", 1_000),
            ("2m", 120_000),
            ("2min", 120_000),
            ("1h", 3_600_000),
            ("1d", 86_400_000),
            // Microseconds are truncated toward zero.
            ("1500us", 1),
            ("999us", 0),
            ("-1500us", -1),
            // Any case, and blanks and control characters around it.
            ("5S", 5_000),
            ("3MiN", 180_000),
            (" 100ms\t", 100),
            ("\n2s\r", 2_000),
            // Negative times parse (Spark's scheduler refuses them later).
            ("-1s", -1_000),
            ("-0", 0),
            // Past the range once converted: saturated, as Java's TimeUnit.convert does.
            ("9223372036854775807", i64::MAX),
            ("9223372036854775807d", i64::MAX),
            ("-9223372036854775808", i64::MIN),
            ("-9223372036854775808s", i64::MIN),
        ] {
            assert_eq!(spark_time_ms(text), Some(ms), "{text:?}");
        }
    }

    #[test]
    fn what_spark_cannot_read_as_a_time_is_none() {
        for text in [
            "",
            "   ",
            "ms",
            "-",
            "-s",
            // No fraction, sign `+`, inner blank, exponent, or unit Spark does not know.
            "0.5s",
            ".5s",
            "1.",
            "+100",
            "100 ms",
            "- 1s",
            "1e3",
            "1sec",
            "1 s",
            "1ns",
            "1w",
            "1hr",
            "10x",
            "100ms!",
            // Past the 64-bit range before converting (Long.parseLong throws).
            "9223372036854775808",
            "-9223372036854775809ms",
            // A no-break space is not trimmed, and non-ASCII digits are not digits.
            "\u{a0}100",
            "\u{661}\u{660}\u{660}",
            // The Kelvin sign lowercases to `k` in Java: no unit either way.
            "1\u{212a}",
            "\"100ms\"",
        ] {
            assert_eq!(spark_time_ms(text), None, "{text:?}");
        }
    }

    #[test]
    fn a_spark_interval_fault_names_why() {
        assert_eq!(spark_interval_fault("100ms"), None);
        assert_eq!(spark_interval_fault("1us"), Some("not a positive time"));
        assert_eq!(spark_interval_fault("0"), Some("not a positive time"));
        assert_eq!(spark_interval_fault("-5s"), Some("not a positive time"));
        assert_eq!(spark_interval_fault("0.5s"), Some("not a time"));
    }

    fn job_with(speculation: Option<SpeculationSetting>) -> TraceJob {
        TraceJob {
            id: "j".to_owned(),
            name: None,
            submit_secs: None,
            tasks: Vec::<TraceTask>::new(),
            speculation,
            speculation_line: None,
        }
    }

    #[test]
    fn each_engine_gives_its_own_interval() {
        let interval = |format, speculation| ScanInterval::engine(format, &job_with(speculation));
        let with_interval = |text: &str| {
            Some(SpeculationSetting::spark(None).with_parameter(SPARK_INTERVAL_KEY, text))
        };
        let default = |secs| ScanInterval {
            secs,
            source: IntervalSource::Default,
            value: None,
        };
        // Spark: unset (or no update at all) is Spark's default 100 ms.
        let spark = TraceFormat::SparkEventLog;
        assert_eq!(interval(spark, None), default(0.1));
        assert_eq!(
            interval(spark, Some(SpeculationSetting::spark(Some("true")))),
            default(0.1)
        );
        // Set: read as Spark reads it, kept as written.
        for (text, secs) in [("250ms", 0.25), ("2", 0.002), ("1s", 1.0), ("1MIN", 60.0)] {
            assert_eq!(
                interval(spark, with_interval(text)),
                ScanInterval {
                    secs,
                    source: IntervalSource::Set,
                    value: Some(text.to_owned())
                },
                "{text}"
            );
        }
        // Unreadable or no positive time: Spark's default, said so, with the value and why.
        for (text, fault) in [
            ("0.5s", "not a time"),
            ("fast", "not a time"),
            ("0", "not a positive time"),
            ("-1s", "not a positive time"),
            ("999us", "not a positive time"),
        ] {
            let unreadable = interval(spark, with_interval(text));
            assert_eq!(
                unreadable,
                ScanInterval {
                    secs: 0.1,
                    source: IntervalSource::Unreadable,
                    value: Some(text.to_owned())
                },
                "{text}"
            );
            assert_eq!(unreadable.fault(), Some(fault), "{text}");
        }
        // Only an unreadable interval has a fault.
        assert_eq!(interval(spark, with_interval("250ms")).fault(), None);
        assert_eq!(interval(spark, None).fault(), None);
        // Hadoop: its tasks' progress reports, 3 s; the CSV traces: the heartbeat, 3 s.
        for format in [
            TraceFormat::HadoopJhist,
            TraceFormat::Hadoop1History,
            TraceFormat::Rumen,
            TraceFormat::Google2011TaskEvents,
            TraceFormat::Alibaba2018BatchInstance,
        ] {
            assert_eq!(interval(format, None), default(3.0), "{format:?}");
        }
        assert_eq!(ScanInterval::given(0.5).source, IntervalSource::Given);
        assert_eq!(ScanInterval::given(0.5).fault(), None);
    }
}
