//! When each job commenced, as a detector can know it.
//!
//! Two rules count a wait from the job's start rather than from the attempt's launch:
//! Hadoop 1's `SPECULATIVE_LAG` ([`Hadoop1`](crate::hadoop::Hadoop1)), which Hadoop
//! measures from the creation of the task's `TaskInProgress` (at the job's
//! initialisation), and Garraghan et al.'s minimum elapsed time
//! ([`GarraghanDetector`](crate::garraghan::GarraghanDetector)). A snapshot carries no
//! job start. The first launch of a job ([`JobStarts::by_stage`]) is the earliest launch
//! seen of an attempt of any of its stages: the rows of the snapshots scanned, and the
//! launches that [`Observation::AttemptEnded`] reports (an attempt that ended between two
//! scans), at or after the job's submission by the time the job took to launch its first
//! attempt. Its creation ([`JobStarts::created_by_stage`]) is its submission where the
//! engine sends [`Observation::JobSubmitted`], and its first launch otherwise.

use straggler_model::{JobId, Observation, Snapshot};

use crate::scan::{IdMap, IdSet};

/// The earliest launch seen of each job, kept between scans.
#[derive(Debug, Clone, Default)]
pub(crate) struct JobStarts {
    /// The earliest start seen of an attempt of each job (by job id).
    first_start: IdMap<u32, f64>,
    /// The job of each stage index in the last snapshot scanned (an engine may give a
    /// stage index to another job from one snapshot to the next); `None` once the stage
    /// finished, until a snapshot has rows there.
    stage_jobs: Vec<Option<JobId>>,
    /// Stage indices whose stage finished and that no snapshot has shown rows of since:
    /// a snapshot may still name the finished stage there (an engine gives the index to
    /// a new stage when a job arrives), so an end there waits for the rows of the next.
    finished_stages: IdSet<u32>,
    /// Starts of ended attempts whose stage index the last snapshot scanned did not have
    /// (none scanned yet), by stage index: given to the job of that stage at the next scan.
    unplaced_starts: IdMap<u32, f64>,
    /// When each stage's job of the last snapshot scanned commenced.
    by_stage: Vec<f64>,
    /// When each job was submitted, where the engine said (by job id).
    submitted: IdMap<u32, f64>,
    /// When each stage's job of the last snapshot scanned was created.
    created: Vec<f64>,
}

impl JobStarts {
    /// Learns the starts of `snapshot`'s rows, and sets [`JobStarts::by_stage`] to when
    /// each of its stages' job commenced: the earliest start seen of an attempt of any
    /// stage of the job (this snapshot's rows and what was seen before), remembered, by
    /// job, for the next scans.
    pub(crate) fn scan(&mut self, snapshot: &Snapshot) {
        let stages = snapshot.stages();
        let earliest = &mut self.by_stage;
        earliest.clear();
        earliest.resize(stages.len(), f64::INFINITY);
        for (&s, &start) in snapshot.stage_indices().iter().zip(snapshot.start_secs()) {
            let slot = &mut earliest[s as usize];
            *slot = slot.min(start);
        }
        // A finished stage's index with rows now names the stage that took it.
        self.finished_stages
            .retain(|&s| earliest.get(s as usize).is_none_or(|t| t.is_infinite()));
        // Ended attempts of stage indices unknown until now (a minimum: any order); those
        // of a finished stage's index without rows wait.
        let finished = &self.finished_stages;
        self.unplaced_starts.retain(|&s, &mut start| {
            if finished.contains(&s) {
                return true;
            }
            if let Some(slot) = earliest.get_mut(s as usize) {
                *slot = slot.min(start);
            }
            false
        });
        for (stage, &slot) in stages.iter().zip(earliest.iter()) {
            let seen = self.first_start.entry(stage.job.0).or_insert(f64::INFINITY);
            *seen = seen.min(slot);
        }
        self.stage_jobs.clear();
        self.stage_jobs.extend(
            (0..stages.len() as u32)
                .zip(stages)
                .map(|(s, stage)| (!finished.contains(&s)).then_some(stage.job)),
        );
        for (stage, slot) in stages.iter().zip(earliest.iter_mut()) {
            *slot = self.first_start[&stage.job.0];
        }
        self.created.clear();
        self.created.extend(
            stages
                .iter()
                .zip(earliest.iter())
                .map(|(stage, &first)| self.submitted.get(&stage.job.0).copied().unwrap_or(first)),
        );
    }

    /// When the job of each stage of the last snapshot scanned was created, by stage
    /// index: its submission where the engine sent it, its first launch otherwise.
    pub(crate) fn created_by_stage(&self) -> &[f64] {
        &self.created
    }

    /// When the job of each stage of the last snapshot scanned commenced, by stage index;
    /// `+inf` for a job of which nothing was seen.
    pub(crate) fn by_stage(&self) -> &[f64] {
        &self.by_stage
    }

    /// Learns the launch of an ended attempt and a job's submission, and forgets which job
    /// a finished stage's index named.
    pub(crate) fn observe(&mut self, observation: &Observation) {
        match observation {
            Observation::StageFinished { stage, .. } => {
                self.unplaced_starts.remove(&stage.0);
                // Its index names no job until a snapshot has rows there: ends there wait.
                if let Some(job) = self.stage_jobs.get_mut(stage.index()) {
                    *job = None;
                }
                self.finished_stages.insert(stage.0);
            }
            Observation::AttemptEnded(end) => {
                // Its job is the one its stage index had in the last snapshot scanned.
                let seen = match self.stage_jobs.get(end.stage.index()).copied().flatten() {
                    Some(job) => self.first_start.entry(job.0),
                    None => self.unplaced_starts.entry(end.stage.0),
                }
                .or_insert(f64::INFINITY);
                *seen = seen.min(end.start_secs);
            }
            Observation::JobSubmitted { job, time_secs } => {
                self.submitted.insert(job.0, *time_secs);
            }
            _ => {}
        }
    }

    /// Forgets everything.
    pub(crate) fn reset(&mut self) {
        *self = JobStarts::default();
    }
}
