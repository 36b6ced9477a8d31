//! `stragglers eval`: the paper's evaluation on the simulator, from the paper's
//! configuration, an evaluation file (`--config`) and the flags that change them.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::builder::RangedI64ValueParser;
use stragglers::sim::{
    ConfigText, CopyCaps, DETECTORS_KEY, DetectorSpec, EvalConfig, Evaluation, KilledOriginalTime,
    Policy, SimError, limits, report, split_list,
};

use crate::detectors::{self, Group};
use crate::output;
use crate::replay::plural;

/// The arguments of `stragglers eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// An evaluation file (TOML; every key optional, the paper's value where one is left
    /// out, the detectors too, `detectors = ["paper", "late(alpha = 0.5)"]`;
    /// `--print-config` writes them all; docs/simulation.md, "Evaluation files"). The
    /// flags given beside it change its values.
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// Print the evaluation it would run (the paper's, changed by `--config` and the flags),
    /// detectors included, as an evaluation file, and run nothing.
    #[arg(long, conflicts_with_all = ["json", "markdown"])]
    print_config: bool,
    /// Repetitions of every cell (1 to 1000; default 10).
    #[arg(long, value_parser = count_parser(1, limits::MAX_REPETITIONS), allow_negative_numbers = true)]
    repetitions: Option<u32>,
    /// Homogeneous baseline runs that give the usual execution times (1 to 1000; default
    /// 10).
    #[arg(long, value_parser = count_parser(1, limits::MAX_BASELINE_RUNS), allow_negative_numbers = true)]
    baseline_runs: Option<u32>,
    /// Master seed (any integer from 0 to 2^63 - 1, the largest an evaluation file holds,
    /// so that `--print-config` can write it; default 2019).
    #[arg(long, value_parser = seed_parser(EVAL_SEED_MAX, EVAL_SEED_NOTE), allow_negative_numbers = true)]
    seed: Option<u64>,
    /// Write the results (schema stragglers.eval/1) to this file; `-` writes them to
    /// standard output in place of the tables.
    #[arg(long, value_name = "PATH")]
    json: Option<PathBuf>,
    /// Write the tables as a Markdown report to this file; `-` writes it to standard
    /// output in place of the tables.
    #[arg(long, value_name = "PATH")]
    markdown: Option<PathBuf>,
    /// Worker threads (default: one per core; 1 to 1024). Results do not depend on it.
    #[arg(
        long,
        value_parser = RangedI64ValueParser::<usize>::new().range(1..=MAX_THREADS),
        allow_negative_numbers = true
    )]
    threads: Option<usize>,
    /// Which detectors to evaluate, comma-separated, each once in the order first
    /// named: names of `stragglers detectors` and `oracle`; `paper` (Default,
    /// Hierarchical and LATE, as in the paper's Table 6, and the oracle); `all` (every
    /// detector of `stragglers detectors`, and the oracle). `paper,spark` adds Spark. A
    /// name may set parameters in parentheses, `late(alpha = 0.5)`, run beside the
    /// preset (docs/detectors.md). `--detector` is the same. Default: the evaluation
    /// file's `detectors`, else `paper`; the flag replaces the file's list.
    #[arg(long, visible_alias = "detector", value_name = "paper|all|LIST")]
    detectors: Option<String>,
    #[command(flatten)]
    overrides: Box<Overrides>,
}

/// The most worker threads `eval --threads` starts.
const MAX_THREADS: i64 = 1024;

/// The largest `eval --seed`: 2^63 - 1, TOML's largest integer, so that `--print-config`
/// writes any seed the flag takes as an evaluation file that reads back the same.
const EVAL_SEED_MAX: u64 = i64::MAX as u64;
/// Why `eval --seed` stops at [`EVAL_SEED_MAX`], for its error.
const EVAL_SEED_NOTE: &str = "2^63 - 1, the largest integer an evaluation file holds";

/// A seed flag's parser: an integer in `0..=most`, or an error naming the range and
/// `note`, which says where its end comes from (clap's error names the flag and the
/// value). A negative value is refused so too, where the flag allows negative numbers.
pub(crate) fn seed_parser(
    most: u64,
    note: &'static str,
) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync + 'static {
    move |text| match text.parse::<i128>() {
        Ok(seed) if (0..=i128::from(most)).contains(&seed) => {
            u64::try_from(seed).map_err(|e| e.to_string())
        }
        Err(e)
            if !matches!(
                e.kind(),
                std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow
            ) =>
        {
            Err(format!("{e}"))
        }
        _ => Err(format!("{text} is not in 0..={most} ({note})")),
    }
}

