//! Renders [`EvalResults`] as the paper prints its tables (Table 5, Table 6), in plain text
//! for a terminal or in Markdown, with the paper's published values beside the simulated
//! ones for comparison when the run's parameters are the paper's ([`paper_departures`]):
//! those values were measured in the paper's setting, and beside results of other
//! parameters (`--maps 40`, `--lag-secs 60`) they compare nothing.

use serde_json::Value;
use straggler_metrics::Summary;

use crate::{EvalConfig, EvalResults, Evaluation, Policy, Scenario};

/// The keys of a configuration that the paper's values do not depend on, as paths: the
/// sample (seed, repetitions, baseline runs), the safety limit of a run's simulated time,
/// and the lists of what to run (Table 5's quantiles and Table 6's scenarios, each row
/// matched with the paper's by its quantile or scenario name; the policies; Figure 3's lags
/// and scenarios, which the paper does not name; Table 7's policies and scenarios, its
/// values being C2's), each matched cell by cell with the paper's. Figure 3's detector is
/// not one where Figure 3 runs: its published value is Default's.
const SAMPLE_AND_LISTS: [&[&str]; 11] = [
    &["seed"],
    &["repetitions"],
    &["baseline_runs"],
    &["sim", "time_limit_secs"],
    &["table5_quantiles"],
    &["scenarios"],
    &["policies"],
    &["fig3", "lags_secs"],
    &["fig3", "scenarios"],
    &["table7", "policies"],
    &["table7", "scenarios"],
];

/// The power model's keys: they change the energy of a run and nothing else (no decision
/// of the simulator reads them), so of the published values only the energies (Figures
/// 4-6's Energy column) depend on them.
const POWER: &[&str] = &["sim", "power"];

/// The parameters of `config` that differ from the paper's evaluation
/// ([`Evaluation::paper`]), each as `key value (paper: value)` (`workload.maps 40 (paper:
/// 320)`); empty when the paper's published values apply to its results. The sample (seed,
/// repetitions, baseline runs), the time limit and the lists of what to run may differ, a
/// scenario named like one of the paper's defined as the paper's. The power model's
/// (`power.static_watts 80 (paper: 65)`) concern the published energies only: the other
/// values are shown without them ([`paper_departures_but_power`]).
pub fn paper_departures(config: &EvalConfig) -> Vec<String> {
    departures(config, true)
}

/// [`paper_departures`] but the power model's: the parameters that the published values
/// other than energies (times, counts, detection metrics, Table 5's ratios) depend on.
pub fn paper_departures_but_power(config: &EvalConfig) -> Vec<String> {
    departures(config, false)
}

/// [`paper_departures`], with the power model's keys or without them.
fn departures(config: &EvalConfig, with_power: bool) -> Vec<String> {
    let paper = Evaluation::paper().config().clone();
    let (Ok(mut run), Ok(mut paper)) = (serde_json::to_value(config), serde_json::to_value(paper))
    else {
        return vec!["the configuration (not comparable)".to_owned()];
    };
    let fig3_off: &[&str] = &["fig3", "detector"];
    let ignored = SAMPLE_AND_LISTS
        .iter()
        .copied()
        .chain(config.fig3.lags_secs.is_empty().then_some(fig3_off))
        .chain((!with_power).then_some(POWER));
    for path in ignored {
        for value in [&mut run, &mut paper] {
            let (last, parents) = path.split_last().expect("a path has a key");
            let parent = parents
                .iter()
                .try_fold(&mut *value, |v, key| v.get_mut(*key));
            if let Some(Value::Object(map)) = parent {
                map.remove(*last);
            }
        }
    }
    let mut out = Vec::new();
    differences("", &run, &paper, &mut out);
    // The scenarios may be any, but one named like a paper scenario must be the paper's:
    // the published values are matched by name.
    let paper_scenarios = Scenario::paper();
    let lists = [
        ("scenarios", &config.scenarios),
        ("fig3.scenarios", &config.fig3.scenarios),
        ("table7.scenarios", &config.table7.scenarios),
    ];
    for (key, scenarios) in lists {
        for scenario in scenarios {
            if let Some(published) = paper_scenarios.iter().find(|p| p.name == scenario.name)
                && published != scenario
            {
                out.push(format!(
                    "{key} {} {:?} (paper: {:?})",
                    scenario.name, scenario.group_percent, published.group_percent
                ));
            }
        }
    }
    out
}

/// The leaves where `run` and `paper` differ, dotted from `path`.
fn differences(path: &str, run: &Value, paper: &Value, out: &mut Vec<String>) {
    match (run, paper) {
        (Value::Object(r), Value::Object(p)) => {
            let keys = r.keys().chain(p.keys().filter(|k| !r.contains_key(*k)));
            for key in keys {
                let at = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                let none = Value::Null;
                differences(
                    &at,
                    r.get(key).unwrap_or(&none),
                    p.get(key).unwrap_or(&none),
                    out,
                );
            }
        }
        _ if run == paper => {}
        _ => {
            // `sim.speculation.lag_secs` is written `speculation.lag_secs`, as in errors.
            let key = path.strip_prefix("sim.").unwrap_or(path);
            out.push(format!("{key} {} (paper: {})", shown(run), shown(paper)));
        }
    }
}

/// A value of the configuration, its numbers compact (`1e308`, not 309 digits).
fn shown(value: &Value) -> String {
    match value {
        Value::Number(n) if n.is_f64() => n.as_f64().map_or_else(|| n.to_string(), number),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(shown).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Null => "none".to_owned(),
        other => other.to_string(),
    }
}

/// Whether the tables of `results` show the paper's values other than energies: its
/// parameters are the paper's, but for the power model ([`paper_departures_but_power`]).
fn shows_paper(results: &EvalResults) -> bool {
    paper_departures_but_power(&results.config).is_empty()
}

/// Whether the tables of `results` show the paper's energies: every parameter is the
/// paper's, the power model's too ([`paper_departures`]).
fn shows_paper_energies(results: &EvalResults) -> bool {
    paper_departures(&results.config).is_empty()
}

