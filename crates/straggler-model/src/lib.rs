//! The vocabulary shared by every crate of the workspace: what a node, a task, an attempt,
//! a progress report and a run are, and the columnar [`Snapshot`] of running attempts that
//! straggler detectors scan.
//!
//! The types follow the seed paper (Phan et al., TOMPECS 2019, Sections 2.1.3 and 3.2): a
//! *task* is a unit of work of a job (a map or a reduce); an *attempt* is one execution of
//! it on a node, either the *original* or a *speculative* copy; the first attempt to finish
//! wins and the other is killed. A task is identified across repeated runs of the same job
//! by its [`TaskKey`], which is what ground truth (the usual execution time) is keyed on.
//!
//! A [`Run`] built from a scheduler's own records lists its tasks and attempts by id (a
//! task's or attempt's id is its index, [`Run::check_ids`]) and takes its nodes' load,
//! which the energy is computed from, from its attempts ([`Run::load_from_attempts`]). The
//! `stragglers` crate's documentation takes such a run on to ground truth, metrics and
//! energy.
//!
//! ```
//! use straggler_model::*;
//!
//! // Task 0 ran once on node 0 from 0 to 12 s, and was detected at 5 s.
//! let mut run = Run {
//!     nodes: vec![Node::new(NodeId(0), 4, 2, 8)],
//!     stages: vec![Stage { job: JobId(0), kind: TaskKind::Map }],
//!     tasks: vec![Task {
//!         id: TaskId(0),
//!         key: TaskKey { job: JobId(0), kind: TaskKind::Map, index: 0 },
//!         stage: StageId(0),
//!         input_bytes: 64 << 20,
//!     }],
//!     attempts: vec![
//!         Attempt::started(AttemptId(0), TaskId(0), NodeId(0), AttemptRole::Original, 0.0)
//!             .ended(12.0, AttemptStatus::Succeeded, 1.0),
//!     ],
//!     detections: vec![Detection { task: TaskId(0), attempt: AttemptId(0), time_secs: 5.0 }],
//!     end_secs: 12.0,
//!     ..Run::default()
//! };
//! run.check_ids()?;
//! run.load = run.load_from_attempts()?;
//! assert_eq!(run.original_times()?[0].map(|t| t.exec_secs), Some(12.0));
//! assert_eq!(run.first_detection_secs()?, [Some(5.0)]);
//! # Ok::<(), ModelError>(())
//! ```
//!
//! This crate has no logic beyond validation and small derived quantities, so that a
//! downstream scheduler can depend on it (and on `straggler-detect`) without pulling in the
//! simulator.
#![deny(missing_docs)]

mod error;
mod event;
mod ids;
mod node;
mod run;
mod snapshot;
mod task;

pub use error::{ModelError, ValueError, check_range};
pub use event::{AttemptEnd, Observation, ProgressReport};
pub use ids::{AttemptId, JobId, NodeId, StageId, TaskId};
pub use node::Node;
pub use run::{Detection, LoadChange, LoadTimeline, OriginalTime, Run, TimeSource};
pub use snapshot::{Snapshot, SnapshotRow, Stage};
pub use task::{Attempt, AttemptRole, AttemptStatus, Task, TaskKey, TaskKind};
