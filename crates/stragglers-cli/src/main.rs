//! The `stragglers` command: runs the seed paper's evaluation and prints its tables.

/// `eprintln!` for the whole command, which ignores a failure to write to standard error:
/// a note is not worth a panic when the reader of `2>&1 | head` has gone (the standard
/// `eprintln!` panics on a closed pipe). Standard output goes through [`output::print`].
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod detectors;
mod output;
mod replay;
mod replay_intervals;
mod simulate;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::builder::RangedU64ValueParser;
use clap::{Parser, Subcommand};
use detectors::Group;
use stragglers::sim::{
    CopyCaps, DetectorSpec, EvalConfig, Evaluation, KilledOriginalTime, Policy, SimError, limits,
    report,
};

#[derive(Debug, Parser)]
#[command(
    name = "stragglers",
    version,
    about = "How good is a straggler detector, really?"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the paper's evaluation (Tables 5 and 6: C1..C4 x Default, Hierarchical, LATE,
    /// policies x100 and Shared; Figure 3: Default's Fake Positive against the lag; Table 7
    /// and Figures 4-6: six reservation policies in C2) on the simulator and print its
    /// tables.
    Eval {
        /// Repetitions of every cell (1 to 1000).
        #[arg(
            long,
            default_value_t = 10,
            value_parser = count_parser(1, limits::MAX_REPETITIONS)
        )]
        repetitions: u32,
        /// Homogeneous baseline runs that give the usual execution times (1 to 1000).
        #[arg(
            long,
            default_value_t = 10,
            value_parser = count_parser(1, limits::MAX_BASELINE_RUNS)
        )]
        baseline_runs: u32,
        /// Master seed (any integer from 0 to 2^64 - 1).
        #[arg(long, default_value_t = 2019)]
        seed: u64,
        /// Write the results (schema stragglers.eval/1) to this file; `-` writes them to
        /// standard output in place of the tables.
        #[arg(long, value_name = "PATH")]
        json: Option<PathBuf>,
        /// Write the tables as a Markdown report to this file; `-` writes it to standard
        /// output in place of the tables.
        #[arg(long, value_name = "PATH")]
        markdown: Option<PathBuf>,
        /// Worker threads (default: one per core; 1 to 1024). Results do not depend on it.
        #[arg(long, value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_THREADS))]
        threads: Option<usize>,
        /// Which detectors to evaluate, comma-separated, each once in the order first
        /// named: names of `stragglers detectors` and `oracle`; `paper` (Default,
        /// Hierarchical and LATE, as in the paper's Table 6, and the oracle); `all` (every
        /// detector of `stragglers detectors`, and the oracle). `paper,spark` adds Spark. A
        /// name may set parameters in parentheses, `late(alpha = 0.5)`, run beside the
        /// preset (docs/detectors.md). `--detector` is the same.
        #[arg(
            long,
            visible_alias = "detector",
            default_value = "paper",
            value_name = "paper|all|LIST"
        )]
        detectors: String,
        #[command(flatten)]
        overrides: Box<Overrides>,
    },
    /// List the detectors `eval --detectors all` runs, the paper's three first, the oracle
    /// last: each with the commands that run it and its rule. With names, those detectors
    /// and each one's parameters, which a command's `--detectors` sets in parentheses
    /// (`late(alpha = 0.5)`).
    Detectors {
        /// Detectors to show with their parameters: a list as `eval --detectors` takes
        /// (`late`, `paper`, `all`, `late(alpha = 0.5),spark`); several arguments are one
        /// list.
        #[arg(value_name = "LIST")]
        names: Vec<String>,
    },
    /// Read real Hadoop and Spark logs, label their stragglers, judge the speculation that
    /// ran and replay detectors over them (see docs/replay.md).
    Replay(replay::ReplayArgs),
    /// Run one scenario (a preset or a TOML file) with one detector, or several side by
    /// side, and print a summary.
    Simulate(simulate::SimulateArgs),
}

/// The most worker threads `eval --threads` starts.
const MAX_THREADS: u64 = 1024;

/// A count flag's parser: an integer in `least..=most`, or clap's error naming the flag,
/// the value and the range (the limits are `stragglers::sim::limits`'s).
fn count_parser(least: u32, most: u32) -> clap::builder::RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(i64::from(least)..=i64::from(most))
}

