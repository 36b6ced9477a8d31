//! A conformance kit for [`Detector`] implementations: runs a detector through fixed
//! scenarios and checks the properties every detector of this workspace promises.
//!
//! A third-party detector (a scheduler's own rule, an estimator learnt from history) is
//! handed to [`Conformance::new`] as a constructor taking the [`Parallelism`] to use, and
//! [`Conformance::run`] returns the first broken property as a [`ConformanceFailure`].
//! [`scenario`] gives the scenario a failure names, to run the detector through it again
//! in a test of one's own ([`KitScenario::run`]), where a debugger or a print can follow
//! it.
//!
//! # Scenarios
//!
//! - an empty snapshot without stages or nodes, and one with stages and nodes but no rows;
//! - one task;
//! - three identical tasks at progress 0.1 (`0.1 + 0.1 + 0.1 = 0.30000000000000004` in
//!   binary64, so a naive mean lies one ulp above every task), and 10 000 identical tasks
//!   on 10 nodes (three chunks of a parallel scan);
//! - identical tasks within each of three stages, every node running the same mix;
//! - zero progress everywhere, with varied start times and input sizes, and zero progress
//!   on identical tasks;
//! - every attempt started at the snapshot's instant (no progress rate defined);
//! - a very long run (`now = 1e7` s, every start in the first thousand seconds), with
//!   varied and with identical tasks;
//! - three generated snapshots of [`GENERATED_ROWS`] rows over 4 stages and 50 nodes. In
//!   the first, progress is drawn row by row: uniform, repeated decimal values (0.1, 0.3,
//!   1/3...), a few slow rows, and two levels `c - 0.2` and `c + 0.2` in turn within each
//!   stage; start times are spread over the run, some exactly at `now`. In the second,
//!   every stage holds only its two levels, started together, so that half of the
//!   rows sit exactly at Default's threshold (gap 0.2) and at LATE's (alpha 1) up to
//!   rounding; in the third, three levels `c - 0.2, c, c + 0.2`, so that a third of the
//!   rows sit at Default's threshold and a third at the stage mean (gap 0, alpha 0).
//!   Rounding is where a parallel sum split differently from the sequential one would
//!   show. A fourth is drawn as the first, then every seventh row made a speculative copy
//!   of the task of the row before it, as an engine launches one: on another node, three
//!   quarters of the way from the original's start to `now`, with the original's input;
//! - three snapshots "summed in any order", whose stage means depend on the order in which
//!   the progress scores are added: 5 003 rows over 2 stages (a row in each with
//!   probability 0.6 and 0.4), 12 289 over 3 (0.5, 0.3, 0.2) and 70 001 over 2 (0.96,
//!   0.04), on 64 nodes, started uniformly over the run. Every progress score but 16 per
//!   stage is a multiple of 2^-30 between 0.05 and 0.95 plus 9830 x 2^-53 (about
//!   1.1e-12), so that its additions to a running sum round alike within a binade and
//!   their errors add up: a sum split into chunks, parts or lanes, each added from zero,
//!   ends away from the sum row by row (hundreds of ulps for most splits) rather than
//!   equal to it by chance. The other 16 rows of each stage, spread over it, sit exactly at
//!   the bars of the rules `p < mean - 0.2` (the form of Default's) and `p < mean` as a
//!   scan that adds the rows one by one in order sets them: four each at `mean - 0.2`,
//!   one ulp below it, `mean`, and one ulp below it (set again until the mean they are
//!   part of stands still). For such a rule and such a sequential sum, a parallel sum
//!   split otherwise moves its bar across some of those rows (the kit's tests plant splits
//!   into chunks of every power of two from 256 to 65 536 rows, of the snapshot and of
//!   each stage, and halves and sevenths: each is caught). A rule of another form or gap
//!   (`mean - p >= 0.2`, 0.25), or a sequential sum of its own split into lanes, meets
//!   fewer of those rows at its bars, or none, and the check is weaker for it: some of
//!   those splits go unseen (with a gap of 0.25, no row sits at its bar). Every chunk
//!   length up to 65 536 rows splits the largest snapshot and its larger stage (67 205
//!   rows).
//!
//! The data come from fixed SplitMix64 streams, so the scenarios are the same on every
//! machine.
//!
//! # History
//!
//! Before each scenario's snapshot, the kit feeds a detector the observations an engine
//! could have sent until the snapshot's instant `now`, in time order (what happened at one
//! instant in the order it happened), consistent with the snapshot:
//!
//! - each job of the snapshot's stages is submitted ([`Observation::JobSubmitted`])
//!   halfway between 0 s and the earliest start of its rows (`now / 2` for a job without
//!   rows). When that is after 0 s, the job's stage indices were first an earlier job's:
//!   that job is submitted at 0 s, 8 tasks of each of its stages run and end before the
//!   later job's submission, and each of its stages finishes as its last task ends
//!   ([`Observation::StageFinished`]), giving its index to the snapshot's stage. Jobs are
//!   numbered in the order they are submitted, as engines number them: the scenarios'
//!   jobs from 1000, the earlier jobs below;
//! - 24 tasks of each stage of the snapshot's jobs that has started (in its job's order,
//!   every stage up to the first with rows) ran and ended between the job's submission
//!   and `now`. Each task (of those 24 and of the earlier jobs' 8) tells in
//!   turn one of eight stories: a success after two progress reports; a success of an
//!   empty input (0 bytes) without any report; an original killed as its speculative copy
//!   succeeded; a copy killed as its original succeeded; an attempt failed after a report,
//!   then its retry succeeded; an attempt failed without any report, then its retry
//!   succeeded without any; a copy killed without any report as its original succeeded;
//!   a copy failed, then its original succeeded. Those tasks are short (a twentieth to half
//!   of the time left in the window), as the first to finish are, so that rules that
//!   judge by finished tasks (Spark's, Hadoop's, the DoS-index) flag in the scenarios with
//!   few rows. A stage without rows has finished (its tasks, then its `StageFinished`) if
//!   every stage of its job before it has no rows either; otherwise it has not started
//!   and nothing of it is observed;
//! - every row's attempt reports progress ([`Observation::Progress`]): the first 64 rows
//!   30 times at even intervals (more than the 24 reports Hadoop's estimators skip), every
//!   fourth other row and every original with a copy twice, the others once (a row
//!   started at `now` once); the last report, within the last tenth of the attempt's run
//!   so far, is at the row's progress. One row in 11, if an original, is the retry of an
//!   attempt of its task that failed at the row's start; one in 17, if an original
//!   started before `now`, had a speculative copy that failed before `now`.
//!
//! Amid the history, the kit scans three snapshots, at a quarter, half and three quarters
//! of `now`, each after the observations up to its instant: the attempts not ended then
//! (an attempt that ends at the instant has ended) that have reported progress, as an
//! engine lists an attempt from its first report, each at its last report, the stage
//! indices naming an earlier job's stages until the snapshot's jobs are submitted. So a detector
//! that learns from scans (the first launch of a job, say) learns as under an engine that
//! scans while it observes.
//!
//! A copy starts after its original's first report, as an engine launches a copy only of
//! an attempt a scan has seen: the copies of the finished tasks halfway through their
//! original's run (the first report at a third) or after, the rows' failed copies after
//! the row's first report, the copy rows three quarters of the way to `now` (their
//! originals report halfway).
//!
//! The attempts that are not rows take task and attempt identifiers after the snapshot's
//! largest, never one twice. Every kind of [`Observation`] there is appears, and every
//! [`AttemptStatus`] an attempt can end with (not `Running`), for originals and copies.
//! Every scenario but the empty snapshot without stages or nodes has a history. The
//! histories come from a SplitMix64 stream of their own; the kit builds the scenarios and
//! their histories once per process.
//!
//! # Checks, on every scenario
//!
//! - the detector does not panic: neither its constructor, nor a scan, nor
//!   [`Detector::observe`] (the failure names the observation: its place in the history,
//!   what it stands for, such as "an original killed as its copy succeeded", and its
//!   value), nor [`Detector::reset`];
//! - flagged rows are strictly increasing and below the snapshot's length, slow nodes are
//!   below its node count, for a new detector and for one that observed the history;
//! - a new detector (one that observed nothing): a second scan of the same snapshot gives
//!   the same findings; the detector built with [`Parallelism::Parallel`] gives exactly
//!   the findings of the one built with [`Parallelism::Sequential`];
//! - where the scenario has a history, a detector run through it (its observations and
//!   the scans amid it), then scanning the scenario's snapshot: a second detector built
//!   the same way and run the same way gives the same findings at every scan (the trait's
//!   determinism); the one built with [`Parallelism::Parallel`] gives exactly the findings
//!   of the sequential one at every scan; after [`Detector::reset`], the same run gives
//!   the same findings again, and after a second reset, a scan gives exactly the findings
//!   of a new detector (reset forgets everything learnt, from observations and from
//!   scans, as an engine that reuses a detector for its next run needs);
//! - only with [`Conformance::peer_relative`]: a new detector flags no attempt in the
//!   scenarios where every attempt is identical to the other attempts of its stage in
//!   every column and every node runs the same mix of attempts. This is an expectation for
//!   detectors that judge an attempt against its peers (Default, LATE, Hierarchical): an
//!   attempt like all the others is not behind them. A detector with an absolute rule
//!   ("slower than 1 MB/s") may legitimately flag identical attempts and should not opt
//!   in. A detector that learnt from a history may flag them too (a task slower than the
//!   finished ones), so the expectation is not checked after one.
//!
//! Each failure of a comparison names the two scans it compares ("the detector built with
//! Parallelism::Sequential flagged rows [...], the one built with Parallelism::Parallel
//! rows [...]"), and which scan of the history it is ("at the scan at 25 s amid the
//! history").
//!
//! Once, before the scenarios: [`Detector::name`] is non-empty, lower case and without
//! whitespace.
//!
//! Only with [`Conformance::forgets_finished_stages`], once after the scenarios: a stage
//! index starts afresh after [`Observation::StageFinished`]. The detector observes a
//! stage's history (its job submitted at 0 s, 200 tasks of 640 MB on 10 nodes, each
//! reported at half its 10 s run, then succeeded), then the stage's end; the index then
//! goes to another job's stage (the job submitted at 90 s, 20 attempts of new tasks of
//! 64 MB started at 100 s, reported every 3 s at steady rates, so that at
//! 200 s one in four is at progress 0.05 and the others at 0.5); at 200 s the detector must
//! flag what a new one that observed only the new stage's reports flags. This is an expectation for detectors
//! that learn per stage only (Spark's, Hadoop's, the DoS-index, Garraghan's); a node-level
//! detector keeps what it learnt of the nodes (DSB, eSplash) and should not opt in.
//!
//! Findings carry row indices and node identifiers only, so they cannot hold a NaN; what
//! the checks above cannot see (whether the flagged rows are the right ones) is for the
//! detector's own hand-worked tests.
//!
//! ```
//! use straggler_detect::conformance::Conformance;
//! use straggler_detect::{LateDetector, LateParams};
//!
//! Conformance::new(|parallelism| {
//!     let params = LateParams { parallelism, ..LateParams::default() };
//!     LateDetector::new(params.check().expect("valid parameters"))
//! })
//! .peer_relative()
//! .run()?;
//! # Ok::<(), straggler_detect::conformance::ConformanceFailure>(())
//! ```

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

use straggler_model::{
    AttemptEnd, AttemptId, AttemptRole, AttemptStatus, JobId, ModelError, NodeId, Observation,
    ProgressReport, Snapshot, SnapshotRow, Stage, StageId, TaskId, TaskKind,
};

use crate::{Detector, Findings, Parallelism};

/// Rows of the generated scenario: five of the chunks a parallel scan of few groups sums
/// separately (4,032 rows each, the last 3,872: `scan::chunk_len`).
pub const GENERATED_ROWS: usize = 20_000;

/// Runs a detector through the kit's scenarios; see the [module docs](self).
pub struct Conformance<F> {
    make: F,
    peer_relative: bool,
    forgets_finished_stages: bool,
}

impl<F> fmt::Debug for Conformance<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Conformance")
            .field("peer_relative", &self.peer_relative)
            .field("forgets_finished_stages", &self.forgets_finished_stages)
            .finish()
    }
}

