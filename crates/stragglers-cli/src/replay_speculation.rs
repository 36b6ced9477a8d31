//! The notes of `stragglers replay` on the speculation setting each job ran with, as its
//! log's configuration gives it: where the engine launched no copy by configuration (so
//! that `recorded` missed no straggler there by its rule), where the setting is not known,
//! and which parameters of it the replayed rows do not take from the log (with the tuned
//! detector that does, where they map onto its parameters exactly).

use std::collections::BTreeSet;

use stragglers::sim::DetectorSpec;
use stragglers::trace::{
    HadoopVersion, Labels, SettingSource, StageKind, TraceFormat, TraceJob, java_trim,
    spark_boolean, spark_time_ms,
};

use crate::replay::plural;
use crate::replay_intervals::app_name;

/// Spark applications named one by one in the note on speculation parameters.
const APPS_SHOWN: usize = 3;

/// The notes on the speculation setting of the jobs read (`job_input` gives each job's
/// input, `formats` each input's format): the Spark applications' ([`spark_notes`]), then
/// the Rumen jobs' ([`rumen_notes`]).
pub fn speculation_notes(
    jobs: &[TraceJob],
    job_input: &[usize],
    formats: &[TraceFormat],
    labels: &Labels,
) -> Vec<String> {
    let mut notes = spark_notes(jobs, job_input, formats, labels);
    notes.extend(rumen_notes(jobs, job_input, formats, labels));
    notes
}

