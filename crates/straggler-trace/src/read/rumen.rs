//! Rumen JSON.
use crate::{ReadReport, TraceJob};
use std::io::BufRead;
pub(crate) fn read(
    _input: Box<dyn BufRead + '_>,
    _report: &mut ReadReport,
    _on_job: impl FnMut(TraceJob),
) {
}
