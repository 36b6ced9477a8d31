//! State per attempt that can be forgotten a whole stage at a time.
//!
//! A detector frees an attempt's state when the attempt ends
//! ([`Observation::AttemptEnded`](straggler_model::Observation::AttemptEnded)), but an
//! engine may stop naming an attempt without that: the replay drops the attempts its log
//! leaves unfinished. Such an attempt's stage still finishes
//! ([`Observation::StageFinished`](straggler_model::Observation::StageFinished), after
//! which no row or observation names it), and the detector forgets what it learnt of the
//! stage then. [`StagedTable`] is an [`IdTable`] whose entries know their attempt's stage,
//! with the ids it holds listed per stage, so that the attempts of a stage are forgotten
//! without a pass over the table: each list holds exactly the ids of its stage held, each
//! entry its place in its list, and removing an id moves the last of its list into its
//! place.

use crate::id_table::IdTable;
use crate::scan::IdMap;

/// An entry: the value, the stage of its attempt, and its place in the stage's list.
#[derive(Debug, Clone)]
struct Staged<V> {
    value: V,
    stage: u32,
    place: u32,
}

/// Values keyed by attempt id, forgotten by id or by stage; see the module docs.
#[derive(Debug, Clone)]
pub(crate) struct StagedTable<V> {
    entries: IdTable<Staged<V>>,
    /// The ids held, per stage index; the entry of `list[i]` has `place == i`.
    stages: IdMap<u32, Vec<u32>>,
}

impl<V> Default for StagedTable<V> {
    fn default() -> Self {
        StagedTable {
            entries: IdTable::default(),
            stages: IdMap::default(),
        }
    }
}

impl<V> StagedTable<V> {
    /// The value of `id`.
    #[inline]
    pub(crate) fn get(&self, id: u32) -> Option<&V> {
        self.entries.get(id).map(|entry| &entry.value)
    }

    /// The value of `id`, to change.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: u32) -> Option<&mut V> {
        self.entries.get_mut(id).map(|entry| &mut entry.value)
    }

    /// Sets the value of `id`, an attempt of `stage`. An id already held keeps the stage it
    /// was first given.
    pub(crate) fn insert(&mut self, id: u32, stage: u32, value: V) {
        if let Some(entry) = self.entries.get_mut(id) {
            entry.value = value;
            return;
        }
        let list = self.stages.entry(stage).or_default();
        // The ids of a list are distinct `u32`s, so a place (at most the list's length
        // before the push) fits a `u32`.
        let place = list.len() as u32;
        list.push(id);
        self.entries.insert(
            id,
            Staged {
                value,
                stage,
                place,
            },
        );
    }

    /// Removes the value of `id`.
    pub(crate) fn remove(&mut self, id: u32) -> Option<V> {
        let Staged {
            value,
            stage,
            place,
        } = self.entries.remove(id)?;
        if let Some(list) = self.stages.get_mut(&stage) {
            let index = place as usize;
            if list.get(index) == Some(&id) {
                list.swap_remove(index);
                if let Some(&moved) = list.get(index)
                    && let Some(entry) = self.entries.get_mut(moved)
                {
                    entry.place = place;
                }
            }
            if list.is_empty() {
                self.stages.remove(&stage);
            }
        }
        Some(value)
    }

    /// Removes the values of every attempt of `stage`.
    pub(crate) fn forget_stage(&mut self, stage: u32) {
        for id in self.stages.remove(&stage).unwrap_or_default() {
            self.entries.remove(id);
        }
    }

    /// Removes every value.
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.stages.clear();
    }

    /// The number of values held for attempts of `stage`.
    #[cfg(test)]
    fn stage_len(&self, stage: u32) -> usize {
        self.stages.get(&stage).map_or(0, Vec::len)
    }
}

#[cfg(test)]
mod tests {
    use super::StagedTable;

    #[test]
    fn forgets_by_id_and_by_stage() {
        let mut table = StagedTable::default();
        // Stage 0 holds 1, 2, 3; stage 1 holds 4.
        for (id, stage) in [(1, 0), (2, 0), (3, 0), (4, 1)] {
            table.insert(id, stage, id * 10);
        }
        // Setting a held id again keeps its stage.
        table.insert(2, 1, 21);
        assert_eq!(table.get(2), Some(&21));
        assert_eq!((table.stage_len(0), table.stage_len(1)), (3, 1));
        // Removing 1 moves 3, the last of stage 0's list, into its place: removing 3 then
        // finds it there, and leaves 2 alone in the list.
        assert_eq!(table.remove(1), Some(10));
        assert_eq!(table.remove(1), None);
        assert_eq!(table.remove(3), Some(30));
        assert_eq!(table.stage_len(0), 1);
        *table.get_mut(2).expect("held") += 1;
        // Stage 0 finishes: 2 goes, 4 of stage 1 stays.
        table.forget_stage(0);
        assert_eq!((table.get(2), table.get(4)), (None, Some(&40)));
        assert_eq!((table.stage_len(0), table.stage_len(1)), (0, 1));
        table.forget_stage(7);
        // The last of a stage removed by id empties its list.
        assert_eq!(table.remove(4), Some(40));
        assert_eq!(table.stage_len(1), 0);
        table.insert(5, 2, 50);
        table.clear();
        assert_eq!((table.get(5), table.stage_len(2)), (None, 0));
    }

    #[test]
    fn a_list_stays_in_step_with_its_entries() {
        // 200 ids over 3 stages, every other one removed in a scrambled order: each
        // stage's list then holds exactly its ids still held.
        let mut table = StagedTable::default();
        for id in 0..200u32 {
            table.insert(id, id % 3, id);
        }
        for id in (0..200u32).map(|k| (k * 73) % 200).filter(|id| id % 2 == 0) {
            assert_eq!(table.remove(id), Some(id));
        }
        for stage in 0..3u32 {
            let held = (0..200u32).filter(|id| id % 3 == stage && id % 2 == 1);
            assert_eq!(table.stage_len(stage), held.clone().count());
            for id in held {
                assert_eq!(table.get(id), Some(&id));
            }
        }
        table.forget_stage(1);
        assert!((0..200u32).all(|id| (table.get(id).is_some()) == (id % 3 != 1 && id % 2 == 1)));
    }
}