/// The note above the tables of a run whose parameters are not the paper's, or whose power
/// model only is not.
fn paper_note(results: &EvalResults) -> Option<String> {
    let departures = paper_departures(&results.config);
    if departures.is_empty() || (shows_paper(results) && !has(results, "table7")) {
        // The paper's values, or all of them that the tables hold: without Table 7, no
        // Figures 4-6 and no energies.
        None
    } else if shows_paper(results) {
        Some(format!(
            "Paper's energies not shown (Figures 4-6 and Section 7.3, Energy): they were measured with the \
             paper's power model, and this run's differs: {}. Its other values are shown.\n",
            departures.join(", ")
        ))
    } else {
        Some(format!(
            "Paper's values not shown (brackets, Paper columns): they were measured with the \
             paper's parameters, and this run's differ: {}.\n",
            departures.join(", ")
        ))
    }
}

/// From this magnitude on, [`number`] and [`number_fixed`] print scientific notation.
const LARGE: f64 = 1e6;
/// Below this magnitude (but not 0), [`number`] prints scientific notation.
const SMALL: f64 = 1e-4;

/// `x` as `{}` prints it (the shortest decimal that reads back as `x`: `20`, `0.08`), or in
/// scientific notation from 1e6 on and below 1e-4 (`1e308`, `1.5e-7`): a value such as a
/// flag's `1e308` is not printed as hundreds of digits.
pub fn number(x: f64) -> String {
    let magnitude = x.abs();
    if x.is_finite() && (magnitude >= LARGE || (magnitude > 0.0 && magnitude < SMALL)) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// `x` with `decimals` decimals (`1923.3`), or in scientific notation with three from 1e6
/// on (`1.000e308`).
pub fn number_fixed(x: f64, decimals: usize) -> String {
    if x.is_finite() && x.abs() >= LARGE {
        format!("{x:.3e}")
    } else {
        format!("{x:.decimals$}")
    }
}

/// Table 5 as published (seed paper, Section 6.1): quantile, ratio of stragglers.
pub const PAPER_TABLE5: [(f64, f64); 5] = [
    (0.25, 0.0816),
    (0.5, 0.0066),
    (0.6, 0.0031),
    (0.7, 0.0016),
    (0.9, 0.0006),
];

/// Table 6 as published (seed paper, Section 6.3): scenario, detector, and Precision,
/// Recall, Detection Latency, Fake Positive, Undetected Time.
pub const PAPER_TABLE6: [(&str, &str, [f64; 5]); 12] = [
    ("C1", "default", [0.64, 0.48, 0.55, 0.05, 2.10]),
    ("C1", "hierarchical", [1.00, 0.47, 0.65, 0.00, 2.10]),
    ("C1", "late", [0.83, 0.61, 0.44, 0.04, 1.80]),
    ("C2", "default", [0.64, 0.46, 0.41, 0.02, 1.80]),
    ("C2", "hierarchical", [1.00, 0.33, 0.57, 0.01, 1.80]),
    ("C2", "late", [0.82, 0.60, 0.38, 0.04, 1.60]),
    ("C3", "default", [0.22, 0.41, 0.49, 0.07, 1.90]),
    ("C3", "hierarchical", [0.88, 0.37, 0.55, 0.04, 1.90]),
    ("C3", "late", [0.24, 0.55, 0.48, 0.06, 1.80]),
    ("C4", "default", [0.12, 0.50, 0.51, 0.01, 2.10]),
    ("C4", "hierarchical", [0.98, 0.38, 0.53, 0.02, 2.10]),
    ("C4", "late", [0.31, 0.62, 0.48, 0.03, 2.00]),
];

/// Table 7 as published (seed paper, Section 7.3): policy, detector, and Precision,
/// Recall, Detection Latency, Undetected Time.
pub const PAPER_TABLE7: [(&str, &str, [f64; 4]); 18] = [
    ("x100", "default", [0.62, 0.36, 0.41, 2.50]),
    ("x100", "hierarchical", [1.00, 0.22, 0.50, 2.52]),
    ("x100", "late", [0.69, 0.45, 0.36, 2.26]),
    ("x95", "default", [0.55, 0.41, 0.17, 2.00]),
    ("x95", "hierarchical", [0.99, 0.29, 0.23, 2.08]),
    ("x95", "late", [0.68, 0.60, 0.18, 2.00]),
    ("x90", "default", [0.53, 0.42, 0.15, 2.03]),
    ("x90", "hierarchical", [1.00, 0.30, 0.03, 2.10]),
    ("x90", "late", [0.63, 0.63, 0.16, 2.01]),
    ("x75", "default", [0.58, 0.57, 0.08, 2.08]),
    ("x75", "hierarchical", [0.99, 0.29, 0.05, 2.12]),
    ("x75", "late", [0.67, 0.65, 0.18, 2.02]),
    ("x50", "default", [0.57, 0.68, 0.01, 2.08]),
    ("x50", "hierarchical", [0.96, 0.32, 0.03, 1.99]),
    ("x50", "late", [0.60, 0.70, 0.09, 2.04]),
    ("shared", "default", [0.55, 0.56, 0.32, 2.01]),
    ("shared", "hierarchical", [0.99, 0.29, 0.65, 2.03]),
    ("shared", "late", [0.65, 0.60, 0.17, 2.28]),
];

/// The Table 7 metrics, in the paper's column order, with their headers.
pub const TABLE7_METRICS: [(&str, &str); 4] = [
    ("precision", "Precision"),
    ("recall", "Recall"),
    ("detection_latency", "DL"),
    ("undetected_time", "UT"),
];

/// Figure 3 as the paper's text gives it (Section 6.2): lag in seconds, Default's Fake
/// Positive ratio.
pub const PAPER_FIG3: [(f64, f64); 1] = [(60.0, 0.14)];

/// The values of Figures 4 and 5 the paper's text gives, relative to Default under x100:
/// policy, detector, execution time, energy. "The values in Figures 4 and 5 are normalized
/// to the result when using *Default* mechanism in 100 reservation scenario", and one
/// sentence names that reference: Hierarchical under Shared, "a reduction of 10% and 6% in
/// execution time and energy consumption, respectively, when *Shared* policy is used,
/// compared to *Default* in 100 scenario" (Section 7.3). The text's other percentages
/// compare detectors under one policy ([`PAPER_SECTION73`]).
pub const PAPER_FIG45: [(&str, &str, f64, f64); 1] = [("shared", "hierarchical", 0.90, 0.94)];

/// A comparison of Section 7.3 between two cells of Table 7's C2: the policy, the detector
/// over the detector, and the paper's ratios of execution time, energy and copies where its
/// text gives one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// The policy of both cells (`x50`, `shared`).
    pub policy: &'static str,
    /// The detector whose time, energy and copies are divided.
    pub detector: &'static str,
    /// The detector they are divided by.
    pub against: &'static str,
    /// The paper's ratio of execution times.
    pub time: Option<f64>,
    /// The paper's ratio of energies.
    pub energy: Option<f64>,
    /// The paper's ratio of speculative copies.
    pub copies: Option<f64>,
}

