//! Project automation, the cargo-xtask way. `cargo xtask bench` measures (see `bench`);
//! `cargo xtask eval` runs the paper's evaluation,
//! writes `target/eval/results.json` and `target/eval/report.md`; `--check` compares the
//! results with `fixtures/golden/eval.json` within stated tolerances; `--bless` refreshes
//! the golden file.

mod bench;
mod bench_replay;
mod bench_scans;
mod bench_sim;
mod golden;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use stragglers::sim::{Evaluation, report};

const USAGE: &str = "usage: cargo xtask <eval [--check | --bless] | bench <what> [--json PATH]>

  eval           run the paper's evaluation (Tables 5-7, Figures 3-6), write target/eval/results.json
                 and target/eval/report.md
  eval --check   also compare the results with fixtures/golden/eval.json (CI runs this)
  eval --bless   also overwrite fixtures/golden/eval.json with the results
";

/// Runs the task; an error is printed as its message and causes, without the backtrace
/// that `RUST_BACKTRACE` would add to an `anyhow::Result` returned from `main`.
fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            for cause in error.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["eval"] => eval(Mode::Run),
        ["eval", "--check"] => eval(Mode::Check),
        ["eval", "--bless"] => eval(Mode::Bless),
        ["bench", rest @ ..] => bench::main(rest),
        ["bench-child", rest @ ..] => bench::child(rest),
        [] | ["help" | "--help" | "-h"] => {
            print!("{}", usage());
            Ok(())
        }
        ["eval", other @ ..] => bail!("eval: unexpected {other:?}\n\n{}", usage()),
        [other, ..] => bail!("unknown task {other:?}\n\n{}", usage()),
    }
}

/// The tasks, their options and the benchmarks.
fn usage() -> String {
    format!("{USAGE}{}\n{}\n", bench::USAGE, bench::list())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Run,
    Check,
    Bless,
}

/// The page that shows the evaluation's report between the two markers below.
const DOCS_WITH_REPORT: &str = "docs/simulation.md";
const REPORT_START: &str = "<!-- eval-report:start (cargo xtask eval --bless writes this part) -->";
const REPORT_END: &str = "<!-- eval-report:end -->";

/// `docs` with the part between the report markers replaced by `report`.
fn with_report(docs: &str, report: &str) -> anyhow::Result<String> {
    let (Some(start), Some(end)) = (docs.find(REPORT_START), docs.find(REPORT_END)) else {
        bail!("{DOCS_WITH_REPORT} lacks the markers {REPORT_START} and {REPORT_END}");
    };
    let body = report
        .strip_prefix("# Evaluation report\n\n")
        .unwrap_or(report);
    Ok(format!(
        "{}{REPORT_START}\n\n{body}\n{}",
        &docs[..start],
        &docs[end..]
    ))
}

pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_path_buf()
}

fn eval(mode: Mode) -> anyhow::Result<()> {
    let root = workspace_root();
    let out_dir = root.join("target/eval");
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;

    let started = Instant::now();
    let results = Evaluation::paper()
        .run()
        .context("running the evaluation")?;
    let secs = started.elapsed().as_secs_f64();
    let json = serde_json::to_value(&results)?;
    let text = serde_json::to_string_pretty(&json)? + "\n";
    let results_path = out_dir.join("results.json");
    std::fs::write(&results_path, &text)
        .with_context(|| format!("writing {}", results_path.display()))?;
    let report_path = out_dir.join("report.md");
    std::fs::write(&report_path, report::markdown(&results))
        .with_context(|| format!("writing {}", report_path.display()))?;
    print!("{}", report::text(&results));
    eprintln!(
        "evaluation: {} cells in {secs:.2} s; wrote {} and {}",
        results.cells.len(),
        results_path.display(),
        report_path.display()
    );

    let golden_path = root.join("fixtures/golden/eval.json");
    let docs_path = root.join(DOCS_WITH_REPORT);
    let docs = std::fs::read_to_string(&docs_path)
        .with_context(|| format!("reading {}", docs_path.display()))?;
    let docs_now = with_report(&docs, &report::markdown(&results))?;
    match mode {
        Mode::Run => Ok(()),
        Mode::Bless => {
            std::fs::write(&golden_path, &text)
                .with_context(|| format!("writing {}", golden_path.display()))?;
            std::fs::write(&docs_path, &docs_now)
                .with_context(|| format!("writing {}", docs_path.display()))?;
            eprintln!(
                "blessed {} and the report in {DOCS_WITH_REPORT}",
                golden_path.display()
            );
            Ok(())
        }
        Mode::Check => {
            if docs_now != docs {
                bail!(
                    "the report in {DOCS_WITH_REPORT} is not the one the evaluation prints now.\n\
                     If the change is intended, run `cargo xtask eval --bless` and commit the result."
                );
            }
            let golden_text = std::fs::read_to_string(&golden_path).with_context(|| {
                format!(
                    "reading {} (run `cargo xtask eval --bless` to create it)",
                    golden_path.display()
                )
            })?;
            let golden: serde_json::Value = serde_json::from_str(&golden_text)
                .with_context(|| format!("parsing {}", golden_path.display()))?;
            let differences = golden::compare(&golden, &json);
            if differences.is_empty() {
                eprintln!(
                    "eval --check: results match {} ({})",
                    golden_path.display(),
                    golden::TOLERANCE_TEXT
                );
                Ok(())
            } else {
                for d in differences.iter().take(50) {
                    eprintln!("  {d}");
                }
                if differences.len() > 50 {
                    eprintln!("  ... and {} more", differences.len() - 50);
                }
                bail!(
                    "{} difference(s) between target/eval/results.json and {} ({}).\n\
                     If the change is intended, run `cargo xtask eval --bless` and commit the golden file.",
                    differences.len(),
                    golden_path.display(),
                    golden::TOLERANCE_TEXT
                )
            }
        }
    }
}
