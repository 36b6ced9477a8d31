//! Runs the `stragglers` binary as a user would.

use std::process::Command;

fn stragglers(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_stragglers"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn eval_prints_the_tables_and_writes_the_results() {
    let dir = std::env::temp_dir().join(format!("stragglers-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json_path = dir.join("results.json");
    let markdown_path = dir.join("report.md");
    let output = stragglers(&[
        "eval",
        "--repetitions",
        "2",
        "--baseline-runs",
        "2",
        "--policies",
        "x100",
        "--json",
        json_path.to_str().unwrap(),
        "--markdown",
        markdown_path.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("Table 5."), "{stdout}");
    assert!(
        stdout.contains("Table 6. Characteristics of the detectors, policy x100"),
        "{stdout}"
    );
    assert!(!stdout.contains("policy shared"));

    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(results["schema"], "stragglers.eval/1");
    assert_eq!(results["baseline"]["runs"], 2);
    let cells = results["cells"].as_array().unwrap();
    assert_eq!(
        cells.len(),
        4 * 3,
        "four scenarios, three detectors, one policy"
    );
    assert!(
        cells
            .iter()
            .all(|c| c["repetitions"] == 2 && c["policy"] == "x100")
    );
    let markdown = std::fs::read_to_string(&markdown_path).unwrap();
    assert!(markdown.starts_with("# Evaluation report"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_are_refused_with_a_reason() {
    let output = stragglers(&["eval", "--policies", "x7x"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unknown policy \"x7x\""), "{stderr}");

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
    assert!(stderr.contains("speculation.lag_secs"), "{stderr}");
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
            "garraghan",
            "garraghan-offline",
            "garraghan-online",
            "dos-index",
            "dos-index-10"
        ]
    );
}
