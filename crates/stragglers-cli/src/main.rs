//! The `stragglers` command: runs the seed paper's evaluation and prints its tables.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::{Parser, Subcommand};
use stragglers::sim::{DetectorSpec, Evaluation, report};

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
    /// policies x100 and Shared) on the simulator and print its tables.
    Eval {
        /// Repetitions of every cell.
        #[arg(long, default_value_t = 10)]
        repetitions: u32,
        /// Homogeneous baseline runs that give the usual execution times.
        #[arg(long, default_value_t = 10)]
        baseline_runs: u32,
        /// Master seed.
        #[arg(long, default_value_t = 2019)]
        seed: u64,
        /// Write the results (schema stragglers.eval/1) to this file.
        #[arg(long, value_name = "PATH")]
        json: Option<PathBuf>,
        /// Write the tables as a Markdown report to this file.
        #[arg(long, value_name = "PATH")]
        markdown: Option<PathBuf>,
        /// Worker threads (default: one per core). Results do not depend on it.
        #[arg(long)]
        threads: Option<usize>,
    },
    /// List the detectors the evaluation runs.
    Detectors,
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Eval {
            repetitions,
            baseline_runs,
            seed,
            json,
            markdown,
            threads,
        } => {
            if let Some(threads) = threads {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build_global()
                    .context("starting the thread pool")?;
            }
            let mut evaluation = Evaluation::paper();
            let config = evaluation.config_mut();
            config.repetitions = repetitions;
            config.baseline_runs = baseline_runs;
            config.seed = seed;
            let started = Instant::now();
            let results = evaluation.run().context("running the evaluation")?;
            let elapsed = started.elapsed();
            print!("{}", report::text(&results));
            if let Some(path) = json {
                let text = serde_json::to_string_pretty(&results)?;
                std::fs::write(&path, text + "\n")
                    .with_context(|| format!("writing {}", path.display()))?;
            }
            if let Some(path) = markdown {
                std::fs::write(&path, report::markdown(&results))
                    .with_context(|| format!("writing {}", path.display()))?;
            }
            eprintln!(
                "{} cells x {} repetitions in {:.2} s",
                results.cells.len(),
                repetitions,
                elapsed.as_secs_f64()
            );
        }
        Command::Detectors => {
            for spec in DetectorSpec::paper() {
                println!("{:<14} {}", spec.name(), spec.description());
            }
        }
    }
    Ok(())
}
