//! Runs the `stragglers` binary as a user would.

mod common;

use common::{TempDir, stragglers};
use std::process::Command;

/// The standard output of a run that must succeed (its standard error in the failure).
fn stragglers_ok(args: &[&str]) -> String {
    let output = stragglers(args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

#[test]
fn eval_prints_the_tables_and_writes_the_results() {
    let dir = TempDir::new("cli-test");
    let json_path = dir.join("results.json");
    let markdown_path = dir.join("report.md");
    let stdout = stragglers_ok(&[
        "eval",
        "--repetitions",
        "2",
        "--baseline-runs",
        "2",
        "--policies",
        "x100",
        "--no-fig3",
        "--no-table7",
        "--json",
        json_path.to_str().unwrap(),
        "--markdown",
        markdown_path.to_str().unwrap(),
    ]);
    assert!(stdout.contains("Table 5."), "{stdout}");
    assert!(
        stdout.contains("Table 6. Characteristics of the detectors, policy x100"),
        "{stdout}"
    );
    assert!(!stdout.contains("policy shared"));
    // The paper's parameters (but the sample's size): its values in brackets.
    assert!(stdout.contains("paper in brackets"), "{stdout}");
    assert!(stdout.contains(" (0.64)"), "{stdout}");
    assert!(stdout.contains("Paper"), "{stdout}");
    assert!(!stdout.contains("values not shown"), "{stdout}");

    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(results["schema"], "stragglers.eval/1");
    assert_eq!(results["baseline"]["runs"], 2);
    let cells = results["cells"].as_array().unwrap();
    assert_eq!(
        cells.len(),
        4 * 4,
        "four scenarios, the paper's three detectors and the oracle, one policy"
    );
    assert!(
        cells
            .iter()
            .all(|c| c["repetitions"] == 2 && c["policy"] == "x100")
    );
    let markdown = std::fs::read_to_string(&markdown_path).unwrap();
    assert!(markdown.starts_with("# Evaluation report"));
}

#[test]
fn eval_runs_figure_3_and_table_7_with_the_copy_controls() {
    let dir = TempDir::new("cli-s7");
    let json_path = dir.join("results.json");
    let stdout = stragglers_ok(&[
        "eval",
        "--repetitions",
        "1",
        "--baseline-runs",
        "1",
        "--policies",
        "x100",
        "--fig3-lags",
        "0,60",
        "--table7-policies",
        "x100,x50",
        "--killed-original-time",
        "exact",
        "--hadoop-caps",
        "--launches-per-scan",
        "1",
        "--json",
        json_path.to_str().unwrap(),
    ]);
    assert!(stdout.contains("Figure 3."), "{stdout}");
    assert!(stdout.contains("Table 7."), "{stdout}");
    assert!(stdout.contains("Figures 4-6."), "{stdout}");
    // Other parameters than the paper's: its values left out, and said why, once.
    let note = "Paper's values not shown (brackets, Paper columns): they were measured with \
                the paper's parameters, and this run's differ: ";
    assert!(stdout.starts_with(note), "{stdout}");
    assert_eq!(stdout.matches("values not shown").count(), 1);
    for key in [
        "killed_original_time \"exact\"",
        "copies.caps",
        "copies.launches_per_scan 1",
    ] {
        assert!(stdout.lines().next().unwrap().contains(key), "{stdout}");
    }
    assert!(!stdout.contains("paper in brackets"), "{stdout}");
    let tables = stdout.split_once('\n').unwrap().1;
    assert!(
        !tables.contains(" (0.64)") && !tables.contains("Paper"),
        "{stdout}"
    );
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    let cells = results["cells"].as_array().unwrap();
    let count = |e: &str| cells.iter().filter(|c| c["experiment"] == e).count();
    assert_eq!(count("table6"), 4 * 4);
    assert_eq!(count("fig3"), 4 * 2, "four scenarios, two lags");
    assert_eq!(count("table7"), 2 * 4, "two policies, four detectors");
    let cell = &cells[cells.len() - 1];
    assert_eq!(cell["params"]["killed_original_time"], "exact");
    assert_eq!(cell["params"]["copies"]["launches_per_scan"], 1);
    assert_eq!(cell["params"]["copies"]["caps"]["minimum_allowed"], 10);

    let output = stragglers(&["eval", "--blacklist", "20", "--repetitions", "1"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("copies.placement.blacklist"), "{stderr}");
}

#[test]
fn eval_runs_the_detectors_named() {
    let stdout = stragglers_ok(&[
        "eval",
        "--detectors",
        "default,default(gap = 0.1),oracle",
        "--no-fig3",
        "--no-table7",
        "--repetitions",
        "1",
        "--baseline-runs",
        "2",
    ]);
    // The rows' words (scenario, policy, mechanism, figures): the two named, no other.
    let words: std::collections::BTreeSet<&str> = stdout
        .lines()
        .filter(|line| line.starts_with('C'))
        .flat_map(str::split_whitespace)
        .collect();
    for named in ["default", "default(gap=0.1)", "oracle"] {
        assert!(words.contains(named), "{stdout}");
    }
    for other in ["late", "hierarchical"] {
        assert!(!words.contains(other), "{stdout}");
    }
}

#[test]
fn bad_arguments_are_refused_with_a_reason() {
    let output = stragglers(&["eval", "--policies", "x7x"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--policies: unknown policy \"x7x\""),
        "{stderr}"
    );

    // `--detector` is `--detectors`, as in `simulate` and `replay`.
    for flag in ["--detectors", "--detector"] {
        let output = stragglers(&["eval", flag, "default,nope"]);
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("--detectors: unknown detector \"nope\""),
            "{stderr}"
        );
    }

    // A policy's N is a share of the cluster's containers.
    let output = stragglers(&["eval", "--policies", "x0"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("the cluster's containers"), "{stderr}");

    let output = stragglers(&[
        "eval",
        "--lag-secs=-5",
        "--repetitions",
        "1",
        "--baseline-runs",
        "1",
    ]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--lag-secs: invalid configuration: sim.speculation.lag_secs"),
        "{stderr}"
    );

    let output = stragglers(&["eval", "--json", "same.out", "--markdown", "same.out"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the same file as --json same.out"),
        "{stderr}"
    );
}

#[test]
fn detectors_named_are_listed_with_their_parameters() {
    let stdout = stragglers_ok(&["detectors", "late(alpha = 0.5)", "spark-legacy"]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("late(alpha=0.5)  "), "{stdout}");
    assert!(
        lines[0].contains("  set alpha=0.5; the preset: "),
        "{stdout}"
    );
    assert_eq!(
        lines[1..3],
        ["    alpha = 0.5", "    parallelism.auto.min_rows = 262144"]
    );
    assert!(lines[3].starts_with("spark-legacy  "), "{stdout}");
    for set in [
        "multiplier = 1.5",
        "quantile = 0.75",
        "min_task_runtime_secs = 0.1",
    ] {
        assert!(
            lines[4..].contains(&format!("    {set}").as_str()),
            "{stdout}"
        );
    }
    // A parameter that may be left unset is listed as such.
    let dsb = stragglers_ok(&["detectors", "dsb"]);
    assert!(dsb.contains("\n    blacklist_size (not set)\n"), "{dsb}");
    let output = stragglers(&["detectors", "late(alpha = -1)"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("stragglers detectors: \"late(alpha = -1)\"")
            && stderr.contains("detector late: parameter alpha = -1: must be finite and >= 0"),
        "{stderr}"
    );
}

#[test]
fn detectors_are_listed_one_per_line() {
    let output = stragglers(&["detectors"]);
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let names: Vec<&str> = stdout
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "default",
            "hierarchical",
            "late",
            "hadoop1",
            "hadoop-legacy",
            "hadoop-exp-smoothed",
            "hadoop-simple-exp",
            "spark",
            "spark-legacy",
            "late-zaharia",
            "esplash",
            "dsb",
            "dsb-top3",
            "dsb-yarn",
            "garraghan",
            "garraghan-offline",
            "garraghan-online",
            "dos-index",
            "dos-index-10",
            "oracle",
        ]
    );
}

#[test]
fn simulate_runs_a_preset_and_writes_its_summary() {
    let dir = TempDir::new("sim-test");
    let json_path = dir.join("summary.json");
    let stdout = stragglers_ok(&[
        "simulate",
        "--preset",
        "paper",
        "--detector",
        "late",
        "--seed",
        "3",
        "--json",
        json_path.to_str().unwrap(),
    ]);
    assert!(stdout.contains("20 nodes, 1 job, 480 tasks"), "{stdout}");
    let document: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(document["schema"], "stragglers.simulate/1");
    assert_eq!(document["scenario"], "paper");
    assert_eq!(document["seed"], 3);
    let summary = &document["runs"][0];
    assert_eq!(summary["tasks"], 480);
    assert_eq!(summary["detector"], "late");
    assert_eq!(summary["seed"], 3);
}

#[test]
fn simulate_runs_several_detectors_side_by_side() {
    let dir = TempDir::new("sim-many");
    let json_path = dir.join("summaries.json");
    let run = |detectors: &str, json: Option<&str>| {
        let mut args = vec!["simulate", "--preset", "paper", "--seed", "3"];
        args.extend(["--detector", detectors]);
        if let Some(path) = json {
            args.extend(["--json", path]);
        }
        stragglers_ok(&args)
    };
    let both = run("late,none", Some(json_path.to_str().unwrap()));
    // The summaries in the order given, each as a run of that detector alone prints it.
    assert_eq!(both, run("late", None) + &run("none", None));
    let document: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    let summaries = &document["runs"];
    assert_eq!(summaries[0]["detector"], "late");
    assert_eq!(summaries[1]["detector"], "none");
    // A tuned detector's run is named as it was asked, not as its preset.
    let tuned = run("late,late(alpha = 0.5)", Some(json_path.to_str().unwrap()));
    let document: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(document["runs"][0]["detector"], "late");
    assert_eq!(document["runs"][1]["detector"], "late(alpha=0.5)");
    assert_eq!(document["detectors"][1]["name"], "late(alpha=0.5)");
    assert_eq!(document["detectors"][1]["params"]["alpha"], 0.5);
    assert_eq!(document["detectors"][0]["params"]["alpha"], 1.0);
    assert_ne!(document["runs"][0], document["runs"][1]);
    assert!(tuned.contains("late(alpha=0.5)"), "{tuned}");
    let output = stragglers(&["simulate", "--preset", "paper", "--detector", "late,nope"]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("\"nope\""));
    // `--detectors` is `--detector`, as in `eval` and `replay`.
    let plural = stragglers_ok(&[
        "simulate",
        "--preset",
        "paper",
        "--seed",
        "3",
        "--detectors",
        "late",
    ]);
    assert_eq!(plural, run("late", None));
    // `all`: every detector `stragglers detectors` lists but the oracle, each once, after
    // those named before it.
    let listed = stragglers_ok(&["detectors"]);
    let mut expected: Vec<&str> = vec!["none", "late"];
    for name in listed
        .lines()
        .filter_map(|line| line.split_whitespace().next())
    {
        if !["late", "oracle"].contains(&name) {
            expected.push(name);
        }
    }
    let every = run("none, late,all,none", None);
    let ran: Vec<&str> = every
        .lines()
        .filter_map(|line| line.strip_prefix("scenario      paper (seed 3, detector "))
        .map(|rest| rest.trim_end_matches(')'))
        .collect();
    assert_eq!(ran, expected);
}

#[test]
fn simulate_names_the_bad_key_of_a_scenario_file() {
    let dir = TempDir::new("sim-bad");
    let path = dir.join("bad.toml");
    std::fs::write(&path, "name = \"bad\"\n[cluster]\nnodes = 4\nnodez = 5\n").unwrap();
    let output = stragglers(&["simulate", "--scenario-file", path.to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad.toml"), "{stderr}");
    assert!(stderr.contains("cluster.nodez"), "{stderr}");
    let output = stragglers(&["simulate", "--preset", "nope"]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("datacenter"));

    // `--json` naming the scenario file (however written) would overwrite it: refused
    // before the run, the file kept.
    let path = dir.join("kept.toml");
    std::fs::write(&path, "name = \"kept\"\n[cluster]\nnodes = 4\n").unwrap();
    let same = dir.join(".").join("kept.toml");
    let output = stragglers(&[
        "simulate",
        "--scenario-file",
        path.to_str().unwrap(),
        "--json",
        same.to_str().unwrap(),
    ]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the same file as --scenario-file"),
        "{stderr}"
    );
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .starts_with("name = \"kept\"")
    );
}

#[test]
fn errors_are_printed_without_a_backtrace_with_their_causes() {
    let run = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_stragglers"))
            .args(args)
            .env("RUST_BACKTRACE", "1")
            .env("RUST_LIB_BACKTRACE", "1")
            .output()
            .expect("the binary runs");
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        String::from_utf8(output.stderr).expect("UTF-8 output")
    };
    let stderr = run(&["simulate", "--preset", "nope"]);
    assert!(
        stderr.starts_with("error: unknown scenario preset \"nope\""),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // A context and its cause, one line each; an output path that cannot be written is
    // refused before the run.
    let dir = std::env::temp_dir().join(format!("stragglers-no-such-dir-{}", std::process::id()));
    let missing = dir.join("out.json");
    let json = missing.to_str().unwrap();
    for args in [
        &["simulate", "--preset", "paper", "--json", json][..],
        &["eval", "--repetitions", "1", "--json", json],
        &["replay", "no-such-log", "--json", json],
    ] {
        let stderr = run(args);
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 2, "{stderr}");
        assert_eq!(
            lines[0],
            format!("error: --json {json}: no directory {}", dir.display())
        );
        assert!(lines[1].starts_with("  caused by: "), "{stderr}");
    }
    assert!(!stderr.contains("acktrace"), "{stderr}");
}

#[test]
fn eval_count_flags_above_their_limits_are_refused() {
    for (flag, value, range) in [
        ("--repetitions", "4294967295", "1..=1000"),
        ("--repetitions", "1001", "1..=1000"),
        ("--baseline-runs", "1001", "1..=1000"),
        ("--maps", "1000001", "1..=1000000"),
        ("--reduces", "1000001", "0..=1000000"),
        ("--threads", "1025", "1..=1024"),
        ("--threads", "0", "1..=1024"),
    ] {
        // The bad policy is refused after the flags are parsed: were the count let
        // through, the run would stop there, not start the evaluation.
        let output = stragglers(&["eval", flag, value, "--policies", "x7x"]);
        assert!(!output.status.success(), "{flag} {value}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("invalid value '{value}' for '{flag} "))
                && stderr.contains(&format!("{value} is not in {range}")),
            "{flag} {value}: {stderr}"
        );
    }
    // A product of counts is refused before any run, naming the keys the flags set (the
    // bad lag is refused when the cells are planned, later, before any run).
    let output = stragglers(&[
        "eval",
        "--maps",
        "1000000",
        "--baseline-runs",
        "100",
        "--fig3-lags",
        "-5",
    ]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("baseline_runs * (sim.workload.maps + sim.workload.reduces) = 100016000")
            && stderr.contains("must be at most 20000000"),
        "{stderr}"
    );
}

/// The part of docs/simulation.md between `<!-- {marker}:start -->` and its end.
fn docs_section(marker: &str) -> String {
    let doc = include_str!("../../../docs/simulation.md");
    let start = format!("<!-- {marker}:start -->\n");
    let (_, rest) = doc.split_once(&start).expect("the start marker");
    let end = format!("<!-- {marker}:end -->");
    rest.split_once(&end).expect("the end marker").0.to_owned()
}

/// The dotted keys of `value` under `path`: an object's keys, an array of objects' keys as
/// `key[i].inner`, anything else (an array of numbers too) a key of its own.
fn key_paths(path: &str, value: &serde_json::Value, out: &mut Vec<String>) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                let at = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                key_paths(&at, inner, out);
            }
        }
        Value::Array(items) if items.first().is_some_and(Value::is_object) => {
            key_paths(&format!("{path}[i]"), &items[0], out);
        }
        _ => out.push(path.to_owned()),
    }
}

