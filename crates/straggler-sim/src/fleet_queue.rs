//! An indexed min-heap of node completion times: one entry per node, updated in place
//! (no stale entries), ties broken by the lower node index so that runs are deterministic.
//!
//! Four children per entry and each entry's time stored in the heap beside its node: a
//! comparison reads the heap array only (no lookup of the time by node), the four
//! children of an entry share one or two cache lines, and with 12,000 nodes the heap is
//! half as deep as a binary one (7 levels, not 14). Which entry is first does not depend
//! on the heap's shape: (time, node) is a total order.

const ABSENT: u32 = u32::MAX;
/// Children per entry.
const ARITY: usize = 4;

/// A time and a node in one integer whose order is theirs: earlier time first, then the
/// lower node. The bits of a non-negative `f64` (infinity included) order as the numbers
/// do, so a comparison is one integer comparison, which the compiler turns into a
/// conditional move rather than a branch the processor mispredicts half of the time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Entry(u128);

impl Entry {
    /// `time` must be non-negative (a negative zero counts as zero).
    fn new(time: f64, node: u32) -> Self {
        debug_assert!(time >= 0.0, "completion time {time}");
        let time = time + 0.0; // -0.0 + 0.0 = +0.0
        Entry((u128::from(time.to_bits()) << 32) | u128::from(node))
    }
    fn time(self) -> f64 {
        f64::from_bits((self.0 >> 32) as u64)
    }
    fn node(self) -> u32 {
        self.0 as u32
    }
    fn before(self, other: Entry) -> bool {
        self < other
    }
}

/// The next completion time of every node that has one.
#[derive(Debug, Default)]
pub(crate) struct CompletionQueue {
    heap: Vec<Entry>,
    /// Each node's index in `heap`, `ABSENT` when it has no entry.
    position: Vec<u32>,
}

impl CompletionQueue {
    /// A queue for `nodes` nodes, empty.
    pub(crate) fn new(nodes: usize) -> Self {
        CompletionQueue {
            heap: Vec::with_capacity(nodes),
            position: vec![ABSENT; nodes],
        }
    }

    /// The earliest entry.
    pub(crate) fn peek(&self) -> Option<(f64, u32)> {
        self.heap.first().map(|e| (e.time(), e.node()))
    }

    /// Sets node `n`'s time (non-negative), or removes it with `None`.
    pub(crate) fn set(&mut self, n: u32, time: Option<f64>) {
        let at = self.position[n as usize];
        match (time, at == ABSENT) {
            (None, true) => {}
            (None, false) => self.remove_at(at as usize),
            (Some(time), true) => {
                self.heap.push(Entry::new(time, n));
                self.sift_up(self.heap.len() - 1);
            }
            (Some(time), false) => {
                let at = at as usize;
                let old = self.heap[at];
                let new = Entry::new(time, n);
                self.heap[at] = new;
                if new.before(old) {
                    self.sift_up(at);
                } else {
                    self.sift_down(at);
                }
            }
        }
    }

