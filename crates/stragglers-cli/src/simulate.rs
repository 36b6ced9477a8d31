//! `stragglers simulate`: runs of a scenario (a preset or a TOML file), one per detector
//! given, on rayon's pool (as many at a time as there are threads), a progress bar each on
//! standard error while they run, and their summaries in the order given.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use rayon::prelude::*;
use stragglers::detect::Detector;
use stragglers::sim::{
    DetectorSpec, PRESETS, Progress, RunOptions, ScenarioSpec, SimError, Summary, report,
    simulate_scenario,
};

use crate::detectors::{self, Group};
use crate::output;

/// The arguments of `stragglers simulate`.
#[derive(Debug, clap::Args)]
#[command(group = clap::ArgGroup::new("source").required(true).args(["preset", "scenario_file"]))]
pub struct SimulateArgs {
    /// A named scenario: paper, esplash, dsb or datacenter (give this or --scenario-file).
    #[arg(long)]
    preset: Option<String>,
    /// A scenario file (TOML, at most 16 MiB; its keys, defaults and limits: docs/simulation.md,
    /// "Scenario files"; examples in fixtures/scenarios/).
    #[arg(long, value_name = "PATH")]
    scenario_file: Option<PathBuf>,
    /// The detector (`stragglers detectors` lists them, but for the oracle), or `none`;
    /// several, comma-separated (`default,late,hierarchical`), run side by side; `all` for
    /// every one (`none,all` adds the run without a detector). A name may set parameters in
    /// parentheses, `late(alpha = 0.5)` (docs/detectors.md). `--detectors` is the same.
    /// A run that fails (one past the scenario's `time_limit_secs`) fails the command once
    /// every run has ended: no summary is printed, and the error names the first detector,
    /// in the order given, whose run failed.
    #[arg(long, visible_alias = "detectors", default_value = "default")]
    detector: String,
    /// Seed of the run (any integer from 0 to 2^64 - 1).
    #[arg(
        long,
        default_value_t = 2019,
        value_parser = crate::eval::seed_parser(u64::MAX, "2^64 - 1"),
        allow_negative_numbers = true
    )]
    seed: u64,
    /// The summary's straggler rule: slower than this many times the median of the task's
    /// stage, at least 1 (default: the scenario's `straggler_factor`, 1.2, the paper's;
    /// `replay` takes 1.5 on real logs, seeds 002's and 004's; docs/simulation.md).
    #[arg(long, value_name = "F", allow_negative_numbers = true)]
    straggler_factor: Option<f64>,
    /// Write the summaries as JSON to this file: `{"schema": "stragglers.simulate/1",
    /// "scenario", "seed", "detectors": [{"name", "description", "params"}], "runs": [one
    /// summary per detector]}`; `-` writes them to standard output in place of the
    /// summaries.
    #[arg(long, value_name = "PATH")]
    json: Option<PathBuf>,
}

/// Runs the scenario and prints its summary.
pub fn run(args: SimulateArgs) -> anyhow::Result<()> {
    let mut spec = match (&args.preset, &args.scenario_file) {
        (Some(name), None) => ScenarioSpec::preset(name)?,
        (None, Some(path)) => ScenarioSpec::from_toml_file(path)?,
        _ => bail!(
            "give one of --preset ({}) or --scenario-file",
            PRESETS.join(", ")
        ),
    };
    if let Some(factor) = args.straggler_factor {
        spec.straggler_factor = factor;
        spec.check().context("--straggler-factor")?;
    }
    if let Some(path) = &args.json {
        let inputs: Vec<(&str, &std::path::Path)> = (args.scenario_file.iter())
            .map(|file| ("--scenario-file", file.as_path()))
            .collect();
        output::check("--json", path, &inputs)?;
    }
    let choices: Vec<Option<DetectorSpec>> = std::iter::once(None)
        .chain(DetectorSpec::all().into_iter().map(Some))
        .collect();
    let groups = [Group {
        word: "all",
        includes: &Option::is_some,
    }];
    let detectors = detectors::parse(
        "--detector",
        &args.detector,
        &choices,
        |d| name_of(d.as_ref()),
        &groups,
        detectors::tune_some("none"),
    )?;
    let bars = MultiProgress::new();
    let style = ProgressStyle::with_template("{prefix:>14} {bar:40} {pos}/{len} tasks  {msg}")
        .context("the progress bar's template")?;
    let started = Instant::now();
    let outcomes: Vec<anyhow::Result<Summary>> = detectors
        .par_iter()
        .map(|detector| {
            let bar = bars.add(ProgressBar::new(spec.task_count()));
            bar.set_style(style.clone());
            bar.set_prefix(name_of(detector.as_ref()).to_owned());
            let mut on_progress = |p: Progress| {
                bar.set_position(p.tasks_done);
                bar.set_message(format!(
                    "simulated {} s",
                    report::number_fixed(p.now_secs, 0)
                ));
            };
            let options = RunOptions {
                record: false,
                progress: Some(&mut on_progress),
            };
            let mut made = detector.as_ref().map(DetectorSpec::make);
            let made = made.as_deref_mut().map(|d| d as &mut dyn Detector);
            let outcome = simulate_scenario(&spec, args.seed, made, options);
            bar.finish_and_clear();
            // The name the run was asked by (`dsb(window_secs=120.0)`), not the detector's
            // own, which a tuned detector shares with its preset.
            let name = name_of(detector.as_ref());
            outcome
                .map(|o| Summary {
                    detector: name.to_owned(),
                    ..o.summary
                })
                .map_err(|error| failed_run(error, &spec.name, name, args.scenario_file.as_deref()))
        })
        .collect();
    // The first failed run in the order given, whichever ended first.
    let summaries = outcomes
        .into_iter()
        .collect::<anyhow::Result<Vec<Summary>>>()?;
    let wall = started.elapsed().as_secs_f64();
    if !output::any_stdout([&args.json]) {
        for summary in &summaries {
            output::print(&render(summary))?;
        }
    }
    eprintln!("simulated in {wall:.2} s");
    if let Some(path) = args.json {
        // One shape whatever the number of detectors, named like eval's and replay's.
        let records: Vec<_> = detectors
            .iter()
            .flatten()
            .map(DetectorSpec::record)
            .collect();
        let document = serde_json::json!({
            "schema": "stragglers.simulate/1",
            "scenario": spec.name,
            "seed": args.seed,
            "detectors": records,
            "runs": summaries,
        });
        let text = serde_json::to_string_pretty(&document)?;
        output::write(&path, &(text + "\n"))?;
    }
    Ok(())
}

