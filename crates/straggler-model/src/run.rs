//! A finished run: everything that happened, from which ground truth, metrics and energy
//! are computed.

use serde::{Deserialize, Serialize};

use crate::{
    Attempt, AttemptId, AttemptRole, AttemptStatus, ModelError, Node, NodeId, Stage, Task, TaskId,
};

/// The first time a detector flagged a task's original attempt as a straggler.
///
/// The seed paper counts a task detected several times once, at its first detection
/// (Section 3.2); a [`Run`] keeps only that one.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Detection {
    /// The task detected.
    pub task: TaskId,
    /// The attempt that was flagged.
    pub attempt: AttemptId,
    /// When, seconds since the start of the run.
    pub time_secs: f64,
}

/// From `time_secs` on (until the next change), `running` attempts run on the node.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LoadChange {
    /// When the load changed.
    pub time_secs: f64,
    /// Attempts running from then on.
    pub running: u32,
}

/// The piecewise-constant number of running attempts on one node over a run. Before the
/// first change the node runs nothing.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LoadTimeline {
    /// Changes in time order.
    pub changes: Vec<LoadChange>,
}

impl LoadTimeline {
    /// Records that `running` attempts run from `time_secs` on. A change at the same time as
    /// the last one replaces it; a change to the count already in force is not recorded, so
    /// consecutive changes always differ.
    pub fn record(&mut self, time_secs: f64, running: u32) {
        if self
            .changes
            .last()
            .is_some_and(|last| last.time_secs == time_secs)
        {
            self.changes.pop();
        }
        let before = self.changes.last().map_or(0, |last| last.running);
        if before != running {
            self.changes.push(LoadChange { time_secs, running });
        }
    }

    /// The piecewise-constant segments `(from_secs, to_secs, running)` up to `end_secs`,
    /// zero-length segments left out.
    pub fn segments(&self, end_secs: f64) -> impl Iterator<Item = (f64, f64, u32)> + '_ {
        self.changes
            .iter()
            .enumerate()
            .filter_map(move |(i, change)| {
                let to = self
                    .changes
                    .get(i + 1)
                    .map_or(end_secs, |next| next.time_secs)
                    .min(end_secs);
                (to > change.time_secs).then_some((change.time_secs, to, change.running))
            })
    }
}

/// Where a task's execution time comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeSource {
    /// The original attempt finished: its time was measured.
    Measured,
    /// The original was killed (its copy won): its time is estimated from the progress it
    /// reached, as in the seed paper's Table 7 (see [`Attempt::estimated_exec_secs`]).
    EstimatedFromProgress,
}

/// The execution time of a task's original attempt, used to label it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OriginalTime {
    /// The original attempt.
    pub attempt: AttemptId,
    /// Its launch time.
    pub start_secs: f64,
    /// Its (measured or estimated) execution time.
    pub exec_secs: f64,
    /// Where `exec_secs` comes from.
    pub source: TimeSource,
}

/// Everything that happened in one run of a job on a cluster.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Run {
    /// The worker nodes, indexed by [`NodeId`].
    pub nodes: Vec<Node>,
    /// The stages, indexed by [`StageId`](crate::StageId).
    pub stages: Vec<Stage>,
    /// The tasks, indexed by [`TaskId`].
    pub tasks: Vec<Task>,
    /// Every attempt, indexed by [`AttemptId`].
    pub attempts: Vec<Attempt>,
    /// First detection of each detected task, in time order, at most one per task.
    pub detections: Vec<Detection>,
    /// Load of each node over time, indexed by [`NodeId`]: what the energy of the run is
    /// computed from. An engine records it as it runs; a run built from records fills it
    /// with [`Run::load_from_attempts`].
    pub load: Vec<LoadTimeline>,
    /// When the last task finished (the job's execution time; the run starts at 0).
    pub end_secs: f64,
}

impl Run {
    /// The job's execution time (makespan) in seconds.
    pub fn makespan_secs(&self) -> f64 {
        self.end_secs
    }

    /// Checks that every task's and every attempt's id is its index in its list
    /// (`run.tasks[i].id == TaskId(i)`, `run.attempts[i].id == AttemptId(i)`), as the
    /// lists are indexed by id. [`Run::original_times`] and [`Run::first_detection_secs`]
    /// check it first.
    ///
    /// # Errors
    ///
    /// [`ModelError::IdNotIndex`] naming the first task, then attempt, at fault.
    pub fn check_ids(&self) -> Result<(), ModelError> {
        let misplaced = |list, ids: &mut dyn Iterator<Item = usize>| match ids
            .enumerate()
            .find(|(index, id)| index != id)
        {
            Some((index, id)) => Err(ModelError::IdNotIndex {
                list,
                index,
                id: id as u64,
            }),
            None => Ok(()),
        };
        misplaced("tasks", &mut self.tasks.iter().map(|t| t.id.index()))?;
        misplaced("attempts", &mut self.attempts.iter().map(|a| a.id.index()))
    }