/// The detectors `--detectors` names: names (`stragglers detectors`, and `oracle`), `paper`
/// for the paper's three and the oracle, `all` for every one.
/// `flag` names where the list came from in errors.
fn detectors_of(flag: &str, list: &str) -> anyhow::Result<Vec<DetectorSpec>> {
    let choices = DetectorSpec::all_and_oracle();
    let paper: Vec<String> = DetectorSpec::paper_and_oracle()
        .iter()
        .map(|spec| spec.name().to_owned())
        .collect();
    let in_paper = |spec: &DetectorSpec| paper.iter().any(|name| name == spec.name());
    let groups = [
        Group {
            word: "paper",
            includes: &in_paper,
        },
        Group {
            word: "all",
            includes: &|_| true,
        },
    ];
    detectors::parse(
        flag,
        list,
        &choices,
        DetectorSpec::name,
        &groups,
        |spec, set| Ok(spec.tuned_from(set)?),
    )
}

/// Changes to the paper's setting, for ablations (see docs/simulation.md).
#[derive(Debug, clap::Args)]
struct Overrides {
    /// Speculation policies to run, comma-separated: `shared`, or `xN` (N from 1 to 100, and
    /// large enough to leave regular tasks a container on every node), regular tasks on N%
    /// of the cluster's containers and copies on the rest (the paper's x100, x95, x90, x75,
    /// x50).
    #[arg(long, value_delimiter = ',', default_value = "x100,shared")]
    policies: Vec<String>,
    /// Speculative lag in seconds, >= 0 (default 20, the paper's).
    #[arg(long, allow_negative_numbers = true)]
    lag_secs: Option<f64>,
    /// Time between two progress reports, in seconds, >= 0.001 (default 3).
    #[arg(long, allow_negative_numbers = true)]
    heartbeat_secs: Option<f64>,
    /// Each attempt reports on its own timer, every heartbeat from its launch (Hadoop's
    /// tasks), instead of all attempts at the same instants.
    #[arg(long)]
    per_attempt_reports: bool,
    /// Map tasks of the job, 1 to 1000000 (default 320, the paper's: two waves).
    #[arg(long, value_parser = count_parser(1, limits::MAX_TASKS_PER_STAGE))]
    maps: Option<u32>,
    /// Reduce tasks of the job, 0 to 1000000 (default 160, the paper's).
    #[arg(long, value_parser = count_parser(0, limits::MAX_TASKS_PER_STAGE))]
    reduces: Option<u32>,
    /// Standard deviation of the log of the per-attempt work factor, in [0, 1] (default
    /// 0.08).
    #[arg(long, allow_negative_numbers = true)]
    noise_sigma: Option<f64>,
    /// Probability that an attempt is an outlier, in [0, 1] (default 0.005).
    #[arg(long, allow_negative_numbers = true)]
    outlier_probability: Option<f64>,
    /// Start detection in a stage only once none of its tasks waits for a container (a
    /// literal reading of the paper's Table 1; see docs/simulation.md).
    #[arg(long)]
    wait_for_pending_tasks: bool,
    /// Which time labels a killed original: the one estimated from its progress (the
    /// paper's, the default) or the exact one of the simulator's shadow computation.
    #[arg(long, value_enum)]
    killed_original_time: Option<KilledTime>,
    /// At most this many copies of a task, >= 1 (default 1).
    #[arg(long)]
    max_copies_per_task: Option<u32>,
    /// At most this many copies launched per scan, >= 1 (default: unlimited).
    #[arg(long)]
    launches_per_scan: Option<u32>,
    /// Apply Hadoop's caps on running copies (0.1 of running tasks, 0.01 of all, at least 10).
    #[arg(long)]
    hadoop_caps: bool,
    /// Let a copy run on its original's node (by default it never does, as in Tez and Spark).
    #[arg(long)]
    copy_beside_original: bool,
    /// Copies only on nodes with at least this many active cores, 0 to the nodes' cores (4)
    /// (default 0: any node).
    #[arg(long)]
    copy_min_active_cores: Option<u32>,
    /// Never place copies on these nodes (indices, comma-separated, each below the
    /// cluster's 20 nodes; default: none).
    #[arg(long, value_delimiter = ',')]
    blacklist: Vec<u32>,
    /// Never place copies on the nodes the detector reports slow (Hierarchical does).
    #[arg(long)]
    avoid_slow_nodes: bool,
    /// Speculative lags of Figure 3 in seconds, comma-separated, each >= 0 (default
    /// 0,20,40,60,80,100,120).
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    fig3_lags: Option<Vec<f64>>,
    /// Skip Figure 3.
    #[arg(long)]
    no_fig3: bool,
    /// Policies of Table 7, comma-separated, as --policies (default
    /// x100,x95,x90,x75,x50,shared).
    #[arg(long, value_delimiter = ',')]
    table7_policies: Option<Vec<String>>,
    /// Skip Table 7 and Figures 4 to 6.
    #[arg(long)]
    no_table7: bool,
}