impl<F, D> Conformance<F>
where
    F: Fn(Parallelism) -> D,
    D: Detector,
{
    /// A kit for the detectors `make` builds. The kit calls `make` with
    /// [`Parallelism::Sequential`] and [`Parallelism::Parallel`], so the detector's scans
    /// must honour the value given.
    pub fn new(make: F) -> Self {
        Conformance {
            make,
            peer_relative: false,
            forgets_finished_stages: false,
        }
    }

    /// Also expects that attempts identical to all their peers are never flagged (see the
    /// [module docs](self)). True of Default, LATE and Hierarchical.
    pub fn peer_relative(mut self) -> Self {
        self.peer_relative = true;
        self
    }

    /// Also expects that after [`Observation::StageFinished`] the stage's index starts
    /// afresh (see the [module docs](self)). True of the detectors that learn per stage
    /// only: Spark's, Hadoop's, the DoS-index, Garraghan's.
    pub fn forgets_finished_stages(mut self) -> Self {
        self.forgets_finished_stages = true;
        self
    }

    /// Runs every scenario and returns the first failure.
    pub fn run(&self) -> Result<(), ConformanceFailure> {
        let detector = self.build(Parallelism::Sequential, "name")?;
        let name = detector.name();
        if name.is_empty() || name.chars().any(|c| c.is_uppercase() || c.is_whitespace()) {
            return Err(ConformanceFailure {
                detector: name.to_owned(),
                scenario: "name",
                check: "the name is non-empty, lower case and without whitespace",
                detail: format!("name is {name:?}"),
            });
        }
        for scenario in scenarios() {
            self.run_scenario(scenario)?;
        }
        if self.forgets_finished_stages {
            self.check_reused_stage()?;
        }
        Ok(())
    }

    /// A detector that observed a finished stage flags, at its index given to another
    /// stage, what a new detector flags.
    fn check_reused_stage(&self) -> Result<(), ConformanceFailure> {
        const SCENARIO: &str = "a finished stage's index given to another stage";
        let (history, after, snapshot) = reused_stage();
        let mut fresh = self.build(Parallelism::Sequential, SCENARIO)?;
        let mut taught = self.build(Parallelism::Sequential, SCENARIO)?;
        let fail = |check: &'static str, detail: String| ConformanceFailure {
            detector: sequential_name(&self.make),
            scenario: SCENARIO,
            check,
            detail,
        };
        // Each sequence numbered on its own: the stage's history, then what followed.
        observe(&mut taught, &history, 0..history.len())
            .and_then(|()| observe(&mut taught, &after, 0..after.len()))
            .and_then(|()| observe(&mut fresh, &after, 0..after.len()))
            .map_err(|m| fail(NO_OBSERVE_PANIC, m))?;
        let expected = scan(&mut fresh, &snapshot).map_err(|m| fail(NO_PANIC, m))?;
        let got = scan(&mut taught, &snapshot).map_err(|m| fail(NO_PANIC, m))?;
        if got != expected {
            return Err(fail(
                "after StageFinished the index flags what a new detector flags",
                format!(
                    "a new detector flagged rows {:?}, the one that learnt the finished \
                     stage rows {:?}",
                    Preview(expected.rows()),
                    Preview(got.rows())
                ),
            ));
        }
        Ok(())
    }

    fn build(
        &self,
        parallelism: Parallelism,
        scenario: &'static str,
    ) -> Result<D, ConformanceFailure> {
        catch_unwind(AssertUnwindSafe(|| (self.make)(parallelism))).map_err(|payload| {
            ConformanceFailure {
                detector: String::from("?"),
                scenario,
                check: "the constructor does not panic",
                detail: panic_message(&payload),
            }
        })
    }

    fn run_scenario(&self, scenario: &KitScenario) -> Result<(), ConformanceFailure> {
        let (snapshot, history) = (&scenario.snapshot, &scenario.history[..]);
        let fail = |check: &'static str, detail: String| ConformanceFailure {
            detector: sequential_name(&self.make),
            scenario: scenario.name,
            check,
            detail,
        };
        let in_range = |findings: &Findings, which: &str| match out_of_range(findings, snapshot) {
            Some(detail) => Err(fail(RANGE, format!("{which}: {detail}"))),
            None => Ok(()),
        };
        // `check` holds if the two scans, each named, flagged the same.
        let same = |check, expected: (&str, &Findings), got: (&str, &Findings)| {
            if got.1 == expected.1 {
                Ok(())
            } else {
                Err(fail(check, differ(expected, got)))
            }
        };
        // A new detector, which observed nothing.
        let mut sequential = self.build(Parallelism::Sequential, scenario.name)?;
        let first = scan(&mut sequential, snapshot).map_err(|m| fail(NO_PANIC, m))?;
        in_range(&first, "a new detector")?;
        let second = scan(&mut sequential, snapshot).map_err(|m| fail(NO_PANIC, m))?;
        same(
            "a second scan gives the same findings",
            ("the first scan", &first),
            ("the second", &second),
        )?;
        let mut parallel = self.build(Parallelism::Parallel, scenario.name)?;
        let parallel = scan(&mut parallel, snapshot).map_err(|m| fail(NO_PANIC, m))?;
        same(
            "a parallel scan gives the findings of a sequential one",
            ("the detector built with Parallelism::Sequential", &first),
            ("the one built with Parallelism::Parallel", &parallel),
        )?;
        if self.peer_relative && scenario.peers_identical && !first.rows().is_empty() {
            return Err(fail(
                "attempts identical to all their peers are not flagged",
                format!("flagged rows {:?}", Preview(first.rows())),
            ));
        }
        // Detectors that observed the scenario's history first, scanning amid it; without
        // one, they would repeat the checks above.
        if history.is_empty() {
            return Ok(());
        }
        // The findings of every scan of a run through the history, the last of the
        // scenario's snapshot; `run` names the detector in a failure.
        let learn = |detector: &mut D, run: &str| -> Result<Vec<Findings>, ConformanceFailure> {
            let mut scans = Vec::with_capacity(scenario.interim.len() + 1);
            let mut observed = 0;
            for (index, (until, snapshot)) in scenario.scans().enumerate() {
                observe(detector, history, observed..until)
                    .map_err(|m| fail(NO_OBSERVE_PANIC, format!("{run}: {m}")))?;
                observed = until;
                let at = scenario.scan_name(index);
                let findings = scan(detector, snapshot)
                    .map_err(|m| fail(NO_PANIC, format!("{run}, at {at}: {m}")))?;
                if let Some(detail) = out_of_range(&findings, snapshot) {
                    return Err(fail(RANGE, format!("{run}, at {at}: {detail}")));
                }
                scans.push(findings);
            }
            Ok(scans)
        };
        // `check` holds if two runs through the history, each named, flagged the same at
        // every scan.
        let same_scans =
            |check, (one, expected): (&str, &[Findings]), (other, got): (&str, &[Findings])| {
                let mut pairs = expected.iter().zip(got).enumerate();
                match pairs.find(|(_, (expected, got))| expected != got) {
                    Some((index, (expected, got))) => Err(fail(
                        check,
                        format!(
                            "at {}: {}",
                            scenario.scan_name(index),
                            differ((one, expected), (other, got))
                        ),
                    )),
                    None => Ok(()),
                }
            };
        let taught = |parallelism, run| -> Result<(D, Vec<Findings>), ConformanceFailure> {
            let mut detector = self.build(parallelism, scenario.name)?;
            let scans = learn(&mut detector, run)?;
            Ok((detector, scans))
        };
        const TAUGHT: &str = "a detector that observed the history";
        const TWIN: &str = "a second one built and fed the same way";
        const PARALLEL: &str = "the one built with Parallelism::Parallel";
        const RELEARNT: &str = "one that observed it, reset, then observed it again";
        let (mut sequential, learnt) = taught(Parallelism::Sequential, TAUGHT)?;
        let (_, twin) = taught(Parallelism::Sequential, TWIN)?;
        same_scans(DETERMINISM, (TAUGHT, &learnt), (TWIN, &twin))?;
        let (_, parallel) = taught(Parallelism::Parallel, PARALLEL)?;
        same_scans(
            "after the same observations, a parallel scan gives the findings of a \
             sequential one",
            ("the detector built with Parallelism::Sequential", &learnt),
            (PARALLEL, &parallel),
        )?;
        let reset = |detector: &mut D| {
            catch_unwind(AssertUnwindSafe(|| detector.reset()))
                .map_err(|payload| fail("reset does not panic", panic_message(&payload)))
        };
        // As an engine reuses a detector for its next run: after a reset, the same history
        // must teach it what it taught a new detector. State that a scan without
        // observations does not read (the successes already counted, say) shows here.
        reset(&mut sequential)?;
        let relearnt = learn(&mut sequential, RELEARNT)?;
        same_scans(RELEARN, (TAUGHT, &learnt), (RELEARNT, &relearnt))?;
        // And a run without observations after a reset scans as a new detector.
        reset(&mut sequential)?;
        let after_reset = scan(&mut sequential, snapshot).map_err(|m| fail(NO_PANIC, m))?;
        same(
            RESET,
            ("a new detector", &first),
            (
                "one run through the history twice, then reset",
                &after_reset,
            ),
        )?;
        Ok(())
    }
}

/// Runs the universal checks (everything but the peer-relative expectation) on the
/// detectors `make` builds; a shorthand for `Conformance::new(make).run()`.
pub fn check_detector<D: Detector>(
    make: impl Fn(Parallelism) -> D,
) -> Result<(), ConformanceFailure> {
    Conformance::new(make).run()
}

/// The first property a detector broke, with the scenario it broke it in.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConformanceFailure {
    /// The detector's name (`"?"` when its constructor panicked).
    pub detector: String,
    /// The scenario, as listed in the [module docs](self).
    pub scenario: &'static str,
    /// The property broken.
    pub check: &'static str,
    /// What was seen.
    pub detail: String,
}

impl fmt::Display for ConformanceFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "detector {:?} fails \"{}\" in scenario \"{}\": {}",
            self.detector, self.check, self.scenario, self.detail
        )
    }
}

impl std::error::Error for ConformanceFailure {}

const NO_PANIC: &str = "the scan does not panic";
const RESET: &str = "after reset, a scan gives the findings of a new detector";
const DETERMINISM: &str = "the same observations and snapshots give the same findings";
const RELEARN: &str = "after reset, the same history teaches what it taught a new detector";
const NO_OBSERVE_PANIC: &str = "observing does not panic";
const RANGE: &str = "rows strictly increasing and in range, slow nodes in range";

fn sequential_name<D: Detector>(make: &impl Fn(Parallelism) -> D) -> String {
    catch_unwind(AssertUnwindSafe(|| {
        make(Parallelism::Sequential).name().to_owned()
    }))
    .unwrap_or_else(|_| String::from("?"))
}

fn scan<D: Detector>(detector: &mut D, snapshot: &Snapshot) -> Result<Findings, String> {
    let mut findings = Findings::default();
    catch_unwind(AssertUnwindSafe(|| detector.scan(snapshot, &mut findings)))
        .map_err(|payload| panic_message(&payload))?;
    Ok(findings)
}

fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| String::from("non-string payload"));
    format!("panicked: {message}")
}

/// What breaks the findings' contract ([`Findings::check`]), if anything.
fn out_of_range(findings: &Findings, snapshot: &Snapshot) -> Option<String> {
    match findings.check("", snapshot) {
        Ok(()) => None,
        Err(crate::DetectError::BadFindings { problem, .. }) => Some(problem),
        Err(other) => Some(other.to_string()),
    }
}

/// What two scans found, each named by what it is (`"the sequential detector"`), so that
/// the message says which two the check compared.
fn differ((one, expected): (&str, &Findings), (other, got): (&str, &Findings)) -> String {
    format!(
        "{one} flagged rows {:?} and nodes {:?}, {other} rows {:?} and nodes {:?}",
        Preview(expected.rows()),
        Preview(expected.slow_nodes()),
        Preview(got.rows()),
        Preview(got.slow_nodes()),
    )
}

/// At most the first ten items of a slice, and how many there are.
struct Preview<'a, T>(&'a [T]);

impl<T: fmt::Debug> fmt::Debug for Preview<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = &self.0[..self.0.len().min(10)];
        write!(f, "{shown:?}")?;
        if self.0.len() > shown.len() {
            write!(f, " (first 10 of {})", self.0.len())?;
        }
        Ok(())
    }
}

