//! `cargo xtask bench replay`: how fast the trace readers read, and whether their memory
//! stays flat with the size of the input. Each input is read in a child process
//! ([`bench::in_child`]) so that its wall time and peak memory are its own; the JSON is
//! `{"readers": [{"input", "format", "bytes", "jobs", "wall_secs", "mb_per_sec",
//! "cpu_secs", "mb_per_cpu_sec", "peak_rss_bytes"}]}` (MB = 10^6 bytes of uncompressed
//! input; wall time from spawn to exit, so it includes starting the process; CPU time is the
//! child's own, from `/proc/self/schedstat`: the readers run on one thread, so MB per CPU
//! second is the rate per core, which a machine shared with other work does not distort;
//! `null`, and `-` in the table, where the kernel has counted no CPU time yet).
//!
//! Inputs: Spark event logs generated here (100 MB and 400 MB, same jobs repeated, so the
//! open state is the same and only the length grows), and the real plain-text logs of
//! `../shared/traces` when present (Spark, `.jhist`, Rumen, Hadoop 1), each format's files
//! read one after the other in one child.

use std::fmt::Write as _;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use serde_json::json;

use crate::bench;

/// Sizes of the generated Spark logs, in MB.
const GENERATED_MB: [u64; 2] = [100, 400];

/// Tasks per generated job: the open state a reader holds.
const TASKS_PER_JOB: u64 = 400;

/// The real logs measured, by format, relative to `../shared/traces`.
const REAL: &[(&str, &[&str])] = &[
    ("spark", &["spark-core-test-events"]),
    ("jhist", &["hadoop-jhist"]),
    (
        "rumen",
        &[
            "hadoop-rumen-testdata/zombie/input-trace.json",
            "hadoop-sls-gridmix-rumen/2jobs2min-rumen-jh.json",
            "hadoop-sls-gridmix-rumen/wordcount.json",
            "hadoop-sls-gridmix-rumen/wordcount2.json",
        ],
    ),
    (
        "hadoop1",
        &["hadoop-rumen-testdata/small-trace-test/truncated-job-tracker-log"],
    ),
];