/// The notes on the speculation setting of the Spark applications read (each input of
/// Spark format is one application): those that ran with `spark.speculation` off, where the
/// recorded speculation launched no copy by configuration, not by missing a straggler;
/// those whose setting Spark cannot read, or that the log does not give; and those that ran
/// with it on and set its parameters, which the replayed Spark rules do not take from the
/// log. A Spark setting has one switch for every kind of stage: its `map` is read.
fn spark_notes(
    jobs: &[TraceJob],
    job_input: &[usize],
    formats: &[TraceFormat],
    labels: &Labels,
) -> Vec<String> {
    // The Spark jobs, with their input.
    let spark: Vec<(usize, &TraceJob)> = (jobs.iter().enumerate())
        .filter(|(j, _)| {
            let input = job_input.get(*j).copied();
            input.and_then(|i| formats.get(i)) == Some(&TraceFormat::SparkEventLog)
        })
        .collect();
    let apps_of = |selected: &[(usize, &TraceJob)]| -> BTreeSet<usize> {
        selected.iter().map(|(j, _)| job_input[*j]).collect()
    };
    let all_apps = apps_of(&spark).len();
    if all_apps == 0 {
        return Vec::new();
    }
    let select = |keep: &dyn Fn(&TraceJob) -> bool| -> Vec<(usize, &TraceJob)> {
        spark.iter().filter(|(_, job)| keep(job)).copied().collect()
    };
    let applications = |n: usize| match n {
        1 => "1 Spark application".to_owned(),
        n => format!("{n} Spark applications"),
    };
    let mut notes = Vec::new();

    let off = select(&|job| {
        job.speculation
            .as_ref()
            .is_some_and(|s| s.map.enabled == Some(false))
    });
    if let Some((_, first)) = off.first() {
        let apps = apps_of(&off).len();
        let by_source = |source: SettingSource| {
            let selected: Vec<(usize, &TraceJob)> = (off.iter())
                .filter(|(_, job)| {
                    (job.speculation.as_ref()).is_some_and(|s| s.map.source == source)
                })
                .copied()
                .collect();
            apps_of(&selected).len()
        };
        let mut sources = Vec::new();
        match by_source(SettingSource::Default) {
            0 => {}
            n => sources.push(format!("{n} unset: Spark's default false")),
        }
        match by_source(SettingSource::Set) {
            0 => {}
            n => sources.push(format!("{n} set false")),
        }
        let off_jobs: BTreeSet<usize> = off.iter().map(|(j, _)| *j).collect();
        let stragglers = (labels.tasks.iter())
            .filter(|t| t.straggler && off_jobs.contains(&t.job))
            .count();
        notes.push(format!(
            "{} of {} ({}, {}) ran with spark.speculation off ({}): `recorded` launched no \
             copy there by configuration, not by missing; its recall counts their stragglers \
             as missed; first: {}",
            apps,
            applications(all_apps),
            plural(off.len(), "job"),
            plural(stragglers, "straggler"),
            sources.join(", "),
            app_name(first)
        ));
    }

    let unreadable = select(&|job| {
        (job.speculation.as_ref()).is_some_and(|s| s.map.source == SettingSource::Unreadable)
    });
    if let Some((_, first)) = unreadable.first() {
        let value = (first.speculation.as_ref())
            .and_then(|s| s.map.value.as_deref())
            .unwrap_or_default();
        notes.push(format!(
            "{} ({}) set spark.speculation to what Spark cannot read as a boolean: whether \
             `recorded` could launch copies there is not known; first: {} (`{value}`)",
            applications(apps_of(&unreadable).len()),
            plural(unreadable.len(), "job"),
            app_name(first)
        ));
    }

    let unknown = select(&|job| job.speculation.is_none());
    if let Some((_, first)) = unknown.first() {
        let apps = apps_of(&unknown).len();
        notes.push(format!(
            "{} ({}) {} no spark.speculation (no SparkListenerEnvironmentUpdate with Spark \
             Properties): whether `recorded` could launch copies there is not known; first: {}",
            applications(apps),
            plural(unknown.len(), "job"),
            if apps == 1 { "gives" } else { "give" },
            app_name(first)
        ));
    }

    let tuned = select(&|job| {
        (job.speculation.as_ref())
            .is_some_and(|s| s.map.enabled == Some(true) && !s.parameters.is_empty())
    });
    if !tuned.is_empty() {
        // Each application once, with the parameters of its first job.
        let mut seen = BTreeSet::new();
        let named: Vec<String> = (tuned.iter())
            .filter(|(j, _)| seen.insert(job_input[*j]))
            .map(|(_, job)| {
                let parameters: Vec<String> = (job.speculation.iter())
                    .flat_map(|s| &s.parameters)
                    .map(|(key, value)| format!("{key}={value}"))
                    .collect();
                format!("{} ({})", app_name(job), parameters.join(", "))
            })
            .collect();
        let mut shown = named[..named.len().min(APPS_SHOWN)].join(", ");
        if named.len() > APPS_SHOWN {
            shown += &format!(" and {} more", named.len() - APPS_SHOWN);
        }
        let (apps, set) = match named.len() {
            1 => ("1 Spark application".to_owned(), "sets its"),
            n => (format!("{n} Spark applications"), "set their"),
        };
        // The first application's parameters as the `spark` detector takes them.
        let replays = (tuned.first()).map_or_else(String::new, |(_, job)| {
            replays(
                spark_detector_of(job),
                "the first one's over Spark 4's other rules (its efficiency check, the upper \
                 median)",
            )
        });
        notes.push(format!(
            "{apps} ran with spark.speculation on and {set} parameters: {shown}; the \
             `spark` detector runs Spark 4's defaults (quantile 0.9, multiplier 3) and \
             `spark-legacy` 0.75 and 1.5 unless they are set{replays}"
        ));
    }
    notes
}

/// Spark's key of the threshold's floor.
const MIN_TASK_RUNTIME: &str = "spark.speculation.minTaskRuntime";

/// What a note says of a tuned detector ([`tuned_detector`]) that replays `what`: the
/// `--detectors` that does, nothing where no parameter maps, or why the detector cannot.
fn replays(tuned: Result<Option<String>, String>, what: &str) -> String {
    match tuned {
        Ok(Some(detector)) => format!("; `--detectors '{detector}'` replays {what}"),
        Ok(None) => String::new(),
        Err(refusal) => format!("; no tuned detector replays {what}: {refusal}"),
    }
}