/// The comparisons of Section 7.3 between detectors under one policy, in C2, with the
/// paper's ratios:
///
/// - Default over Hierarchical under x50: "in the case of *Default* mechanism with 50
///   scenario, it launches 2.9x more copies than the *Hierarchical*, but the job takes
///   roughly 36% longer time to finish", and in the paragraph on Default against
///   Hierarchical, "roughly 36% degradation in the case of 50" and "31% extra energy
///   consumption with 50 policy".
/// - Hierarchical over Default under Shared: "Compare between three detection mechanisms
///   in *Shared* scenario, *Hierarchical* can result in a reduction of 32% in execution
///   time, and 31% energy consumption reduction, compared to *Default* mechanism".
/// - LATE over Hierarchical under x50, without a published ratio: "*LATE* can sometimes
///   result in an increment of 31% in execution time and 23% in energy consumption, with
///   50 policy" does not say against what, so no ratio is quoted beside a reference it
///   may not have; the row gives ours for the docs' discussion.
pub const PAPER_SECTION73: [Comparison; 3] = [
    Comparison {
        policy: "x50",
        detector: "default",
        against: "hierarchical",
        time: Some(1.36),
        energy: Some(1.31),
        copies: Some(2.9),
    },
    Comparison {
        policy: "x50",
        detector: "late",
        against: "hierarchical",
        time: None,
        energy: None,
        copies: None,
    },
    Comparison {
        policy: "shared",
        detector: "hierarchical",
        against: "default",
        time: Some(0.68),
        energy: Some(0.69),
        copies: None,
    },
];

/// The Table 6 metrics, in the paper's column order, with their headers.
pub const TABLE6_METRICS: [(&str, &str); 5] = [
    ("precision", "Precision"),
    ("recall", "Recall"),
    ("detection_latency", "DL"),
    ("fake_positive", "FP"),
    ("undetected_time", "UT"),
];

/// The efficiency metrics (the paper's Table 2 and Section 7), with their headers.
pub const EFFICIENCY_METRICS: [(&str, &str); 6] = [
    ("straggler_ratio", "Straggler ratio"),
    ("execution_time_secs", "Time (s)"),
    ("energy_joules", "Energy (kJ)"),
    ("speculative_copies", "Copies"),
    ("successful_copies", "Successful"),
    ("precision_raw", "Precision raw"),
];