#[test]
fn every_scenario_key_is_in_the_docs_reference_and_the_reference_has_no_other() {
    use stragglers::sim::ScenarioSpec;
    use stragglers::sim::causes::{
        Causes, Episode, Failure, Levels, ReducePhases, RootCauseMix, Skew, WeakNodes,
    };

    // Every optional table and array of tables present, so that their keys are listed.
    let spec = ScenarioSpec {
        causes: Causes {
            episodes: vec![Episode {
                node: 0,
                start_secs: 0.0,
                duration_secs: 1.0,
                background_tasks: 1,
            }],
            failures: vec![Failure {
                node: 0,
                at_secs: 0.0,
                down_secs: 1.0,
            }],
            levels: Some(Levels {
                containers: vec![8],
            }),
            weak_nodes: Some(WeakNodes::default()),
            skew: Some(Skew::default()),
            mix: Some(RootCauseMix::default()),
            reduce_phases: Some(ReducePhases::default()),
        },
        ..ScenarioSpec::paper()
    };
    let mut keys = Vec::new();
    key_paths("", &serde_json::to_value(&spec).unwrap(), &mut keys);
    assert!(keys.len() > 50, "{keys:?}");
    let reference = docs_section("scenario-keys");
    let missing: Vec<&String> = (keys.iter())
        .filter(|key| !reference.contains(&format!("\n| `{key}` |")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/simulation.md, Scenario files: no row for {missing:?}"
    );
    let rows: Vec<&str> = (reference.lines())
        .filter_map(|line| line.strip_prefix("| `")?.split_once("` |").map(|(k, _)| k))
        .collect();
    assert_eq!(rows.len(), keys.len(), "one row per key: {rows:?}");
    for row in rows {
        assert!(
            keys.iter().any(|k| k == row),
            "{row} is no key of ScenarioSpec"
        );
    }
}

#[test]
fn the_docs_minimal_scenario_is_the_fixture_and_it_parses_and_runs() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/scenarios/minimal.toml"
    );
    let fixture = std::fs::read_to_string(path).unwrap();
    let shown = docs_section("scenario-minimal");
    assert_eq!(shown, format!("```toml\n{fixture}```\n"));
    let spec = stragglers::sim::ScenarioSpec::from_toml_str(&fixture, "minimal.toml").unwrap();
    assert_eq!(spec.name, "minimal");
    assert_eq!(spec.cluster.nodes, 4);
    let stdout = stragglers_ok(&["simulate", "--scenario-file", path, "--detector", "none"]);
    assert!(stdout.starts_with("scenario      minimal (seed 2019, detector none)\n"));

    // Without the [cluster] table: the error the docs quote.
    let dir = TempDir::new("min");
    let bare = dir.join("min.toml");
    std::fs::write(&bare, "name = \"min\"\n").unwrap();
    let output = stragglers(&["simulate", "--scenario-file", bare.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("key `cluster`: missing field `cluster`"),
        "{stderr}"
    );
}