/// A count flag's parser: an integer in `least..=most`, or clap's error naming the flag,
/// the value and the range (the limits are `stragglers::sim::limits`'s).
fn count_parser(least: u32, most: u32) -> clap::builder::RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(i64::from(least)..=i64::from(most))
}

/// The detectors `--detectors` names: names (`stragglers detectors`, and `oracle`), `paper`
/// for the paper's three and the oracle, `all` for every one.
/// `flag` names where the list came from in errors.
pub(crate) fn detectors_of(flag: &str, list: &str) -> anyhow::Result<Vec<DetectorSpec>> {
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

/// The detectors an evaluation file names under `detectors` ([`ConfigText::detectors`]),
/// each item one name of `--detectors`'s list (`"late(alpha = 0.5)"`, `"paper"`), each
/// detector once in the order first named; `None` where the file names none. Errors name
/// the file, the line and the key, the item's where one is at fault (`detectors[1]`).
fn file_detectors(file: &ConfigText, origin: &str) -> anyhow::Result<Option<Vec<DetectorSpec>>> {
    let Some(names) = file.detectors().context("--config")? else {
        return Ok(None);
    };
    let line = file.line_of(DETECTORS_KEY);
    let at = |key: &str| format!("{origin}: line {line}: key `{key}`");
    for (i, name) in names.iter().enumerate() {
        let item = at(&format!("{DETECTORS_KEY}[{i}]"));
        let items = split_list(name)
            .with_context(|| item.clone())
            .context("--config")?;
        if items != [name.trim()] {
            return Err(anyhow::anyhow!(
                "{item}: {name:?}: must be one name (an item of the list per detector)"
            ))
            .context("--config");
        }
        detectors_of(&item, name).context("--config")?;
    }
    detectors_of(&at(DETECTORS_KEY), &names.join(", "))
        .context("--config")
        .map(Some)
}

/// Changes to the paper's setting, for ablations (see docs/simulation.md).
#[derive(Debug, clap::Args)]
struct Overrides {
    /// Speculation policies to run, comma-separated: `shared`, or `xN` (N from 1 to 100, and
    /// large enough to leave regular tasks a container on every node), regular tasks on N%
    /// of the cluster's containers and copies on the rest (the paper's x100, x95, x90, x75,
    /// x50; default x100,shared).
    #[arg(long, value_delimiter = ',')]
    policies: Option<Vec<String>>,
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
    #[arg(long, value_parser = count_parser(1, limits::MAX_TASKS_PER_STAGE), allow_negative_numbers = true)]
    maps: Option<u32>,
    /// Reduce tasks of the job, 0 to 1000000 (default 160, the paper's).
    #[arg(long, value_parser = count_parser(0, limits::MAX_TASKS_PER_STAGE), allow_negative_numbers = true)]
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
    #[arg(long, allow_negative_numbers = true)]
    max_copies_per_task: Option<u32>,
    /// At most this many copies launched per scan, >= 1 (default: unlimited).
    #[arg(long, allow_negative_numbers = true)]
    launches_per_scan: Option<u32>,
    /// Apply Hadoop's caps on running copies (0.1 of running tasks, 0.01 of all, at least 10).
    #[arg(long)]
    hadoop_caps: bool,
    /// Let a copy run on its original's node (by default it never does, as in Tez and Spark).
    #[arg(long)]
    copy_beside_original: bool,
    /// Copies only on nodes with at least this many active cores, 0 to the workers' cores
    /// (the paper's 4) (default 0: any node).
    #[arg(long, allow_negative_numbers = true)]
    copy_min_active_cores: Option<u32>,
    /// Never place copies on these nodes (indices, comma-separated, each below the number
    /// of workers, the paper's 20; default: none; replaces an evaluation file's list).
    // A list's first item may be negative too (`-1,2` is no number, so clap's
    // allow_negative_numbers would take it for a flag): the item's parser names it.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    blacklist: Vec<u32>,
    /// Never place copies on the nodes the detector reports slow, whatever its rule says.
    /// Of the built-in detectors, dsb, esplash and late-zaharia report nodes, and their
    /// rules keep copies off them already (unless the file sets
    /// sim.copies.placement.follow_slow_node_rule = false); hierarchical reports its
    /// wrapped detector's, none over default.
    #[arg(long)]
    avoid_slow_nodes: bool,
    /// Speculative lags of Figure 3 in seconds, comma-separated, each >= 0 (default
    /// 0,20,40,60,80,100,120).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
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
    /// The flags of [`FLAG_KEYS`] among the overrides that were given.
    fn given(&self) -> Vec<&'static str> {
        let mut given = Vec::new();
        for (flag, is_given) in [
            ("--lag-secs", self.lag_secs.is_some()),
            ("--heartbeat-secs", self.heartbeat_secs.is_some()),
            ("--noise-sigma", self.noise_sigma.is_some()),
            ("--outlier-probability", self.outlier_probability.is_some()),
            ("--max-copies-per-task", self.max_copies_per_task.is_some()),
            ("--launches-per-scan", self.launches_per_scan.is_some()),
            (
                "--copy-min-active-cores",
                self.copy_min_active_cores.is_some(),
            ),
            ("--blacklist", !self.blacklist.is_empty()),
            ("--fig3-lags", self.fig3_lags.is_some()),
            ("--policies", self.policies.is_some()),
            ("--table7-policies", self.table7_policies.is_some()),
            ("--maps", self.maps.is_some()),
            ("--reduces", self.reduces.is_some()),
        ] {
            if is_given {
                given.push(flag);
            }
        }
        given
    }

    /// Applies the overrides to an evaluation's configuration.
    fn apply(&self, config: &mut EvalConfig) -> anyhow::Result<()> {
        if let Some(policies) = &self.policies {
            config.policies = policies
                .iter()
                .map(|p| parse_policy(p, "--policies"))
                .collect::<anyhow::Result<_>>()?;
        }
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
            copies.caps.get_or_insert_with(CopyCaps::default);
        }
        copies.placement.avoid_original_node &= !self.copy_beside_original;
        if let Some(v) = self.copy_min_active_cores {
            copies.placement.min_active_cores = v;
        }
        if !self.blacklist.is_empty() {
            copies.placement.blacklist.clone_from(&self.blacklist);
        }
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

/// The flags of `eval` that set a configuration key the configuration's check may refuse,
/// alone or in an expression of keys (`--maps` and `--reduces` in the baselines' count of
/// tasks), so that the error names the flag that gave the value.
const FLAG_KEYS: [(&str, &str); 16] = [
    ("--lag-secs", "sim.speculation.lag_secs"),
    ("--heartbeat-secs", "sim.speculation.heartbeat_secs"),
    ("--noise-sigma", "sim.noise.sigma"),
    ("--outlier-probability", "sim.noise.outlier_probability"),
    ("--max-copies-per-task", "sim.copies.max_copies_per_task"),
    ("--launches-per-scan", "sim.copies.launches_per_scan"),
    (
        "--copy-min-active-cores",
        "sim.copies.placement.min_active_cores",
    ),
    ("--blacklist", "sim.copies.placement.blacklist"),
    ("--fig3-lags", "fig3.lags_secs"),
    ("--policies", "policies"),
    ("--table7-policies", "table7.policies"),
    ("--repetitions", "repetitions"),
    ("--baseline-runs", "baseline_runs"),
    ("--maps", "sim.workload.maps"),
    ("--reduces", "sim.workload.reduces"),
    // A key of the count of runs only (`repetitions * (detectors * ...)`).
    ("--detectors", "detectors"),
];

/// The flags, among those `given`, that set a key the error names: its field
/// (`sim.speculation.lag_secs`), an item of it (`fig3.lags_secs[1]`), or a key of the
/// expression it names (`baseline_runs * (sim.workload.maps + sim.workload.reduces)`), in
/// the order of [`FLAG_KEYS`], each once.
fn flags_of(error: &SimError, given: &[&str]) -> Vec<&'static str> {
    let SimError::InvalidConfig { field, .. } = error else {
        return Vec::new();
    };
    let is_key_char = |c: char| c.is_ascii_alphanumeric() || "_.[]".contains(c);
    let keys: Vec<&str> = (field.split(|c: char| !is_key_char(c)))
        .map(|token| token.split_once('[').map_or(token, |(key, _)| key))
        .collect();
    let mut flags: Vec<&'static str> = Vec::new();
    for &(flag, key) in &FLAG_KEYS {
        if given.contains(&flag) && keys.contains(&key) && !flags.contains(&flag) {
            flags.push(flag);
        }
    }
    flags
}

