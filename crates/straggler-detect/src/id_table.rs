//! State per attempt, kept in a window of slots indexed by id.
//!
//! Engines number attempts densely and in the order they start, and attempts end roughly
//! in that order, so the ids held at any time mostly fall in a window a little wider than
//! the number of running attempts. [`IdTable`] keeps such a window as slots indexed by
//! `id - base`: a lookup is an index, and a scan looking up its rows in id order reads the
//! slots in order. An id the window cannot widen to without holding more than twice as many
//! slots as entries (plus [`SLACK`]) goes to a hash map. When the map holds more entries
//! than the window, the table is rebuilt around the densest run of ids, so that the window
//! follows the bulk of the attempts (the new ones past an old straggler, say).
//!
//! A hash map keyed so that consecutive ids land in consecutive slots has the first
//! property but not the second: once the ids held span more than its table, new ids
//! collide with old ones in long runs of occupied slots, and lookups probe through them.

use std::collections::VecDeque;

use crate::scan::IdMap;

/// Empty slots the window may hold beyond one per entry held.
const SLACK: usize = 1024;

/// Values keyed by `u32` ids; see the module docs.
#[derive(Debug, Clone)]
pub(crate) struct IdTable<V> {
    /// The id of `slots[0]`.
    base: u32,
    slots: VecDeque<Option<V>>,
    /// The filled slots.
    held: usize,
    /// Entries outside the window.
    far: IdMap<u32, V>,
    /// The size of the map from which an insert into it rebuilds the table: twice what the
    /// last rebuild left there, so that rebuilds cost a constant per insert on average.
    rebuild_at: usize,
}

impl<V> Default for IdTable<V> {
    fn default() -> Self {
        IdTable {
            base: 0,
            slots: VecDeque::new(),
            held: 0,
            far: IdMap::default(),
            rebuild_at: 0,
        }
    }
}

impl<V> IdTable<V> {
    /// The slot of `id`, if it is in the window.
    #[inline]
    fn slot(&self, id: u32) -> Option<usize> {
        let index = id.checked_sub(self.base)? as usize;
        (index < self.slots.len()).then_some(index)
    }

    /// The value of `id`. An id can sit in the map inside the window's range (the window
    /// widened over it), so an empty slot sends the lookup there.
    #[inline]
    pub(crate) fn get(&self, id: u32) -> Option<&V> {
        match self.slot(id).and_then(|index| self.slots[index].as_ref()) {
            Some(value) => Some(value),
            None if self.far.is_empty() => None,
            None => self.far.get(&id),
        }
    }

    /// The value of `id`, to change.
    pub(crate) fn get_mut(&mut self, id: u32) -> Option<&mut V> {
        match self.slot(id) {
            Some(index) if self.slots[index].is_some() => self.slots[index].as_mut(),
            _ => self.far.get_mut(&id),
        }
    }

    /// The number of entries.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.held + self.far.len()
    }

    /// Sets the value of `id` (in its slot when the window holds it or can widen to it, in
    /// the map otherwise).
    pub(crate) fn insert(&mut self, id: u32, value: V) {
        if !self.far.is_empty() {
            // An id the map took before the window widened over it: the slot now rules.
            self.far.remove(&id);
        }
        if self.slot(id).is_some() || self.widen_to(id) {
            let index = self.slot(id).expect("the window holds the id");
            if self.slots[index].replace(value).is_none() {
                self.held += 1;
            }
            return;
        }
        self.far.insert(id, value);
        if self.far.len() > self.held + SLACK && self.far.len() >= self.rebuild_at {
            self.rebuild();
        }
    }

    /// Removes the value of `id`, and the empty slots this leaves at the window's ends.
    pub(crate) fn remove(&mut self, id: u32) -> Option<V> {
        let Some(index) = self.slot(id).filter(|&index| self.slots[index].is_some()) else {
            return self.far.remove(&id);
        };
        let value = self.slots[index].take();
        self.held -= 1;
        while self.slots.front().is_some_and(Option::is_none) {
            self.slots.pop_front();
            // Wraps only when the window empties past id u32::MAX; an empty window's base
            // is reset by the next insert.
            self.base = self.base.wrapping_add(1);
        }
        while self.slots.back().is_some_and(Option::is_none) {
            self.slots.pop_back();
        }
        value
    }

    /// Removes every entry.
    pub(crate) fn clear(&mut self) {
        self.slots.clear();
        self.far.clear();
        self.held = 0;
        self.rebuild_at = 0;
    }

    /// Widens the window to hold `id` if it then holds at most twice as many slots as
    /// entries, plus [`SLACK`]; returns whether it did.
    fn widen_to(&mut self, id: u32) -> bool {
        if self.slots.is_empty() {
            self.base = id;
            self.slots.push_back(None);
            return true;
        }
        let last = self.base + (self.slots.len() - 1) as u32;
        let (first, last) = (self.base.min(id), last.max(id));
        if !fits(last - first, self.held + 1) {
            return false;
        }
        for _ in id..self.base {
            self.slots.push_front(None);
        }
        self.base = first;
        self.slots.resize_with((last - first) as usize + 1, || None);
        true
    }

    /// Puts in the window the longest run of entries (in id order) whose ids fit one, and
    /// every other entry in the map.
    fn rebuild(&mut self) {
        let base = self.base;
        let mut entries: Vec<(u32, V)> = std::mem::take(&mut self.slots)
            .into_iter()
            .zip(base..)
            .filter_map(|(value, id)| Some((id, value?)))
            .chain(self.far.drain())
            .collect();
        entries.sort_unstable_by_key(|&(id, _)| id);
        // For each last entry, the first entry from which the ids fit a window.
        let (mut best, mut start) = (0..0, 0);
        for end in 0..entries.len() {
            while !fits(entries[end].0 - entries[start].0, end + 1 - start) {
                start += 1;
            }
            if end + 1 - start > best.len() {
                best = start..end + 1;
            }
        }
        self.held = best.len();
        self.base = entries.get(best.start).map_or(0, |&(id, _)| id);
        for (index, (id, value)) in entries.into_iter().enumerate() {
            if best.contains(&index) {
                let slot = (id - self.base) as usize;
                self.slots.resize_with(slot + 1, || None);
                self.slots[slot] = Some(value);
            } else {
                self.far.insert(id, value);
            }
        }
        self.rebuild_at = 2 * self.far.len();
    }
}