/// An observation of a history, with what it stands for (`"a killed original, whose
/// copy succeeded"`), which names it when observing it panics.
#[derive(Debug, Clone)]
struct Observed {
    observation: Observation,
    what: &'static str,
}

impl Observed {
    fn new(observation: Observation, what: &'static str) -> Self {
        Observed { observation, what }
    }
}

/// Feeds the observations `range` of `history` to `detector` in order; if an observation
/// panics, says which.
fn observe<D: Detector>(
    detector: &mut D,
    history: &[Observed],
    range: std::ops::Range<usize>,
) -> Result<(), String> {
    for (index, observed) in history.iter().enumerate().take(range.end).skip(range.start) {
        catch_unwind(AssertUnwindSafe(|| detector.observe(&observed.observation))).map_err(
            |payload| {
                format!(
                    "{} on observation {} of {}, {}: {:?}",
                    panic_message(&payload),
                    index + 1,
                    history.len(),
                    observed.what,
                    observed.observation
                )
            },
        )?;
    }
    Ok(())
}

/// The observations until the stage's end and after, and the snapshot, of
/// [`Conformance::forgets_finished_stages`]'s check (see the [module docs](self)).
fn reused_stage() -> (Vec<Observed>, Vec<Observed>, Snapshot) {
    const HISTORY: u32 = 200;
    const NODES: u32 = 10;
    let mut history = vec![Observation::JobSubmitted {
        job: JobId(0),
        time_secs: 0.0,
    }];
    for task in 0..HISTORY {
        let (attempt, node) = (AttemptId(task), NodeId(task % NODES));
        history.push(Observation::Progress(ProgressReport {
            attempt,
            task: TaskId(task),
            stage: StageId(0),
            node,
            time_secs: 5.0,
            progress: 0.5,
        }));
    }
    for task in 0..HISTORY {
        history.push(Observation::AttemptEnded(AttemptEnd {
            attempt: AttemptId(task),
            task: TaskId(task),
            stage: StageId(0),
            node: NodeId(task % NODES),
            role: AttemptRole::Original,
            start_secs: 0.0,
            end_secs: 10.0,
            status: AttemptStatus::Succeeded,
            input_bytes: 640_000_000,
        }));
    }
    history.push(Observation::StageFinished {
        stage: StageId(0),
        time_secs: 10.0,
    });
    let stages = vec![Stage {
        job: JobId(1),
        kind: TaskKind::Map,
    }];
    let mut snapshot = Snapshot::new(200.0, NODES, stages).expect("valid snapshot");
    let rows: Vec<SnapshotRow> = (0..20)
        .map(|i| SnapshotRow {
            attempt: AttemptId(HISTORY + i),
            task: TaskId(HISTORY + i),
            stage: StageId(0),
            node: NodeId(i % NODES),
            role: AttemptRole::Original,
            start_secs: 100.0,
            progress: if i % 4 == 0 { 0.05 } else { 0.5 },
            input_bytes: 64e6,
        })
        .collect();
    let mut after = vec![Observation::JobSubmitted {
        job: JobId(1),
        time_secs: 90.0,
    }];
    // Every 3 s from 101 s to 200 s (34 reports each, more than Hadoop's 24 skipped).
    for k in 0..34 {
        let time_secs = 200.0 - f64::from(33 - k) * 3.0;
        for row in &rows {
            after.push(Observation::Progress(ProgressReport {
                attempt: row.attempt,
                task: row.task,
                stage: row.stage,
                node: row.node,
                time_secs,
                progress: row.progress * (time_secs - 100.0) / 100.0,
            }));
        }
    }
    for row in rows {
        snapshot.push(row).expect("valid row");
    }
    let finished = "the finished stage's history";
    let new = "the new stage's history";
    (
        history
            .into_iter()
            .map(|o| Observed::new(o, finished))
            .collect(),
        after.into_iter().map(|o| Observed::new(o, new)).collect(),
        snapshot,
    )
}

/// One of the kit's scenarios (see the [module docs](self)): a snapshot, the observations
/// before it, and the scans amid them. [`scenario`] finds the one a [`ConformanceFailure`]
/// names, so that a test of one's own can run the detector through it again:
///
/// ```
/// use straggler_detect::DefaultDetector;
/// use straggler_detect::conformance::scenario;
///
/// let generated = scenario("generated").expect("a scenario of the kit");
/// let scans = generated.run(&mut DefaultDetector::default());
/// // Three scans amid the history, then the scenario's snapshot.
/// assert_eq!(scans.len(), 4);
/// let (last, snapshot) = (&scans[3], generated.snapshot());
/// println!("flagged {} of {} rows", last.rows().len(), snapshot.len());
/// ```
pub struct KitScenario {
    name: &'static str,
    snapshot: Snapshot,
    history: Vec<Observed>,
    /// The scans amid the history, in time order.
    interim: Vec<Interim>,
    peers_identical: bool,
}

impl fmt::Debug for KitScenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KitScenario")
            .field("name", &self.name)
            .field("rows", &self.snapshot.len())
            .field("now_secs", &self.snapshot.now_secs())
            .field("observations", &self.history.len())
            .field("scans", &(self.interim.len() + 1))
            .finish_non_exhaustive()
    }
}

/// The kit's scenario named `name`, as a [`ConformanceFailure`]'s `scenario` names it;
/// `None` for another name (such as the checks made once rather than per scenario: `"name"`
/// and the finished stage of [`Conformance::forgets_finished_stages`]).
pub fn scenario(name: &str) -> Option<&'static KitScenario> {
    scenarios().iter().find(|scenario| scenario.name == name)
}

/// Every scenario of the kit, in the order [`Conformance::run`] runs them.
pub fn all_scenarios() -> &'static [KitScenario] {
    scenarios()
}

impl KitScenario {
    /// The scenario's name, as failures give it.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The scenario's snapshot, scanned last.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The observations before the snapshot, in the order the kit feeds them (empty for
    /// the snapshot without stages or nodes).
    pub fn history(&self) -> impl ExactSizeIterator<Item = &Observation> {
        self.history.iter().map(|observed| &observed.observation)
    }

    /// The scans of a run through the history, in order: each snapshot with how many
    /// observations of [`KitScenario::history`] come before it, those amid the history,
    /// then the scenario's snapshot after all of them.
    pub fn scans(&self) -> impl Iterator<Item = (usize, &Snapshot)> {
        (self.interim.iter())
            .map(|interim| (interim.observed, &interim.snapshot))
            .chain([(self.history.len(), &self.snapshot)])
    }

    /// Runs `detector` through the history as the kit does: the observations, with the
    /// scans amid them, then a scan of the snapshot; the findings of every scan, in the
    /// order of [`KitScenario::scans`]. Unlike the kit, it lets a panic of the detector
    /// unwind, and checks nothing.
    pub fn run<D: Detector + ?Sized>(&self, detector: &mut D) -> Vec<Findings> {
        let mut observed = 0;
        let mut scans = Vec::with_capacity(self.interim.len() + 1);
        for (until, snapshot) in self.scans() {
            for observation in &self.history[observed..until] {
                detector.observe(&observation.observation);
            }
            observed = until;
            let mut findings = Findings::default();
            detector.scan(snapshot, &mut findings);
            scans.push(findings);
        }
        scans
    }

    /// The `index`th scan of [`KitScenario::scans`], named for a failure.
    fn scan_name(&self, index: usize) -> String {
        let of = self.snapshot.now_secs();
        match self.interim.get(index) {
            Some(interim) => format!(
                "the scan at {} s amid the history (the scenario's snapshot is at {of} s)",
                interim.snapshot.now_secs()
            ),
            None => format!("the scan of the scenario's snapshot at {of} s"),
        }
    }
}

/// A scan amid a history: what an engine's snapshot held at an instant before the
/// scenario's, after the observations up to that instant.
struct Interim {
    /// How many of the history's observations come before it.
    observed: usize,
    snapshot: Snapshot,
}

/// One row in compact form: stage, node, start (s), progress, input (bytes).
pub type Row = (u32, u32, f64, f64, f64);

/// A snapshot at `now_secs` of `node_count` nodes running `stage_count` stages (stage 0
/// the maps of job 0, stage 1 its reduces, stage 2 the maps of job 1...), with one original
/// attempt per row, attempt and task ids numbered from 0 in row order. For tests and
/// benchmarks of detectors; an invalid row gives the snapshot's error.
pub fn build_snapshot(
    now_secs: f64,
    node_count: u32,
    stage_count: u32,
    rows: impl IntoIterator<Item = Row>,
) -> Result<Snapshot, ModelError> {
    let stages = (0..stage_count)
        .map(|s| Stage {
            job: JobId(s / 2),
            kind: if s % 2 == 0 {
                TaskKind::Map
            } else {
                TaskKind::Reduce
            },
        })
        .collect();
    let mut snapshot = Snapshot::new(now_secs, node_count, stages)?;
    for (i, (stage, node, start_secs, progress, input_bytes)) in rows.into_iter().enumerate() {
        snapshot.push(SnapshotRow {
            attempt: AttemptId(i as u32),
            task: TaskId(i as u32),
            stage: StageId(stage),
            node: NodeId(node),
            role: AttemptRole::Original,
            start_secs,
            progress,
            input_bytes,
        })?;
    }
    Ok(snapshot)
}

/// The instant of a [`straggling_stage`] snapshot, seconds.
pub const STAGE_NOW_SECS: f64 = 3000.0;
/// The usual duration of a [`straggling_stage`] map, seconds.
pub const STAGE_USUAL_SECS: f64 = 600.0;

/// A snapshot for benchmarks of detectors: `tasks` running maps of one stage on `nodes`
/// nodes at [`STAGE_NOW_SECS`]. Each row's node is uniform; a row runs at `1/600` of its
/// work per second times a +-10% jitter, started uniformly over the last 600 s, its
/// progress capped at 0.999; the rows of one node in 20 (`node % 20 == 0`) and 1% of the
/// others are stragglers, five times slower, started over the last 2400 s; inputs are
/// 64 MB +-10%. The data come from a SplitMix64 stream seeded by `seed`. `nodes` must be
/// at least 1.
pub fn straggling_stage(tasks: usize, nodes: u32, seed: u64) -> Result<Snapshot, ModelError> {
    let mut rng = SplitMix64(seed);
    let rows = (0..tasks).map(move |_| {
        let node = rng.below(nodes);
        let slow = node.is_multiple_of(20) || rng.below(100) == 0;
        let (slowdown, max_age) = if slow {
            (5.0, 4.0 * STAGE_USUAL_SECS)
        } else {
            (1.0, STAGE_USUAL_SECS)
        };
        let start_secs = STAGE_NOW_SECS - rng.unit() * max_age;
        let rate = (0.9 + 0.2 * rng.unit()) / STAGE_USUAL_SECS / slowdown;
        let progress = ((STAGE_NOW_SECS - start_secs) * rate).min(0.999);
        (
            0,
            node,
            start_secs,
            progress,
            64e6 * (0.9 + 0.2 * rng.unit()),
        )
    });
    build_snapshot(STAGE_NOW_SECS, nodes, 1, rows)
}

/// [`build_snapshot`] on the kit's own rows, which are valid.
fn build(
    now_secs: f64,
    node_count: u32,
    stage_count: u32,
    rows: impl IntoIterator<Item = Row>,
) -> Snapshot {
    build_snapshot(now_secs, node_count, stage_count, rows).expect("the kit's rows are valid")
}

/// `count` copies of one attempt, spread round-robin over `node_count` nodes.
fn identical(now: f64, node_count: u32, count: u32, row: (f64, f64, f64)) -> Snapshot {
    let (start, progress, input) = row;
    build(
        now,
        node_count,
        1,
        (0..count).map(|i| (0, i % node_count, start, progress, input)),
    )
}

/// The kit's scenarios with their histories, built at the first run and shared by every
/// run after it in the process: building them takes longer than scanning them with most
/// detectors.
fn scenarios() -> &'static [KitScenario] {
    static SCENARIOS: OnceLock<Vec<KitScenario>> = OnceLock::new();
    SCENARIOS.get_or_init(build_scenarios)
}