/// `x100` .. `x1` or `shared`, given to `flag`.
fn parse_policy(text: &str, flag: &str) -> anyhow::Result<Policy> {
    Policy::from_name(text).with_context(|| {
        format!(
            "{flag}: unknown policy {text:?}: expected shared or xN, N the percent of the \
             cluster's containers kept for regular tasks (1 to 100; the simulator refuses one \
             that leaves a node none)"
        )
    })
}

/// `config` as an evaluation file (`--print-config`): TOML that reads back the same, its
/// keys in the configuration's order, and each policy by its name as a person writes it
/// (`policies = ["x100", "shared"]`, `sim.speculation.policy = "x100"`), not in the form
/// the results document writes (`{ reserved = { regular_percent = 100 } }`).
fn evaluation_file(evaluation: &Evaluation) -> anyhow::Result<String> {
    let config = evaluation.config();
    if i64::try_from(config.seed).is_err() {
        anyhow::bail!(
            "--print-config: the seed {} is above 2^63 - 1, the largest integer an \
             evaluation file (TOML) holds",
            config.seed
        );
    }
    let text = toml::to_string(config).context("writing the configuration as TOML")?;
    let mut file: toml_edit::DocumentMut = text
        .parse()
        .context("reading back the configuration written as TOML")?;
    let names = |policies: &[Policy]| {
        toml_edit::value(
            policies
                .iter()
                .map(Policy::name)
                .collect::<toml_edit::Array>(),
        )
    };
    // Each list in the table at its path, and that table's keys in the struct's order. A
    // list of `xN` alone was written as an array of tables, after the table's values: its
    // key is written again, in its place among them.
    let by_name = [
        (
            [].as_slice(),
            "policies",
            names(&config.policies),
            field_order(config)?,
        ),
        (
            &["table7"],
            "policies",
            names(&config.table7.policies),
            field_order(&config.table7)?,
        ),
        (
            &["sim", "speculation"],
            "policy",
            toml_edit::value(config.sim.speculation.policy.name()),
            field_order(&config.sim.speculation)?,
        ),
    ];
    for (path, key, policies, order) in by_name {
        let table = (path.iter())
            .try_fold(file.as_table_mut(), |table, key| {
                table.get_mut(key).and_then(toml_edit::Item::as_table_mut)
            })
            .with_context(|| format!("the configuration's TOML has no `[{}]`", path.join(".")))?;
        table.remove(key);
        table.insert(key, policies);
        let rank = |key: &toml_edit::Key| order.iter().position(|k| k == key.get());
        table.sort_values_by(|a, _, b, _| rank(a).cmp(&rank(b)));
    }
    // The detectors by the names that read back as them, before the tables.
    let detectors: toml_edit::Array = (evaluation.detectors().iter())
        .map(DetectorSpec::name)
        .collect();
    file.insert(DETECTORS_KEY, toml_edit::value(detectors));
    Ok(file.to_string())
}

