//! What reading takes in memory, measured by a counting allocator: a line or object of a
//! few megabytes holding a long array (`clockSplits`, or a field the reader does not use)
//! takes about its own size, never a tree of JSON values (about 32 bytes per element, 16
//! times the text of a one-digit element) nor a progress point per element kept with the
//! job. The fuzzer's reproducers `rumen-bigsplits.json.gz`, `jhist-bigarray.jhist.gz` and
//! `rumen-splits-retained.json.gz` (a 63 KB gzip took 1.4 GB) are this, larger.
//!
//! One test, so that no other test allocates while it measures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use straggler_trace::{TraceFormat, TraceJob, read_bytes};

/// The system allocator, counting the bytes live and the most live since the last reset.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// A global allocator is `unsafe` by its trait: allowed here, in this test binary only (the
// workspace denies `unsafe_code`), as it is in straggler-detect's scan kernels.
// SAFETY: every call is passed to the system allocator as it is; only counters change.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(pointer, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            if new_size >= layout.size() {
                let grown = new_size - layout.size();
                let live = LIVE.fetch_add(grown, Ordering::Relaxed) + grown;
                PEAK.fetch_max(live, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes live while `read` runs, beyond those live before, and what it returns.
fn peak_while<T>(read: impl FnOnce() -> T) -> (usize, T) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = read();
    (PEAK.load(Ordering::Relaxed) - before, out)
}

/// An array of `n` zeros, as JSON.
fn zeros(n: usize) -> String {
    let mut array = String::with_capacity(2 * n + 2);
    array.push('[');
    for i in 0..n {
        array.push_str(if i == 0 { "0" } else { ",0" });
    }
    array.push(']');
    array
}

fn read(text: &str, format: TraceFormat) -> Vec<TraceJob> {
    let (jobs, report) = read_bytes(text.as_bytes(), format).expect("readable");
    assert_eq!(report.records_skipped, 0, "{:?}", report.skips);
    jobs
}

#[test]
fn long_arrays_take_about_their_text_not_a_tree_of_values() {
    // 2 million elements: 4 MB of text, 64 MB as JSON values.
    let elements = 2_000_000;
    let text_bytes = 2 * elements;
    // The text, the reader's copy of it and buffers: a few times the text, far below a
    // tree of values.
    let bound = 6 * text_bytes;

    let rumen = format!(
        "{{\"jobID\":\"job_1\",\"mapTasks\":[{{\"taskID\":\"t1\",\"taskType\":\"MAP\",\
         \"attempts\":[{{\"attemptID\":\"a1\",\"startTime\":1000,\"finishTime\":2000,\
         \"result\":\"SUCCESS\",\"clockSplits\":{}}}]}}]}}\n",
        zeros(elements).replace('0', "1")
    );
    let (peak, jobs) = peak_while(|| read(&rumen, TraceFormat::Rumen));
    assert!(peak < bound, "Rumen clockSplits: {peak} bytes at most");
    // Nothing of the splits kept with the job.
    let attempt = &jobs[0].tasks[0].attempts[0];
    assert!(attempt.progress.is_empty());

    let header = "Avro-Json\n{\"type\":\"record\"}\n";
    let ids = "\"taskid\":\"task_1_0001_m_000000\",\"taskType\":\"MAP\",\
               \"attemptId\":\"attempt_1_0001_m_000000_0\"";
    let jhist = format!(
        "{header}{{\"type\":\"JOB_INFO_CHANGED\",\"event\":{{\"e\":{{\"jobid\":\"job_1_0001\",\
         \"x\":{big}}}}}}}\n\
         {{\"type\":\"MAP_ATTEMPT_STARTED\",\"event\":{{\"e\":{{{ids},\"startTime\":1000}}}}}}\n\
         {{\"type\":\"MAP_ATTEMPT_FINISHED\",\"event\":{{\"e\":{{{ids},\"finishTime\":5000,\
         \"clockSplits\":{big}}}}}}}\n",
        big = zeros(elements)
    );
    let (peak, jobs) = peak_while(|| read(&jhist, TraceFormat::HadoopJhist));
    assert!(peak < bound, ".jhist long arrays: {peak} bytes at most");
    assert!(jobs[0].tasks[0].attempts[0].progress.is_empty());
}