fn build_scenarios() -> Vec<KitScenario> {
    const MB: f64 = 1e6;
    // The histories draw from a stream of their own, so that the snapshots do not depend
    // on them.
    let mut history_rng = SplitMix64(0x4157_0b5e_7ed0_2501);
    // So do the scenarios added after the first generated ones.
    let mut order_rng = SplitMix64(0x0de2_5e75_0a11_2511);
    let mut scenario = |name, snapshot: Snapshot, peers_identical| {
        let snapshot = jobs_in_submission_order(snapshot);
        let (history, interim) = history(&snapshot, &mut history_rng);
        KitScenario {
            name,
            history,
            interim,
            snapshot,
            peers_identical,
        }
    };
    let mut rng = SplitMix64(0x5eed_0f57_a66e_2500);
    let varied_zero_progress: Vec<Row> = (0..1000)
        .map(|i| {
            (
                i % 2,
                i % 7,
                rng.unit() * 100.0,
                0.0,
                (1.0 + rng.unit()) * 64.0 * MB,
            )
        })
        .collect();
    let started_now: Vec<Row> = (0..1000)
        .map(|i| (i % 2, i % 7, 100.0, rng.unit(), 64.0 * MB))
        .collect();
    let long_run: Vec<Row> = (0..1000)
        .map(|i| (i % 2, i % 7, rng.unit() * 1e3, rng.unit(), 64.0 * MB))
        .collect();
    // Three stages with different attempts; every node runs 15 attempts of each stage in
    // the same order (one chunk, so every node's sums are the same floating-point sums).
    let per_stage = [
        (0.1, 20.0, 64.0 * MB),
        (0.7, 35.0, 128.0 * MB),
        (1.0 / 3.0, 0.0, MB),
    ];
    let within_stages = (0..3u32).flat_map(|stage| {
        let (progress, start, input) = per_stage[stage as usize];
        (0..60).map(move |i| (stage, i % 4, start, progress, input))
    });
    vec![
        scenario(
            "empty snapshot without stages or nodes",
            build(0.0, 0, 0, []),
            true,
        ),
        scenario("stages and nodes, no rows", build(100.0, 8, 2, []), true),
        scenario(
            "one task",
            build(100.0, 4, 2, [(1, 3, 40.0, 0.25, 64.0 * MB)]),
            true,
        ),
        scenario(
            "three identical tasks",
            identical(100.0, 3, 3, (40.0, 0.1, 64.0 * MB)),
            true,
        ),
        scenario(
            "10 000 identical tasks on 10 nodes",
            identical(100.0, 10, 10_000, (40.0, 0.7, 64.0 * MB)),
            true,
        ),
        scenario(
            "identical tasks within each of three stages",
            build(100.0, 4, 3, within_stages),
            true,
        ),
        scenario(
            "zero progress",
            build(100.0, 7, 2, varied_zero_progress),
            false,
        ),
        scenario(
            "zero progress on identical tasks",
            identical(100.0, 5, 500, (0.0, 0.0, 64.0 * MB)),
            true,
        ),
        scenario(
            "every attempt started now",
            build(100.0, 7, 2, started_now),
            false,
        ),
        scenario("very long run", build(1e7, 7, 2, long_run), false),
        scenario(
            "very long run, identical tasks",
            identical(1e7, 7, 700, (0.0, 0.3, 64.0 * MB)),
            true,
        ),
        scenario("generated", generated(&mut rng, Mix::Mixed), false),
        scenario(
            "generated, two levels per stage",
            generated(&mut rng, Mix::TwoLevels),
            false,
        ),
        scenario(
            "generated, three levels per stage",
            generated(&mut rng, Mix::ThreeLevels),
            false,
        ),
        scenario(
            "generated, with copies",
            with_copies(&generated(&mut rng, Mix::Mixed)),
            false,
        ),
        scenario(
            "summed in any order, 5 003 rows over 2 stages",
            order_sensitive(&mut order_rng, 5_003, &[0.6, 0.4]),
            false,
        ),
        scenario(
            "summed in any order, 12 289 rows over 3 stages",
            order_sensitive(&mut order_rng, 12_289, &[0.5, 0.3, 0.2]),
            false,
        ),
        scenario(
            "summed in any order, 70 001 rows over 2 stages",
            order_sensitive(&mut order_rng, 70_001, &[0.96, 0.04]),
            false,
        ),
    ]
}

/// Rows of each stage of an [`order_sensitive`] scenario placed at its boundaries, in turn
/// at the mean minus 0.2, one ulp below it, at the mean and one ulp below it.
const BOUNDARY_ROWS: usize = 16;

/// The progress scores of an [`order_sensitive`] scenario, but for the rows at the bars,
/// are `k / 2^30` for `k` from [`ORDER_LOWEST`] to `ORDER_LOWEST + ORDER_STEPS` (about
/// 0.05 to 0.95), plus this offset, 9830 x 2^-53 (0.29999 x 2^-38, about 1.1e-12).
///
/// Adding such a score to a running sum, a multiple of 2^-30 plus offsets, rounds only
/// its offset, and by the same amount at every addition within a binade: a sum from 2^14
/// up (ulp 2^-38 or more) drops the whole offset, a sum in `[2^10, 2^11)` (ulp 2^-42)
/// adds `5 x 2^-42`. The rounding errors of a sum therefore add up instead of cancelling
/// out, and a sum in another order (chunks or parts added up from zero, lanes) spends
/// other numbers of additions in each binade: it ends away from the sequential sum,
/// hundreds of ulps for most splits, rather than equal to it by chance (with scores whose
/// every bit was drawn at random, the three scenarios missed the split of the largest
/// stage into chunks of 33 333 or 65 536 rows in 2 to 4.5% of 200 draws; with these, in
/// none of 1 000).
const ORDER_OFFSET: f64 = 9830.0 / (1u64 << 53) as f64;
/// See [`ORDER_OFFSET`]: `0.05 x 2^30`, rounded down.
const ORDER_LOWEST: u32 = 53_687_091;
/// See [`ORDER_OFFSET`]: `0.9 x 2^30`, rounded down.
const ORDER_STEPS: u32 = 966_367_641;

/// Rounds of [`order_sensitive`] before it gives up placing rows at the bars (none of its
/// scenarios takes more than a few).
const ORDER_ROUNDS: usize = 64;

/// A snapshot of `rows` rows over `shares.len()` stages (a row in stage `s` with
/// probability `shares[s]`) whose stage means depend on the order in which the progress
/// scores are added, with rows exactly at the bars of Default's rule as a sequential scan
/// computes them: see the module docs.
fn order_sensitive(rng: &mut SplitMix64, rows: usize, shares: &[f64]) -> Snapshot {
    const NOW: f64 = 3600.0;
    const NODES: u32 = 64;
    let mut stage_rows: Vec<Vec<usize>> = vec![Vec::new(); shares.len()];
    let mut table: Vec<Row> = (0..rows)
        .map(|row| {
            let mut pick = rng.unit();
            let stage = (shares.iter())
                .position(|&share| {
                    pick -= share;
                    pick < 0.0
                })
                .unwrap_or(shares.len() - 1);
            stage_rows[stage].push(row);
            let step = ORDER_LOWEST + rng.below(ORDER_STEPS);
            let progress = f64::from(step) / f64::from(1u32 << 30) + ORDER_OFFSET;
            let start = rng.unit() * NOW;
            (stage as u32, rng.below(NODES), start, progress, 64e6)
        })
        .collect();
    for of_stage in &stage_rows {
        let bars = |table: &[Row]| {
            // The stage's mean as a sequential scan adds it: row by row, in row order.
            let sum = of_stage.iter().fold(0.0, |sum, &row| sum + table[row].3);
            let mean = sum / of_stage.len() as f64;
            let below = mean - 0.2;
            [below, below.next_down(), mean, mean.next_down()]
        };
        // Evenly spread over the stage, at a random place within each stretch.
        let stretch = (of_stage.len() / BOUNDARY_ROWS).max(1);
        let boundary: Vec<usize> = (0..BOUNDARY_ROWS.min(of_stage.len()))
            .map(|k| of_stage[k * stretch + rng.below(stretch as u32) as usize])
            .collect();
        // The rows at the bars move the mean they are set from: set them again until the
        // mean stands still (within a few rounds, as they are a few rows among thousands);
        // should two values alternate, nudge a row that is not at a bar.
        for round in 0..ORDER_ROUNDS {
            let at = bars(&table);
            let mut moved = false;
            for (k, &row) in boundary.iter().enumerate() {
                moved |= table[row].3 != at[k % at.len()];
                table[row].3 = at[k % at.len()];
            }
            if !moved {
                break;
            }
            assert!(
                round + 1 < ORDER_ROUNDS,
                "the bars of a stage did not settle"
            );
            if round % 8 == 7 {
                let free = of_stage.iter().find(|row| !boundary.contains(row));
                if let Some(&row) = free {
                    table[row].3 = table[row].3.next_up();
                }
            }
        }
    }
    build(NOW, NODES, shares.len() as u32, table)
}

/// The first job id of the kit's scenarios: the earlier jobs of their histories, submitted
/// first, take the ids below (see [`jobs_in_submission_order`]).
const FIRST_JOB: u32 = 1000;

/// `snapshot` with its jobs numbered from [`FIRST_JOB`] in the order their histories
/// submit them (by the earliest start of their rows, `now` for a job without rows; ties by
/// their ids), as engines number jobs in the order they arrive.
fn jobs_in_submission_order(mut snapshot: Snapshot) -> Snapshot {
    let now = snapshot.now_secs();
    let mut first_start: Vec<(JobId, f64)> = Vec::new();
    for stage in snapshot.stages() {
        if !first_start.iter().any(|(job, _)| *job == stage.job) {
            first_start.push((stage.job, now));
        }
    }
    for (&stage, &start) in snapshot.stage_indices().iter().zip(snapshot.start_secs()) {
        let job = snapshot.stages()[stage as usize].job;
        if let Some((_, first)) = first_start.iter_mut().find(|(j, _)| *j == job) {
            *first = first.min(start);
        }
    }
    first_start.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.0.cmp(&b.0.0)));
    for index in 0..snapshot.stages().len() {
        let stage = snapshot.stages()[index];
        let rank = (first_start.iter())
            .position(|(job, _)| *job == stage.job)
            .expect("every job is ranked") as u32;
        let renumbered = Stage {
            job: JobId(FIRST_JOB + rank),
            ..stage
        };
        snapshot
            .set_stage(StageId(index as u32), renumbered)
            .expect("an index of the snapshot");
    }
    snapshot
}

/// Finished tasks of each stage before the stage's jobs' own (see [`history`]).
const EARLIER_TASKS: u32 = 8;
/// Finished tasks of each stage of the snapshot's jobs (see [`history`]).
const FINISHED_TASKS: u32 = 24;
/// The rows of a snapshot that report at every heartbeat (see [`history`]).
const SERIES_ROWS: usize = 64;
/// Reports of each of those rows, the last at its progress: more than the 24 that
/// Hadoop's estimators skip.
const SERIES_REPORTS: u32 = 30;
/// The instants of the scans amid a history, as shares of the snapshot's instant.
const INTERIM_SHARES: [f64; 3] = [0.25, 0.5, 0.75];

