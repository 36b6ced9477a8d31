//! The error types of the model crate, and the range check that every crate of the
//! workspace uses for its numeric inputs.

/// A number that is NaN, infinite or outside its allowed range, with the field that holds
/// it.
///
/// Shared by the error types of the other crates of the workspace, which wrap it in a
/// transparent `Value` variant.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ValueError {
    /// A number that must be finite is NaN or infinite.
    #[error("{field} must be a finite number, got {value}")]
    NotFinite {
        /// The field that holds the value.
        field: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A number lies outside its allowed range.
    #[error("{field} must be {range}, got {value}")]
    OutOfRange {
        /// The field that holds the value.
        field: &'static str,
        /// The offending value.
        value: f64,
        /// The allowed range, for the message.
        range: &'static str,
    },
}

/// A value that breaks one of the model's invariants, with the field that holds it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// A number is NaN, infinite or outside its allowed range.
    #[error(transparent)]
    Value(#[from] ValueError),
    /// An identifier points at nothing (a stage or node index past the end, say).
    #[error("{field} = {value} refers to nothing (there are {len})")]
    UnknownId {
        /// The field that holds the identifier.
        field: &'static str,
        /// The identifier.
        value: u64,
        /// How many valid identifiers there are.
        len: u64,
    },
    /// A detection of a run cannot be scored: its time is NaN or infinite
    /// ([`Run::first_detection_secs`](crate::Run::first_detection_secs)).
    #[error("detections[{index}].time_secs must be a finite number, got {value}")]
    DetectionTime {
        /// The detection's index in `Run::detections`.
        index: usize,
        /// Its time.
        value: f64,
    },
    /// An attempt or a detection of a run names a task or an attempt the run does not
    /// have ([`Run::original_times`](crate::Run::original_times),
    /// [`Run::first_detection_secs`](crate::Run::first_detection_secs)).
    #[error("{list}[{index}].{field} = {value} refers to nothing (there are {len})")]
    UnknownRunReference {
        /// `"attempts"` or `"detections"`.
        list: &'static str,
        /// The index in that list.
        index: usize,
        /// `"task"` or `"attempt"`.
        field: &'static str,
        /// The identifier.
        value: u64,
        /// How many tasks, or attempts, the run has.
        len: u64,
    },
    /// A task or an attempt of a run whose id is not its index in its list: the run's
    /// lists are indexed by id ([`Run::tasks`](crate::Run::tasks) by [`TaskId`](crate::TaskId),
    /// [`Run::attempts`](crate::Run::attempts) by [`AttemptId`](crate::AttemptId)), so an
    /// id elsewhere would silently label one task with another's times.
    #[error(
        "{list}[{index}].id = {id}, but a run's {list}[i].id must be i (its index in the list)"
    )]
    IdNotIndex {
        /// `"tasks"` or `"attempts"`.
        list: &'static str,
        /// The index in that list.
        index: usize,
        /// The id found there.
        id: u64,
    },
    /// A field of an attempt of a run is out of its range
    /// ([`Run::original_times`](crate::Run::original_times): the progress a killed
    /// original reached, from which its time is estimated;
    /// [`Run::load_from_attempts`](crate::Run::load_from_attempts): its start and end).
    #[error("attempts[{index}].{field} must be {range}, got {value}")]
    BadAttemptValue {
        /// The attempt's index in `Run::attempts`.
        index: usize,
        /// The field.
        field: &'static str,
        /// The offending value.
        value: f64,
        /// What the field must be, for the message.
        range: &'static str,
    },
    /// Two original attempts of one task that did not fail: a task's original runs once,
    /// and again only after it failed ([`Run::original_times`](crate::Run::original_times)).
    #[error(
        "attempts[{first}] and attempts[{second}] are both original attempts of task {task} \
         that did not fail; a task's original runs again only after it failed"
    )]
    TwoLiveOriginals {
        /// The task.
        task: u64,
        /// The index of the first of the two in `Run::attempts`.
        first: usize,
        /// The index of the second.
        second: usize,
    },
    /// A detection flags an attempt that is not an original attempt of the detection's
    /// task ([`Run::first_detection_secs`](crate::Run::first_detection_secs)): a
    /// detection is of a task's original.
    #[error(
        "detections[{index}].attempt = {attempt} is {what}, not an original attempt of \
         detections[{index}].task = {task}"
    )]
    DetectionOfAnotherAttempt {
        /// The detection's index in `Run::detections`.
        index: usize,
        /// The attempt it flags.
        attempt: u64,
        /// Its task.
        task: u64,
        /// What the attempt is instead: `"an attempt of task N"` or `"a speculative copy"`.
        what: String,
    },
}

/// Checks that `value` is finite and within `[min, max]`.
///
/// `field` names the value in the error and `range` describes `[min, max]` for the
/// message (`"in [0, 1]"`, `">= 0"`). NaN and infinities are rejected whatever the bounds.
///
/// ```
/// use straggler_model::{ValueError, check_range};
///
/// assert_eq!(check_range("recall", 0.5, 0.0, 1.0, "in [0, 1]"), Ok(()));
/// let err = check_range("recall", 2.0, 0.0, 1.0, "in [0, 1]").unwrap_err();
/// assert!(matches!(err, ValueError::OutOfRange { field: "recall", .. }));
/// assert_eq!(err.to_string(), "recall must be in [0, 1], got 2");
/// assert!(matches!(
///     check_range("recall", f64::NAN, 0.0, 1.0, "in [0, 1]"),
///     Err(ValueError::NotFinite { field: "recall", .. })
/// ));
/// ```
pub fn check_range(
    field: &'static str,
    value: f64,
    min: f64,
    max: f64,
    range: &'static str,
) -> Result<(), ValueError> {
    if !value.is_finite() {
        return Err(ValueError::NotFinite { field, value });
    }
    if value < min || value > max {
        return Err(ValueError::OutOfRange {
            field,
            value,
            range,
        });
    }
    Ok(())
}