/// The `spark` detector with the speculation parameters `job`'s log sets, as
/// `--detectors` names it (`spark(multiplier = 4.0, quantile = 0.9)`), those it has a
/// parameter for and that read as Spark reads them (see [`tuned_detector`]).
fn spark_detector_of(job: &TraceJob) -> Result<Option<String>, String> {
    let Some(setting) = job.speculation.as_ref() else {
        return Ok(None);
    };
    let secs = |value: &str| spark_time_ms(value).map(|ms| format!("{:?}", ms as f64 / 1000.0));
    let parameter_of = |key: &str, value: &str| match key.strip_prefix("spark.speculation.")? {
        "quantile" => Some(("quantile", number(value))),
        "multiplier" => Some(("multiplier", number(value))),
        // The threshold's floor, also named `min.threshold` (the older name, which
        // Spark reads where `minTaskRuntime` is not set).
        "minTaskRuntime" => Some(("min_task_runtime_secs", secs(value))),
        "min.threshold" if !setting.parameters.contains_key(MIN_TASK_RUNTIME) => {
            Some(("min_task_runtime_secs", secs(value)))
        }
        "efficiency.enabled" => Some((
            "efficiency_enabled",
            spark_boolean(value).map(|on| on.to_string()),
        )),
        "efficiency.longRunTaskFactor" => Some(("long_run_task_factor", number(value))),
        "efficiency.processRateMultiplier" => Some(("process_rate_multiplier", number(value))),
        _ => None,
    };
    tuned_detector("spark", setting.tuning(), parameter_of)
}

/// Hadoop's key of the cap on the copies per running task.
const RUNNING_CAP: &str = "mapreduce.job.speculative.speculative-cap-running-tasks";

/// Hadoop 0.21's name of its cap on speculative copies, a deprecated name Hadoop 2's
/// `Configuration` loads into [`RUNNING_CAP`] (trunk's `ConfigUtil`). Hadoop 1 reads no cap:
/// its speculator (`TaskInProgress.hasSpeculativeTask`) copies a task whose progress trails
/// the average by `SPECULATIVE_GAP` after `SPECULATIVE_LAG`, constants both.
const OLD_CAP: &str = "mapred.speculative.execution.speculativeCap";

/// The `hadoop-legacy` detector with the caps of Hadoop 2's `DefaultSpeculator` that
/// `job`'s configuration sets, as `--detectors` names it
/// (`hadoop-legacy(min_allowed_copies = 20.0)`), read as Hadoop reads them
/// (`Configuration.getDouble`, and `getInt` for `minimum-allowed-tasks`; see
/// [`tuned_detector`]). Only these three of `mapreduce.job.speculative.*` are the
/// detector's parameters; the others (`retry-after-*`, `slowtaskthreshold`...) have none.
/// `version` is the Hadoop that ran the job, where its log says: under Hadoop 2 (a
/// `.jhist` job) Hadoop 0.21's [`OLD_CAP`] counts as the running-tasks cap where that is
/// not set, as Hadoop 2 loads it; where the log does not say (Rumen) it does not, as
/// Hadoop 0.21 read it as its own speculator's cap; and a job of Hadoop 1, which reads
/// none of `mapreduce.job.speculative.*` (nor any cap), gets no detector, with why.
fn hadoop_detector_of(
    job: &TraceJob,
    version: Option<HadoopVersion>,
) -> Result<Option<String>, String> {
    let Some(setting) = job.speculation.as_ref() else {
        return Ok(None);
    };
    let running_cap_set = setting.parameters.contains_key(RUNNING_CAP);
    let parameter_of = |key: &str, value: &str| {
        if key == OLD_CAP {
            let read = version == Some(HadoopVersion::Hadoop2) && !running_cap_set;
            return read.then(|| ("copies_per_running_task", number(value)));
        }
        match key.strip_prefix("mapreduce.job.speculative.")? {
            "speculative-cap-running-tasks" => Some(("copies_per_running_task", number(value))),
            "speculative-cap-total-tasks" => Some(("copies_per_task", number(value))),
            "minimum-allowed-tasks" => Some((
                "min_allowed_copies",
                java_int(value).map(|n| format!("{:?}", f64::from(n))),
            )),
            _ => None,
        }
    };
    let tuned = tuned_detector("hadoop-legacy", setting.tuning(), parameter_of);
    match (version, &tuned) {
        (Some(HadoopVersion::Hadoop1), Ok(Some(_)) | Err(_)) => Err(
            "Hadoop 1 ran the job, and reads none of mapreduce.job.speculative.* (its own \
             speculator has no cap)"
                .to_owned(),
        ),
        _ => tuned,
    }
}

