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
mod eval;
mod output;
mod replay;
mod replay_intervals;
mod replay_speculation;
mod simulate;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use stragglers::sim::DetectorSpec;

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
    /// Run the paper's evaluation (Tables 5 and 6: C1..C4 x Default, Hierarchical, LATE and
    /// the oracle, policies x100 and Shared; Figure 3: Default's Fake Positive against the
    /// lag; Table 7, Figures 4-6 and Section 7.3's comparisons: six reservation policies in
    /// C2) on the simulator and print its tables.
    Eval(eval::EvalArgs),
    /// List the detectors `eval --detectors all` runs, the paper's three first, the oracle
    /// last: each with the commands that run it and its rule. With names, those detectors
    /// and each one's parameters, which a command's `--detectors` sets in parentheses
    /// (`late(alpha = 0.5)`). `simulate --detector none` and `replay --detectors recorded`
    /// are no detectors: neither is listed, and naming one here says so.
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
        Command::Eval(args) => eval::run(args)?,
        Command::Replay(args) => replay::run(args)?,
        Command::Simulate(args) => simulate::run(args)?,
        Command::Detectors { names } if names.is_empty() => {
            output::print(&detectors_listing(&DetectorSpec::all_and_oracle(), false))?;
        }
        Command::Detectors { names } => {
            let specs = eval::detectors_of("stragglers detectors", &names.join(","))?;
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
            for key in spec.unset_params() {
                listing += &format!("    {key} (not set)\n");
            }
        }
    }
    listing
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
