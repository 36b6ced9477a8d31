//! `stragglers simulate`: one run of a scenario (a preset or a TOML file) with one
//! detector, a progress bar on standard error while it runs, and a summary.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use stragglers::detect::Detector;
use stragglers::sim::{
    DetectorSpec, PRESETS, Progress, RunOptions, ScenarioSpec, Summary, simulate_scenario,
};

/// The arguments of `stragglers simulate`.
#[derive(Debug, clap::Args)]
#[command(group = clap::ArgGroup::new("source").required(true).args(["preset", "scenario_file"]))]
pub struct SimulateArgs {
    /// A named scenario: paper, esplash, dsb or datacenter.
    #[arg(long)]
    preset: Option<String>,
    /// A scenario file (TOML; see fixtures/scenarios/ and docs/simulation.md).
    #[arg(long, value_name = "PATH")]
    scenario_file: Option<PathBuf>,
    /// The detector (`stragglers detectors` lists them), or `none`.
    #[arg(long, default_value = "default")]
    detector: String,
    /// Seed of the run.
    #[arg(long, default_value_t = 2019)]
    seed: u64,
    /// Write the summary as JSON to this file.
    #[arg(long, value_name = "PATH")]
    json: Option<PathBuf>,
}

/// Runs the scenario and prints its summary.
pub fn run(args: SimulateArgs) -> anyhow::Result<()> {
    let spec = match (&args.preset, &args.scenario_file) {
        (Some(name), None) => ScenarioSpec::preset(name)?,
        (None, Some(path)) => ScenarioSpec::from_toml_file(path)?,
        _ => bail!(
            "give one of --preset ({}) or --scenario-file",
            PRESETS.join(", ")
        ),
    };
    let mut detector = match args.detector.as_str() {
        "none" => None,
        name => {
            let all = DetectorSpec::all();
            let spec = all.iter().find(|d| d.name() == name).with_context(|| {
                let names: Vec<&str> = all.iter().map(DetectorSpec::name).collect();
                format!(
                    "unknown detector {name:?}; known: none, {}",
                    names.join(", ")
                )
            })?;
            Some(spec.make())
        }
    };
    let bar = ProgressBar::new(spec.task_count());
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} tasks  {msg}")
            .context("the progress bar's template")?,
    );
    let mut on_progress = |p: Progress| {
        bar.set_position(p.tasks_done);
        bar.set_message(format!("simulated {:.0} s", p.now_secs));
    };
    let options = RunOptions {
        record: false,
        progress: Some(&mut on_progress),
    };
    let started = Instant::now();
    let detector = detector.as_deref_mut().map(|d| d as &mut dyn Detector);
    let outcome = simulate_scenario(&spec, args.seed, detector, options)
        .with_context(|| format!("simulating {}", spec.name))?;
    bar.finish_and_clear();
    let wall = started.elapsed().as_secs_f64();
    print!("{}", render(&outcome.summary));
    eprintln!("simulated in {wall:.2} s");
    if let Some(path) = args.json {
        let text = serde_json::to_string_pretty(&outcome.summary)?;
        std::fs::write(&path, text + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// The summary as aligned lines.
fn render(s: &Summary) -> String {
    let detected_share = match s.stragglers {
        0 => 0.0,
        n => s.true_detections as f64 / n as f64 * 100.0,
    };
    format!(
        "scenario      {} (seed {}, detector {})\n\
         cluster       {} nodes, {} jobs, {} tasks, {} attempts\n\
         makespan      {:.1} s (mean job {:.1} s)\n\
         stragglers    {} (injected {})\n\
         detections    {} ({} stragglers, {:.1}% of them)\n\
         copies        {} ({} won)\n\
         failed        {} attempts\n\
         energy        {:.3} MJ\n",
        s.scenario,
        s.seed,
        s.detector,
        s.nodes,
        s.jobs,
        s.tasks,
        s.attempts,
        s.makespan_secs,
        s.mean_job_secs,
        s.stragglers,
        s.injected_stragglers,
        s.detections,
        s.true_detections,
        detected_share,
        s.copies,
        s.successful_copies,
        s.failed_attempts,
        s.energy_joules / 1e6,
    )
}