    /// For each task, the execution time of its original attempt: the last original
    /// attempt that did not fail (a failed original is re-run as a new original). `None`
    /// for a task whose original never ended.
    ///
    /// # Errors
    ///
    /// [`ModelError::IdNotIndex`] for a task or an attempt whose id is not its index
    /// ([`Run::check_ids`]); [`ModelError::UnknownRunReference`] for an attempt of a task
    /// the run does not have, [`ModelError::TwoLiveOriginals`] for a task with two
    /// original attempts that did not fail (which of them labels the task would be a
    /// guess), [`ModelError::BadAttemptValue`] for an original that ended without
    /// succeeding (killed) at a `progress_at_end` outside `[0, 1]` (NaN included), from
    /// which no time can be estimated; each names the attempts by their index in
    /// [`Run::attempts`].
    pub fn original_times(&self) -> Result<Vec<Option<OriginalTime>>, ModelError> {
        self.check_ids()?;
        let mut times = vec![None; self.tasks.len()];
        // The index of each task's original that did not fail, once seen.
        let mut live: Vec<Option<usize>> = vec![None; self.tasks.len()];
        for (index, attempt) in self.attempts.iter().enumerate() {
            let task = attempt.task.index();
            if task >= self.tasks.len() {
                return Err(ModelError::UnknownRunReference {
                    list: "attempts",
                    index,
                    field: "task",
                    value: task as u64,
                    len: self.tasks.len() as u64,
                });
            }
            if attempt.role != AttemptRole::Original || attempt.status == AttemptStatus::Failed {
                continue;
            }
            if let Some(first) = live[task].replace(index) {
                return Err(ModelError::TwoLiveOriginals {
                    task: task as u64,
                    first,
                    second: index,
                });
            }
            let Some(exec_secs) = attempt.estimated_exec_secs() else {
                continue;
            };
            let source = if attempt.status == AttemptStatus::Succeeded {
                TimeSource::Measured
            } else {
                TimeSource::EstimatedFromProgress
            };
            if source == TimeSource::EstimatedFromProgress
                && !(0.0..=1.0).contains(&attempt.progress_at_end)
            {
                return Err(ModelError::BadAttemptValue {
                    index,
                    field: "progress_at_end",
                    value: attempt.progress_at_end,
                    range: "in [0, 1]",
                });
            }
            times[task] = Some(OriginalTime {
                attempt: attempt.id,
                start_secs: attempt.start_secs,
                exec_secs,
                source,
            });
        }
        Ok(times)
    }

    /// For each task, the time of its first detection, if any.
    ///
    /// # Errors
    ///
    /// [`ModelError::IdNotIndex`] for a task or an attempt whose id is not its index
    /// ([`Run::check_ids`]). A detection that cannot be scored, named by its index in
    /// [`Run::detections`]:
    /// [`ModelError::DetectionTime`] for a time that is NaN or infinite (a NaN would
    /// otherwise pass for no detection, or hide a later one),
    /// [`ModelError::UnknownRunReference`] for a task or an attempt the run does not
    /// have, [`ModelError::DetectionOfAnotherAttempt`] for an attempt that is not an
    /// original of the detection's task.
    pub fn first_detection_secs(&self) -> Result<Vec<Option<f64>>, ModelError> {
        self.check_ids()?;
        let mut first = vec![None; self.tasks.len()];
        for (index, detection) in self.detections.iter().enumerate() {
            if !detection.time_secs.is_finite() {
                return Err(ModelError::DetectionTime {
                    index,
                    value: detection.time_secs,
                });
            }
            let unknown = |field, value: usize, len: usize| ModelError::UnknownRunReference {
                list: "detections",
                index,
                field,
                value: value as u64,
                len: len as u64,
            };
            let Some(attempt) = self.attempts.get(detection.attempt.index()) else {
                return Err(unknown(
                    "attempt",
                    detection.attempt.index(),
                    self.attempts.len(),
                ));
            };
            let Some(slot) = first.get_mut(detection.task.index()) else {
                return Err(unknown("task", detection.task.index(), self.tasks.len()));
            };
            let what = if attempt.task != detection.task {
                Some(format!("an attempt of task {}", attempt.task))
            } else if attempt.role != AttemptRole::Original {
                Some("a speculative copy".to_owned())
            } else {
                None
            };
            if let Some(what) = what {
                return Err(ModelError::DetectionOfAnotherAttempt {
                    index,
                    attempt: detection.attempt.index() as u64,
                    task: detection.task.index() as u64,
                    what,
                });
            }
            if slot.is_none_or(|t: f64| detection.time_secs < t) {
                *slot = Some(detection.time_secs);
            }
        }
        Ok(first)
    }