/// The keys `value` serialises at its top level, in the order it writes them (a struct's
/// fields in their order), from its JSON.
fn field_order<T: serde::Serialize>(value: &T) -> anyhow::Result<Vec<String>> {
    /// The keys of a JSON object, in order, their values skipped.
    struct Keys(Vec<String>);
    impl<'de> serde::Deserialize<'de> for Keys {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Visitor;
            impl<'de> serde::de::Visitor<'de> for Visitor {
                type Value = Keys;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Keys, A::Error> {
                    let mut keys = Vec::new();
                    while let Some(key) = map.next_key::<String>()? {
                        map.next_value::<serde::de::IgnoredAny>()?;
                        keys.push(key);
                    }
                    Ok(Keys(keys))
                }
            }
            deserializer.deserialize_map(Visitor)
        }
    }
    let json = serde_json::to_string(value).context("writing the configuration as JSON")?;
    let Keys(keys) = serde_json::from_str(&json).context("reading its keys back")?;
    Ok(keys)
}

/// Runs `stragglers eval`.
pub fn run(args: EvalArgs) -> anyhow::Result<()> {
    let EvalArgs {
        config: config_file,
        print_config,
        repetitions,
        baseline_runs,
        seed,
        json,
        markdown,
        threads,
        detectors,
        overrides,
    } = args;
    let inputs: Vec<(&str, &std::path::Path)> = (config_file.iter())
        .map(|path| ("--config", path.as_path()))
        .collect();
    if let Some(path) = &json {
        output::check("--json", path, &inputs)?;
    }
    if let Some(path) = &markdown {
        let mut others = inputs.clone();
        others.extend(json.iter().map(|j| ("--json", j.as_path())));
        output::check("--markdown", path, &others)?;
    }
    let mut evaluation = Evaluation::paper();
    // The file's values, changed by the flags, then checked together.
    let file = match &config_file {
        Some(path) => {
            let (read, file) = EvalConfig::parse_toml_file(path).context("--config")?;
            *evaluation.config_mut() = read;
            Some(file)
        }
        None => None,
    };
    // `--detectors`, else the file's, else the paper's.
    // The file's list is checked even where the flag replaces it, as its other keys are.
    let from_file = match (&file, &config_file) {
        (Some(file), Some(path)) => file_detectors(file, &path.display().to_string())?,
        _ => None,
    };
    let specs = match (&detectors, from_file) {
        (None, Some(specs)) => specs,
        (list, _) => detectors_of("--detectors", list.as_deref().unwrap_or("paper"))?,
    };
    evaluation = evaluation.with_detectors(specs);
    let config = evaluation.config_mut();
    config.repetitions = repetitions.unwrap_or(config.repetitions);
    config.baseline_runs = baseline_runs.unwrap_or(config.baseline_runs);
    config.seed = seed.unwrap_or(config.seed);
    overrides.apply(config)?;
    // An invalid value is the flag's that gave it, else the file's, at its line.
    let mut given = overrides.given();
    given.extend(repetitions.map(|_| "--repetitions"));
    given.extend(baseline_runs.map(|_| "--baseline-runs"));
    given.extend(detectors.is_some().then_some("--detectors"));
    // An invalid value is the flags' that gave it (with the file's, where the field is an
    // expression of several keys), else the file's, at its line.
    let explain = |error: SimError| {
        let flags = flags_of(&error, &given).join(", ");
        let expression =
            matches!(&error, SimError::InvalidConfig { field, .. } if field.contains(' '));
        match (&file, flags.is_empty()) {
            (Some(_), false) if expression => anyhow::anyhow!("{flags} (with --config): {error}"),
            (_, false) => anyhow::anyhow!("{flags}: {error}"),
            (Some(file), true) if matches!(error, SimError::InvalidConfig { .. }) => {
                anyhow::Error::new(file.locate(error)).context("--config")
            }
            _ => anyhow::Error::new(error).context("running the evaluation"),
        }
    };
    evaluation.check().map_err(explain)?;
    if print_config {
        return output::print(&evaluation_file(&evaluation)?);
    }
    if let Some(threads) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
            .context("starting the thread pool")?;
    }
    let started = Instant::now();
    let results = evaluation.run().map_err(explain)?;
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
        "{} x {} in {:.2} s",
        plural(results.cells.len(), "cell"),
        plural(results.config.repetitions as usize, "repetition"),
        elapsed.as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::{Cli, Command};

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
        assert_eq!(bad.len(), 9);
        for arg in bad {
            let cli = Cli::try_parse_from(["stragglers", "eval", arg]).unwrap();
            let Command::Eval(EvalArgs { overrides, .. }) = cli.command else {
                panic!("eval parses as eval");
            };
            let mut evaluation = Evaluation::paper();
            overrides.apply(evaluation.config_mut()).unwrap();
            let error = evaluation.run().expect_err(arg);
            let flag = arg.split('=').next();
            assert_eq!(
                flags_of(&error, &overrides.given()),
                flag.as_slice(),
                "{error}"
            );
            // Not given, the flag is not blamed.
            assert!(flags_of(&error, &[]).is_empty(), "{error}");
        }
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
                    "0 to the workers' cores (the paper's {}) (default {}",
                    sim.platform.cores, sim.copies.placement.min_active_cores
                ),
            ),
            (
                "blacklist",
                format!(
                    "below the number of workers, the paper's {}",
                    sim.platform.workers
                ),
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
