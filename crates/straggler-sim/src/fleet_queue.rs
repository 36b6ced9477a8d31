//! An indexed min-heap of node completion times: one entry per node, updated in place
//! (no stale entries), ties broken by the lower node index so that runs are deterministic.

const ABSENT: u32 = u32::MAX;

/// The next completion time of every node that has one.
#[derive(Debug, Default)]
pub(crate) struct CompletionQueue {
    heap: Vec<u32>,
    position: Vec<u32>,
    time: Vec<f64>,
}

impl CompletionQueue {
    /// A queue for `nodes` nodes, empty.
    pub(crate) fn new(nodes: usize) -> Self {
        CompletionQueue {
            heap: Vec::with_capacity(nodes),
            position: vec![ABSENT; nodes],
            time: vec![f64::INFINITY; nodes],
        }
    }

    /// The earliest entry.
    pub(crate) fn peek(&self) -> Option<(f64, u32)> {
        self.heap.first().map(|&n| (self.time[n as usize], n))
    }

    /// Sets node `n`'s time, or removes it with `None`.
    pub(crate) fn set(&mut self, n: u32, time: Option<f64>) {
        let i = n as usize;
        let at = self.position[i];
        match (time, at == ABSENT) {
            (None, true) => {}
            (None, false) => self.remove_at(at as usize),
            (Some(t), true) => {
                self.time[i] = t;
                self.heap.push(n);
                self.position[i] = (self.heap.len() - 1) as u32;
                self.sift_up(self.heap.len() - 1);
            }
            (Some(t), false) => {
                let old = self.time[i];
                self.time[i] = t;
                if self.less(t, n, old, n) {
                    self.sift_up(at as usize);
                } else {
                    self.sift_down(at as usize);
                }
            }
        }
    }

    fn less(&self, ta: f64, a: u32, tb: f64, b: u32) -> bool {
        ta < tb || (ta == tb && a < b)
    }

    fn before(&self, i: usize, j: usize) -> bool {
        let (a, b) = (self.heap[i], self.heap[j]);
        self.less(self.time[a as usize], a, self.time[b as usize], b)
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.heap.swap(i, j);
        self.position[self.heap[i] as usize] = i as u32;
        self.position[self.heap[j] as usize] = j as u32;
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if !self.before(i, parent) {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        loop {
            let (left, right) = (2 * i + 1, 2 * i + 2);
            let mut best = i;
            if left < self.heap.len() && self.before(left, best) {
                best = left;
            }
            if right < self.heap.len() && self.before(right, best) {
                best = right;
            }
            if best == i {
                break;
            }
            self.swap(i, best);
            i = best;
        }
    }

    fn remove_at(&mut self, at: usize) {
        let last = self.heap.len() - 1;
        self.swap(at, last);
        if let Some(n) = self.heap.pop() {
            self.position[n as usize] = ABSENT;
            self.time[n as usize] = f64::INFINITY;
        }
        if at < self.heap.len() {
            self.sift_up(at);
            self.sift_down(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