    /// The load of each node of [`Run::nodes`], derived from the attempts: an attempt
    /// counts on its node from its `start_secs` to its `end_secs` (to the end of the
    /// timeline while it runs), an attempt ending at the instant another starts leaving
    /// the count at what runs after that instant. It is what an engine records as
    /// [`Run::load`], for a run built from another scheduler's records:
    ///
    /// ```
    /// use straggler_model::*;
    ///
    /// let attempt = |id, node, start, end| {
    ///     Attempt::started(AttemptId(id), TaskId(id), NodeId(node), AttemptRole::Original, start)
    ///         .ended(end, AttemptStatus::Succeeded, 1.0)
    /// };
    /// let mut run = Run {
    ///     nodes: vec![Node::new(NodeId(0), 4, 2, 8), Node::new(NodeId(1), 4, 2, 8)],
    ///     attempts: vec![attempt(0, 0, 0.0, 10.0), attempt(1, 0, 5.0, 15.0), attempt(2, 1, 10.0, 12.0)],
    ///     end_secs: 15.0,
    ///     ..Run::default()
    /// };
    /// run.load = run.load_from_attempts()?;
    /// // Node 0: one attempt on [0, 5), two on [5, 10), one on [10, 15), then none.
    /// let segments: Vec<_> = run.load[0].segments(run.end_secs).collect();
    /// assert_eq!(segments, [(0.0, 5.0, 1), (5.0, 10.0, 2), (10.0, 15.0, 1)]);
    /// assert_eq!(run.load[1].segments(15.0).collect::<Vec<_>>(), [(10.0, 12.0, 1), (12.0, 15.0, 0)]);
    /// # Ok::<(), ModelError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ModelError::UnknownRunReference`] for an attempt on a node the run does not have,
    /// [`ModelError::BadAttemptValue`] for a `start_secs` or `end_secs` that is NaN or
    /// infinite, or an end before the start; each names the attempt by its index in
    /// [`Run::attempts`].
    pub fn load_from_attempts(&self) -> Result<Vec<LoadTimeline>, ModelError> {
        // (time, +1 for a start or -1 for an end) on each node.
        let mut events: Vec<Vec<(f64, i8)>> = vec![Vec::new(); self.nodes.len()];
        for (index, attempt) in self.attempts.iter().enumerate() {
            let bad = |field, value, range| ModelError::BadAttemptValue {
                index,
                field,
                value,
                range,
            };
            let Some(node) = events.get_mut(attempt.node.index()) else {
                return Err(ModelError::UnknownRunReference {
                    list: "attempts",
                    index,
                    field: "node",
                    value: attempt.node.index() as u64,
                    len: self.nodes.len() as u64,
                });
            };
            if !attempt.start_secs.is_finite() {
                return Err(bad("start_secs", attempt.start_secs, "finite"));
            }
            node.push((attempt.start_secs, 1));
            if let Some(end) = attempt.end_secs {
                if !(end.is_finite() && end >= attempt.start_secs) {
                    return Err(bad("end_secs", end, "finite and >= start_secs"));
                }
                node.push((end, -1));
            }
        }
        Ok(events
            .into_iter()
            .map(|mut node| {
                // Starts before ends at one instant, so that the count never goes below
                // zero; the timeline keeps the last count recorded at each instant.
                node.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
                let mut timeline = LoadTimeline::default();
                let mut running: u32 = 0;
                for (time_secs, step) in node {
                    running = if step > 0 { running + 1 } else { running - 1 };
                    timeline.record(time_secs, running);
                }
                timeline
            })
            .collect())
    }

    /// The speculative attempts of the run.
    pub fn speculative_attempts(&self) -> impl Iterator<Item = &Attempt> {
        self.attempts
            .iter()
            .filter(|a| a.role == AttemptRole::Speculative)
    }

    /// The node with the given id.
    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id.index())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_changes_at_one_instant_collapse() {
        let mut load = LoadTimeline::default();
        load.record(0.0, 2);
        load.record(20.0, 1);
        load.record(20.0, 0);
        load.record(20.0, 2); // back to the count in force: no change at 20
        load.record(28.0, 0);
        let changes: Vec<(f64, u32)> = load
            .changes
            .iter()
            .map(|c| (c.time_secs, c.running))
            .collect();
        assert_eq!(changes, [(0.0, 2), (28.0, 0)]);
        let segments: Vec<_> = load.segments(30.0).collect();
        assert_eq!(segments, [(0.0, 28.0, 2), (28.0, 30.0, 0)]);
    }
}