/// How a killed original is timed for labelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum KilledTime {
    /// `(kill - start) / progress`, the paper's way.
    Estimated,
    /// The simulator's exact time.
    Exact,
}

impl Overrides {
    /// Applies the overrides to an evaluation's configuration.
    fn apply(&self, config: &mut EvalConfig) -> anyhow::Result<()> {
        config.policies = self
            .policies
            .iter()
            .map(|p| parse_policy(p, "--policies"))
            .collect::<anyhow::Result<_>>()?;
        let sim = &mut config.sim;
        if let Some(v) = self.lag_secs {
            sim.speculation.lag_secs = v;
        }
        if let Some(v) = self.heartbeat_secs {
            sim.speculation.heartbeat_secs = v;
        }
        sim.speculation.per_attempt_reports |= self.per_attempt_reports;
        if let Some(v) = self.maps {
            sim.workload.maps = v;
        }
        if let Some(v) = self.reduces {
            sim.workload.reduces = v;
        }
        if let Some(v) = self.noise_sigma {
            sim.noise.sigma = v;
        }
        if let Some(v) = self.outlier_probability {
            sim.noise.outlier_probability = v;
        }
        sim.speculation.wait_for_pending_tasks |= self.wait_for_pending_tasks;
        let copies = &mut sim.copies;
        if let Some(v) = self.max_copies_per_task {
            copies.max_copies_per_task = v;
        }
        if self.launches_per_scan.is_some() {
            copies.launches_per_scan = self.launches_per_scan;
        }
        if self.hadoop_caps {
            copies.caps = Some(CopyCaps::default());
        }
        copies.placement.avoid_original_node &= !self.copy_beside_original;
        if let Some(v) = self.copy_min_active_cores {
            copies.placement.min_active_cores = v;
        }
        copies.placement.blacklist.extend(&self.blacklist);
        copies.placement.avoid_slow_nodes |= self.avoid_slow_nodes;
        if let Some(time) = self.killed_original_time {
            config.killed_original_time = match time {
                KilledTime::Estimated => KilledOriginalTime::EstimatedFromProgress,
                KilledTime::Exact => KilledOriginalTime::Exact,
            };
        }
        if let Some(lags) = &self.fig3_lags {
            config.fig3.lags_secs.clone_from(lags);
        }
        if self.no_fig3 {
            config.fig3.lags_secs.clear();
        }
        if let Some(policies) = &self.table7_policies {
            config.table7.policies = policies
                .iter()
                .map(|p| parse_policy(p, "--table7-policies"))
                .collect::<anyhow::Result<_>>()?;
        }
        if self.no_table7 {
            config.table7.policies.clear();
        }
        Ok(())
    }
}

/// The flags of `eval` that set a configuration key the configuration's check may refuse
/// (`--maps` and `--reduces` are refused by their parsers first), so that the error names
/// the flag that gave the value.
const FLAG_KEYS: [(&str, &str); 9] = [
    ("--lag-secs", "speculation.lag_secs"),
    ("--heartbeat-secs", "speculation.heartbeat_secs"),
    ("--noise-sigma", "noise.sigma"),
    ("--outlier-probability", "noise.outlier_probability"),
    ("--max-copies-per-task", "copies.max_copies_per_task"),
    ("--launches-per-scan", "copies.launches_per_scan"),
    (
        "--copy-min-active-cores",
        "copies.placement.min_active_cores",
    ),
    ("--blacklist", "copies.placement.blacklist"),
    ("--fig3-lags", "fig3.lags_secs"),
];

/// The flag that sets the configuration key an error names, if one does.
fn flag_of(error: &SimError) -> Option<&'static str> {
    let SimError::InvalidConfig { field, .. } = error else {
        return None;
    };
    let key = field.strip_prefix("sim.").unwrap_or(field);
    FLAG_KEYS
        .iter()
        .find(|(_, k)| *k == key)
        .map(|&(flag, _)| flag)
}

/// `x100` .. `x1` or `shared`, given to `flag`.
fn parse_policy(text: &str, flag: &str) -> anyhow::Result<Policy> {
    if text == "shared" {
        return Ok(Policy::Shared);
    }
    let percent = text
        .strip_prefix('x')
        .and_then(|p| p.parse::<u32>().ok())
        .filter(|p| (1..=100).contains(p))
        .with_context(|| {
            format!(
                "{flag}: unknown policy {text:?}: expected shared or xN, N the percent of \
                 the cluster's containers kept for regular tasks (1 to 100; the simulator \
                 refuses one that leaves a node none)"
            )
        })?;
    Ok(Policy::Reserved {
        regular_percent: percent,
    })
}

