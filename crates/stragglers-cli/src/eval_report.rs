//! `eval`'s tables: the library's (`stragglers::sim::report`), with the paper's published
//! values (the brackets and the Paper columns) only when the run's parameters are the
//! paper's. Those values were measured in the paper's setting; beside results of other
//! parameters (`--maps 40`, `--lag-secs 60`) they compare nothing, so they are left out
//! and a note says once which parameters differ.

use serde_json::Value;
use stragglers::sim::report::{self, Table};
use stragglers::sim::{EvalConfig, EvalResults, Evaluation};

use crate::numbers;

/// The keys of a configuration that the paper's values do not depend on: the sample
/// (seed, repetitions, baseline runs) and the lists of what to run (the policies, Figure
/// 3's lags and Table 7's policies), each matched cell by cell with the paper's.
const SAMPLE_AND_LISTS: [&str; 6] = [
    "seed",
    "repetitions",
    "baseline_runs",
    "policies",
    "fig3",
    "table7",
];

/// The parameters of `config` that differ from the paper's evaluation, each as
/// `key value (paper: value)`; empty when the paper's values apply.
pub fn departures(config: &EvalConfig) -> Vec<String> {
    let paper = Evaluation::paper().config().clone();
    let (Ok(mut run), Ok(mut paper)) = (serde_json::to_value(config), serde_json::to_value(paper))
    else {
        return vec!["the configuration (not comparable)".to_owned()];
    };
    for key in SAMPLE_AND_LISTS {
        for value in [&mut run, &mut paper] {
            if let Value::Object(map) = value {
                map.remove(key);
            }
        }
    }
    let mut out = Vec::new();
    differences("", &run, &paper, &mut out);
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
        Value::Number(n) if n.is_f64() => n.as_f64().map_or_else(|| n.to_string(), numbers::plain),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(shown).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Null => "none".to_owned(),
        other => other.to_string(),
    }
}

/// The note printed once above the tables of a run whose parameters are not the paper's.
pub fn note(departures: &[String]) -> Option<String> {
    (!departures.is_empty()).then(|| {
        format!(
            "Paper's values not shown (brackets, Paper columns): they were measured with the \
             paper's parameters, and this run's differ: {}.\n",
            departures.join(", ")
        )
    })
}

/// Every table of the results in the order of `report::text`, with the paper's values
/// if `with_paper`; Figure 3's lags compact.
pub fn tables(results: &EvalResults, with_paper: bool) -> Vec<Table> {
    let has = |experiment: &str| results.cells.iter().any(|c| c.experiment == experiment);
    let mut policies: Vec<&str> = Vec::new();
    for cell in results.cells.iter().filter(|c| c.experiment == "table6") {
        if !policies.contains(&cell.policy.as_str()) {
            policies.push(&cell.policy);
        }
    }
    let mut tables = vec![report::table5(results)];
    tables.extend(policies.iter().map(|p| report::table6(results, p)));
    tables.push(report::efficiency(results));
    if has("fig3") {
        let mut fig3 = report::fig3(results);
        for row in &mut fig3.rows {
            if let Some(lag) = row.first_mut()
                && let Ok(secs) = lag.parse::<f64>()
            {
                *lag = numbers::plain(secs);
            }
        }
        tables.push(fig3);
    }
    if has("table7") {
        tables.push(report::table7(results));
        tables.push(report::figures4to6(results));
    }
    if !with_paper {
        tables = tables.into_iter().map(without_paper).collect();
    }
    tables
}

/// The tables for the terminal: `report::text`'s, with the paper's values only for the
/// paper's parameters, else the note first.
pub fn text(results: &EvalResults) -> String {
    let departures = departures(&results.config);
    let tables = tables(results, departures.is_empty());
    let body: Vec<String> = tables.iter().map(Table::to_text).collect();
    match note(&departures) {
        Some(note) => format!("{note}\n{}", body.join("\n")),
        None => body.join("\n"),
    }
}

/// The Markdown report: `report::markdown`'s, with the paper's values only for the paper's
/// parameters, else the note under the header.
pub fn markdown(results: &EvalResults) -> String {
    let departures = departures(&results.config);
    let full = report::markdown(results);
    let header = full
        .find("### ")
        .map_or(full.as_str(), |start| &full[..start]);
    let tables = tables(results, departures.is_empty());
    let body: Vec<String> = tables.iter().map(Table::to_markdown).collect();
    let note = note(&departures).map_or(String::new(), |note| note + "\n");
    format!("{header}{note}{}", body.join("\n"))
}