/// The error of the run of `scenario` with the detector named `detector` (`none`), which
/// names both; a run past the time limit says which key raises it: the top-level
/// `time_limit_secs` of the scenario file, `file`, where there is one.
fn failed_run(
    error: SimError,
    scenario: &str,
    detector: &str,
    file: Option<&Path>,
) -> anyhow::Error {
    let run = format!("simulating {scenario} with detector {detector}");
    let context = match (&error, file) {
        (SimError::DidNotFinish { .. }, Some(file)) => format!(
            "{run}: raise `time_limit_secs` in {} (a top-level key, before any table) to let \
             its runs go on longer",
            file.display()
        ),
        (SimError::DidNotFinish { .. }, None) => format!(
            "{run}: the preset's `time_limit_secs` stopped it (a scenario file's top-level key \
             sets the limit)"
        ),
        _ => run,
    };
    anyhow::Error::new(error).context(context)
}

/// The name of a run's detector: `none` for the run without one.
fn name_of(detector: Option<&DetectorSpec>) -> &str {
    detector.map_or("none", DetectorSpec::name)
}

/// The summary as aligned lines.
fn render(s: &Summary) -> String {
    // Undefined without a straggler (the framework's empty denominators are undefined),
    // written as eval writes an undefined value.
    let detected_share = match s.stragglers {
        0 => "n/a".to_owned(),
        n => format!("{:.1}%", s.true_detections as f64 / n as f64 * 100.0),
    };
    format!(
        "scenario      {} (seed {}, detector {})\n\
         cluster       {} nodes, {}, {} tasks, {} attempts\n\
         makespan      {} s (mean job {} s)\n\
         stragglers    {} (slower than {} x their stage's median; skew or root-cause mix slowed {} tasks)\n\
         detections    {} ({} of them stragglers: {} of the stragglers)\n\
         copies        {} ({} won)\n\
         failed        {} attempts\n\
         energy        {} MJ\n",
        s.scenario,
        s.seed,
        s.detector,
        s.nodes,
        match s.jobs {
            1 => "1 job".to_owned(),
            n => format!("{n} jobs"),
        },
        s.tasks,
        s.attempts,
        report::number_fixed(s.makespan_secs, 1),
        report::number_fixed(s.mean_job_secs, 1),
        s.stragglers,
        report::number(s.straggler_factor),
        s.injected_stragglers,
        s.detections,
        s.true_detections,
        detected_share,
        s.copies,
        s.successful_copies,
        s.failed_attempts,
        report::number_fixed(s.energy_joules / 1e6, 3),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary() -> Summary {
        Summary {
            scenario: "paper".to_owned(),
            detector: "default".to_owned(),
            seed: 2019,
            nodes: 20,
            jobs: 1,
            tasks: 480,
            attempts: 500,
            makespan_secs: 1923.25,
            mean_job_secs: 1923.25,
            straggler_factor: 1.2,
            stragglers: 175,
            injected_stragglers: 0,
            detections: 10,
            true_detections: 5,
            copies: 3,
            successful_copies: 1,
            failed_attempts: 0,
            energy_joules: 1.5e6,
        }
    }

    #[test]
    fn the_summary_says_what_injected_counts_and_prints_huge_values_compactly() {
        let text = render(&summary());
        assert!(
            text.contains(
                "stragglers    175 (slower than 1.2 x their stage's median; skew or root-cause mix slowed 0 tasks)\n"
            ),
            "{text}"
        );
        assert!(text.contains("makespan      1923.2 s"), "{text}");
        assert!(text.contains("energy        1.500 MJ\n"), "{text}");

        let huge = Summary {
            makespan_secs: 1e308,
            mean_job_secs: 1e300,
            energy_joules: 1e308,
            stragglers: 0,
            ..summary()
        };
        let text = render(&huge);
        assert!(
            text.contains("makespan      1.000e308 s (mean job 1.000e300 s)\n"),
            "{text}"
        );
        assert!(text.contains("energy        1.000e302 MJ\n"), "{text}");
        assert!(
            text.contains("(5 of them stragglers: n/a of the stragglers)"),
            "{text}"
        );
        assert!(text.lines().all(|line| line.len() < 100), "{text}");
    }
}
