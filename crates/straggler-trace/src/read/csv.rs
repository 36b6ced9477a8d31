//! Google 2011 and Alibaba 2018 CSV traces.
use crate::{ReadReport, TraceJob};
use std::io::BufRead;
pub(crate) fn read_google(
    _input: Box<dyn BufRead + '_>,
    _report: &mut ReadReport,
    _on_job: impl FnMut(TraceJob),
) {
}
pub(crate) fn read_alibaba(
    _input: Box<dyn BufRead + '_>,
    _report: &mut ReadReport,
    _on_job: impl FnMut(TraceJob),
) {
}
