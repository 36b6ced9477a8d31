//! `cargo xtask bench <what> [--json PATH]`: re-measurable figures for the issues' targets.
//!
//! Each benchmark is a module with a `run(json: Option<&Path>)` entry point. Work whose peak
//! memory matters runs in a child process ([`in_child`]): this binary again, with the hidden
//! command `bench-child`, which does the work and reports its own peak resident set
//! ([`peak_rss_bytes`]) on its last line of standard output.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};

use crate::{bench_replay, bench_scans, bench_sim};

pub const USAGE: &str = "  bench <what> [--json PATH] [--only NAMES] [--numpy] [--unpinned]
                 measure and print figures; --json also writes them to PATH;
                 --only (scans) measures the comma-separated detectors NAMES only;
                 --numpy (scans) times numpy's Default, LATE and Hierarchical beside
                 them (needs python3 with numpy);
                 --unpinned (scans) leaves rayon's threads where the OS puts them,
                 rather than one on each core.
                 <what>: one of the benchmarks below";

/// The benchmarks `cargo xtask bench` knows: name, one line on what it measures.
const BENCHMARKS: &[(&str, &str)] = &[
    (
        "sim",
        "the simulator: the paper's evaluation matrix, wall time and peak memory",
    ),
    (
        "replay",
        "the trace readers: MB/s and peak memory on generated and real logs",
    ),
    (
        "scans",
        "one scan of every detector, ns per running task, beside a pass over its columns",
    ),
];

/// Parses `<what> [--json PATH]` (and the options of `scans`) and runs that benchmark.
pub fn main(args: &[&str]) -> anyhow::Result<()> {
    let Some((what, mut rest)) = args.split_first() else {
        bail!("bench: which one? {}", known());
    };
    let (mut json, mut only, mut numpy, mut pinned) = (None, None, false, true);
    loop {
        match rest {
            [] => break,
            ["--json", path, more @ ..] => (json, rest) = (Some(PathBuf::from(path)), more),
            ["--only", names, more @ ..] if *what == "scans" => {
                (only, rest) = (Some(names.split(',').collect::<Vec<_>>()), more);
            }
            ["--numpy", more @ ..] if *what == "scans" => (numpy, rest) = (true, more),
            ["--unpinned", more @ ..] if *what == "scans" => (pinned, rest) = (false, more),
            _ => bail!(
                "bench {what}: expected [--json PATH] (scans: [--only NAMES] [--numpy] \
                 [--unpinned]), got {rest:?}"
            ),
        }
    }
    if let Some(path) = &json {
        check_json_path(path)?;
    }
    match *what {
        "sim" => bench_sim::run(json.as_deref()),
        "replay" => bench_replay::run(json.as_deref()),
        "scans" => bench_scans::run(json.as_deref(), only.as_deref(), numpy, pinned),
        other => bail!("bench: unknown benchmark {other:?}; {}", known()),
    }
}

/// The hidden `bench-child <what> <args...>`: runs the work in this process, then prints
/// `peak_rss_bytes N` as its last line.
pub fn child(args: &[&str]) -> anyhow::Result<()> {
    let Some((what, rest)) = args.split_first() else {
        bail!("bench-child: which work?");
    };
    match *what {
        "sim" => bench_sim::child(rest)?,
        "replay" => bench_replay::child(rest)?,
        other => bail!("bench-child: unknown work {other:?}"),
    }
    println!("peak_rss_bytes {}", peak_rss_bytes()?);
    Ok(())
}

/// The benchmarks, one per line, as `USAGE` lists them.
pub fn list() -> String {
    BENCHMARKS
        .iter()
        .map(|(name, what)| format!("    {name:<11}{what}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn known() -> String {
    let names: Vec<&str> = BENCHMARKS.iter().map(|(name, _)| *name).collect();
    format!("known: {}", names.join(", "))
}

/// What a child run measured: its wall time from spawn to exit, its peak resident set, and
/// everything it printed before the peak line.
#[derive(Debug, Clone)]
pub struct Measured {
    pub wall_secs: f64,
    pub peak_rss_bytes: u64,
    pub stdout: String,
}

/// Runs `xtask bench-child <args...>` (this same binary) and measures it.
pub fn in_child(args: &[&str]) -> anyhow::Result<Measured> {
    let exe = std::env::current_exe().context("finding the xtask binary")?;
    let started = Instant::now();
    let output = Command::new(&exe)
        .arg("bench-child")
        .args(args)
        .output()
        .with_context(|| format!("running {} bench-child {args:?}", exe.display()))?;
    let wall_secs = started.elapsed().as_secs_f64();
    if !output.status.success() {
        bail!(
            "bench-child {args:?} failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let stdout = String::from_utf8(output.stdout).context("bench-child printed non-UTF-8")?;
    let (body, last) = stdout
        .trim_end()
        .rsplit_once('\n')
        .unwrap_or(("", stdout.trim_end()));
    let peak_rss_bytes = last
        .strip_prefix("peak_rss_bytes ")
        .and_then(|n| n.parse().ok())
        .with_context(|| format!("bench-child {args:?} did not end with its peak memory"))?;
    Ok(Measured {
        wall_secs,
        peak_rss_bytes,
        stdout: body.to_string(),
    })
}

/// This process's peak resident set in bytes (`VmHWM` in `/proc/self/status`, Linux).
pub fn peak_rss_bytes() -> anyhow::Result<u64> {
    let status =
        std::fs::read_to_string("/proc/self/status").context("reading /proc/self/status")?;
    parse_vm_hwm(&status).context("no VmHWM line in /proc/self/status")
}

fn parse_vm_hwm(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line
        .trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// Refuses, before a benchmark runs rather than after, a `--json` path that cannot be
/// written: a directory, or one under a file. A missing folder is fine (`write_json`
/// creates it).
fn check_json_path(path: &Path) -> anyhow::Result<()> {
    if path.is_dir() {
        bail!("--json {}: is a directory", path.display());
    }
    if let Some(file) = path.ancestors().skip(1).find(|a| a.is_file()) {
        bail!("--json {}: {} is a file", path.display(), file.display());
    }
    Ok(())
}

/// Writes `value` as pretty JSON to `path`, creating its folder.
pub fn write_json(path: &Path, value: &serde_json::Value) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(value)? + "\n";
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{check_json_path, parse_vm_hwm};

    #[test]
    fn a_json_path_is_refused_at_a_directory_or_under_a_file() {
        let dir = std::env::temp_dir().join(format!("xtask-json-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("file");
        std::fs::write(&file, "").unwrap();
        assert!(check_json_path(&dir).is_err());
        assert!(check_json_path(&file.join("out.json")).is_err());
        assert!(check_json_path(&file).is_ok());
        assert!(check_json_path(&dir.join("new/out.json")).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn vm_hwm_is_read_in_kib() {
        let status = "Name:\txtask\nVmPeak:\t  20000 kB\nVmHWM:\t    5120 kB\nVmRSS:\t 4000 kB\n";
        assert_eq!(parse_vm_hwm(status), Some(5120 * 1024));
        assert_eq!(parse_vm_hwm("Name:\txtask\n"), None);
    }

    #[test]
    fn own_peak_is_positive() {
        assert!(super::peak_rss_bytes().expect("linux") > 0);
    }
}