/// A table: a header row and rows of cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// The title printed above it.
    pub title: String,
    /// Column headers.
    pub headers: Vec<String>,
    /// Rows, each as long as `headers`.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Plain text with aligned columns.
    pub fn to_text(&self) -> String {
        let widths: Vec<usize> = (0..self.headers.len())
            .map(|c| {
                self.rows
                    .iter()
                    .map(|r| r[c].chars().count())
                    .chain([self.headers[c].chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: &[String]| {
            let padded: Vec<String> = cells
                .iter()
                .zip(&widths)
                .map(|(cell, &w)| format!("{cell:<w$}"))
                .collect();
            padded.join("  ").trim_end().to_owned()
        };
        let mut out = format!("{}\n", self.title);
        out += &line(&self.headers);
        out.push('\n');
        out += &widths
            .iter()
            .map(|&w| "-".repeat(w))
            .collect::<Vec<_>>()
            .join("  ");
        out.push('\n');
        for row in &self.rows {
            out += &line(row);
            out.push('\n');
        }
        out
    }

    /// A Markdown table under a `###` heading.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("### {}\n\n| {} |\n|", self.title, self.headers.join(" | "));
        out += &"---|".repeat(self.headers.len());
        out.push('\n');
        for row in &self.rows {
            out += &format!("| {} |\n", row.join(" | "));
        }
        out
    }
}

/// [`format_summary`] of a metric of a cell of `repetitions` runs, followed by `[n=k]`
/// when it rests on fewer, the `k` runs where the metric is defined (no straggler left
/// undetected in the others, say): a mean and interval of 3 runs of 10 read differently.
pub fn format_summary_over(summary: Option<&Summary>, digits: usize, repetitions: u32) -> String {
    let text = format_summary(summary, digits);
    match summary {
        Some(s) if s.mean.is_some() && (s.n as u64) < u64::from(repetitions) => {
            format!("{text} [n={}]", s.n)
        }
        _ => text,
    }
}

/// What `[n=k]` means, for the title of a table that shows one.
const PARTIAL: &str = "; [n=k]: over the k runs where the metric is defined";

/// `title`, with [`PARTIAL`] in its closing parenthesis (or one of its own) if a cell of
/// `rows` shows `[n=k]`.
fn noting_partial(title: String, rows: &[Vec<String>]) -> String {
    if !rows.iter().flatten().any(|value| value.contains(" [n=")) {
        return title;
    }
    match title.strip_suffix(')') {
        Some(open) => format!("{open}{PARTIAL})"),
        None => format!("{title} ({})", PARTIAL.trim_start_matches("; ")),
    }
}

/// `n` and `noun`, plural but for one (`1 repetition`, `10 repetitions`).
fn plural(n: impl Into<u64>, noun: &str) -> String {
    match n.into() {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// What a table's values are, for its title: the mean and 95% confidence half-width of
/// each cell's runs, or, with one repetition, the one run's value, which has no interval.
fn values_of(results: &EvalResults) -> &'static str {
    match results.config.repetitions {
        1 => "one run per cell, no 95% CI",
        _ => "mean ± 95% CI",
    }
}

/// `mean ± ci95` with `digits` decimals; `n/a` when undefined.
pub fn format_summary(summary: Option<&Summary>, digits: usize) -> String {
    match summary {
        Some(Summary {
            mean: Some(mean),
            ci95: Some(ci),
            ..
        }) => format!("{mean:.digits$} ± {ci:.digits$}"),
        Some(Summary {
            mean: Some(mean), ..
        }) => format!("{mean:.digits$}"),
        _ => "n/a".to_owned(),
    }
}

/// Table 5: ratio of stragglers among the baseline executions per quantile, simulated and
/// published.
pub fn table5(results: &EvalResults) -> Table {
    let with_paper = shows_paper(results);
    let rows: Vec<Vec<String>> = results
        .baseline
        .quantiles
        .iter()
        .map(|q| {
            let paper = PAPER_TABLE5
                .iter()
                .find(|(x, _)| (x - q.quantile).abs() < 1e-9);
            let mut row = vec![
                format!("{}", q.quantile),
                q.straggler_ratio
                    .map_or("n/a".to_owned(), |r| format!("{:.2}%", r * 100.0)),
                format!("{} / {}", q.stragglers, q.executions),
            ];
            if with_paper {
                row.push(paper.map_or("-".to_owned(), |(_, r)| format!("{:.2}%", r * 100.0)));
            }
            row
        })
        .collect();
    let mut headers = [
        "Quantile X",
        "Ratio of stragglers",
        "Stragglers / executions",
    ]
    .map(String::from)
    .to_vec();
    if with_paper {
        headers.push("Paper".to_owned());
    }
    Table {
        title: format!(
            "Table 5. Ratio of stragglers among map executions on the homogeneous platform ({}), by the quantile X taken as usual time",
            plural(results.baseline.runs, "run")
        ),
        headers,
        rows,
    }
}

/// Table 6 under `policy`: the detection metrics of every scenario and detector, mean ±
/// 95% confidence half-width, with the paper's value in brackets where it has one (it
/// measured x100 only; the title says so where a row shows one).
pub fn table6(results: &EvalResults, policy: &str) -> Table {
    let with_paper = shows_paper(results) && policy == "x100";
    let mut bracketed = false;
    let mut headers = vec!["Scenario".to_owned(), "Mechanism".to_owned()];
    headers.extend(TABLE6_METRICS.iter().map(|(_, h)| (*h).to_owned()));
    let rows: Vec<Vec<String>> = results
        .cells
        .iter()
        .filter(|c| c.experiment == "table6" && c.policy == policy)
        .map(|cell| {
            let paper = (PAPER_TABLE6.iter())
                .find(|(s, d, _)| *s == cell.scenario && *d == cell.detector)
                .filter(|_| with_paper);
            let mut row = vec![cell.scenario.clone(), cell.detector.clone()];
            row.extend(TABLE6_METRICS.iter().enumerate().map(|(i, (name, _))| {
                let value = format_summary_over(cell.metrics.get(*name), 2, cell.repetitions);
                match paper {
                    Some((_, _, published)) if value != "n/a" => {
                        bracketed = true;
                        format!("{value} ({:.2})", published[i])
                    }
                    _ => value,
                }
            }));
            row
        })
        .collect();
    Table {
        title: noting_partial(
            format!(
                "Table 6. Characteristics of the detectors, policy {policy}, {} ({}{})",
                plural(results.config.repetitions, "repetition"),
                values_of(results),
                if bracketed { "; paper in brackets" } else { "" }
            ),
            &rows,
        ),
        headers,
        rows,
    }
}

/// Execution time, energy and copies of every scenario, policy and detector.
pub fn efficiency(results: &EvalResults) -> Table {
    let mut headers = vec![
        "Scenario".to_owned(),
        "Policy".to_owned(),
        "Mechanism".to_owned(),
    ];
    headers.extend(EFFICIENCY_METRICS.iter().map(|(_, h)| (*h).to_owned()));
    let rows: Vec<Vec<String>> = results
        .cells
        .iter()
        .filter(|c| c.experiment == "table6")
        .map(|cell| {
            let mut row = vec![
                cell.scenario.clone(),
                cell.policy.clone(),
                cell.detector.clone(),
            ];
            row.extend(EFFICIENCY_METRICS.iter().map(|(name, _)| {
                let summary = cell.metrics.get(*name).map(|s| match *name {
                    "energy_joules" => scaled(s, 1e-3),
                    _ => *s,
                });
                let digits = match *name {
                    "straggler_ratio" | "precision_raw" => 2,
                    "speculative_copies" | "successful_copies" => 1,
                    _ => 0,
                };
                format_summary_over(summary.as_ref(), digits, cell.repetitions)
            }));
            row
        })
        .collect();
    Table {
        title: noting_partial(
            format!(
                "Efficiency. Job execution time, energy and speculative copies ({})",
                values_of(results)
            ),
            &rows,
        ),
        headers,
        rows,
    }
}

/// Table 7: the detection metrics of every policy and detector of the Section 7
/// experiment, with the paper's values in brackets (the title says so where a row shows
/// one), the Fake Positive ratio, and how far the estimated times of killed originals are
/// from their exact ones.
pub fn table7(results: &EvalResults) -> Table {
    let with_paper = shows_paper(results);
    let mut bracketed = false;
    let mut headers = vec![
        "Scenario".to_owned(),
        "Policy".to_owned(),
        "Mechanism".to_owned(),
    ];
    headers.extend(TABLE7_METRICS.iter().map(|(_, h)| (*h).to_owned()));
    headers.extend(["FP", "Killed-time gap", "Label changes"].map(String::from));
    let rows: Vec<Vec<String>> = results
        .cells
        .iter()
        .filter(|c| c.experiment == "table7")
        .map(|cell| {
            let paper = (PAPER_TABLE7.iter())
                .find(|(p, d, _)| *p == cell.policy && *d == cell.detector && cell.scenario == "C2")
                .filter(|_| with_paper);
            let mut row = vec![
                cell.scenario.clone(),
                cell.policy.clone(),
                cell.detector.clone(),
            ];
            row.extend(TABLE7_METRICS.iter().enumerate().map(|(i, (name, _))| {
                let value = format_summary_over(cell.metrics.get(*name), 2, cell.repetitions);
                match paper {
                    Some((_, _, published)) if value != "n/a" => {
                        bracketed = true;
                        format!("{value} ({:.2})", published[i])
                    }
                    _ => value,
                }
            }));
            row.push(format_summary_over(
                cell.metrics.get("fake_positive"),
                2,
                cell.repetitions,
            ));
            row.push(format_summary_over(
                cell.metrics.get("killed_original_time_gap"),
                2,
                cell.repetitions,
            ));
            row.push(format_summary_over(
                cell.metrics.get("label_disagreements"),
                1,
                cell.repetitions,
            ));
            row
        })
        .collect();
    Table {
        title: noting_partial(
            format!(
                "Table 7. Characteristics of the detectors under each reservation policy, {} ({}{}; killed originals' time: {}; gap = mean |exact - estimated| / usual time)",
                plural(results.config.repetitions, "repetition"),
                values_of(results),
                if bracketed { "; paper in brackets" } else { "" },
                results.config.killed_original_time.name().replace('_', " "),
            ),
            &rows,
        ),
        headers,
        rows,
    }
}

/// Figures 4 to 6 as numbers: execution time and energy normalised to Default under x100,
/// copies, and the Section 4.2 predictor's overheads next to the simulated ones.
pub fn figures4to6(results: &EvalResults) -> Table {
    let with_paper = shows_paper(results);
    let with_energies = shows_paper_energies(results);
    let mut bracketed = false;
    let headers = [
        "Scenario",
        "Policy",
        "Mechanism",
        "Time / D x100",
        "Energy / D x100",
        "Copies",
        "Successful",
        "Unsuccessful",
        "Time overhead predicted",
        "simulated",
        "Energy overhead predicted",
        "simulated",
    ]
    .map(String::from)
    .to_vec();
    let rows: Vec<Vec<String>> = results
        .cells
        .iter()
        .filter(|c| c.experiment == "table7")
        .map(|cell| {
            let paper = (PAPER_FIG45.iter())
                .find(|(p, d, _, _)| {
                    *p == cell.policy && *d == cell.detector && cell.scenario == "C2"
                })
                .filter(|_| with_paper);
            let metric = |name: &str, digits: usize| {
                format_summary_over(cell.metrics.get(name), digits, cell.repetitions)
            };
            let mut with_paper = |value: String, published: Option<f64>| match published {
                Some(p) if value != "n/a" => {
                    bracketed = true;
                    format!("{value} ({p:.2})")
                }
                _ => value,
            };
            vec![
                cell.scenario.clone(),
                cell.policy.clone(),
                cell.detector.clone(),
                with_paper(metric("execution_time_norm", 2), paper.map(|p| p.2)),
                with_paper(
                    metric("energy_norm", 2),
                    paper.map(|p| p.3).filter(|_| with_energies),
                ),
                metric("speculative_copies", 1),
                metric("successful_copies", 1),
                metric("unsuccessful_copies", 1),
                metric("predicted_time_overhead", 2),
                metric("simulated_time_overhead", 2),
                metric("predicted_energy_overhead", 2),
                metric("simulated_energy_overhead", 2),
            ]
        })
        .collect();
    // Time and energy are normalised by the `default` cell under x100 of the scenario.
    let reference = results.cells.iter().any(|c| {
        c.experiment == "table7" && c.detector == "default" && c.policy == Policy::X100.name()
    });
    let without_reference = if reference || rows.is_empty() {
        ""
    } else if !results.config.table7.policies.contains(&Policy::X100) {
        "; n/a under Time and Energy: Table 7 runs no x100 to normalise by"
    } else {
        "; n/a under Time and Energy: no `default` among the detectors to normalise by (a tuned Default is another detector)"
    };
    Table {
        title: noting_partial(
            format!(
                "Figures 4-6. Execution time and energy relative to Default under x100{}, speculative copies, and the Section 4.2 predictor's overheads next to the simulated ones ({}){without_reference}",
                match (bracketed, with_energies) {
                    (true, true) => " (paper in brackets where its text gives a value)",
                    (true, false) => {
                        " (paper in brackets where its text gives a value, but for energies: this run's power model is not the paper's)"
                    }
                    _ => "",
                },
                values_of(results),
            ),
            &rows,
        ),
        headers,
        rows,
    }
}

/// Section 7.3's comparisons between detectors under one policy ([`PAPER_SECTION73`]):
/// the ratio of the two C2 cells' mean execution times, energies and copies, with the
/// paper's ratio in brackets where its text gives one (its energies only with its power
/// model). A comparison one of whose cells Table 7 does not run has no row.
pub fn section73(results: &EvalResults) -> Table {
    let with_paper = shows_paper(results);
    let with_energies = shows_paper_energies(results);
    let mut bracketed = false;
    let cell = |policy: &str, detector: &str| {
        results.cells.iter().find(|c| {
            c.experiment == "table7"
                && c.scenario == "C2"
                && c.policy == policy
                && c.detector == detector
        })
    };
    let rows: Vec<Vec<String>> = PAPER_SECTION73
        .iter()
        .filter_map(|comparison| {
            let own = cell(comparison.policy, comparison.detector)?;
            let against = cell(comparison.policy, comparison.against)?;
            let mut ratio = |metric: &str, digits: usize, published: Option<f64>| {
                let mean = |c: &crate::Cell| c.metrics.get(metric).and_then(|s| s.mean);
                let value = match (mean(own), mean(against)) {
                    (Some(a), Some(b)) if b > 0.0 => number_fixed(a / b, digits),
                    _ => return "n/a".to_owned(),
                };
                match published.filter(|_| with_paper) {
                    Some(p) => {
                        bracketed = true;
                        format!("{value} ({p:.digits$})")
                    }
                    None => value,
                }
            };
            Some(vec![
                "C2".to_owned(),
                comparison.policy.to_owned(),
                format!("{} / {}", comparison.detector, comparison.against),
                ratio("execution_time_secs", 2, comparison.time),
                ratio(
                    "energy_joules",
                    2,
                    comparison.energy.filter(|_| with_energies),
                ),
                ratio("speculative_copies", 1, comparison.copies),
            ])
        })
        .collect();
    Table {
        title: format!(
            "Section 7.3. One detector against another under one policy: ratios of the cells' mean execution time, energy and copies{}",
            match (bracketed, with_energies) {
                (true, true) => " (paper in brackets where its text gives a value)",
                (true, false) => {
                    " (paper in brackets where its text gives a value, but for energies: this run's power model is not the paper's)"
                }
                _ => "",
            },
        ),
        headers: [
            "Scenario",
            "Policy",
            "Mechanisms",
            "Time",
            "Energy",
            "Copies",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

/// Figure 3: the Fake Positive ratio of the Figure 3 detector against the speculative lag,
/// one column per scenario, with the value the paper's text gives.
pub fn fig3(results: &EvalResults) -> Table {
    let cells: Vec<_> = results
        .cells
        .iter()
        .filter(|c| c.experiment == "fig3")
        .collect();
    let mut scenarios: Vec<&str> = Vec::new();
    let mut lags: Vec<f64> = Vec::new();
    for cell in &cells {
        if !scenarios.contains(&cell.scenario.as_str()) {
            scenarios.push(&cell.scenario);
        }
        let lag = lag_of(cell);
        if !lags.contains(&lag) {
            lags.push(lag);
        }
    }
    let with_paper = shows_paper(results);
    let mut headers = vec!["Lag (s)".to_owned()];
    headers.extend(scenarios.iter().map(|s| format!("FP {s}")));
    if with_paper {
        headers.push("Paper".to_owned());
    }
    let rows: Vec<Vec<String>> = lags
        .iter()
        .map(|&lag| {
            let mut row = vec![number(lag)];
            row.extend(scenarios.iter().map(|&s| {
                let cell = cells.iter().find(|c| c.scenario == s && lag_of(c) == lag);
                cell.map_or_else(
                    || format_summary(None, 2),
                    |c| format_summary_over(c.metrics.get("fake_positive"), 2, c.repetitions),
                )
            }));
            if with_paper {
                row.push(
                    PAPER_FIG3
                        .iter()
                        .find(|(l, _)| *l == lag)
                        .map_or("-".to_owned(), |(_, fp)| format!("{fp:.2}")),
                );
            }
            row
        })
        .collect();
    let detector = cells.first().map_or("-", |c| c.detector.as_str());
    Table {
        title: noting_partial(
            format!(
                "Figure 3. Fake Positive ratio of {detector} against the speculative lag, policy x100, {} ({})",
                plural(results.config.repetitions, "repetition"),
                values_of(results)
            ),
            &rows,
        ),
        headers,
        rows,
    }
}

fn lag_of(cell: &crate::Cell) -> f64 {
    cell.params
        .get("speculative_lag_secs")
        .and_then(serde_json::Value::as_f64)
        .unwrap_or(f64::NAN)
}

fn has(results: &EvalResults, experiment: &str) -> bool {
    results.cells.iter().any(|c| c.experiment == experiment)
}

fn scaled(summary: &Summary, factor: f64) -> Summary {
    Summary {
        mean: summary.mean.map(|m| m * factor),
        ci95: summary.ci95.map(|c| c * factor),
        n: summary.n,
    }
}

/// Every table of the results, for the terminal.
pub fn text(results: &EvalResults) -> String {
    let mut out = paper_note(results).map_or(String::new(), |note| note + "\n");
    out += &table5(results).to_text();
    for policy in policies(results) {
        out.push('\n');
        out += &table6(results, &policy).to_text();
    }
    out.push('\n');
    out += &efficiency(results).to_text();
    if has(results, "fig3") {
        out.push('\n');
        out += &fig3(results).to_text();
    }
    if has(results, "table7") {
        out.push('\n');
        out += &table7(results).to_text();
        out.push('\n');
        out += &figures4to6(results).to_text();
        let comparisons = section73(results);
        if !comparisons.rows.is_empty() {
            out.push('\n');
            out += &comparisons.to_text();
        }
    }
    out
}

/// Every table of the results, as a Markdown report.
pub fn markdown(results: &EvalResults) -> String {
    let mut out = format!(
        "# Evaluation report\n\nSchema `{}`, seed {}, {} per cell, {}, usual time = {}-quantile, straggler factor {}.\n\n",
        results.schema,
        results.config.seed,
        plural(results.config.repetitions, "repetition"),
        plural(results.baseline.runs, "baseline run"),
        results.config.usual_quantile,
        results.config.straggler_factor,
    );
    if let Some(note) = paper_note(results) {
        out += &note;
        out.push('\n');
    }
    out += &table5(results).to_markdown();
    for policy in policies(results) {
        out.push('\n');
        out += &table6(results, &policy).to_markdown();
    }
    out.push('\n');
    out += &efficiency(results).to_markdown();
    if has(results, "fig3") {
        out.push('\n');
        out += &fig3(results).to_markdown();
    }
    if has(results, "table7") {
        out.push('\n');
        out += &table7(results).to_markdown();
        out.push('\n');
        out += &figures4to6(results).to_markdown();
        let comparisons = section73(results);
        if !comparisons.rows.is_empty() {
            out.push('\n');
            out += &comparisons.to_markdown();
        }
    }
    out
}

/// The policies present in the results, in order of first appearance.
fn policies(results: &EvalResults) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for cell in results.cells.iter().filter(|c| c.experiment == "table6") {
        if !seen.contains(&cell.policy) {
            seen.push(cell.policy.clone());
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_of_fewer_runs_than_the_cells_says_how_many() {
        let summary = |mean, ci95, n| Summary { mean, ci95, n };
        // 3 of 10 runs: precision 0.33 ± 1.43, a mean of 3 values.
        let three = summary(Some(0.333), Some(1.434), 3);
        assert_eq!(
            format_summary_over(Some(&three), 2, 10),
            "0.33 ± 1.43 [n=3]"
        );
        assert_eq!(format_summary_over(Some(&three), 2, 3), "0.33 ± 1.43");
        // One run: no interval; none: n/a, with no count.
        let one = summary(Some(0.52), None, 1);
        assert_eq!(format_summary_over(Some(&one), 2, 10), "0.52 [n=1]");
        assert_eq!(
            format_summary_over(Some(&summary(None, None, 0)), 2, 10),
            "n/a"
        );
        assert_eq!(format_summary_over(None, 2, 10), "n/a");
        // The title says what the count means only where a row shows one.
        let rows = |value: &str| vec![vec!["C2".to_owned(), value.to_owned()]];
        let title = || "Table 6. Detectors (mean ± 95% CI)".to_owned();
        assert_eq!(
            noting_partial(title(), &rows("0.52 [n=1]")),
            "Table 6. Detectors (mean ± 95% CI; [n=k]: over the k runs where the metric is defined)"
        );
        assert_eq!(noting_partial(title(), &rows("0.52")), title());
        assert_eq!(
            noting_partial("Table 9".to_owned(), &rows("0.52 [n=1]")),
            "Table 9 ([n=k]: over the k runs where the metric is defined)"
        );
    }

    #[test]
    fn small_values_print_in_full_and_huge_ones_compactly() {
        assert_eq!(number(20.0), "20");
        assert_eq!(number(0.08), "0.08");
        assert_eq!(number(999_999.5), "999999.5");
        assert_eq!(number(1e6), "1e6");
        assert_eq!(number(1e308), "1e308");
        assert_eq!(number(-2.5e9), "-2.5e9");
        assert_eq!(number(1.5e-7), "1.5e-7");
        assert_eq!(number(0.0), "0");
        assert_eq!(number(f64::INFINITY), "inf");
        assert_eq!(number_fixed(1923.25, 1), "1923.2");
        assert_eq!(number_fixed(1e308, 1), "1.000e308");
        assert_eq!(number_fixed(f64::NAN, 1), "NaN");
    }

    #[test]
    fn the_papers_configuration_has_no_departure_and_a_change_is_named() {
        let mut config = Evaluation::paper().config().clone();
        config.seed = 7;
        config.repetitions = 2;
        config.fig3.lags_secs = vec![60.0];
        config.table7.policies.truncate(2);
        // Part of the paper's rows, and a time limit no run reaches.
        config.scenarios.truncate(1);
        config.table5_quantiles = vec![0.5];
        config.sim.time_limit_secs = 5000.0;
        assert_eq!(paper_departures(&config), Vec::<String>::new());
        // Figure 3's detector only where Figure 3 runs.
        let mut no_fig3 = config.clone();
        no_fig3.fig3.lags_secs.clear();
        no_fig3.fig3.detector = "late".to_owned();
        assert_eq!(paper_departures(&no_fig3), Vec::<String>::new());
        // Table 6's scenarios may be any too, but a "C1" must be the paper's.
        let mut other_c1 = config.clone();
        other_c1.scenarios = vec![Scenario::new("C1", &[25.0, 25.0, 25.0, 25.0])];
        assert_eq!(
            paper_departures(&other_c1),
            ["scenarios C1 [25.0, 25.0, 25.0, 25.0] (paper: [35.0, 35.0, 5.0, 25.0])"]
        );
        // Table 7's scenarios may be any, but a "C2" must be the paper's.
        let mut other_c2 = config.clone();
        other_c2.table7.scenarios = vec![Scenario::new("C2", &[100.0])];
        assert_eq!(
            paper_departures(&other_c2),
            ["table7.scenarios C2 [100.0] (paper: [25.0, 25.0, 25.0, 25.0])"]
        );
        // Figure 3's published value is Default's.
        let mut late = config.clone();
        late.fig3.detector = "late".to_owned();
        assert_eq!(
            paper_departures(&late),
            ["fig3.detector \"late\" (paper: \"default\")"]
        );
        config.sim.workload.reduces = 0;
        config.sim.speculation.lag_secs = 1e308;
        assert_eq!(
            paper_departures(&config),
            [
                "speculation.lag_secs 1e308 (paper: 20)",
                "workload.reduces 0 (paper: 160)",
            ]
        );
    }

    /// The power model changes the energies and nothing else: two evaluations that differ in
    /// it alone give the same results, but for the energies and the power model itself.
    /// The paper's evaluation cut small (a job of 16 maps and 4 reduces, one baseline run,
    /// one lag of Figure 3, Table 7 under x100 and Shared), `repetitions` per cell.
    fn small_evaluation(repetitions: u32) -> Evaluation {
        let mut evaluation = Evaluation::paper();
        let config = evaluation.config_mut();
        config.repetitions = repetitions;
        config.baseline_runs = 1;
        config.fig3.lags_secs = vec![60.0];
        config.table7.policies = vec![crate::Policy::X100, crate::Policy::Shared];
        config.sim.workload.maps = 16;
        config.sim.workload.reduces = 4;
        evaluation
    }

    #[test]
    fn the_power_model_changes_the_energies_alone() {
        use serde_json::Value;

        let run = |static_watts: f64, idle_watts: f64| {
            let mut evaluation = small_evaluation(2);
            let config = evaluation.config_mut();
            config.sim.power.static_watts = static_watts;
            config.sim.power.idle_watts = idle_watts;
            serde_json::to_value(evaluation.run().unwrap()).unwrap()
        };
        /// `value` without the keys that name an energy, nor the power model.
        fn without_energies(value: &mut Value) -> usize {
            match value {
                Value::Object(map) => {
                    let before = map.len();
                    map.retain(|key, _| !key.contains("energy") && key != "power");
                    let removed = before - map.len();
                    removed + map.values_mut().map(without_energies).sum::<usize>()
                }
                Value::Array(items) => items.iter_mut().map(without_energies).sum(),
                _ => 0,
            }
        }
        let (mut paper, mut other) = (run(65.0, 0.0), run(80.0, 30.0));
        assert_ne!(paper, other);
        let removed = without_energies(&mut paper);
        assert!(removed > 10, "{removed} keys of energies");
        assert_eq!(without_energies(&mut other), removed);
        assert_eq!(paper, other);
    }

    /// With other parameters than the paper's, the tables lose the paper's values (Paper
    /// columns, brackets, the titles' words on them) and nothing else, and a note says once
    /// which parameters differ.
    #[test]
    fn the_papers_values_are_shown_for_its_parameters_only() {
        let results = small_evaluation(1).run().unwrap();
        let mut paper = results.clone();
        paper.config.sim.workload = Evaluation::paper().config().sim.workload;
        let tables = |results: &EvalResults| {
            let mut tables = vec![table5(results)];
            tables.extend(policies(results).iter().map(|p| table6(results, p)));
            tables.extend([fig3(results), table7(results), figures4to6(results)]);
            tables.push(section73(results));
            tables
        };
        let (with, without) = (tables(&paper), tables(&results));
        assert!(
            with.iter()
                .any(|t| t.rows.iter().flatten().any(|c| c.ends_with(" (0.64)")))
        );
        for (full, bare) in with.iter().zip(&without) {
            assert!(!bare.title.contains("paper"), "{}", bare.title);
            assert!(!bare.headers.iter().any(|h| h == "Paper"), "{}", bare.title);
            for (full_row, bare_row) in full.rows.iter().zip(&bare.rows) {
                // Each cell is the full table's, without its bracket.
                for (cell, bare_cell) in full_row.iter().zip(bare_row) {
                    let value = cell
                        .strip_suffix(')')
                        .and_then(|c| c.rsplit_once(" ("))
                        .filter(|(_, b)| b.parse::<f64>().is_ok())
                        .map_or(cell.as_str(), |(v, _)| v);
                    assert_eq!(bare_cell, value, "{}", bare.title);
                }
            }
        }
        let (text, markdown) = (text(&results), markdown(&results));
        assert!(text.starts_with("Paper's values not shown"), "{text}");
        assert!(text.contains("workload.maps 16 (paper: 320)"), "{text}");
        assert_eq!(text.matches("Paper's values").count(), 1);
        assert!(
            markdown.contains(".\n\nPaper's values not shown"),
            "{markdown}"
        );
        assert!(!markdown.contains(" (0.64)"));
        assert!(!crate::report::text(&paper).contains("Paper's values not shown"));

        // Another power model: every table as the paper's run shows it, but for Figures
        // 4-6's energies, which lose their brackets, and its title, which says why.
        let mut power = paper.clone();
        power.config.sim.power.static_watts = 80.0;
        let departures = ["power.static_watts 80 (paper: 65)"];
        assert_eq!(paper_departures(&power.config), departures);
        assert!(paper_departures_but_power(&power.config).is_empty());
        let (with, changed) = (tables(&paper), tables(&power));
        // Figures 4-6 and Section 7.3, the last two, lose their energies' brackets.
        assert_eq!(changed[..changed.len() - 2], with[..with.len() - 2]);
        let mut shown = 0;
        for (figures, paper_figures) in changed.iter().zip(&with).skip(with.len() - 2) {
            assert!(
                figures.title.contains("but for energies"),
                "{}",
                figures.title
            );
            let energy = (figures.headers.iter())
                .position(|h| h == "Energy / D x100" || h == "Energy")
                .expect("an energy column");
            for (row, paper_row) in figures.rows.iter().zip(&paper_figures.rows) {
                for (column, (cell, paper_cell)) in row.iter().zip(paper_row).enumerate() {
                    if column == energy && cell != paper_cell {
                        assert!(paper_cell.starts_with(&format!("{cell} (")), "{paper_cell}");
                        shown += 1;
                    } else {
                        assert_eq!(cell, paper_cell);
                    }
                }
            }
        }
        assert!(shown > 1, "the paper's run shows energies in both tables");
        let text = crate::report::text(&power);
        assert!(
            text.starts_with(&format!(
                "Paper's energies not shown (Figures 4-6 and Section 7.3, Energy): they were \
                 measured with the paper's power model, and this run's differs: {}. Its other values are shown.",
                departures[0]
            )),
            "{text}"
        );
        assert!(!text.contains("Paper's values not shown"));
        // Without Table 7 there are no energies to hide, and nothing to say.
        let mut no_energies = power.clone();
        no_energies.cells.retain(|cell| cell.experiment != "table7");
        assert!(paper_note(&no_energies).is_none());
        // With other departures too, the note is the one of any other run, and lists them all.
        let mut both = results.clone();
        both.config.sim.power.static_watts = 80.0;
        let text = crate::report::text(&both);
        assert!(text.starts_with("Paper's values not shown"), "{text}");
        assert!(text.contains("workload.maps 16 (paper: 320), "), "{text}");
        assert!(text.contains("power.static_watts 80 (paper: 65)"), "{text}");
    }

    /// Section 7.3's percentages compare one detector with another under one policy, not
    /// with Default under x100: the paper's 36% and 31% for Default under x50 are against
    /// Hierarchical under x50, and its 32% and 31% for Hierarchical under Shared against
    /// Default under Shared. Hand-worked on a small evaluation whose C2 cells are given
    /// round means.
    #[test]
    fn section_7_3s_ratios_are_against_the_detector_it_names() {
        let mut results = small_evaluation(2).run().unwrap();
        // The paper's job, for its values to be shown.
        results.config.sim.workload = Evaluation::paper().config().sim.workload;
        // Table 7 runs x100 and Shared here: its x100 cells stand for x50's.
        let means = |detector: &str, policy: &str| match (detector, policy) {
            ("default", "x50") => Some((272.0, 524.0, 290.0)),
            ("hierarchical", "x50") => Some((200.0, 400.0, 100.0)),
            ("late", "x50") => Some((250.0, 460.0, 150.0)),
            ("default", "shared") => Some((250.0, 500.0, 200.0)),
            ("hierarchical", "shared") => Some((170.0, 345.0, 120.0)),
            _ => None,
        };
        for cell in results
            .cells
            .iter_mut()
            .filter(|c| c.experiment == "table7")
        {
            if cell.policy == "x100" {
                "x50".clone_into(&mut cell.policy);
            }
            let Some((time, energy, copies)) = means(&cell.detector, &cell.policy) else {
                continue;
            };
            for (metric, mean) in [
                ("execution_time_secs", time),
                ("energy_joules", energy),
                ("speculative_copies", copies),
            ] {
                let summary = cell
                    .metrics
                    .get_mut(metric)
                    .expect("a metric of every cell");
                summary.mean = Some(mean);
            }
        }
        let table = section73(&results);
        assert_eq!(
            table.rows,
            [
                // 272 / 200, 524 / 400, 290 / 100.
                [
                    "C2",
                    "x50",
                    "default / hierarchical",
                    "1.36 (1.36)",
                    "1.31 (1.31)",
                    "2.9 (2.9)"
                ],
                // 250 / 200, 460 / 400, 150 / 100: the paper names no reference.
                ["C2", "x50", "late / hierarchical", "1.25", "1.15", "1.5"],
                // 170 / 250, 345 / 500, 120 / 200.
                [
                    "C2",
                    "shared",
                    "hierarchical / default",
                    "0.68 (0.68)",
                    "0.69 (0.69)",
                    "0.6"
                ],
            ]
        );
        assert!(
            table
                .title
                .ends_with("(paper in brackets where its text gives a value)")
        );
        // Figures 4-6 quote the one value the text gives against Default under x100,
        // Hierarchical under Shared's, and nothing beside Default or LATE under x50.
        let figures = figures4to6(&results);
        for row in &figures.rows {
            let bracketed = row[3].ends_with(')') || row[4].ends_with(')');
            assert_eq!(
                bracketed,
                row[1] == "shared" && row[2] == "hierarchical",
                "{row:?}"
            );
        }
        // Without one of its cells a comparison has no row.
        results.cells.retain(|c| c.detector != "late");
        assert_eq!(section73(&results).rows.len(), 2);
    }
}