/// A reader that closes its end at once (`| head` done) is no failure: the command stops
/// writing without a panic, on standard output and, with `2>&1`, on its notes.
#[cfg(unix)]
#[test]
fn a_closed_pipe_is_no_panic() {
    let bin = env!("CARGO_BIN_EXE_stragglers");
    for redirect in ["", "2>&1"] {
        // The command's own exit status, not the reader's.
        let script = format!(
            "'{bin}' detectors {redirect} | {{ exec 0<&-; sleep 0.3; }}; \
             echo ${{PIPESTATUS[0]}} >&2"
        );
        let output = Command::new("bash").args(["-c", &script]).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(stderr.lines().last(), Some("0"), "{redirect}: {stderr}");
    }
}

#[test]
fn eval_reads_an_evaluation_file_and_the_flags_change_it() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/eval/forty-workers.toml"
    );
    let stdout = stragglers_ok(&[
        "eval",
        "--config",
        file,
        "--repetitions",
        "1",
        "--baseline-runs",
        "2",
        "--policies",
        "x100",
        "--json",
        "-",
    ]);
    let results: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let config = &results["config"];
    assert_eq!(config["sim"]["platform"]["workers"], 40);
    assert_eq!(config["sim"]["workload"]["maps"], 640);
    assert_eq!(config["repetitions"], 1);
    assert_eq!(config["baseline_runs"], 2);
    // The file's two policies, replaced by the flag's one.
    assert_eq!(
        config["policies"],
        serde_json::json!([{"reserved": {"regular_percent": 100}}])
    );
    let scenarios: std::collections::BTreeSet<&str> = (results["cells"].as_array().unwrap())
        .iter()
        .map(|cell| cell["scenario"].as_str().unwrap())
        .collect();
    assert_eq!(
        scenarios,
        ["half-at-two-cores", "one-in-ten-at-one-core"].into()
    );
    // The file's detectors (the paper's, and its own LATE), each once, with its parameters.
    let detectors: Vec<&str> = (results["detectors"].as_array().unwrap())
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        detectors,
        [
            "default",
            "hierarchical",
            "late",
            "oracle",
            "late(alpha=0.5)"
        ]
    );
    assert_eq!(results["detectors"][1]["params"]["node_threshold"], 0.9);
    assert_eq!(results["detectors"][3]["params"]["fraction"], 0.1);
    assert_eq!(results["detectors"][4]["params"]["alpha"], 0.5);

    // A file the evaluation refuses: the file, line and key.
    let dir = TempDir::new("eval-file");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[sim.platform]\nworkers = 0\n").unwrap();
    let output = stragglers(&["eval", "--config", bad.to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "{}: line 2: key `sim.platform.workers`: 0: must be",
            bad.display()
        )),
        "{stderr}"
    );
    // A value the file gives is the file's error, at its line, even where a flag could set
    // it; a flag's value is the flag's; a flag may mend the file.
    std::fs::write(&bad, "[sim.speculation]\nlag_secs = -1\n").unwrap();
    let output = stragglers(&["eval", "--config", bad.to_str().unwrap(), "--print-config"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("line 2: key `sim.speculation.lag_secs`: -1: must be >= 0"),
        "{stderr}"
    );
    let mended = [
        "eval",
        "--config",
        bad.to_str().unwrap(),
        "--lag-secs",
        "30",
        "--print-config",
    ];
    assert!(stragglers_ok(&mended).contains("lag_secs = 30.0"));
    let output = stragglers(&["eval", "--config", file, "--lag-secs=-2", "--print-config"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("error: --lag-secs: invalid configuration"),
        "{stderr}"
    );
    // An item of a list a flag gave, and a count of an expression a flag changed.
    for (flags, blamed) in [
        (
            &["--fig3-lags", "0,0"][..],
            "error: --fig3-lags: invalid configuration: fig3.lags_secs[1]",
        ),
        // A negative first item is the list's, not a flag.
        (
            &["--fig3-lags", "-20,40"][..],
            "error: --fig3-lags: invalid configuration: fig3.lags_secs[0]",
        ),
        (
            &["--policies", "x90,x90"][..],
            "error: --policies: invalid configuration: policies[1]",
        ),
        (
            &["--maps", "1000000", "--baseline-runs", "30"][..],
            "error: --baseline-runs, --maps (with --config): invalid configuration: baseline_runs * ",
        ),
    ] {
        let mut args = vec!["eval", "--config", file, "--print-config"];
        args.extend(flags);
        let output = stragglers(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(blamed), "{flags:?}: {stderr}");
    }
    // Figure 3's detector is checked before anything runs, at its line.
    std::fs::write(&bad, "[fig3]\ndetector = \"nope\"\n").unwrap();
    let output = stragglers(&["eval", "--config", bad.to_str().unwrap(), "--print-config"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("line 2: key `fig3.detector`: \"nope\": must be the name of a detector"),
        "{stderr}"
    );
    // A switch keeps what the file sets under it.
    std::fs::write(&bad, "[sim.copies.caps]\nminimum_allowed = 3\n").unwrap();
    let caps = stragglers_ok(&[
        "eval",
        "--config",
        bad.to_str().unwrap(),
        "--hadoop-caps",
        "--print-config",
    ]);
    assert!(caps.contains("minimum_allowed = 3\n"), "{caps}");
    // The results never overwrite the file they come from.
    let output = stragglers(&["eval", "--config", file, "--json", file]);
    assert!(!output.status.success());
}

#[test]
fn print_config_writes_an_evaluation_file_that_reads_back_the_same() {
    let printed = stragglers_ok(&[
        "eval",
        "--print-config",
        "--lag-secs",
        "40",
        "--policies",
        "x90,shared",
    ]);
    assert!(printed.contains("lag_secs = 40.0"), "{printed}");
    assert!(
        printed.contains("policies = [\"x90\", \"shared\"]"),
        "{printed}"
    );
    let dir = TempDir::new("print-config");
    let file = dir.join("printed.toml");
    std::fs::write(&file, &printed).unwrap();
    let again = stragglers_ok(&["eval", "--config", file.to_str().unwrap(), "--print-config"]);
    assert_eq!(again, printed);
    // The paper's configuration when nothing is given, which the file's keys change.
    let paper = stragglers_ok(&["eval", "--print-config"]);
    assert_ne!(paper, printed);
    assert!(paper.contains("lag_secs = 20.0"), "{paper}");
    // A file that writes a policy as the results document does is printed by name.
    let structured = dir.join("structured.toml");
    std::fs::write(
        &structured,
        "policies = [{ reserved = { regular_percent = 75 } }, \"shared\"]\n\
         [sim.speculation.policy.reserved]\nregular_percent = 100\n",
    )
    .unwrap();
    let structured = structured.to_str().unwrap();
    let by_name = stragglers_ok(&[
        "eval",
        "--config",
        structured,
        "--no-table7",
        "--print-config",
    ]);
    assert!(
        by_name.contains("\npolicies = [\"x75\", \"shared\"]\n"),
        "{by_name}"
    );
    assert!(by_name.contains("\n[table7]\npolicies = []\n"), "{by_name}");
    assert!(!by_name.contains("regular_percent"), "{by_name}");
}

#[test]
fn print_config_writes_the_policies_by_name() {
    let paper = stragglers_ok(&["eval", "--print-config"]);
    for line in [
        "\npolicies = [\"x100\", \"shared\"]\n",
        "\npolicy = \"x100\"\n",
        "\n[table7]\npolicies = [\"x100\", \"x95\", \"x90\", \"x75\", \"x50\", \"shared\"]\n",
    ] {
        assert!(paper.contains(line), "{line:?} in {paper}");
    }
    assert!(!paper.contains("regular_percent"), "{paper}");
    assert!(!paper.contains("reserved"), "{paper}");
    // The keys keep the configuration's order, the policies' too.
    assert!(
        paper.starts_with("seed = 2019\nrepetitions = 10\n"),
        "{paper}"
    );
    assert!(
        paper.contains("per_attempt_reports = false\npolicy = \"x100\"\nwait_for_pending_tasks = false\n\n[sim.copies]\n"),
        "{paper}"
    );
    // So with lists of `xN` alone, which TOML writes as arrays of tables after the values.
    let reserved = stragglers_ok(&[
        "eval",
        "--print-config",
        "--policies",
        "x95",
        "--table7-policies",
        "x95,x50",
    ]);
    assert!(
        reserved.contains(
            "table5_quantiles = [0.25, 0.5, 0.6, 0.7, 0.9]\npolicies = [\"x95\"]\nkilled_original_time = "
        ),
        "{reserved}"
    );
    assert!(
        reserved.contains("\n[table7]\npolicies = [\"x95\", \"x50\"]\n"),
        "{reserved}"
    );
}

#[test]
fn an_evaluation_file_names_its_detectors() {
    let dir = TempDir::new("file-detectors");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let line = |printed: &str| -> String {
        let found = printed.lines().find(|l| l.starts_with("detectors = "));
        found
            .unwrap_or_else(|| panic!("no detectors in {printed}"))
            .to_owned()
    };
    // The paper's, printed by their names, when neither the file nor the flag names any.
    let paper = stragglers_ok(&["eval", "--print-config"]);
    assert_eq!(
        line(&paper),
        "detectors = [\"default\", \"hierarchical\", \"late\", \"oracle\"]"
    );
    // The file's, groups and parameters as `--detectors` takes them, and printed so that
    // they read back the same.
    let file = write(
        "detectors.toml",
        "seed = 3\ndetectors = [\"spark\", \"late(alpha = 0.5, )\", \"paper\"]\n",
    );
    let printed = stragglers_ok(&["eval", "--config", &file, "--print-config"]);
    let expected = "detectors = [\"spark\", \"late(alpha=0.5)\", \"default\", \"hierarchical\", \"late\", \"oracle\"]";
    assert_eq!(line(&printed), expected);
    let again = write("printed.toml", &printed);
    let reprinted = stragglers_ok(&["eval", "--config", &again, "--print-config"]);
    assert_eq!(reprinted, printed);
    // The flag replaces the file's list.
    let flag = stragglers_ok(&[
        "eval",
        "--config",
        &file,
        "--detectors",
        "dsb",
        "--print-config",
    ]);
    assert_eq!(line(&flag), "detectors = [\"dsb\"]");
    // And the evaluation runs the file's: one detector, one cell of Table 6.
    let small = write(
        "small.toml",
        "repetitions = 1\nbaseline_runs = 1\npolicies = [\"x100\"]\ndetectors = [\"late(alpha = 0.5)\"]\n\
         [sim.workload]\nmaps = 16\nreduces = 4\n[[scenarios]]\nname = \"C2\"\n\
         group_percent = [25.0, 25.0, 25.0, 25.0]\n[fig3]\nlags_secs = []\n\
         [table7]\npolicies = []\n",
    );
    let results: serde_json::Value =
        serde_json::from_str(&stragglers_ok(&["eval", "--config", &small, "--json", "-"])).unwrap();
    let names: Vec<&str> = results["detectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["late(alpha=0.5)"]);
    // Errors name the file, the line and the key, the item's where one is at fault, with
    // `--detectors` given too: the file's list is checked as its other keys are.
    for (text, says) in [
        (
            "seed = 3\ndetectors = [\"late\", \"nope\"]\n",
            "line 2: key `detectors[1]`: unknown detector \"nope\"",
        ),
        (
            "detectors = [\"late\", \"late(alpha = -1.0)\"]\n",
            "line 1: key `detectors[1]`: \"late(alpha = -1.0)\"",
        ),
        (
            "detectors = [\"late,\"]\n",
            "line 1: key `detectors[0]`: \"late,\": must be one name",
        ),
        (
            "seed = 3\ndetectors = \"late\"\n",
            "line 2: key `detectors`: invalid type: string \"late\", expected a sequence",
        ),
        (
            "detectors = [\"late\", \"late, default\"]\n",
            "line 1: key `detectors[1]`: \"late, default\": must be one name",
        ),
        ("detectors = [\"late(\"]\n", "line 1: key `detectors[0]`"),
        (
            "detectors = []\n",
            "line 1: key `detectors` names no detector",
        ),
    ] {
        let bad = write("bad.toml", text);
        for flag in [&[][..], &["--detectors", "late"]] {
            let mut args = vec!["eval", "--config", &bad, "--print-config"];
            args.extend(flag);
            let output = stragglers(&args);
            assert!(!output.status.success(), "{text}");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                stderr.contains(&format!("{bad}: {says}")),
                "{text}: {stderr}"
            );
            assert!(stderr.starts_with("error: --config\n"), "{text}: {stderr}");
        }
    }
    // Too many runs: the count names the file's `detectors` among its keys and is placed
    // at its line, the first of them the file writes; given by `--detectors`, the flag.
    // (4 x 2 x 2 Table 6 cells, 6 x 2 Table 7 cells, 4 x 20,000 Figure 3 cells.)
    let lags: Vec<String> = (0..20_000).map(|lag| lag.to_string()).collect();
    let many = write(
        "many.toml",
        &format!(
            "seed = 3\ndetectors = [\"default\", \"late\"]\n[fig3]\nlags_secs = [{}]\n",
            lags.join(", ")
        ),
    );
    let count = "repetitions * (detectors * (scenarios * policies + table7.scenarios * \
                 table7.policies) + fig3.scenarios * fig3.lags_secs)";
    let above = "800280: must be at most 500000";
    for (flag, says) in [
        (
            &[][..],
            format!("error: --config\n  caused by: {many}: line 2: key `{count}`: {above}"),
        ),
        (
            &["--detectors", "default,late"],
            format!("error: --detectors (with --config): invalid configuration: {count} = {above}"),
        ),
    ] {
        let mut args = vec!["eval", "--config", &many, "--print-config"];
        args.extend(flag);
        let output = stragglers(&args);
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.starts_with(&says), "{stderr}");
    }
}

#[test]
fn simulate_labels_stragglers_at_the_factor_given() {
    let run = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["simulate", "--preset", "paper", "--json", "-"];
        args.extend(extra);
        serde_json::from_str(&stragglers_ok(&args)).unwrap()
    };
    let paper = run(&[]);
    let seeds = run(&["--straggler-factor", "1.5"]);
    assert_eq!(paper["runs"][0]["straggler_factor"], 1.2);
    assert_eq!(seeds["runs"][0]["straggler_factor"], 1.5);
    let count = |doc: &serde_json::Value| doc["runs"][0]["stragglers"].as_u64().unwrap();
    assert!(count(&seeds) < count(&paper), "{seeds} {paper}");
    let output = stragglers(&["simulate", "--preset", "paper", "--straggler-factor", "0.9"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("straggler_factor = 0.9: must be >= 1"),
        "{stderr}"
    );
}

#[test]
fn a_negative_number_reaches_its_flags_parser_which_names_the_flag_and_its_range() {
    let seed_range = "0..=9223372036854775807 (2^63 - 1, the largest integer an evaluation \
                      file holds)";
    for (args, said) in [
        (
            &["eval", "--repetitions", "-3"][..],
            "invalid value '-3' for '--repetitions <REPETITIONS>': -3 is not in 1..=1000"
                .to_owned(),
        ),
        (
            &["eval", "--baseline-runs", "-1"],
            "'--baseline-runs <BASELINE_RUNS>': -1 is not in 1..=1000".to_owned(),
        ),
        (
            &["eval", "--maps", "-5"],
            "'--maps <MAPS>': -5 is not in 1..=1000000".to_owned(),
        ),
        (
            &["eval", "--threads", "-1"],
            "'--threads <THREADS>': -1 is not in 1..=1024".to_owned(),
        ),
        (
            &["eval", "--max-copies-per-task", "-1"],
            "'--max-copies-per-task <MAX_COPIES_PER_TASK>': -1 is not in 0..=4294967295".to_owned(),
        ),
        (
            &["eval", "--blacklist", "-1"],
            "'--blacklist <BLACKLIST>': -1 is not in 0..=4294967295".to_owned(),
        ),
        // A list's negative first item reaches the item's parser too.
        (
            &["eval", "--blacklist", "-1,2"],
            "'--blacklist <BLACKLIST>': -1 is not in 0..=4294967295".to_owned(),
        ),
        (
            &["eval", "--blacklist", "2,-1"],
            "'--blacklist <BLACKLIST>': -1 is not in 0..=4294967295".to_owned(),
        ),
        (
            &["eval", "--seed", "-1"],
            format!("'--seed <SEED>': -1 is not in {seed_range}"),
        ),
        // A seed the flag took and `--print-config` could not write is refused at once.
        (
            &["eval", "--seed", "9223372036854775808", "--print-config"],
            format!("'--seed <SEED>': 9223372036854775808 is not in {seed_range}"),
        ),
        (
            &["simulate", "--preset", "paper", "--seed", "-1"],
            "'--seed <SEED>': -1 is not in 0..=18446744073709551615 (2^64 - 1)".to_owned(),
        ),
        (
            &["replay", "x.jhist", "--max-scans-per-job", "-1"],
            "'--max-scans-per-job <N>': -1 is not in 1..=9223372036854775807".to_owned(),
        ),
    ] {
        let output = stragglers(args);
        assert!(!output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with("error: invalid value '") && stderr.contains(&said),
            "{args:?}: {stderr}"
        );
    }
    // The largest seed the flag takes is written as an evaluation file and read back.
    let printed = stragglers_ok(&["eval", "--seed", "9223372036854775807", "--print-config"]);
    assert!(
        printed.starts_with("seed = 9223372036854775807\n"),
        "{printed}"
    );
    // Simulate's seed (an evaluation's run's seed may be any) takes every u64.
    let summary = stragglers_ok(&[
        "simulate",
        "--preset",
        "paper",
        "--detector",
        "none",
        "--seed",
        "18446744073709551615",
    ]);
    assert!(summary.contains("(seed 18446744073709551615,"), "{summary}");
    // A list flag takes its items as before.
    let listed = stragglers_ok(&["eval", "--blacklist", "1,2", "--print-config"]);
    assert!(listed.contains("blacklist = [1, 2]"), "{listed}");
}

#[test]
fn an_evaluation_files_wrong_value_names_a_table_or_the_counts_range() {
    let dir = TempDir::new("file-words");
    let file = dir.join("eval.toml");
    for (text, said) in [
        (
            "sim = [1]\n",
            "line 1: key `sim`: invalid type: integer `1`, expected a table",
        ),
        (
            "sim = []\n",
            "line 1: key `sim`: a list where a table belongs",
        ),
        (
            "seed = 3\nrepetitions = -3\n",
            "line 2: key `repetitions`: -3 is not in 1..=1000",
        ),
        (
            "baseline_runs = 99999999999\n",
            "line 1: key `baseline_runs`: 99999999999 is not in 1..=1000",
        ),
        (
            "[[scenarios]]\nname = \"a\"\ngroup_percent = [50, 40, 0, 0]\n",
            "line 3: key `scenarios[0].group_percent (sum)`: 90: must be 100",
        ),
    ] {
        std::fs::write(&file, text).unwrap();
        let output = stragglers(&["eval", "--config", file.to_str().unwrap(), "--print-config"]);
        assert!(!output.status.success(), "{text}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("{}: {said}", file.display())),
            "{text}: {stderr}"
        );
        assert!(!stderr.contains("struct"), "{text}: {stderr}");
    }
}

#[test]
fn a_failed_simulation_names_its_detector_and_the_key_that_raises_the_limit() {
    let dir = TempDir::new("sim-limit");
    let file = dir.join("tl.toml");
    std::fs::write(
        &file,
        "name = \"tl\"\ntime_limit_secs = 10\n[cluster]\nnodes = 4\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    // Every run fails; the error names the first detector given, and no summary is printed.
    let output = stragglers(&[
        "simulate",
        "--scenario-file",
        file,
        "--detector",
        "late,default",
    ]);
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            format!(
                "error: simulating tl with detector late: raise `time_limit_secs` in {file} (a \
                 top-level key, before any table) to let its runs go on longer"
            ),
            "  caused by: the job did not finish within 10 simulated seconds (0 of 480 tasks \
             done)"
                .to_owned(),
        ],
        "{stderr}"
    );
}