/// The observations an engine could have sent before `snapshot`, in time order, and the
/// scans amid them: see the module docs ("History"). Task and attempt identifiers of
/// attempts that are not rows follow the snapshot's largest; each observation says what
/// it stands for.
fn history(snapshot: &Snapshot, rng: &mut SplitMix64) -> (Vec<Observed>, Vec<Interim>) {
    let (now, stages) = (snapshot.now_secs(), snapshot.stages());
    if snapshot.node_count() == 0 || stages.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let mut history = History {
        events: Vec::new(),
        lives: Vec::new(),
        earlier_stages: vec![None; stages.len()],
        rng,
        node_count: snapshot.node_count(),
        next_task: snapshot.tasks().iter().map(|t| t.0 + 1).max().unwrap_or(0),
        next_attempt: snapshot
            .attempts()
            .iter()
            .map(|a| a.0 + 1)
            .max()
            .unwrap_or(0),
    };
    // Each stage's earliest start, `now` for a stage without rows.
    let mut earliest = vec![now; stages.len()];
    let mut has_rows = vec![false; stages.len()];
    for (&stage, &start) in snapshot.stage_indices().iter().zip(snapshot.start_secs()) {
        earliest[stage as usize] = earliest[stage as usize].min(start);
        has_rows[stage as usize] = true;
    }
    let mut jobs: Vec<JobId> = Vec::new();
    for stage in stages {
        if !jobs.contains(&stage.job) {
            jobs.push(stage.job);
        }
    }
    // The earlier jobs, submitted first, take the ids below the snapshot's, in order.
    let mut earlier_job = (jobs.iter().map(|j| j.0).min().unwrap_or(FIRST_JOB))
        .checked_sub(jobs.len() as u32)
        .expect("the kit numbers its scenarios' jobs from FIRST_JOB");
    let mut submitted_at = vec![0.0; stages.len()];
    for job in jobs {
        let of_job: Vec<u32> = (0..stages.len() as u32)
            .filter(|&s| stages[s as usize].job == job)
            .collect();
        let first_start = of_job
            .iter()
            .map(|&s| earliest[s as usize])
            .fold(now, f64::min);
        // Submitted halfway to its first row's start; when that is after 0 s, its stages'
        // indices were an earlier job's, which ran and finished before.
        let submitted = first_start / 2.0;
        if submitted > 0.0 {
            history.push(
                0.0,
                Observation::JobSubmitted {
                    job: JobId(earlier_job),
                    time_secs: 0.0,
                },
                "the submission of an earlier job, whose stages' indices the snapshot's took",
            );
            for &stage in &of_job {
                let earlier = Stage {
                    job: JobId(earlier_job),
                    ..stages[stage as usize]
                };
                history.earlier_stages[stage as usize] = Some((earlier, submitted));
                let stage = StageId(stage);
                let last_end = history.finished_tasks(stage, (0.0, submitted), EARLIER_TASKS);
                history.push(
                    last_end,
                    Observation::StageFinished {
                        stage,
                        time_secs: last_end,
                    },
                    "an earlier job's stage finished, its index given to the snapshot's",
                );
            }
            earlier_job += 1;
        }
        history.push(
            submitted,
            Observation::JobSubmitted {
                job,
                time_secs: submitted,
            },
            "the submission of a job of the snapshot",
        );
        // A stage without rows has finished if every stage of its job before it has;
        // otherwise it has not started.
        let mut started = true;
        for &stage in &of_job {
            submitted_at[stage as usize] = submitted;
            if !started {
                continue;
            }
            let id = StageId(stage);
            let last_end = history.finished_tasks(id, (submitted, now), FINISHED_TASKS);
            if has_rows[stage as usize] {
                started = false;
            } else {
                history.push(
                    last_end,
                    Observation::StageFinished {
                        stage: id,
                        time_secs: last_end,
                    },
                    "a stage without rows finished",
                );
            }
        }
    }
    // The tasks with a copy among the rows: their originals report early, as an engine
    // launches a copy only of an attempt a scan has seen.
    let copied: std::collections::BTreeSet<TaskId> = (0..snapshot.len())
        .filter(|&row| snapshot.roles()[row] == AttemptRole::Speculative)
        .map(|row| snapshot.tasks()[row])
        .collect();
    for index in 0..snapshot.len() {
        let row = snapshot.row(index).expect("a row of the snapshot");
        let has_copy = row.role == AttemptRole::Original && copied.contains(&row.task);
        history.running(index, row, submitted_at[row.stage.index()], now, has_copy);
    }
    // By time, then in the order pushed (what happened at one instant stays in order);
    // keys of 16 bytes sort faster than the observations.
    let mut order: Vec<(f64, u32)> = (history.events.iter().enumerate())
        .map(|(index, (time_secs, _))| (*time_secs, index as u32))
        .collect();
    order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let interim = INTERIM_SHARES
        .iter()
        .map(|share| {
            let instant = now * share;
            Interim {
                observed: order.partition_point(|&(time_secs, _)| time_secs <= instant),
                snapshot: history.snapshot_at(instant, snapshot),
            }
        })
        .collect();
    let observations = order
        .into_iter()
        .map(|(_, index)| history.events[index as usize].1.clone())
        .collect();
    (observations, interim)
}

/// The history being built: observations with their times, not yet in time order, and
/// the attempts they tell of.
struct History<'a> {
    events: Vec<(f64, Observed)>,
    lives: Vec<Life>,
    /// The stage of an earlier job at each index, if one had it, and when the snapshot's
    /// job took the index (the job's submission).
    earlier_stages: Vec<Option<(Stage, f64)>>,
    rng: &'a mut SplitMix64,
    node_count: u32,
    next_task: u32,
    next_attempt: u32,
}

/// A moment of a finished task's run, at which an attempt of its story starts or ends.
#[derive(Clone, Copy)]
enum At {
    /// The task's start.
    Start,
    /// Four tenths of the way: after the original's first report (at a third), as an
    /// engine launches a copy only of an attempt a scan has seen.
    Copy,
    /// Halfway.
    Middle,
    /// The task's end.
    End,
}

/// One attempt of a finished task's story.
struct Step {
    role: AttemptRole,
    /// On the task's second node rather than its first.
    other_node: bool,
    from: At,
    to: At,
    status: AttemptStatus,
    /// Progress reports, evenly spread over the run.
    reports: u32,
    /// An input of 0 bytes rather than the task's.
    empty_input: bool,
    /// What it stands for, named by a failure.
    what: &'static str,
}

/// A step of a story, on the task's first node, over its input.
const fn step(
    role: AttemptRole,
    (from, to): (At, At),
    status: AttemptStatus,
    reports: u32,
    what: &'static str,
) -> Step {
    Step {
        role,
        other_node: false,
        from,
        to,
        status,
        reports,
        empty_input: false,
        what,
    }
}

/// [`step`] on the task's second node.
const fn elsewhere(step: Step) -> Step {
    Step {
        other_node: true,
        ..step
    }
}

/// The eight stories the finished tasks tell in turn, each attempt in the order observed
/// at one instant.
const STORIES: [&[Step]; 8] = {
    use At::{Copy, End, Middle, Start};
    use AttemptRole::{Original, Speculative};
    use AttemptStatus::{Failed, Killed, Succeeded};
    [
        &[step(
            Original,
            (Start, End),
            Succeeded,
            2,
            "a success after two progress reports",
        )],
        &[Step {
            empty_input: true,
            ..step(
                Original,
                (Start, End),
                Succeeded,
                0,
                "a success of an empty input, without any progress report",
            )
        }],
        &[
            elsewhere(step(
                Speculative,
                (Middle, End),
                Succeeded,
                1,
                "a speculative copy that succeeded",
            )),
            step(
                Original,
                (Start, End),
                Killed,
                2,
                "an original killed as its copy succeeded",
            ),
        ],
        &[
            step(
                Original,
                (Start, End),
                Succeeded,
                2,
                "an original that succeeded while its copy ran",
            ),
            elsewhere(step(
                Speculative,
                (Middle, End),
                Killed,
                1,
                "a speculative copy killed as its original succeeded",
            )),
        ],
        &[
            step(
                Original,
                (Start, Middle),
                Failed,
                1,
                "a failed attempt, after a progress report",
            ),
            elsewhere(step(
                Original,
                (Middle, End),
                Succeeded,
                1,
                "the success of a failed attempt's retry",
            )),
        ],
        &[
            step(
                Original,
                (Start, Middle),
                Failed,
                0,
                "a failed attempt, without any progress report",
            ),
            elsewhere(step(
                Original,
                (Middle, End),
                Succeeded,
                0,
                "the success, without any progress report, of a failed attempt's retry",
            )),
        ],
        &[
            step(
                Original,
                (Start, End),
                Succeeded,
                2,
                "an original that succeeded while its copy started",
            ),
            elsewhere(step(
                Speculative,
                (Middle, End),
                Killed,
                0,
                "a speculative copy killed without any progress report",
            )),
        ],
        &[
            elsewhere(step(
                Speculative,
                (Copy, Middle),
                Failed,
                1,
                "a failed speculative copy",
            )),
            step(
                Original,
                (Start, End),
                Succeeded,
                2,
                "an original that succeeded after its copy failed",
            ),
        ],
    ]
};

/// An attempt of a history, as a snapshot amid it shows it.
struct Life {
    /// The attempt, its progress left at 0.
    row: SnapshotRow,
    /// When it ended (infinite for a row of the scenario's snapshot).
    end_secs: f64,
    /// Its progress reports, `(time, progress)`, in time order.
    reports: Vec<(f64, f64)>,
}

/// How an attempt of [`History::attempt`] ran.
#[derive(Clone, Copy)]
struct Run {
    role: AttemptRole,
    node: NodeId,
    start_secs: f64,
    end_secs: f64,
    status: AttemptStatus,
    /// Progress reports, evenly spread over the run.
    reports: u32,
}