/// Runs the command; an error is printed as its message and the causes under it, never
/// with a backtrace (`anyhow` prints one from `main` when `RUST_BACKTRACE` is set, as it
/// often is on a developer's machine, where a mistyped preset is not a crash).
fn main() -> ExitCode {
    match run(Cli::parse().command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{}", error_text(&error));
            ExitCode::FAILURE
        }
    }
}

/// `error: <message>`, then a `caused by: <cause>` line for each cause, outermost first.
fn error_text(error: &anyhow::Error) -> String {
    let mut text = format!("error: {error}");
    for cause in error.chain().skip(1) {
        text.push_str(&format!("\n  caused by: {cause}"));
    }
    text
}

fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Eval {
            repetitions,
            baseline_runs,
            seed,
            json,
            markdown,
            threads,
            detectors,
            overrides,
        } => {
            if let Some(path) = &json {
                output::check("--json", path, &[])?;
            }
            if let Some(path) = &markdown {
                let others: Vec<(&str, &std::path::Path)> =
                    json.iter().map(|j| ("--json", j.as_path())).collect();
                output::check("--markdown", path, &others)?;
            }
            if let Some(threads) = threads {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build_global()
                    .context("starting the thread pool")?;
            }
            let mut evaluation =
                Evaluation::paper().with_detectors(detectors_of("--detectors", &detectors)?);
            let config = evaluation.config_mut();
            config.repetitions = repetitions;
            config.baseline_runs = baseline_runs;
            config.seed = seed;
            overrides.apply(config)?;
            let started = Instant::now();
            let results = evaluation.run().map_err(|error| match flag_of(&error) {
                Some(flag) => anyhow::anyhow!("{flag}: {error}"),
                None => anyhow::Error::new(error).context("running the evaluation"),
            })?;
            let elapsed = started.elapsed();
            if !output::any_stdout([&json, &markdown]) {
                output::print(&report::text(&results))?;
            }
            if let Some(path) = json {
                let text = serde_json::to_string_pretty(&results)?;
                output::write(&path, &(text + "\n"))?;
            }
            if let Some(path) = markdown {
                output::write(&path, &report::markdown(&results))?;
            }
            eprintln!(
                "{} cells x {} repetitions in {:.2} s",
                results.cells.len(),
                repetitions,
                elapsed.as_secs_f64()
            );
        }
        Command::Replay(args) => replay::run(args)?,
        Command::Simulate(args) => simulate::run(args)?,
        Command::Detectors { names } if names.is_empty() => {
            output::print(&detectors_listing(&DetectorSpec::all_and_oracle(), false))?;
        }
        Command::Detectors { names } => {
            let specs = detectors_of("stragglers detectors", &names.join(","))?;
            output::print(&detectors_listing(&specs, true))?;
        }
    }
    Ok(())
}