/// What the note on parameters says of the first job's caps (see [`replays`]), and of
/// Hadoop 0.21's [`OLD_CAP`] where the job sets it without [`RUNNING_CAP`]: taken for
/// that cap under Hadoop 2, and for none under Hadoop 1 (which reads no cap) or where the
/// log does not say which Hadoop ran it, the note saying why.
fn hadoop_replays(job: &TraceJob, version: Option<HadoopVersion>) -> String {
    let mut said = replays(hadoop_detector_of(job, version), "the first one's caps");
    let parameters = job.speculation.as_ref().map(|s| &s.parameters);
    let old_cap_alone = parameters.is_some_and(|p| p.contains_key(OLD_CAP))
        && !parameters.is_some_and(|p| p.contains_key(RUNNING_CAP));
    match version {
        _ if !old_cap_alone => {}
        Some(HadoopVersion::Hadoop2) => {
            said += &format!(
                " ({OLD_CAP} taken for {RUNNING_CAP}, as Hadoop 2's deprecation table maps \
                 it; an older one mapped it onto mapreduce.job.speculative.speculativecap, \
                 which Hadoop 2's speculator does not read)"
            );
        }
        Some(HadoopVersion::Hadoop1) => {
            said += &format!(
                "; {OLD_CAP} is taken for no cap: Hadoop 1 ran the job, and its speculator \
                 has no cap (this is Hadoop 0.21's name of its own speculator's cap, which \
                 Hadoop 2 maps onto {RUNNING_CAP})"
            );
        }
        Some(_) => {}
        None => {
            said += &format!(
                "; {OLD_CAP} is taken for no cap: Hadoop 2's deprecation table maps it onto \
                 {RUNNING_CAP}, Hadoop 0.21 read it as its own speculator's cap (Hadoop 1 \
                 reads no cap), and which Hadoop ran the job Rumen's JSON does not say"
            );
        }
    }
    said
}

/// `detector` (a name of `stragglers detectors`) with the parameters of speculation a log
/// sets, as `--detectors` names it (`spark(multiplier = 4.0, quantile = 0.9)`): each
/// `(key, value)` of `parameters` that `parameter_of` maps exactly onto a parameter of the
/// detector, as `(name, value as TOML writes it)`, in the order of the names; `None` when
/// none maps. An error says why the detector cannot take them all: a value that is not one
/// the detector reads (`parameter_of` gives the parameter without a value: Java's
/// `Infinity`, `1.5f`, a text the engine refuses too), or one it refuses (a cap the engine
/// takes and the detector does not, such as Hadoop's `speculative-cap-running-tasks` above
/// 1). The note says so, rather than suggest the detector without them.
fn tuned_detector<'a>(
    detector: &str,
    parameters: impl Iterator<Item = (&'a str, &'a str)>,
    parameter_of: impl Fn(&str, &str) -> Option<(&'static str, Option<String>)>,
) -> Result<Option<String>, String> {
    let mut set = Vec::new();
    for (key, value) in parameters {
        match parameter_of(key, value) {
            None => {}
            Some((name, Some(read))) => set.push(format!("{name} = {read}")),
            Some((name, None)) => {
                return Err(format!(
                    "{key}={value} is no value of {detector}'s {name} (a finite number, or \
                     what the detector reads for it)"
                ));
            }
        }
    }
    if set.is_empty() {
        return Ok(None);
    }
    set.sort();
    let spec = (DetectorSpec::all().into_iter())
        .find(|d| d.name() == detector)
        .ok_or_else(|| format!("no detector is named {detector}"))?;
    let set = set.join(", ");
    spec.tuned_from(&set).map_err(|error| error.to_string())?;
    Ok(Some(format!("{detector}({set})")))
}