impl History<'_> {
    fn push(&mut self, time_secs: f64, observation: Observation, what: &'static str) {
        self.events
            .push((time_secs, Observed::new(observation, what)));
    }

    fn node(&mut self) -> NodeId {
        NodeId(self.rng.below(self.node_count))
    }

    /// The snapshot an engine could show at `instant`, between 0 s and `last`'s instant:
    /// the attempts not yet ended at `instant` (an attempt that ends at `instant` has
    /// ended) that have reported progress by then, as an engine lists an attempt from its
    /// first report, each at its last report, and at each stage index an earlier job's
    /// stage until the snapshot's job took the index.
    fn snapshot_at(&self, instant: f64, last: &Snapshot) -> Snapshot {
        let stages = (last.stages().iter().zip(&self.earlier_stages))
            .map(|(&stage, earlier)| match *earlier {
                Some((earlier, until)) if instant < until => earlier,
                _ => stage,
            })
            .collect();
        let mut snapshot =
            Snapshot::new(instant, self.node_count, stages).expect("an instant of the history");
        for life in &self.lives {
            if life.row.start_secs <= instant && instant < life.end_secs {
                let reported = life.reports.iter().take_while(|(time, _)| *time <= instant);
                let Some(&(_, progress)) = reported.last() else {
                    continue;
                };
                snapshot
                    .push(SnapshotRow {
                        progress,
                        ..life.row
                    })
                    .expect("an attempt of the history");
            }
        }
        snapshot
    }

    fn new_attempt(&mut self) -> AttemptId {
        self.next_attempt += 1;
        AttemptId(self.next_attempt - 1)
    }

    /// One attempt of `task`: its reports, then its end.
    fn attempt(
        &mut self,
        task: TaskId,
        stage: StageId,
        run: Run,
        input_bytes: u64,
        what: &'static str,
    ) {
        let attempt = self.new_attempt();
        let length = run.end_secs - run.start_secs;
        let mut life = Life {
            row: SnapshotRow {
                attempt,
                task,
                stage,
                node: run.node,
                role: run.role,
                start_secs: run.start_secs,
                progress: 0.0,
                input_bytes: input_bytes as f64,
            },
            end_secs: run.end_secs,
            reports: Vec::new(),
        };
        for k in 1..=run.reports {
            let share = f64::from(k) / f64::from(run.reports + 1);
            let time_secs = run.start_secs + share * length;
            life.reports.push((time_secs, 0.9 * share));
            self.push(
                time_secs,
                Observation::Progress(ProgressReport {
                    attempt,
                    task,
                    stage,
                    node: run.node,
                    time_secs,
                    progress: 0.9 * share,
                }),
                "a progress report of an attempt that ended before the snapshot",
            );
        }
        self.push(
            run.end_secs,
            Observation::AttemptEnded(AttemptEnd {
                attempt,
                task,
                stage,
                node: run.node,
                role: run.role,
                start_secs: run.start_secs,
                end_secs: run.end_secs,
                status: run.status,
                input_bytes,
            }),
            what,
        );
        self.lives.push(life);
    }

    /// `count` tasks of `stage` that ran and ended within `window`, in turn each of eight
    /// stories (successes with and without reports, originals and copies killed, failures
    /// with and without reports, retried); returns the last end.
    fn finished_tasks(&mut self, stage: StageId, window: (f64, f64), count: u32) -> f64 {
        let (from, to) = window;
        let mut last_end = from;
        for story in 0..count {
            let task = TaskId(self.next_task);
            self.next_task += 1;
            let start_secs = from + (to - from) * 0.5 * self.rng.unit();
            // Finished tasks are the short ones: a twentieth to half the time left; `min`
            // keeps the end within the window whatever the rounding.
            let end_secs =
                (start_secs + (to - start_secs) * (0.05 + 0.45 * self.rng.unit())).min(to);
            let middle = start_secs + (end_secs - start_secs) * 0.5;
            let input_bytes = 1_000_000 + u64::from(self.rng.below(255)) * 1_000_000;
            let (node, other) = (self.node(), self.node());
            let at = |moment| match moment {
                At::Start => start_secs,
                At::Copy => start_secs + (end_secs - start_secs) * 0.4,
                At::Middle => middle,
                At::End => end_secs,
            };
            for step in STORIES[story as usize % STORIES.len()] {
                let run = Run {
                    role: step.role,
                    node: if step.other_node { other } else { node },
                    start_secs: at(step.from),
                    end_secs: at(step.to),
                    status: step.status,
                    reports: step.reports,
                };
                let input_bytes = if step.empty_input { 0 } else { input_bytes };
                self.attempt(task, stage, run, input_bytes, step.what);
            }
            last_end = last_end.max(end_secs);
        }
        last_end
    }

    /// The reports of running row `index`, the last of which is its progress, and, for
    /// some rows, an earlier attempt of its task that failed (an original's) or a copy
    /// that failed (beside an original). An original with a copy (`has_copy`, a row, or
    /// the failed copy) reports before the copy starts.
    fn running(
        &mut self,
        index: usize,
        row: SnapshotRow,
        submitted: f64,
        now: f64,
        has_copy: bool,
    ) {
        let input_bytes = row.input_bytes as u64;
        if index % 11 == 3 && row.role == AttemptRole::Original {
            let node = self.node();
            let start_secs = submitted + (row.start_secs - submitted) * self.rng.unit();
            let failed = Run {
                role: AttemptRole::Original,
                node,
                start_secs,
                end_secs: row.start_secs,
                status: AttemptStatus::Failed,
                reports: 1,
            };
            self.attempt(
                row.task,
                row.stage,
                failed,
                input_bytes,
                "a failed attempt of a task whose retry is a row",
            );
        }
        // Not beside a copy row: an engine runs one copy of a task at a time.
        let failed_copy = index % 17 == 7
            && row.role == AttemptRole::Original
            && row.start_secs < now
            && !has_copy;
        let elapsed = now - row.start_secs;
        let last_secs = (now - elapsed * 0.1 * self.rng.unit()).max(row.start_secs);
        // The first rows report at every heartbeat (more reports than Hadoop's estimators
        // skip), every fourth row and every original with a copy also halfway, the others
        // only once.
        let earlier = match (index, elapsed > 0.0) {
            (_, false) => 0,
            (0..SERIES_ROWS, true) => SERIES_REPORTS - 1,
            (_, true) => u32::from(index.is_multiple_of(4) || has_copy || failed_copy),
        };
        let report_secs = |k: u32| {
            let share = f64::from(k) / f64::from(earlier + 1);
            (row.start_secs + (last_secs - row.start_secs) * share, share)
        };
        if failed_copy {
            // Launched after the original's first report, failed before `now`.
            let (first_report, _) = report_secs(1);
            let node = self.node();
            let start_secs = first_report + (now - first_report) * (0.1 + 0.4 * self.rng.unit());
            let failed = Run {
                role: AttemptRole::Speculative,
                node,
                start_secs,
                end_secs: start_secs + (now - start_secs) * 0.5,
                status: AttemptStatus::Failed,
                reports: 0,
            };
            self.attempt(
                row.task,
                row.stage,
                failed,
                input_bytes,
                "a failed speculative copy of a task whose original is a row",
            );
        }
        let report = |time_secs, progress| {
            Observation::Progress(ProgressReport {
                attempt: row.attempt,
                task: row.task,
                stage: row.stage,
                node: row.node,
                time_secs,
                progress,
            })
        };
        let mut life = Life {
            row: SnapshotRow {
                progress: 0.0,
                ..row
            },
            end_secs: f64::INFINITY,
            reports: Vec::new(),
        };
        for k in 1..=earlier {
            let (time_secs, share) = report_secs(k);
            life.reports.push((time_secs, row.progress * share));
            self.push(
                time_secs,
                report(time_secs, row.progress * share),
                "an earlier progress report of a row's attempt",
            );
        }
        life.reports.push((last_secs, row.progress));
        self.push(
            last_secs,
            report(last_secs, row.progress),
            "the last progress report of a row's attempt, at its progress",
        );
        self.lives.push(life);
    }
}

/// `snapshot` with every seventh row made a speculative copy of the task of the row
/// before it (as an engine lists a task's original and its copy), as an engine launches
/// one: on another node, three quarters of the way from the original's start to `now`
/// (after the original's first report, see the history), with the original's input.
fn with_copies(snapshot: &Snapshot) -> Snapshot {
    let now = snapshot.now_secs();
    let mut copied = Snapshot::new(now, snapshot.node_count(), snapshot.stages().to_vec())
        .expect("the snapshot's own instant");
    let mut previous: Option<SnapshotRow> = None;
    for index in 0..snapshot.len() {
        let mut row = snapshot.row(index).expect("a row of the snapshot");
        if let Some(original) = previous.filter(|_| index % 7 == 6) {
            row.task = original.task;
            row.stage = original.stage;
            row.role = AttemptRole::Speculative;
            row.node = NodeId((original.node.0 + 1) % snapshot.node_count());
            row.start_secs = original.start_secs + (now - original.start_secs) * 0.75;
            row.input_bytes = original.input_bytes;
        }
        previous = Some(row);
        copied.push(row).expect("a row of a valid snapshot");
    }
    copied
}

/// How the generated scenarios draw progress scores.
#[derive(Debug, Clone, Copy)]
enum Mix {
    /// Row by row: uniform, repeated decimals, the two levels, slow.
    Mixed,
    /// The levels `c - 0.2, c + 0.2` in turn within each stage `c`.
    TwoLevels,
    /// The levels `c - 0.2, c, c + 0.2` in turn within each stage `c`.
    ThreeLevels,
}

/// A generated scenario of [`GENERATED_ROWS`] rows: see the module docs.
fn generated(rng: &mut SplitMix64, mix: Mix) -> Snapshot {
    const NOW: f64 = 3600.0;
    const STAGES: u32 = 4;
    const NODES: u32 = 50;
    const PALETTE: [f64; 8] = [0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0 / 3.0, 1.0];
    // The centre `c` of each stage. With two levels in turn the stage mean is `c` and the
    // population SD 0.2 (up to rounding), so the rows at `c - 0.2` sit at Default's
    // threshold (gap 0.2) and, sharing one start time, at LATE's (alpha 1). With three
    // levels the rows at `c` sit at the mean (gap 0, alpha 0), those at `c - 0.2` still at
    // Default's threshold.
    const CENTRES: [f64; STAGES as usize] = [0.5, 0.3, 0.7, 0.45];
    let mut turn = [0usize; STAGES as usize];
    let rows: Vec<Row> = (0..GENERATED_ROWS)
        .map(|_| {
            let stage = rng.below(STAGES);
            let node = rng.below(NODES);
            let centre = CENTRES[stage as usize];
            let mut level = |levels: &[f64]| {
                let turn = &mut turn[stage as usize];
                *turn = (*turn + 1) % levels.len();
                levels[*turn]
            };
            let (progress, levelled) = match (mix, rng.below(10)) {
                (Mix::TwoLevels, _) => (level(&[centre - 0.2, centre + 0.2]), true),
                (Mix::ThreeLevels, _) => (level(&[centre - 0.2, centre, centre + 0.2]), true),
                (Mix::Mixed, 0..=3) => (rng.unit(), false),
                (Mix::Mixed, 4 | 5) => (PALETTE[rng.below(PALETTE.len() as u32) as usize], false),
                (Mix::Mixed, 6..=8) => (level(&[centre - 0.2, centre + 0.2]), true),
                (Mix::Mixed, _) => (rng.unit() * 0.05, false),
            };
            let start = if levelled {
                NOW / 2.0
            } else {
                match rng.below(10) {
                    0 => NOW,
                    1 | 2 => NOW - 60.0 * f64::from(rng.below(30)),
                    _ => rng.unit() * NOW,
                }
            };
            let input = if rng.below(2) == 0 {
                64e6
            } else {
                1e6 + rng.unit() * 255e6
            };
            (stage, node, start, progress, input)
        })
        .collect();
    build(NOW, NODES, STAGES, rows)
}

/// A detector that flags every row of every snapshot: the wrapped detector of a test of a
/// wrapper such as [`Hierarchical`](crate::Hierarchical), whose own rule then shows in
/// every row it keeps, or the busiest detector an engine can be given.
#[derive(Debug, Clone, Copy, Default)]
pub struct FlagAll;

impl Detector for FlagAll {
    fn name(&self) -> &str {
        "flag-all"
    }
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        findings.rows_mut().extend(0..snapshot.len() as u32);
    }
}