/// Generates the inputs, reads each in a child, prints and optionally writes the figures.
pub fn run(json_path: Option<&Path>) -> anyhow::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = &root.join("target/bench-replay");
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut inputs: Vec<(String, Vec<PathBuf>)> = Vec::new();
    for mb in GENERATED_MB {
        let path = dir.join(format!("spark-generated-{mb}mb.json"));
        generate_spark_log(&path, mb * 1_000_000)?;
        inputs.push((format!("spark-generated-{mb}mb"), vec![path]));
    }
    let shared = root.join("../shared/traces");
    if shared.is_dir() {
        for &(name, rels) in REAL {
            let mut files = Vec::new();
            for rel in rels {
                collect_plain_files(&shared.join(rel), &mut files)?;
            }
            files.sort();
            inputs.push((format!("{name}-real"), files));
        }
    } else {
        eprintln!("../shared/traces is absent: measuring the generated logs only");
    }
    let mut readers = Vec::new();
    for (input, files) in &inputs {
        let mut args = vec!["replay".to_owned()];
        args.extend(files.iter().map(|f| f.display().to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let measured = bench::in_child(&args)?;
        let facts: serde_json::Value = serde_json::from_str(measured.stdout.trim())
            .with_context(|| format!("bench-child replay printed {:?}", measured.stdout))?;
        let bytes = facts["bytes"].as_u64().unwrap_or(0);
        let mb_per_sec = bytes as f64 / 1e6 / measured.wall_secs;
        let cpu_secs = facts["cpu_secs"].as_f64().unwrap_or(f64::NAN);
        // None where the kernel has counted no CPU time yet (a read of a few kilobytes:
        // `schedstat` is brought up to date at scheduler events), rather than infinity.
        let mb_per_cpu_sec = (cpu_secs > 0.0).then(|| bytes as f64 / 1e6 / cpu_secs);
        let per_cpu_sec = mb_per_cpu_sec.map_or_else(|| "-".to_owned(), |r| format!("{r:.1}"));
        println!(
            "{input:<24} {:<8} {:>10} bytes {:>4} jobs {:>7.3} s wall {:>7.1} MB/s {:>7.3} s CPU {:>7} MB/CPU-s {:>6.1} MiB peak",
            facts["format"].as_str().unwrap_or("?"),
            bytes,
            facts["jobs"],
            measured.wall_secs,
            mb_per_sec,
            cpu_secs,
            per_cpu_sec,
            measured.peak_rss_bytes as f64 / (1024.0 * 1024.0),
        );
        readers.push(json!({
            "input": input,
            "format": facts["format"],
            "bytes": bytes,
            "jobs": facts["jobs"],
            "wall_secs": measured.wall_secs,
            "read_secs": facts["read_secs"],
            "mb_per_sec": mb_per_sec,
            "cpu_secs": cpu_secs,
            "mb_per_cpu_sec": mb_per_cpu_sec,
            "peak_rss_bytes": measured.peak_rss_bytes,
        }));
    }
    if let Some(path) = json_path {
        bench::write_json(path, &json!({ "readers": readers }))?;
    }
    Ok(())
}

/// In the child: reads every file given and prints one JSON line of facts.
pub fn child(args: &[&str]) -> anyhow::Result<()> {
    if args.is_empty() {
        bail!("bench-child replay: which files?");
    }
    let started = Instant::now();
    let mut bytes = 0u64;
    let mut jobs = 0u64;
    let mut format = None;
    for file in args {
        let path = Path::new(file);
        bytes += std::fs::metadata(path)
            .with_context(|| format!("reading {}", path.display()))?
            .len();
        let report = straggler_trace::read_jobs(path, |_| jobs += 1)
            .with_context(|| format!("reading {}", path.display()))?;
        format = Some(report.format.name());
    }
    println!(
        "{}",
        json!({
            "format": format,
            "bytes": bytes,
            "jobs": jobs,
            "read_secs": started.elapsed().as_secs_f64(),
            "cpu_secs": own_cpu_secs()?,
        })
    );
    Ok(())
}

/// This process's CPU time so far (`/proc/self/schedstat`: nanoseconds on a CPU first).
fn own_cpu_secs() -> anyhow::Result<f64> {
    let stat =
        std::fs::read_to_string("/proc/self/schedstat").context("reading /proc/self/schedstat")?;
    let ns: u64 = stat
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .context("no CPU time in /proc/self/schedstat")?;
    Ok(ns as f64 / 1e9)
}

/// Every plain (not gzip) regular file under `path`, but the `SOURCE.txt` notes.
fn collect_plain_files(path: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    if path.is_dir() {
        for entry in
            std::fs::read_dir(path).with_context(|| format!("listing {}", path.display()))?
        {
            collect_plain_files(&entry?.path(), out)?;
        }
    } else {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name != "SOURCE.txt" && !name.ends_with(".gz") {
            out.push(path.to_owned());
        }
    }
    Ok(())
}

/// Writes a Spark event log of at least `target_bytes`, deterministic: jobs of
/// [`TASKS_PER_JOB`] tasks whose events look like Spark 3's (a `TaskEnd` line is about
/// 2.5 KB with its accumulables and metrics), one task in 50 with a speculative copy.
/// Kept if it already has the size.
fn generate_spark_log(path: &Path, target_bytes: u64) -> anyhow::Result<()> {
    if std::fs::metadata(path).is_ok_and(|m| m.len() >= target_bytes) {
        return Ok(());
    }
    let file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut written = 0u64;
    emit(
        &mut out,
        &mut written,
        r#"{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}"#,
    )?;
    emit(
        &mut out,
        &mut written,
        r#"{"Event":"SparkListenerApplicationStart","App Name":"bench","App ID":"app-bench-0001","Timestamp":1700000000000,"User":"bench"}"#,
    )?;
    let mut job = 0u64;
    let mut task_id = 0u64;
    let mut line = String::with_capacity(4096);
    while written < target_bytes {
        let stage = job;
        let t0 = 1_700_000_000_000 + job * 600_000;
        emit(
            &mut out,
            &mut written,
            &format!(
                r#"{{"Event":"SparkListenerJobStart","Job ID":{job},"Submission Time":{t0},"Stage Infos":[{{"Stage ID":{stage},"Stage Attempt ID":0,"Stage Name":"map at bench:{job}","Number of Tasks":{TASKS_PER_JOB}}}],"Stage IDs":[{stage}],"Properties":{{"spark.job.description":"bench"}}}}"#
            ),
        )?;
        let first = task_id;
        let mut attempts = Vec::new();
        for index in 0..TASKS_PER_JOB {
            let launch = t0 + 100 + index * 7;
            attempts.push((task_id, index, launch, false));
            task_id += 1;
            if index % 50 == 7 {
                attempts.push((task_id, index, launch + 30_000, true));
                task_id += 1;
            }
        }
        for &(id, index, launch, speculative) in &attempts {
            line.clear();
            write!(
                line,
                r#"{{"Event":"SparkListenerTaskStart","Stage ID":{stage},"Stage Attempt ID":0,"Task Info":{{"Task ID":{id},"Index":{index},"Attempt":{},"Launch Time":{launch},"Executor ID":"{}","Host":"host-{}","Locality":"PROCESS_LOCAL","Speculative":{speculative},"Getting Result Time":0,"Finish Time":0,"Failed":false,"Killed":false,"Accumulables":[]}}}}"#,
                u8::from(speculative),
                id % 97,
                id % 97,
            )?;
            emit(&mut out, &mut written, &line)?;
        }
        for &(id, index, launch, speculative) in &attempts {
            let run_ms = 20_000 + (id * 7919) % 20_000;
            let killed = !speculative && index % 50 == 7;
            let (reason, finish) = if killed {
                (
                    r#"{"Reason":"TaskKilled","Kill Reason":"another attempt succeeded"}"#,
                    launch + 55_000,
                )
            } else {
                (r#"{"Reason":"Success"}"#, launch + run_ms)
            };
            line.clear();
            write!(
                line,
                r#"{{"Event":"SparkListenerTaskEnd","Stage ID":{stage},"Stage Attempt ID":0,"Task Type":"ShuffleMapTask","Task End Reason":{reason},"Task Info":{{"Task ID":{id},"Index":{index},"Attempt":{},"Launch Time":{launch},"Executor ID":"{}","Host":"host-{}","Locality":"PROCESS_LOCAL","Speculative":{speculative},"Getting Result Time":0,"Finish Time":{finish},"Failed":false,"Killed":{killed},"Accumulables":[{{"ID":0,"Name":"internal.metrics.executorDeserializeTime","Update":{},"Value":{},"Internal":true,"Count Failed Values":true}},{{"ID":1,"Name":"internal.metrics.executorDeserializeCpuTime","Update":{},"Value":{},"Internal":true,"Count Failed Values":true}},{{"ID":2,"Name":"internal.metrics.executorRunTime","Update":{run_ms},"Value":{},"Internal":true,"Count Failed Values":true}},{{"ID":3,"Name":"internal.metrics.executorCpuTime","Update":{},"Value":{},"Internal":true,"Count Failed Values":true}},{{"ID":4,"Name":"internal.metrics.resultSize","Update":840,"Value":{},"Internal":true,"Count Failed Values":true}}]}},"Task Executor Metrics":{{"JVMHeapMemory":{},"JVMOffHeapMemory":63976024,"OnHeapExecutionMemory":0,"OffHeapExecutionMemory":0,"OnHeapStorageMemory":4960,"OffHeapStorageMemory":0,"OnHeapUnifiedMemory":4960,"OffHeapUnifiedMemory":0,"DirectPoolMemory":8195,"MappedPoolMemory":0,"ProcessTreeJVMVMemory":0,"ProcessTreeJVMRSSMemory":0,"ProcessTreePythonVMemory":0,"ProcessTreePythonRSSMemory":0,"ProcessTreeOtherVMemory":0,"ProcessTreeOtherRSSMemory":0,"MinorGCCount":2,"MinorGCTime":280,"MajorGCCount":2,"MajorGCTime":1116}},"Task Metrics":{{"Executor Deserialize Time":{},"Executor Deserialize CPU Time":{},"Executor Run Time":{run_ms},"Executor CPU Time":{},"Peak Execution Memory":0,"Result Size":840,"JVM GC Time":{},"Result Serialization Time":1,"Memory Bytes Spilled":0,"Disk Bytes Spilled":0,"Shuffle Read Metrics":{{"Remote Blocks Fetched":0,"Local Blocks Fetched":0,"Fetch Wait Time":0,"Fetch Backoff Count":0,"Remote Bytes Read":0,"Remote Bytes Read To Disk":0,"Local Bytes Read":0,"Total Records Read":0}},"Shuffle Write Metrics":{{"Shuffle Bytes Written":{},"Shuffle Write Time":{},"Shuffle Records Written":{}}},"Input Metrics":{{"Bytes Read":{},"Records Read":{}}},"Output Metrics":{{"Bytes Written":0,"Records Written":0}},"Updated Blocks":[]}}}}"#,
                u8::from(speculative),
                id % 97,
                id % 97,
                2000 + id % 900,
                (id - first) * 2500,
                1_171_756_284 + id,
                (id - first) * 1_171_756_284,
                (id - first + 1) * run_ms,
                65_263_482 + id,
                (id - first) * 65_263_482,
                (id - first + 1) * 840,
                229_801_896 + id * 13,
                2000 + id % 900,
                1_171_756_284 + id,
                65_263_482 + id,
                id % 300,
                4_958_500 + id,
                1_234_567 + id,
                528_500 + id,
                134_217_728 + (id % 1000) * 1024,
                1_000_000 + id % 5000,
            )?;
            emit(&mut out, &mut written, &line)?;
        }
        let end = t0 + 120_000;
        emit(
            &mut out,
            &mut written,
            &format!(
                r#"{{"Event":"SparkListenerJobEnd","Job ID":{job},"Completion Time":{end},"Job Result":{{"Result":"JobSucceeded"}}}}"#
            ),
        )?;
        job += 1;
    }
    emit(
        &mut out,
        &mut written,
        r#"{"Event":"SparkListenerApplicationEnd","Timestamp":1800000000000}"#,
    )?;
    out.flush()?;
    Ok(())
}

/// Writes one line and counts its bytes.
fn emit(out: &mut impl Write, written: &mut u64, line: &str) -> anyhow::Result<()> {
    out.write_all(line.as_bytes())?;
    out.write_all(b"\n")?;
    *written += line.len() as u64 + 1;
    Ok(())
}