    /// Moves the entry at `i` up to its place, shifting the parents it passes down.
    fn sift_up(&mut self, mut i: usize) {
        let entry = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / ARITY;
            let above = self.heap[parent];
            if !entry.before(above) {
                break;
            }
            self.place(i, above);
            i = parent;
        }
        self.place(i, entry);
    }

    /// Moves the entry at `i` down to its place, shifting the children it passes up.
    fn sift_down(&mut self, mut i: usize) {
        let entry = self.heap[i];
        let len = self.heap.len();
        loop {
            let first = ARITY * i + 1;
            if first >= len {
                break;
            }
            let mut best = first;
            let mut below = self.heap[first];
            for child in first + 1..(first + ARITY).min(len) {
                let candidate = self.heap[child];
                if candidate.before(below) {
                    (best, below) = (child, candidate);
                }
            }
            if !below.before(entry) {
                break;
            }
            self.place(i, below);
            i = best;
        }
        self.place(i, entry);
    }

    fn place(&mut self, i: usize, entry: Entry) {
        self.heap[i] = entry;
        self.position[entry.node() as usize] = i as u32;
    }

    fn remove_at(&mut self, at: usize) {
        let Some(last) = self.heap.pop() else {
            return;
        };
        let removed = match self.heap.get(at) {
            Some(&removed) => removed,
            None => last, // it was the last entry
        };
        self.position[removed.node() as usize] = ABSENT;
        if at < self.heap.len() {
            self.heap[at] = last;
            if last.before(removed) {
                self.sift_up(at);
            } else {
                self.sift_down(at);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Stream;

    #[test]
    fn pops_in_time_then_node_order_after_updates() {
        let mut q = CompletionQueue::new(5);
        q.set(3, Some(4.0));
        q.set(1, Some(2.0));
        q.set(4, Some(2.0));
        q.set(0, Some(9.0));
        assert_eq!(q.peek(), Some((2.0, 1)));
        q.set(1, Some(5.0)); // later: node 4 first
        assert_eq!(q.peek(), Some((2.0, 4)));
        q.set(4, None);
        assert_eq!(q.peek(), Some((4.0, 3)));
        q.set(0, Some(1.0)); // earlier
        assert_eq!(q.peek(), Some((1.0, 0)));
        let mut order = Vec::new();
        while let Some((t, n)) = q.peek() {
            order.push((t, n));
            q.set(n, None);
        }
        assert_eq!(order, [(1.0, 0), (4.0, 3), (5.0, 1)]);
        q.set(2, None); // absent: nothing happens
        assert_eq!(q.peek(), None);
    }

    #[test]
    fn a_negative_zero_is_zero_and_infinity_is_last() {
        let mut q = CompletionQueue::new(3);
        q.set(2, Some(f64::INFINITY));
        q.set(1, Some(0.0));
        q.set(0, Some(-0.0));
        assert_eq!(q.peek(), Some((0.0, 0)));
        q.set(0, None);
        assert_eq!(q.peek(), Some((0.0, 1)));
        q.set(1, None);
        assert_eq!(q.peek(), Some((f64::INFINITY, 2)));
    }

    /// The reference: every node's time in a plain array, the minimum found by a scan.
    fn reference_peek(times: &[Option<f64>]) -> Option<(f64, u32)> {
        let mut best: Option<(f64, u32)> = None;
        for (n, t) in times.iter().enumerate() {
            if let Some(t) = *t
                && best.is_none_or(|(b, _)| t < b)
            {
                best = Some((t, n as u32));
            }
        }
        best
    }

    #[test]
    fn agrees_with_a_linear_scan_over_random_sets_removals_and_pops() {
        for nodes in [1usize, 2, 5, 17, 200] {
            let mut stream = Stream::new(nodes as u64, &[0x9e3e]);
            let mut q = CompletionQueue::new(nodes);
            let mut times: Vec<Option<f64>> = vec![None; nodes];
            for step in 0..20_000 {
                let n = ((stream.uniform() * nodes as f64) as usize).min(nodes - 1);
                let roll = stream.uniform();
                // Times on a coarse grid so that ties between nodes are frequent.
                let time = (stream.uniform() * 50.0).floor();
                let time = match roll {
                    r if r < 0.15 => None,
                    r if r < 0.25 => Some(f64::INFINITY),
                    _ => Some(time),
                };
                if roll > 0.9 {
                    // Pop the earliest, as the engine does.
                    if let Some((_, first)) = q.peek() {
                        q.set(first, None);
                        times[first as usize] = None;
                    }
                } else {
                    q.set(n as u32, time);
                    times[n] = time;
                }
                assert_eq!(
                    q.peek(),
                    reference_peek(&times),
                    "{nodes} nodes, step {step}"
                );
                assert_eq!(q.heap.len(), times.iter().flatten().count());
            }
        }
    }
}