/// `table` without the paper's values: its Paper column, the ` (0.64)` after a value,
/// and the title's words on them.
fn without_paper(mut table: Table) -> Table {
    if let Some(column) = table.headers.iter().position(|h| h == "Paper") {
        table.headers.remove(column);
        for row in &mut table.rows {
            row.remove(column);
        }
    }
    for cell in table.rows.iter_mut().flatten() {
        if let Some(value) = without_bracket(cell) {
            *cell = value.to_owned();
        }
    }
    table.title = table
        .title
        .replace("; paper in brackets", "")
        .replace(" (paper in brackets where its text gives a value)", "");
    table
}

/// `cell` without a trailing ` (number)`, if it has one.
fn without_bracket(cell: &str) -> Option<&str> {
    let (value, bracket) = cell.strip_suffix(')')?.rsplit_once(" (")?;
    bracket.parse::<f64>().ok().map(|_| value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bracket_is_taken_off_a_value_and_nothing_else() {
        assert_eq!(without_bracket("0.61 ± 0.05 (0.64)"), Some("0.61 ± 0.05"));
        assert_eq!(
            without_bracket("0.50 ± 1.20 [n=3] (0.48)"),
            Some("0.50 ± 1.20 [n=3]")
        );
        assert_eq!(without_bracket("0.61 ± 0.05"), None);
        assert_eq!(without_bracket("n/a"), None);
        assert_eq!(without_bracket("(mean ± 95% CI)"), None);
    }

    #[test]
    fn the_papers_configuration_has_no_departure_and_a_change_is_named() {
        let mut config = Evaluation::paper().config().clone();
        config.seed = 7;
        config.repetitions = 2;
        config.fig3.lags_secs = vec![60.0];
        assert_eq!(departures(&config), Vec::<String>::new());
        config.sim.workload.reduces = 0;
        config.sim.speculation.lag_secs = 1e308;
        assert_eq!(
            departures(&config),
            [
                "speculation.lag_secs 1e308 (paper: 20)",
                "workload.reduces 0 (paper: 160)",
            ]
        );
    }

    #[test]
    fn the_tables_are_the_reports_and_without_the_paper_lose_only_its_values() {
        use stragglers::sim::Policy;

        let mut evaluation = Evaluation::paper();
        let config = evaluation.config_mut();
        config.repetitions = 1;
        config.baseline_runs = 1;
        config.sim.workload.maps = 16;
        config.sim.workload.reduces = 4;
        config.fig3.lags_secs = vec![60.0];
        config.table7.policies = vec![Policy::X100, Policy::Shared];
        let results = evaluation.run().unwrap();

        let joined = |tables: &[Table], render: fn(&Table) -> String| {
            tables.iter().map(render).collect::<Vec<_>>().join("\n")
        };
        // With the paper's values, the library's report, table for table.
        let with = tables(&results, true);
        assert_eq!(joined(&with, Table::to_text), report::text(&results));
        let full = report::markdown(&results);
        assert!(full.ends_with(&joined(&with, Table::to_markdown)));
        assert!(joined(&with, Table::to_text).contains(" (0.64)"));

        // Without: no Paper column, no bracket, no word on them; the rest as it was.
        let without = tables(&results, false);
        assert_eq!(without.len(), with.len());
        for (bare, full) in without.iter().zip(&with) {
            assert!(!bare.title.contains("paper"), "{}", bare.title);
            assert!(!bare.headers.iter().any(|h| h == "Paper"), "{}", bare.title);
            for (bare_row, full_row) in bare.rows.iter().zip(&full.rows) {
                for cell in bare_row {
                    assert_eq!(without_bracket(cell), None, "{}: {cell}", bare.title);
                    assert!(full_row.iter().any(|c| c.starts_with(cell.as_str())));
                }
            }
        }
        let text = text(&results);
        assert!(text.starts_with("Paper's values not shown"), "{text}");
        assert!(text.contains("workload.maps 16 (paper: 320)"), "{text}");
        assert_eq!(text.matches("Paper's values").count(), 1);
        let markdown = markdown(&results);
        assert!(
            markdown.starts_with("# Evaluation report\n\nSchema"),
            "{markdown}"
        );
        assert!(
            markdown.contains("\n\nPaper's values not shown"),
            "{markdown}"
        );
        assert!(!markdown.contains(" (0.64)"));
    }
}