/// Sebastiano Vigna's SplitMix64: a tiny deterministic generator, the same on every
/// platform. The kit builds its snapshots with it; tests and benchmarks of detectors can
/// use it to expand a seed into many rows.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`, a multiple of 2^-53.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-shift.
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;
    use crate::scan::IdSet;

    /// A detector whose observing or forgetting is broken in one way, to see that the kit
    /// notices. It flags no row unless said otherwise.
    #[derive(Debug)]
    enum Observer {
        /// Panics on an attempt killed.
        PanicsOnKilled,
        /// Panics on an attempt failed.
        PanicsOnFailed,
        /// Panics on an attempt that ends without having reported progress.
        PanicsOnUnreported(IdSet<AttemptId>),
        /// Flags row 0 once it observed anything, and forgets nothing on reset.
        ForgetsNothing(bool),
        /// Once it observed anything, flags the row numbered by how many detectors of its
        /// kind were built before it (state shared between detectors, which two detectors
        /// built the same way do not see the same), and forgets on reset.
        Counted(u32, bool),
        /// Flags row 0 once it observed anything, but only when built parallel.
        LearnsWhenParallel(Parallelism, bool),
        /// Panics on reset.
        PanicsOnReset,
    }

    /// Builds an [`Observer`] for the parallelism given.
    type Make = fn(Parallelism) -> Observer;

    impl Detector for Observer {
        fn name(&self) -> &str {
            "observer"
        }
        fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
            let len = snapshot.len() as u32;
            let row = match self {
                Observer::ForgetsNothing(true)
                | Observer::LearnsWhenParallel(Parallelism::Parallel, true) => Some(0),
                Observer::Counted(serial, true) => Some(*serial),
                _ => None,
            };
            if let Some(row) = row.filter(|_| len > 0) {
                findings.push_row(row % len);
            }
        }
        fn observe(&mut self, observation: &Observation) {
            let ended = match observation {
                Observation::AttemptEnded(end) => Some(end),
                _ => None,
            };
            let status = ended.map(|end| end.status);
            match self {
                Observer::PanicsOnKilled => {
                    assert_ne!(status, Some(AttemptStatus::Killed), "killed")
                }
                Observer::PanicsOnFailed => {
                    assert_ne!(status, Some(AttemptStatus::Failed), "failed")
                }
                Observer::PanicsOnUnreported(reported) => match observation {
                    Observation::Progress(report) => {
                        reported.insert(report.attempt);
                    }
                    Observation::AttemptEnded(end) => {
                        assert!(reported.contains(&end.attempt), "no report before the end")
                    }
                    _ => {}
                },
                Observer::ForgetsNothing(seen)
                | Observer::LearnsWhenParallel(_, seen)
                | Observer::Counted(_, seen) => *seen = true,
                Observer::PanicsOnReset => {}
            }
        }
        fn reset(&mut self) {
            match self {
                Observer::PanicsOnReset => panic!("reset"),
                Observer::LearnsWhenParallel(_, seen) | Observer::Counted(_, seen) => *seen = false,
                _ => {}
            }
        }
    }

    #[test]
    fn the_kit_catches_detectors_that_observe_or_forget_wrongly() {
        let reject = |make: Make| {
            Conformance::new(make)
                .run()
                .expect_err("the kit must reject a broken detector")
        };
        // The first history is that of the scenario with stages and nodes but no rows, whose
        // stages had an earlier job.
        let cases: [(Make, &str, &str); 3] = [
            (
                |_| Observer::PanicsOnKilled,
                "panicked: assertion `left != right` failed: killed",
                "an original killed as its copy succeeded",
            ),
            (
                |_| Observer::PanicsOnFailed,
                "panicked: assertion `left != right` failed: failed",
                "a failed attempt, without any progress report",
            ),
            (
                |_| Observer::PanicsOnUnreported(IdSet::default()),
                "panicked: no report before the end",
                "without any progress report",
            ),
        ];
        for (make, message, what) in cases {
            let failure = reject(make);
            assert_eq!(
                (failure.check, failure.scenario),
                (NO_OBSERVE_PANIC, "stages and nodes, no rows"),
                "{failure}"
            );
            // The run, then the panic, then the observation.
            let run = "a detector that observed the history: ";
            assert!(
                failure.detail.starts_with(&format!("{run}{message}")),
                "{failure}"
            );
            assert!(failure.detail.contains(what), "{failure}");
        }
        // The first scenario with a row and a history.
        let failure = reject(|_| Observer::ForgetsNothing(false));
        assert_eq!((failure.check, failure.scenario), (RESET, "one task"));
        assert_eq!(
            failure.detail,
            "a new detector flagged rows [] and nodes [], one run through the history twice, \
             then reset rows [0] and nodes []"
        );
        static BUILT: AtomicU32 = AtomicU32::new(0);
        let failure = reject(|_| Observer::Counted(BUILT.fetch_add(1, Ordering::Relaxed), false));
        // The history of the scenario without rows has scans of the earlier job's tasks amid it.
        assert_eq!(
            (failure.check, failure.scenario),
            (DETERMINISM, "stages and nodes, no rows"),
            "{failure}"
        );
        let failure = reject(|parallelism| Observer::LearnsWhenParallel(parallelism, false));
        assert_eq!(
            (failure.check, failure.scenario),
            (
                "after the same observations, a parallel scan gives the findings of a \
                 sequential one",
                "stages and nodes, no rows"
            )
        );
        let failure = reject(|_| Observer::PanicsOnReset);
        assert_eq!(
            (failure.check, failure.scenario),
            ("reset does not panic", "stages and nodes, no rows")
        );
    }

    /// A detector whose reset forgets nothing.
    struct NoReset<D>(D);

    impl<D: Detector> Detector for NoReset<D> {
        fn name(&self) -> &str {
            self.0.name()
        }
        fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
            self.0.scan(snapshot, findings);
        }
        fn observe(&mut self, observation: &Observation) {
            self.0.observe(observation);
        }
    }

    /// A detector that counts each task's first success, and whose reset forgets the
    /// count but not the tasks seen: a scan after the reset is a new detector's, but the
    /// same history then counts nothing.
    #[derive(Default)]
    struct ForgetsHalf {
        seen: std::collections::BTreeSet<TaskId>,
        successes: u32,
    }

    impl Detector for ForgetsHalf {
        fn name(&self) -> &str {
            "forgets-half"
        }
        fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
            if self.successes > 0 {
                (0..snapshot.len() as u32).for_each(|row| findings.push_row(row));
            }
        }
        fn observe(&mut self, observation: &Observation) {
            if let Observation::AttemptEnded(end) = observation
                && end.status == AttemptStatus::Succeeded
                && self.seen.insert(end.task)
            {
                self.successes += 1;
            }
        }
        fn reset(&mut self) {
            self.successes = 0;
        }
    }

    /// A detector that takes the contract at its word: a copy is launched only of an
    /// attempt a scan has seen, so a copy's task has reported before the copy ends.
    #[derive(Default)]
    struct TrustsCopies {
        reported: std::collections::BTreeSet<TaskId>,
    }

    impl Detector for TrustsCopies {
        fn name(&self) -> &str {
            "trusts-copies"
        }
        fn scan(&mut self, _: &Snapshot, _: &mut Findings) {}
        fn observe(&mut self, observation: &Observation) {
            match observation {
                Observation::Progress(report) => {
                    self.reported.insert(report.task);
                }
                Observation::AttemptEnded(end) if end.role == AttemptRole::Speculative => {
                    assert!(
                        self.reported.contains(&end.task),
                        "a copy of an unseen task"
                    );
                }
                _ => {}
            }
        }
        fn reset(&mut self) {
            self.reported.clear();
        }
    }

    #[test]
    fn the_histories_launch_copies_only_of_attempts_seen() {
        Conformance::new(|_| TrustsCopies::default())
            .run()
            .unwrap_or_else(|failure| panic!("{failure}"));
    }

    /// Flags row 0 of a snapshot with rows, but fewer than one it scanned before; forgets
    /// on reset what it scanned only with `forgets_scans`.
    #[derive(Debug, Default)]
    struct RemembersScans {
        most_rows: usize,
        forgets_scans: bool,
    }

    impl Detector for RemembersScans {
        fn name(&self) -> &str {
            "remembers-scans"
        }
        fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
            if (1..self.most_rows).contains(&snapshot.len()) {
                findings.push_row(0);
            }
            self.most_rows = self.most_rows.max(snapshot.len());
        }
        fn reset(&mut self) {
            if self.forgets_scans {
                self.most_rows = 0;
            }
        }
    }

    /// A reset that forgets what the scans taught is caught: only scans amid a history
    /// teach such a detector, as the scenario's own snapshot, scanned again, teaches
    /// nothing new.
    #[test]
    fn the_kit_catches_a_reset_that_keeps_what_scans_taught() {
        let failure = Conformance::new(|_| RemembersScans::default())
            .run()
            .expect_err("a reset that keeps what the scans taught");
        assert_eq!(
            (failure.check, failure.scenario),
            (RELEARN, "stages and nodes, no rows"),
            "{failure}"
        );
        Conformance::new(|_| RemembersScans {
            forgets_scans: true,
            ..RemembersScans::default()
        })
        .run()
        .unwrap_or_else(|failure| panic!("{failure}"));
    }

    /// The scenario a failure names runs again alone, with the findings the kit compared.
    #[test]
    fn a_failures_scenario_runs_again_alone() {
        for kit in all_scenarios() {
            assert!(std::ptr::eq(scenario(kit.name()).expect("found"), kit));
            assert_eq!(kit.scans().count(), kit.interim.len() + 1);
            assert_eq!(kit.history().len(), kit.history.len());
        }
        assert!(scenario("name").is_none());
        let make = |parallelism| Observer::LearnsWhenParallel(parallelism, false);
        let failure = Conformance::new(make)
            .run()
            .expect_err("a detector that learns when parallel only");
        let again = scenario(failure.scenario).expect("the failure's scenario");
        let sequential = again.run(&mut make(Parallelism::Sequential));
        let parallel = again.run(&mut make(Parallelism::Parallel));
        let differ = (sequential.iter().zip(&parallel)).position(|(s, p)| s != p);
        assert_eq!(differ, Some(0), "{failure}");
        assert!(
            failure
                .detail
                .starts_with(&format!("at {}:", again.scan_name(0)))
        );
    }

    #[test]
    fn the_kit_catches_a_reset_that_forgets_part_of_what_was_learnt() {
        let failure = Conformance::new(|_| ForgetsHalf::default())
            .run()
            .expect_err("a reset that keeps the tasks seen");
        assert_eq!(
            (failure.check, failure.scenario),
            (RELEARN, "stages and nodes, no rows"),
            "{failure}"
        );
    }

    /// Every detector of the crate that learns passes the kit, and fails it with a reset
    /// that forgets nothing: its histories change what each of them flags.
    #[test]
    fn the_kit_catches_a_reset_that_forgets_nothing() {
        use crate::{
            DosIndex, ESplash, GarraghanDetector, Hadoop1, HadoopSpeculator, SparkDetector,
            SparkParams,
        };
        fn rejects<D: Detector>(make: impl Fn() -> D) {
            let name = make().name().to_owned();
            Conformance::new(|_| make())
                .run()
                .unwrap_or_else(|failure| panic!("{failure}"));
            let failure = Conformance::new(|_| NoReset(make())).run().err();
            let failure = failure.unwrap_or_else(|| panic!("{name}: not rejected"));
            assert!([RESET, RELEARN].contains(&failure.check), "{failure}");
        }
        let spark_legacy = || SparkDetector::new(SparkParams::legacy().check().expect("valid"));
        rejects(SparkDetector::default);
        rejects(spark_legacy);
        rejects(Hadoop1::default);
        rejects(HadoopSpeculator::legacy);
        rejects(HadoopSpeculator::exp_smoothed);
        rejects(HadoopSpeculator::simple_exp);
        rejects(DosIndex::default);
        rejects(GarraghanDetector::default);
        rejects(ESplash::default);
        #[cfg(feature = "dsb")]
        {
            use crate::{Dsb, DsbParams};
            rejects(Dsb::default);
            rejects(|| Dsb::new(DsbParams::top(3).check().expect("valid")));
        }
    }

    /// Whether `observation` is of an attempt, and which.
    fn attempt_of(observation: &Observation) -> Option<AttemptId> {
        match observation {
            Observation::Progress(report) => Some(report.attempt),
            Observation::AttemptEnded(end) => Some(end.attempt),
            _ => None,
        }
    }

    #[test]
    fn histories_are_consistent_with_their_snapshots() {
        for scenario in scenarios() {
            let (snapshot, name) = (&scenario.snapshot, scenario.name);
            if scenario.history.is_empty() {
                assert!(snapshot.stages().is_empty(), "{name} has no history");
                continue;
            }
            let observations = scenario.history.iter().map(|o| &o.observation);
            let mut last_report: HashMap<AttemptId, (f64, f64)> = HashMap::new();
            let mut ended: IdSet<AttemptId> = IdSet::default();
            // A finished stage's index, until a job of the snapshot takes it.
            let mut free: IdSet<u32> = IdSet::default();
            let mut time_secs = 0.0;
            let mut last_job: Option<JobId> = None;
            for observation in observations {
                let (time, stage) = match *observation {
                    Observation::Progress(report) => (report.time_secs, Some(report.stage)),
                    Observation::AttemptEnded(end) => {
                        assert!(end.start_secs <= end.end_secs, "{name}: {end:?}");
                        (end.end_secs, Some(end.stage))
                    }
                    Observation::StageFinished { stage, time_secs } => {
                        free.insert(stage.0);
                        (time_secs, None)
                    }
                    Observation::JobSubmitted { job, time_secs } => {
                        // Numbered in the order submitted, as engines number jobs.
                        assert!(last_job.is_none_or(|last| last < job), "{name}: {job:?}");
                        last_job = Some(job);
                        let stages = snapshot.stages().iter().enumerate();
                        for (index, _) in stages.filter(|(_, stage)| stage.job == job) {
                            free.remove(&(index as u32));
                        }
                        (time_secs, None)
                    }
                    _ => unreachable!("the kit sends the four kinds above"),
                };
                assert!(time_secs <= time && time <= snapshot.now_secs(), "{name}");
                time_secs = time;
                if let Some(stage) = stage {
                    assert!(!free.contains(&stage.0), "{name}: {observation:?}");
                }
                let Some(attempt) = attempt_of(observation) else {
                    continue;
                };
                assert!(
                    !ended.contains(&attempt),
                    "{name}: {observation:?} after the end"
                );
                match *observation {
                    Observation::Progress(report) => {
                        last_report.insert(attempt, (report.time_secs, report.progress));
                    }
                    _ => {
                        ended.insert(attempt);
                    }
                }
            }
            for index in 0..snapshot.len() {
                let row = snapshot.row(index).expect("a row");
                assert!(!ended.contains(&row.attempt), "{name}: row {index} ended");
                let (time_secs, progress) = last_report[&row.attempt];
                assert!(row.start_secs <= time_secs, "{name}: row {index}");
                assert_eq!(progress, row.progress, "{name}: row {index}");
            }
            for interim in &scenario.interim {
                interim_consistent(scenario, interim);
            }
        }
    }

    /// A snapshot amid a scenario's history holds the attempts running at its instant that
    /// have reported, as the observations before it and the scenario's snapshot tell, each
    /// once and at its last report; at each stage index, the scenario's stage once its job
    /// is submitted, an earlier job's before; no row in a stage that finished after its
    /// job's submission.
    fn interim_consistent(scenario: &KitScenario, interim: &Interim) {
        let (name, at) = (scenario.name, &interim.snapshot);
        let instant = at.now_secs();
        let (before, after) = scenario.history.split_at(interim.observed);
        let time_of = |observation: &Observation| match *observation {
            Observation::Progress(report) => report.time_secs,
            Observation::AttemptEnded(end) => end.end_secs,
            Observation::StageFinished { time_secs, .. }
            | Observation::JobSubmitted { time_secs, .. } => time_secs,
            _ => unreachable!("the kit sends the four kinds above"),
        };
        assert!(before.iter().all(|o| time_of(&o.observation) <= instant));
        assert!(after.iter().all(|o| time_of(&o.observation) > instant));
        // Every attempt running at the instant: those that ended after it, and the rows of
        // the scenario's snapshot launched by then.
        let mut expected: HashMap<AttemptId, SnapshotRow> = HashMap::new();
        for observed in &scenario.history {
            if let Observation::AttemptEnded(end) = observed.observation
                && end.start_secs <= instant
                && instant < end.end_secs
            {
                let row = SnapshotRow {
                    attempt: end.attempt,
                    task: end.task,
                    stage: end.stage,
                    node: end.node,
                    role: end.role,
                    start_secs: end.start_secs,
                    progress: 0.0,
                    input_bytes: end.input_bytes as f64,
                };
                expected.insert(end.attempt, row);
            }
        }
        for index in 0..scenario.snapshot.len() {
            let row = scenario.snapshot.row(index).expect("a row");
            if row.start_secs <= instant {
                expected.insert(
                    row.attempt,
                    SnapshotRow {
                        progress: 0.0,
                        ..row
                    },
                );
            }
        }
        let mut reported: IdSet<AttemptId> = IdSet::default();
        for observed in before {
            if let Observation::Progress(report) = observed.observation
                && let Some(row) = expected.get_mut(&report.attempt)
            {
                row.progress = report.progress;
                reported.insert(report.attempt);
            }
        }
        expected.retain(|attempt, _| reported.contains(attempt));
        // When each job was submitted, and each stage index last finished.
        let mut submitted: HashMap<JobId, f64> = HashMap::new();
        let mut finished: HashMap<StageId, f64> = HashMap::new();
        for observed in before {
            match observed.observation {
                Observation::JobSubmitted { job, time_secs } => {
                    submitted.insert(job, time_secs);
                }
                Observation::StageFinished { stage, time_secs } => {
                    finished.insert(stage, time_secs);
                }
                _ => {}
            }
        }
        let scenario_jobs: Vec<JobId> = scenario.snapshot.stages().iter().map(|s| s.job).collect();
        assert_eq!(
            at.stages().len(),
            scenario_jobs.len(),
            "{name} at {instant} s"
        );
        for (index, (stage, last)) in at
            .stages()
            .iter()
            .zip(scenario.snapshot.stages())
            .enumerate()
        {
            let case = format!("{name} at {instant} s, stage {index}");
            assert!(submitted.contains_key(&stage.job), "{case}: {stage:?}");
            assert_eq!(stage.kind, last.kind, "{case}");
            if submitted.contains_key(&last.job) {
                assert_eq!(stage, last, "{case}");
            } else {
                assert!(!scenario_jobs.contains(&stage.job), "{case}: {stage:?}");
            }
        }
        let mut attempts: IdSet<AttemptId> = IdSet::default();
        for index in 0..at.len() {
            let row = at.row(index).expect("a row");
            let case = format!("{name} at {instant} s: {row:?}");
            assert!(attempts.insert(row.attempt), "{case} twice");
            assert_eq!(Some(&row), expected.get(&row.attempt), "{case}");
            let job = at.stages()[row.stage.index()].job;
            if let Some(&end) = finished.get(&row.stage) {
                assert!(end < submitted[&job], "{case}: its stage finished");
            }
        }
        assert_eq!(at.len(), expected.len(), "{name} at {instant} s");
    }

    #[test]
    fn histories_hold_every_kind_of_observation() {
        let mut kinds = std::collections::BTreeSet::new();
        for scenario in scenarios() {
            let mut reported: IdSet<AttemptId> = IdSet::default();
            for observed in &scenario.history {
                let kind = match observed.observation {
                    Observation::Progress(report) => {
                        reported.insert(report.attempt);
                        String::from("progress")
                    }
                    Observation::AttemptEnded(end) => format!(
                        "{:?} {:?}{}",
                        end.role,
                        end.status,
                        if reported.contains(&end.attempt) {
                            ""
                        } else {
                            " unreported"
                        }
                    ),
                    Observation::StageFinished { .. } => String::from("stage finished"),
                    Observation::JobSubmitted { .. } => String::from("job submitted"),
                    _ => String::from("other"),
                };
                kinds.insert(kind);
            }
        }
        let expected = [
            "Original Failed",
            "Original Failed unreported",
            "Original Killed",
            "Original Succeeded",
            "Original Succeeded unreported",
            "Speculative Failed",
            "Speculative Failed unreported",
            "Speculative Killed",
            "Speculative Killed unreported",
            "Speculative Succeeded",
            "job submitted",
            "progress",
            "stage finished",
        ];
        assert_eq!(kinds.into_iter().collect::<Vec<_>>(), expected);
    }

    /// How [`Planted`]'s parallel path adds up each stage's progress.
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Split {
        /// Row by row, as the sequential path: no bug.
        RowByRow,
        /// The snapshot's rows cut into chunks of this many rows, each chunk summed by stage
        /// from zero and the chunks' sums added in order (as the crate's scans do, with a
        /// length that depends on the data only).
        Chunks(usize),
        /// Each stage's own rows cut into chunks of this many rows.
        StageChunks(usize),
        /// The snapshot's rows cut into this many parts of equal length, the last shorter.
        Parts(usize),
    }

    /// Default's rule (progress below the stage mean minus `gap`, every row counted), whose
    /// sequential path sums each stage row by row and whose parallel path splits the sums
    /// as `split` says: the bug a user found the kit blind to, planted.
    #[derive(Debug)]
    struct Planted {
        gap: f64,
        split: Split,
    }

    impl Planted {
        fn new(parallelism: Parallelism, gap: f64, split: Split) -> Self {
            let split = match parallelism {
                Parallelism::Sequential => Split::RowByRow,
                _ => split,
            };
            Planted { gap, split }
        }
    }

    /// Each stage's sum and row count, added up as `split` says.
    fn stage_sums(snapshot: &Snapshot, split: Split) -> Vec<(f64, u32)> {
        let (stages, progress) = (snapshot.stage_indices(), snapshot.progress());
        let mut totals = vec![(0.0, 0); snapshot.stages().len()];
        let chunk = match split {
            Split::RowByRow => usize::MAX,
            Split::Chunks(rows) => rows,
            Split::Parts(parts) => progress.len().div_ceil(parts).max(1),
            Split::StageChunks(rows) => {
                let mut partial = vec![(0.0, 0); totals.len()];
                for (&stage, &p) in stages.iter().zip(progress) {
                    let (sum, count) = &mut partial[stage as usize];
                    *sum += p;
                    *count += 1;
                    if *count as usize == rows {
                        let total = &mut totals[stage as usize];
                        *total = (total.0 + *sum, total.1 + *count);
                        partial[stage as usize] = (0.0, 0);
                    }
                }
                for (total, (sum, count)) in totals.iter_mut().zip(partial) {
                    *total = (total.0 + sum, total.1 + count);
                }
                return totals;
            }
        };
        for (stages, progress) in stages.chunks(chunk).zip(progress.chunks(chunk)) {
            let mut partial = vec![(0.0, 0); totals.len()];
            for (&stage, &p) in stages.iter().zip(progress) {
                let (sum, count) = &mut partial[stage as usize];
                *sum += p;
                *count += 1;
            }
            for (total, (sum, count)) in totals.iter_mut().zip(partial) {
                *total = (total.0 + sum, total.1 + count);
            }
        }
        totals
    }

    impl Detector for Planted {
        fn name(&self) -> &str {
            "planted"
        }
        fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
            let bars: Vec<f64> = stage_sums(snapshot, self.split)
                .into_iter()
                .map(|(sum, count)| sum / f64::from(count) - self.gap)
                .collect();
            let rows = snapshot.stage_indices().iter().zip(snapshot.progress());
            for (row, (&stage, &p)) in rows.enumerate() {
                if p < bars[stage as usize] {
                    findings.push_row(row as u32);
                }
            }
        }
    }

    /// The splits a parallel sum could use that the kit must tell from a sequential sum:
    /// chunks of the snapshot's rows and of each stage's rows, of every power of two from
    /// 256 to 65 536 rows and of odd lengths, and halves and sevenths of the snapshot.
    fn splits() -> Vec<Split> {
        let lengths = (8..=16)
            .map(|power| 1usize << power)
            .chain([1000, 3000, 4095, 4097, 10_007, 33_333, 65_537]);
        lengths
            .flat_map(|rows| [Split::Chunks(rows), Split::StageChunks(rows)])
            .chain([Split::Parts(2), Split::Parts(7)])
            .collect()
    }

    #[test]
    fn the_kit_catches_sums_split_differently() {
        for gap in [0.2, 0.0] {
            // Not vacuous: summed alike, the planted rule passes (peer-relative with a
            // gap: with none, a mean rounded above identical tasks flags them).
            let kit =
                Conformance::new(|parallelism| Planted::new(parallelism, gap, Split::RowByRow));
            let kit = if gap > 0.0 { kit.peer_relative() } else { kit };
            kit.run().unwrap_or_else(|failure| panic!("{failure}"));
            for split in splits() {
                let failure = Conformance::new(|p| Planted::new(p, gap, split))
                    .run()
                    .err();
                let failure = failure.unwrap_or_else(|| panic!("gap {gap}, {split:?}: passes"));
                assert_eq!(
                    failure.check, "a parallel scan gives the findings of a sequential one",
                    "{failure}"
                );
            }
        }
        // The bug found by a user, each stage summed in chunks of 4096 rows: the scenarios
        // before the ones summed in any order all passed it.
        let failure = Conformance::new(|p| Planted::new(p, 0.2, Split::StageChunks(4096)))
            .run()
            .expect_err("a split sum");
        assert_eq!(
            failure.scenario,
            "summed in any order, 12 289 rows over 3 stages"
        );
    }

    /// The scenarios summed in any order hold rows exactly at the bars of Default's rule as
    /// a sum row by row sets them, and any split of a stage's sum in parts of two rows or
    /// more moves its mean.
    #[test]
    fn order_sensitive_scenarios_sit_at_the_bars() {
        let scenarios = scenarios().iter().filter(|s| s.name.starts_with("summed"));
        let mut count = 0;
        for scenario in scenarios {
            count += 1;
            let snapshot = &scenario.snapshot;
            let sequential = stage_sums(snapshot, Split::RowByRow);
            for (stage, &(sum, rows)) in sequential.iter().enumerate() {
                let mean = sum / f64::from(rows);
                let at = |value: f64| {
                    let of_stage = snapshot.stage_indices().iter().zip(snapshot.progress());
                    of_stage
                        .filter(|&(&s, &p)| s as usize == stage && p == value)
                        .count()
                };
                let bars = [mean - 0.2, (mean - 0.2).next_down(), mean, mean.next_down()];
                for bar in bars {
                    assert_eq!(at(bar), BOUNDARY_ROWS / 4, "{}: {stage}", scenario.name);
                }
                for split in splits() {
                    if changes_order(snapshot, stage, split) {
                        let (split_sum, _) = stage_sums(snapshot, split)[stage];
                        let split_mean = split_sum / f64::from(rows);
                        assert_ne!(split_mean, mean, "{}: {stage}, {split:?}", scenario.name);
                    }
                }
            }
        }
        assert_eq!(count, 3);
    }

    /// Whether `split` adds the rows of `stage` in another order than row by row: whether
    /// a part after the stage's first holds two of its rows or more (a part of one row
    /// adds that row to the sum so far, as row by row).
    fn changes_order(snapshot: &Snapshot, stage: usize, split: Split) -> bool {
        let rows: Vec<usize> = (snapshot.stage_indices().iter().enumerate())
            .filter(|&(_, &s)| s as usize == stage)
            .map(|(row, _)| row)
            .collect();
        let part_of = |part_rows: usize| {
            let parts: Vec<usize> = rows.iter().map(|row| row / part_rows).collect();
            parts.windows(2).any(|w| w[0] == w[1] && w[0] != parts[0])
        };
        match split {
            Split::RowByRow => false,
            Split::Chunks(part_rows) => part_of(part_rows),
            Split::Parts(parts) => part_of(snapshot.len().div_ceil(parts)),
            Split::StageChunks(part_rows) => rows.len() >= part_rows + 2,
        }
    }
}