/// `stragglers detectors`: a line per detector, its name, the commands that run it and its
/// rule with its source; no header, so that the first word of each line is a name. With
/// `params`, each detector's parameters follow its line, one per line, indented:
/// `    alpha = 1`.
fn detectors_listing(specs: &[DetectorSpec], params: bool) -> String {
    let rows: Vec<[String; 3]> = specs
        .iter()
        .map(|spec| {
            [
                spec.name().to_owned(),
                detectors::commands_of(spec).to_owned(),
                spec.description().to_owned(),
            ]
        })
        .collect();
    let width = |c: usize| rows.iter().map(|row| row[c].len()).max().unwrap_or(0);
    let (name_width, commands_width) = (width(0), width(1));
    let mut listing = String::new();
    for ([name, commands, rule], spec) in rows.iter().zip(specs) {
        listing += &format!("{name:<name_width$}  {commands:<commands_width$}  {rule}\n");
        if params {
            for (key, value) in spec.params_by_key() {
                listing += &format!("    {key} = {value}\n");
            }
        }
    }
    listing
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &str) -> Vec<String> {
        let specs = detectors_of("--detectors", list).unwrap();
        specs.iter().map(|s| s.name().to_owned()).collect()
    }

    #[test]
    fn a_refused_value_is_reported_with_its_flag() {
        let bad = [
            "--lag-secs=-5",
            "--heartbeat-secs=0",
            "--noise-sigma=-1",
            "--outlier-probability=2",
            "--max-copies-per-task=0",
            "--launches-per-scan=0",
            "--copy-min-active-cores=99",
            "--blacklist=99999",
            "--fig3-lags=-1",
        ];
        assert_eq!(bad.len(), FLAG_KEYS.len());
        for arg in bad {
            let cli = Cli::try_parse_from(["stragglers", "eval", arg]).unwrap();
            let Command::Eval { overrides, .. } = cli.command else {
                panic!("eval parses as eval");
            };
            let mut evaluation = Evaluation::paper();
            overrides.apply(evaluation.config_mut()).unwrap();
            let error = evaluation.run().expect_err(arg);
            let flag = arg.split('=').next();
            assert_eq!(flag_of(&error), flag, "{error}");
        }
    }

    #[test]
    fn the_listing_names_each_detectors_commands_and_source_not_seed_numbers() {
        let listing = detectors_listing(&DetectorSpec::all_and_oracle(), false);
        let names: Vec<String> = DetectorSpec::all_and_oracle()
            .iter()
            .map(|s| s.name().to_owned())
            .collect();
        assert_eq!(listing.lines().count(), names.len());
        for (line, name) in listing.lines().zip(&names) {
            assert!(line.starts_with(&format!("{name} ")), "{line}");
            assert!(
                !line.contains("seed 0") && !line.contains("seed paper"),
                "{line}"
            );
            if name == "oracle" {
                assert!(line.contains(" eval only "), "{line}");
            } else {
                assert!(line.contains(" eval, simulate, replay "), "{line}");
            }
        }
        let simple_exp = (DetectorSpec::all().into_iter())
            .find(|spec| spec.name() == "hadoop-simple-exp")
            .expect("a detector");
        assert!(
            simple_exp
                .description()
                .contains("furthest past a new copy's"),
            "{}",
            simple_exp.description()
        );
    }

    #[test]
    fn the_help_gives_each_overrides_limits_and_the_paper_configurations_defaults() {
        use clap::CommandFactory;

        let mut cli = Cli::command();
        let eval = cli.find_subcommand_mut("eval").unwrap();
        let help = |flag: &str| {
            let arg = eval.get_arguments().find(|a| a.get_long() == Some(flag));
            arg.and_then(|a| a.get_help()).unwrap().to_string()
        };
        let config = Evaluation::paper().config().clone();
        let sim = &config.sim;
        let expected = [
            (
                "lag-secs",
                format!(">= 0 (default {}", sim.speculation.lag_secs),
            ),
            (
                "heartbeat-secs",
                format!(">= 0.001 (default {})", sim.speculation.heartbeat_secs),
            ),
            (
                "maps",
                format!("1 to 1000000 (default {}", sim.workload.maps),
            ),
            (
                "reduces",
                format!("0 to 1000000 (default {}", sim.workload.reduces),
            ),
            (
                "noise-sigma",
                format!("in [0, 1] (default {})", sim.noise.sigma),
            ),
            (
                "outlier-probability",
                format!("in [0, 1] (default {})", sim.noise.outlier_probability),
            ),
            (
                "max-copies-per-task",
                format!(">= 1 (default {})", sim.copies.max_copies_per_task),
            ),
            (
                "copy-min-active-cores",
                format!(
                    "0 to the nodes' cores ({}) (default {}",
                    sim.platform.cores, sim.copies.placement.min_active_cores
                ),
            ),
            (
                "blacklist",
                format!("below the cluster's {} nodes", sim.platform.workers),
            ),
        ];
        for (flag, text) in expected {
            assert!(help(flag).contains(&text), "--{flag}: {}", help(flag));
        }
        assert_eq!(sim.copies.launches_per_scan, None);
        assert!(help("launches-per-scan").contains(">= 1 (default: unlimited)"));
        let lags: Vec<String> = config.fig3.lags_secs.iter().map(f64::to_string).collect();
        assert!(help("fig3-lags").contains(&format!("(default {})", lags.join(","))));
    }

    #[test]
    fn eval_groups_name_the_papers_detectors_or_every_one() {
        let paper = ["default", "hierarchical", "late", "oracle"];
        assert_eq!(names("paper"), paper);
        assert_eq!(
            names("oracle,paper,spark"),
            ["oracle", "default", "hierarchical", "late", "spark"]
        );
        let all: Vec<String> = DetectorSpec::all_and_oracle()
            .iter()
            .map(|s| s.name().to_owned())
            .collect();
        assert_eq!(names("all,paper"), all);
    }
}
