//! Fuzzes the jhist reader: whatever the bytes, no panic, and every record accounted for.
#![no_main]

use libfuzzer_sys::fuzz_target;
use straggler_trace::{TraceFormat, read_bytes};

fuzz_target!(|data: &[u8]| {
    if let Ok((_, report)) = read_bytes(data, TraceFormat::HadoopJhist) {
        assert_eq!(
            report.records_read,
            report.records_parsed + report.records_skipped
        );
    }
});