/// Whether a window whose ids span `span` (last minus first) may hold `held` entries.
fn fits(span: u32, held: usize) -> bool {
    (span as usize) < 2 * held + SLACK
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[test]
    fn ids_in_order_stay_in_the_window() {
        let mut table = IdTable::default();
        for id in 100..1_100u32 {
            table.insert(id, id * 2);
        }
        assert_eq!(
            (table.base, table.slots.len(), table.held),
            (100, 1_000, 1_000)
        );
        assert!(table.far.is_empty());
        // Forgetting the oldest moves the window up; a gap in the middle stays a slot.
        for id in 100..600 {
            assert_eq!(table.remove(id), Some(id * 2));
        }
        assert_eq!(table.remove(700), Some(1_400));
        assert_eq!(
            (table.base, table.slots.len(), table.len()),
            (600, 500, 499)
        );
        assert_eq!(table.get(700), None);
        assert_eq!(table.get(701), Some(&1_402));
        assert_eq!(table.get(99), None);
    }

    #[test]
    fn the_window_follows_the_new_ids_past_a_straggler() {
        let mut table = IdTable::default();
        table.insert(0, 'a');
        // 20 000 ids in order, the last 2 000 of them held at any time; the straggler at 0
        // stays. The new ids go to the map while the window cannot reach them, until the
        // map holds more than the window and the table is rebuilt around them.
        for id in 1..20_000u32 {
            table.insert(id, 'b');
            if id > 2_000 {
                assert_eq!(table.remove(id - 2_000), Some('b'));
            }
        }
        assert_eq!(table.get(0), Some(&'a'));
        assert_eq!(table.far.keys().collect::<Vec<_>>(), [&0]);
        assert_eq!((table.base, table.held), (18_000, 2_000));
        assert!((18_000..20_000).all(|id| table.get(id) == Some(&'b')));
        assert_eq!(table.get(17_999), None);
    }

    #[test]
    fn a_run_of_low_ids_takes_the_window_from_sparse_high_ones() {
        let mut table = IdTable::default();
        let sparse: Vec<u32> = (0..100).map(|k| 10_000_000 + 10_000 * k).collect();
        for &id in &sparse {
            table.insert(id, id);
        }
        for id in 0..5_000 {
            table.insert(id, id);
        }
        assert_eq!((table.base, table.held, table.far.len()), (0, 5_000, 100));
        assert!(
            sparse
                .iter()
                .chain(&(0..5_000).collect::<Vec<_>>())
                .all(|&id| table.get(id) == Some(&id))
        );
    }

    #[test]
    fn a_sparse_id_goes_to_the_map() {
        let mut table = IdTable::default();
        table.insert(5, 1);
        table.insert(u32::MAX, 2);
        table.insert(0, 3);
        assert_eq!(table.get(u32::MAX), Some(&2));
        assert_eq!((table.get(0), table.get(5)), (Some(&3), Some(&1)));
        assert_eq!(table.len(), 3);
        table.clear();
        assert_eq!((table.len(), table.get(5)), (0, None));
    }

    proptest! {
        #[test]
        fn behaves_as_a_hash_map(
            ops in prop::collection::vec((0u8..4, 0u32..3_000, any::<u16>()), 0..600)
        ) {
            let mut table = IdTable::default();
            let mut map = HashMap::new();
            for (op, id, value) in ops {
                // Now and then an id far away, to exercise the map.
                let id = if id % 97 == 0 { id * 1_000_003 } else { id };
                match op {
                    0 | 1 => {
                        table.insert(id, value);
                        map.insert(id, value);
                    }
                    2 => prop_assert_eq!(table.remove(id), map.remove(&id)),
                    _ => {
                        if let Some(v) = table.get_mut(id) {
                            *v = v.wrapping_add(1);
                        }
                        if let Some(v) = map.get_mut(&id) {
                            *v = v.wrapping_add(1);
                        }
                    }
                }
                prop_assert_eq!(table.get(id), map.get(&id));
                prop_assert_eq!(table.len(), map.len());
            }
            for (id, value) in &map {
                prop_assert_eq!(table.get(*id), Some(value));
            }
        }
    }
}
