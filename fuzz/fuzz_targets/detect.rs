//! Fuzzes format detection from the first bytes of an input: no panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = straggler_trace::detect_bytes(data);
});