#[test]
fn none_and_recorded_are_refused_where_they_are_not_taken_saying_where_they_are() {
    let none = "`none` is no detector: `stragglers simulate --detector none` runs the \
                scenario without one (no task is detected or copied); no other command takes \
                it";
    let recorded = "`recorded` is no detector: `stragglers replay --detectors recorded` \
                    judges the speculation the log records (a task is detected when the engine \
                    launched its first copy); no other command takes it";
    for (args, said) in [
        (
            &["detectors", "none"][..],
            format!("stragglers detectors: {none}"),
        ),
        (
            &["detectors", "late", "recorded"],
            format!("stragglers detectors: {recorded}"),
        ),
        (
            &["eval", "--detectors", "paper,none"],
            format!("--detectors: {none}"),
        ),
        (
            &["simulate", "--preset", "paper", "--detector", "recorded"],
            format!("--detector: {recorded}"),
        ),
        (
            &["replay", "x.jhist", "--detectors", "none"],
            format!("--detectors: {none}"),
        ),
    ] {
        let output = stragglers(args);
        assert!(!output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.trim_end(), format!("error: {said}"), "{args:?}");
    }
}

#[test]
fn the_titles_say_what_one_repetition_and_detectors_without_a_paper_value_show() {
    let dir = TempDir::new("titles");
    let markdown = dir.join("report.md");
    let stdout = stragglers_ok(&[
        "eval",
        "--repetitions",
        "1",
        "--baseline-runs",
        "1",
        "--policies",
        "x100",
        "--no-fig3",
        "--no-table7",
        "--detectors",
        "late(alpha = 0.5)",
        "--markdown",
        markdown.to_str().unwrap(),
    ]);
    for title in [
        "Table 5. Ratio of stragglers among map executions on the homogeneous platform (1 run), ",
        "Table 6. Characteristics of the detectors, policy x100, 1 repetition (one run per cell, \
         no 95% CI)\n",
        "Efficiency. Job execution time, energy and speculative copies (one run per cell, no 95% \
         CI)\n",
    ] {
        assert!(stdout.contains(title), "{title}: {stdout}");
    }
    assert!(!stdout.contains("paper in brackets"), "{stdout}");
    let report = std::fs::read_to_string(&markdown).unwrap();
    assert!(
        report.contains(", seed 2019, 1 repetition per cell, 1 baseline run, usual time"),
        "{report}"
    );
}