/// A finite `double` property, as Spark's `doubleConf` and Hadoop's
/// `Configuration.getDouble` read one (`Double.parseDouble` of the trimmed text), as TOML
/// writes it (`4.0`); `None` for a text either refuses, a non-finite value (`Infinity`,
/// `NaN`, `1e400`), and the forms only Java reads (`1.5f`, hexadecimal): no detector's
/// parameter takes those, and [`tuned_detector`] says so.
fn number(text: &str) -> Option<String> {
    (java_trim(text).parse::<f64>().ok())
        .filter(|v| v.is_finite())
        .map(|v| format!("{v:?}"))
}

/// An `int` property as Hadoop's `Configuration.getInt` reads a decimal one
/// (`Integer.parseInt` of the trimmed text: an optional sign, digits, within 32 bits);
/// `None` otherwise (Hadoop throws, or reads a hexadecimal `0x` one no suggestion needs).
fn java_int(text: &str) -> Option<i32> {
    java_trim(text).parse().ok()
}

/// The notes on the speculation setting of the Hadoop jobs read from Rumen (from their
/// `jobProperties`) or given it by their `_conf.xml` or the configuration their Hadoop 1
/// log embeds (a `.jhist` or Hadoop 1 job; Hadoop
/// has a switch for maps and one for reduces): those that ran with map or reduce
/// speculation off, where the recorded speculation launched no copy of those
/// tasks by configuration, not by missing a straggler; those whose setting of a kind is
/// not known (a variable, a value that is no string, both names of a switch set
/// differently); those without `jobProperties`, which say nothing; and those that set
/// parameters of speculation other than the switches, which the replayed `hadoop-*` rows
/// do not take from the log, with the `hadoop-legacy` detector tuned with the first one's
/// caps where they map onto its parameters.
fn rumen_notes(
    jobs: &[TraceJob],
    job_input: &[usize],
    formats: &[TraceFormat],
    labels: &Labels,
) -> Vec<String> {
    // A Rumen job, or a `.jhist` or Hadoop 1 one given its setting by its `_conf.xml`.
    let is_rumen = |j: usize| {
        let input = job_input.get(j).copied();
        match input.and_then(|i| formats.get(i)) {
            Some(TraceFormat::Rumen) => true,
            Some(TraceFormat::HadoopJhist | TraceFormat::Hadoop1History) => {
                jobs[j].speculation.is_some()
            }
            _ => false,
        }
    };
    let rumen: Vec<&TraceJob> = (jobs.iter().enumerate())
        .filter(|(j, _)| is_rumen(*j))
        .map(|(_, job)| job)
        .collect();
    if rumen.is_empty() {
        return Vec::new();
    }
    // Where the settings come from: Rumen's `jobProperties` alone, or configuration files.
    let all_rumen = (0..jobs.len())
        .filter(|&j| is_rumen(j))
        .all(|j| job_input.get(j).and_then(|&i| formats.get(i)) == Some(&TraceFormat::Rumen));
    let (read_from, set_in) = if all_rumen {
        ("read from Rumen", "jobProperties")
    } else {
        (
            "whose configuration was read (Rumen's jobProperties, a _conf.xml, or one a \
             Hadoop 1 log embeds)",
            "the configuration",
        )
    };
    let hadoop_jobs = |n: usize| match n {
        1 => format!("1 Hadoop job {read_from}"),
        n => format!("{n} Hadoop jobs {read_from}"),
    };
    // The switch of `kind` in `job`, when the log gives one.
    let enabled = |job: &TraceJob, kind: StageKind| {
        (job.speculation.as_ref())
            .and_then(|s| s.switch(kind))
            .map(|switch| switch.enabled)
    };
    let off = |job: &TraceJob, kind: StageKind| enabled(job, kind) == Some(Some(false));
    let kinds = [(StageKind::Map, "maps"), (StageKind::Reduce, "reduces")];
    let mut notes = Vec::new();

    let off_jobs: Vec<&TraceJob> = (rumen.iter().copied())
        .filter(|job| kinds.iter().any(|&(kind, _)| off(job, kind)))
        .collect();
    if let Some(first) = off_jobs.first() {
        let by_kind: Vec<String> = (kinds.iter())
            .map(|&(kind, name)| (rumen.iter().filter(|job| off(job, kind)).count(), name))
            .filter(|&(n, _)| n > 0)
            .map(|(n, name)| format!("for {name} in {n}"))
            .collect();
        let stragglers = (labels.tasks.iter())
            .filter(|t| t.straggler && is_rumen(t.job))
            .filter(|t| {
                let job = &jobs[t.job];
                job.tasks
                    .get(t.task)
                    .is_some_and(|task| off(job, task.kind))
            })
            .count();
        notes.push(format!(
            "{} of {} ran with speculation set off in {set_in}, {} ({} among the \
             tasks whose speculation was off): `recorded` launched no copy of them by \
             configuration, not by missing; its recall counts those stragglers as missed; \
             first: {}",
            off_jobs.len(),
            hadoop_jobs(rumen.len()),
            by_kind.join(" and "),
            plural(stragglers, "straggler"),
            first.id
        ));
    }

    let unknown: Vec<&TraceJob> = (rumen.iter().copied())
        .filter(|job| {
            kinds
                .iter()
                .any(|&(kind, _)| enabled(job, kind) == Some(None))
        })
        .collect();
    if let Some(first) = unknown.first() {
        let switch = (first.speculation.as_ref()).and_then(|s| {
            [&s.map, &s.reduce]
                .into_iter()
                .find(|s| s.enabled.is_none())
        });
        let shown = switch.map_or_else(String::new, |s| {
            let source = match s.source {
                SettingSource::Conflicting => ", with its other name set otherwise",
                _ => "",
            };
            format!(
                " ({}=`{}`{source})",
                s.key,
                s.value.as_deref().unwrap_or_default()
            )
        });
        notes.push(format!(
            "{} {} map or reduce speculation to what cannot be read as Hadoop reads it (a \
             variable, a value that is no string, or both names of a switch set otherwise): \
             whether `recorded` could launch copies there is not known; first: {}{shown}",
            hadoop_jobs(unknown.len()),
            if unknown.len() == 1 { "sets" } else { "set" },
            first.id
        ));
    }

    let silent: Vec<&TraceJob> = (rumen.iter().copied())
        .filter(|job| job.speculation.is_none())
        .collect();
    if let Some(first) = silent.first() {
        // Rumen jobs all (a job given a configuration has a setting): said so, not as jobs
        // "whose configuration was read", which among other inputs they would read as.
        let (jobs, gives) = match silent.len() {
            1 => ("1 Hadoop job".to_owned(), "gives"),
            n => (format!("{n} Hadoop jobs"), "give"),
        };
        notes.push(format!(
            "{jobs} read from Rumen {gives} no jobProperties: whether `recorded` could launch \
             copies there is not known; first: {}",
            first.id
        ));
    }

    // The Hadoop that ran job `j`, where its log says.
    let version_of = |j: usize| match job_input.get(j).and_then(|&i| formats.get(i)) {
        Some(TraceFormat::HadoopJhist) => Some(HadoopVersion::Hadoop2),
        Some(TraceFormat::Hadoop1History) => Some(HadoopVersion::Hadoop1),
        _ => None,
    };
    let tuned: Vec<usize> = (0..jobs.len())
        .filter(|&j| is_rumen(j))
        .filter(|&j| (jobs[j].speculation.as_ref()).is_some_and(|s| s.tuning().next().is_some()))
        .collect();
    if let Some(&j) = tuned.first() {
        let first = &jobs[j];
        let parameters: Vec<String> = (first.speculation.iter())
            .flat_map(|s| s.tuning())
            .map(|(key, value)| format!("{key}={value}"))
            .collect();
        let replays = hadoop_replays(first, version_of(j));
        notes.push(format!(
            "{} {} parameters of speculation in {set_in}, which the hadoop-* detectors \
             (hadoop1, hadoop-legacy, hadoop-exp-smoothed, hadoop-simple-exp) do not take: \
             replayed, they run with their presets; first: {} ({}){replays}",
            hadoop_jobs(tuned.len()),
            if tuned.len() == 1 { "sets" } else { "set" },
            first.id,
            parameters.join(", ")
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use stragglers::trace::{SpeculationSetting, SpeculationSwitch};

    /// A Hadoop job of no task whose `jobProperties` set `parameters`.
    fn hadoop_job(parameters: &[(&str, &str)]) -> TraceJob {
        let switch = |key| SpeculationSwitch::hadoop(key, None);
        let mut setting = SpeculationSetting::hadoop(
            switch("mapreduce.map.speculative"),
            switch("mapreduce.reduce.speculative"),
        );
        for (key, value) in parameters {
            setting = setting.with_parameter(key, value);
        }
        TraceJob {
            id: "job_1_0001".to_owned(),
            name: None,
            submit_secs: None,
            tasks: Vec::new(),
            speculation: Some(setting),
            speculation_line: None,
        }
    }

    const RUNNING: &str = "mapreduce.job.speculative.speculative-cap-running-tasks";
    const TOTAL: &str = "mapreduce.job.speculative.speculative-cap-total-tasks";
    const MINIMUM: &str = "mapreduce.job.speculative.minimum-allowed-tasks";

    #[test]
    fn hadoops_caps_map_onto_hadoop_legacys_parameters_read_as_hadoop_reads_them() {
        let detector = |parameters: &[(&str, &str)]| {
            hadoop_detector_of(&hadoop_job(parameters), None).unwrap_or_else(|refusal| {
                panic!("{parameters:?}: refused: {refusal}");
            })
        };
        let refusal = |parameters: &[(&str, &str)]| {
            hadoop_detector_of(&hadoop_job(parameters), None).expect_err("a refusal")
        };
        // Each cap onto its parameter, trimmed as Java trims; the retry intervals and
        // Hadoop 1's thresholds have no counterpart.
        assert_eq!(
            detector(&[
                (RUNNING, "0.2"),
                (TOTAL, " 0.05\t"),
                (MINIMUM, "20"),
                ("mapreduce.job.speculative.retry-after-speculate", "15000"),
                ("mapreduce.job.speculative.slowtaskthreshold", "1.0"),
            ])
            .as_deref(),
            Some(
                "hadoop-legacy(copies_per_running_task = 0.2, copies_per_task = 0.05, \
                 min_allowed_copies = 20.0)"
            )
        );
        assert_eq!(
            detector(&[(MINIMUM, "+7")]).as_deref(),
            Some("hadoop-legacy(min_allowed_copies = 7.0)")
        );
        // None that maps: no detector.
        assert_eq!(
            detector(&[("mapreduce.job.speculative.retry-after-no-speculate", "1000")]),
            None
        );
        // A cap the detector cannot take: what Hadoop does not read as a number either
        // (`getInt` throws on a fraction; Java does not trim a no-break space), what only
        // Java reads or no finite number (`Infinity`, `NaN`, `1e400`, `1.5f`), or a number
        // the detector refuses: the reason, naming the parameter, and no detector without
        // that cap, whatever the others.
        for (parameters, parameter) in [
            (&[(MINIMUM, "20.5")][..], "min_allowed_copies"),
            (&[(RUNNING, "\u{a0}0.2")], "copies_per_running_task"),
            (&[(RUNNING, "NaN")], "copies_per_running_task"),
            (
                &[(RUNNING, "Infinity"), (MINIMUM, "20")],
                "copies_per_running_task",
            ),
            (&[(MINIMUM, "20"), (TOTAL, "1e400")], "copies_per_task"),
            (&[(TOTAL, "0.5f")], "copies_per_task"),
            (
                &[(RUNNING, "1.5"), (MINIMUM, "20")],
                "copies_per_running_task",
            ),
            (&[(MINIMUM, "-1")], "min_allowed_copies"),
        ] {
            let why = refusal(parameters);
            assert!(
                why.contains("hadoop-legacy") && why.contains(parameter),
                "{why}"
            );
        }
        // As the note says it.
        assert_eq!(
            replays(Err("no".into()), "the caps"),
            "; no tuned detector replays the caps: no"
        );
        assert_eq!(replays(Ok(None), "the caps"), "");
    }

    /// Hadoop 0.21's name of the running-tasks cap counts for it under Hadoop 2 (a `.jhist`
    /// job), as Hadoop 2 loads it, where the cap is not set under its own name; not where
    /// the log does not say which Hadoop ran the job (Rumen), which the note says; and a
    /// Hadoop 1 job gets no `hadoop-legacy`, Hadoop 1 reading no cap, which the note says
    /// of Hadoop 0.21's name too.
    #[test]
    fn hadoop_0_21s_cap_counts_only_where_hadoop_2_ran_the_job() {
        use HadoopVersion::{Hadoop1, Hadoop2};
        let old_cap = hadoop_job(&[(OLD_CAP, "0.2")]);
        assert_eq!(
            hadoop_detector_of(&old_cap, Some(Hadoop2)),
            Ok(Some(
                "hadoop-legacy(copies_per_running_task = 0.2)".to_owned()
            ))
        );
        assert!(hadoop_replays(&old_cap, Some(Hadoop2)).ends_with(
            "replays the first one's caps (mapred.speculative.execution.speculativeCap \
                 taken for mapreduce.job.speculative.speculative-cap-running-tasks, as Hadoop \
                 2's deprecation table maps it; an older one mapped it onto \
                 mapreduce.job.speculative.speculativecap, which Hadoop 2's speculator does \
                 not read)"
        ));
        assert_eq!(hadoop_detector_of(&old_cap, None), Ok(None));
        let said = hadoop_replays(&old_cap, None);
        assert!(
            said.starts_with("; mapred.speculative.execution.speculativeCap is taken for no cap"),
            "{said}"
        );
        // Hadoop 1 reads no cap, which the note says.
        assert_eq!(hadoop_detector_of(&old_cap, Some(Hadoop1)), Ok(None));
        assert_eq!(
            hadoop_replays(&old_cap, Some(Hadoop1)),
            "; mapred.speculative.execution.speculativeCap is taken for no cap: Hadoop 1 ran \
             the job, and its speculator has no cap (this is Hadoop 0.21's name of its own \
             speculator's cap, which Hadoop 2 maps onto \
             mapreduce.job.speculative.speculative-cap-running-tasks)"
        );
        // Both names: the cap's own name is the one read (a configuration file read as
        // Hadoop 2 loads it keeps both only where they read alike), and no remark.
        let both = hadoop_job(&[(OLD_CAP, "0.2"), (RUNNING, "0.3")]);
        assert_eq!(
            hadoop_detector_of(&both, Some(Hadoop2)),
            Ok(Some(
                "hadoop-legacy(copies_per_running_task = 0.3)".to_owned()
            ))
        );
        assert!(!hadoop_replays(&both, None).contains("taken for"));
        // Hadoop 1 reads none of the caps.
        let refused = hadoop_detector_of(&hadoop_job(&[(RUNNING, "0.2")]), Some(Hadoop1));
        assert!(refused.is_err_and(|why| why.starts_with("Hadoop 1 ran the job")));
    }

    #[test]
    fn the_spark_detector_reads_its_parameters_through_the_same_mechanism() {
        let job = |parameters: &[(&str, &str)]| {
            let mut setting = SpeculationSetting::spark(Some("true"));
            for (key, value) in parameters {
                setting = setting.with_parameter(key, value);
            }
            TraceJob {
                speculation: Some(setting),
                ..hadoop_job(&[])
            }
        };
        assert_eq!(
            spark_detector_of(&job(&[
                ("spark.speculation.min.threshold", "30s"),
                ("spark.speculation.multiplier", "4"),
                ("spark.speculation.efficiency.enabled", " FALSE"),
                ("spark.speculation.interval", "1s"),
            ]))
            .unwrap()
            .as_deref(),
            Some(
                "spark(efficiency_enabled = false, min_task_runtime_secs = 30.0, multiplier = \
                 4.0)"
            )
        );
        // Hadoop's keys are not Spark's.
        assert_eq!(spark_detector_of(&job(&[(MINIMUM, "20")])), Ok(None));
        // A value Spark throws on is no value of the detector's either, said so.
        let refused = spark_detector_of(&job(&[
            ("spark.speculation.multiplier", "4"),
            ("spark.speculation.quantile", "high"),
        ]));
        assert_eq!(
            refused,
            Err(
                "spark.speculation.quantile=high is no value of spark's quantile (a finite \
                 number, or what the detector reads for it)"
                    .to_owned()
            )
        );
    }
}
