//! A built-in detector with some of its parameters set: `late(alpha = 0.5)`.
//!
//! Every built-in [`DetectorSpec`] carries its parameters as a TOML table (the fields of
//! its `*Params` struct, by their serde names) and how to make the detector from another
//! such table. [`DetectorSpec::tuned`] sets some of them, checks them as the detector's
//! own `check` does, and names the result after what was set, so that a tuned detector
//! and the preset run side by side in one evaluation: `late` and `late(alpha=0.5)`.

use std::sync::Arc;

use crate::{DetectorSpec, SimError};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Makes a detector's spec, and its parameters' table as the detector reads it back, from
/// a table of all its parameters; the message of the error otherwise.
type Respec = dyn Fn(&toml::Table) -> Result<(DetectorSpec, toml::Table), String> + Send + Sync;

/// A built-in detector's parameters and how it is made from others.
#[derive(Clone)]
pub(crate) struct Tuning {
    /// Every parameter, with its value.
    params: toml::Table,
    /// The parameters set from the preset's (empty for the preset).
    set: toml::Table,
    /// The preset's name.
    base_name: String,
    respec: Arc<Respec>,
}

impl DetectorSpec {
    /// The spec `spec_of(preset)`, whose parameters [`DetectorSpec::tuned`] can set: its
    /// parameters are `P`'s fields. `spec_of` is given every parameter set with the
    /// preset's others, and refuses what the detector's `check` refuses.
    pub(crate) fn tunable<P, E>(
        preset: P,
        spec_of: impl Fn(P) -> Result<DetectorSpec, E> + Send + Sync + 'static,
    ) -> DetectorSpec
    where
        P: Serialize + DeserializeOwned + 'static,
        E: std::fmt::Display,
    {
        let params = toml::Table::try_from(&preset).expect("a preset's parameters are a table");
        let mut spec =
            spec_of(preset).unwrap_or_else(|e| panic!("preset parameters are invalid: {e}"));
        let respec = move |table: &toml::Table| {
            let params: P = table
                .clone()
                .try_into()
                .map_err(|e: toml::de::Error| e.message().to_owned())?;
            let read_back = toml::Table::try_from(&params).map_err(|e| e.to_string())?;
            let spec = spec_of(params).map_err(|e| e.to_string())?;
            Ok((spec, read_back))
        };
        spec.tuning = Some(Tuning {
            params,
            set: toml::Table::new(),
            base_name: spec.name().to_owned(),
            respec: Arc::new(respec),
        });
        spec
    }

    /// Every parameter of a built-in detector, with its value (its `*Params` struct's fields
    /// by their serde names, a nested struct as a table); `None` for a detector made by
    /// [`DetectorSpec::new`].
    pub fn params(&self) -> Option<&toml::Table> {
        self.tuning.as_ref().map(|tuning| &tuning.params)
    }

    /// Every parameter of [`DetectorSpec::params`] by its dotted key (`inner.gap`), in key
    /// order, with its value as TOML writes it (`1`, `"sequential"`, `[1,2]`): what
    /// [`DetectorSpec::tuned_from`] reads back. Empty for a detector made by
    /// [`DetectorSpec::new`].
    pub fn params_by_key(&self) -> Vec<(String, String)> {
        self.params().map(leaves).unwrap_or_default()
    }

    /// This detector with the parameters of `set` changed, the others as they are: named
    /// `<preset>(<key>=<value>,...)`, every parameter set from the preset's in key order
    /// (`late(alpha=0.5)`, `hierarchical(inner.gap=0.3,node_threshold=0.8)`), and described
    /// as the preset with what was set. The preset's name is that of [`DetectorSpec::all`] or
    /// [`DetectorSpec::oracle`].
    ///
    /// # Errors
    ///
    /// [`SimError::DetectorParams`]: the detector has no parameters to set (one made by
    /// [`DetectorSpec::new`]), `set` names a parameter it has not or gives one a value of
    /// another type, or the detector refuses a value (as its `check` does).
    pub fn tuned(&self, set: &toml::Table) -> Result<DetectorSpec, SimError> {
        let error = |message: String| SimError::DetectorParams {
            detector: self.name().to_owned(),
            message,
        };
        let Some(tuning) = &self.tuning else {
            return Err(error("has no parameters that can be set".to_owned()));
        };
        let mut params = tuning.params.clone();
        merge(&mut params, set);
        let (mut spec, read_back) = (tuning.respec)(&params).map_err(&error)?;
        for key in leaf_keys(set) {
            if lookup(&read_back, &key).is_none() {
                let known = leaf_keys(&read_back).join(", ");
                return Err(error(format!(
                    "no parameter {key:?}; its parameters: {known}"
                )));
            }
        }
        let mut all_set = tuning.set.clone();
        merge(&mut all_set, set);
        let rendered: Vec<String> = leaves(&all_set)
            .into_iter()
            .map(|(key, value)| format!("{key}={value}"))
            .collect();
        if !rendered.is_empty() {
            spec.name = format!("{}({})", tuning.base_name, rendered.join(","));
            spec.description = format!("{}; with {}", spec.description, rendered.join(", "));
        }
        spec.tuning = Some(Tuning {
            params: read_back,
            set: all_set,
            ..tuning.clone()
        });
        Ok(spec)
    }

    /// [`DetectorSpec::tuned`] with the parameters written as the inside of a TOML inline
    /// table: `alpha = 0.5`, `node_threshold = 0.8, inner.gap = 0.3`,
    /// `parallelism = "sequential"`.
    ///
    /// # Errors
    ///
    /// As [`DetectorSpec::tuned`], and [`SimError::DetectorParams`] when `set` is not the
    /// inside of an inline table.
    pub fn tuned_from(&self, set: &str) -> Result<DetectorSpec, SimError> {
        let document: toml::Table =
            format!("set = {{ {set} }}")
                .parse()
                .map_err(|e: toml::de::Error| SimError::DetectorParams {
                    detector: self.name().to_owned(),
                    message: format!(
                        "cannot read the parameters {set:?} (key = value, comma-separated): {}",
                        e.message()
                    ),
                })?;
        match document.get("set") {
            Some(toml::Value::Table(set)) if document.len() == 1 => self.tuned(set),
            _ => Err(SimError::DetectorParams {
                detector: self.name().to_owned(),
                message: format!(
                    "cannot read the parameters {set:?} (key = value, comma-separated)"
                ),
            }),
        }
    }
}

/// Sets every value of `set` in `into`, a table of both merged key by key, any other
/// value replaced.
fn merge(into: &mut toml::Table, set: &toml::Table) {
    for (key, value) in set {
        match (into.get_mut(key), value) {
            (Some(toml::Value::Table(inner)), toml::Value::Table(set)) => merge(inner, set),
            _ => {
                into.insert(key.clone(), value.clone());
            }
        }
    }
}

/// Every value of `table` that is not a table, by its dotted key, in key order.
fn leaves(table: &toml::Table) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (key, value) in table {
        match value {
            toml::Value::Table(inner) => out.extend(
                leaves(inner)
                    .into_iter()
                    .map(|(k, v)| (format!("{key}.{k}"), v)),
            ),
            other => out.push((key.clone(), render(other))),
        }
    }
    out
}

/// The dotted keys of [`leaves`].
fn leaf_keys(table: &toml::Table) -> Vec<String> {
    leaves(table).into_iter().map(|(key, _)| key).collect()
}

/// The value at a dotted key of [`leaves`].
fn lookup<'t>(table: &'t toml::Table, dotted: &str) -> Option<&'t toml::Value> {
    let (first, rest) = match dotted.split_once('.') {
        Some((first, rest)) => (first, Some(rest)),
        None => (dotted, None),
    };
    match (table.get(first)?, rest) {
        (toml::Value::Table(inner), Some(rest)) => lookup(inner, rest),
        (value, None) => Some(value),
        (_, Some(_)) => None,
    }
}

/// A value that is not a table, as TOML writes it, without whitespace outside strings.
pub(crate) fn render(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => format!("{s:?}"),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Datetime(d) => d.to_string(),
        toml::Value::Array(items) => {
            let items: Vec<String> = items.iter().map(render).collect();
            format!("[{}]", items.join(","))
        }
        toml::Value::Table(table) => {
            let items: Vec<String> = leaves(table)
                .into_iter()
                .map(|(key, value)| format!("{key}={value}"))
                .collect();
            format!("{{{}}}", items.join(","))
        }
    }
}

#[cfg(test)]
mod tests {
    use straggler_detect::Findings;
    use straggler_detect::conformance::straggling_stage;

    use super::*;

    fn spec(name: &str) -> DetectorSpec {
        let all = DetectorSpec::all_and_oracle();
        all.into_iter().find(|s| s.name() == name).unwrap()
    }

    fn error(name: &str, set: &str) -> String {
        spec(name).tuned_from(set).unwrap_err().to_string()
    }

    /// Rows flagged by one scan of a straggling stage.
    fn flagged(spec: &DetectorSpec) -> usize {
        let snapshot = straggling_stage(2000, 40, 7).unwrap();
        let mut findings = Findings::default();
        spec.make().scan(&snapshot, &mut findings);
        findings.rows().len()
    }

    #[test]
    fn a_tuned_detector_is_named_after_what_was_set_and_runs_with_it() {
        let late = spec("late");
        let eager = late.tuned_from("alpha = 0").unwrap();
        assert_eq!(eager.name(), "late(alpha=0)");
        assert!(eager.description().ends_with("; with alpha=0"));
        assert_eq!(eager.params().unwrap()["alpha"], toml::Value::Float(0.0));
        // alpha 0 flags every rate below the mean, 1 only those a deviation below.
        let (preset, tuned) = (flagged(&late), flagged(&eager));
        assert!(0 < preset && preset < tuned, "{preset} {tuned}");
        // Setting again keeps what was set before, keys in order.
        let twice = eager.tuned_from("parallelism = \"sequential\"").unwrap();
        assert_eq!(twice.name(), "late(alpha=0,parallelism=\"sequential\")");
        assert_eq!(flagged(&twice), tuned);
        // Nothing set: the preset.
        assert_eq!(late.tuned_from("").unwrap().name(), "late");
    }

    #[test]
    fn nested_and_side_by_side_parameters_are_set_by_their_keys() {
        let hierarchical = spec("hierarchical");
        let keys = leaf_keys(hierarchical.params().unwrap());
        assert_eq!(
            keys,
            [
                "inner.gap",
                "inner.parallelism.auto.min_rows",
                "node_threshold",
                "parallelism.auto.min_rows"
            ]
        );
        let tuned = hierarchical
            .tuned_from("node_threshold = 2.0, inner.gap = 0.0")
            .unwrap();
        assert_eq!(tuned.name(), "hierarchical(inner.gap=0,node_threshold=2)");
        assert!(flagged(&tuned) > flagged(&hierarchical));
        let smoothed = spec("hadoop-exp-smoothed");
        let keys = leaf_keys(smoothed.params().unwrap());
        assert!(keys.contains(&"lambda_secs".to_owned()), "{keys:?}");
        assert!(
            keys.contains(&"min_finished_fraction".to_owned()),
            "{keys:?}"
        );
        let tuned = smoothed.tuned_from("lambda_secs = 30").unwrap();
        assert_eq!(
            tuned.params().unwrap()["lambda_secs"],
            toml::Value::Float(30.0)
        );
    }

    #[test]
    fn every_built_in_takes_its_own_parameters_back() {
        for spec in DetectorSpec::all_and_oracle() {
            let params = spec
                .params()
                .expect("every built-in has parameters")
                .clone();
            let same = spec.tuned(&params).unwrap();
            assert_eq!(same.params(), Some(&params), "{}", spec.name());
            assert!(same.name().starts_with(&format!("{}(", spec.name())));
            assert_eq!(same.oracle_params(), spec.oracle_params());
            assert_eq!(same.with_history.is_some(), spec.with_history.is_some());
        }
    }

    #[test]
    fn the_oracle_and_garraghan_stay_what_they_are() {
        let oracle = spec("oracle").tuned_from("fraction = 0.5").unwrap();
        assert_eq!(oracle.oracle_params().unwrap().fraction, 0.5);
        assert!(oracle.description().contains("at 50% of its time"));
        let online = spec("garraghan").tuned_from("mode = \"online\"").unwrap();
        assert!(online.with_history.is_none());
        assert!(spec("garraghan").with_history.is_some());
    }

    #[test]
    fn what_cannot_be_set_is_refused_naming_the_detector_and_the_parameter() {
        assert_eq!(
            error("late", "alpah = 0.5"),
            "detector late: no parameter \"alpah\"; its parameters: alpha, parallelism.auto.min_rows"
        );
        let wrong_type = error("late", "alpha = \"high\"");
        assert!(
            wrong_type.starts_with("detector late: invalid type: string \"high\", expected f64"),
            "{wrong_type}"
        );
        let refused = error("late", "alpha = -1");
        assert!(refused.starts_with("detector late: "), "{refused}");
        assert!(
            refused.contains("alpha") && refused.contains(">= 0"),
            "{refused}"
        );
        let unreadable = error("spark", "quantile 0.5");
        assert!(
            unreadable.starts_with("detector spark: cannot read the parameters \"quantile 0.5\""),
            "{unreadable}"
        );
        let escape = error("spark", "quantile = 0.5 }, b = { c = 1");
        assert!(escape.contains("cannot read the parameters"), "{escape}");
        let custom = DetectorSpec::new("mine", "mine", || {
            Box::new(straggler_detect::DefaultDetector::default())
        });
        assert_eq!(
            custom.tuned_from("gap = 0.1").unwrap_err().to_string(),
            "detector mine: has no parameters that can be set"
        );
    }

    /// The tables of docs/detectors.md: each a header and rows of cells, backticks removed.
    fn doc_tables() -> Vec<Vec<Vec<String>>> {
        let doc = include_str!("../../../docs/detectors.md");
        let mut tables: Vec<Vec<Vec<String>>> = Vec::new();
        let mut in_table = false;
        for line in doc.lines() {
            let Some(inner) = line.strip_prefix('|').and_then(|l| l.strip_suffix('|')) else {
                in_table = false;
                continue;
            };
            let cells: Vec<String> = inner
                .split('|')
                .map(|c| c.trim().replace('`', ""))
                .collect();
            if cells.iter().all(|c| c.chars().all(|ch| ch == '-')) {
                continue;
            }
            if !in_table {
                tables.push(Vec::new());
                in_table = true;
            }
            tables.last_mut().unwrap().push(cells);
        }
        tables
    }

    #[test]
    fn the_docs_reference_gives_every_parameter_of_every_detector_and_no_other() {
        let tables = doc_tables();
        let threads = (tables.iter())
            .find(|t| t[0][1] == "Value")
            .expect("the parallelism table");
        assert_eq!(threads[1][0], "parallelism.auto.min_rows");
        for spec in DetectorSpec::all_and_oracle() {
            let name = spec.name();
            let mut columns = tables.iter().filter_map(|table| {
                let column = table[0].iter().position(|cell| cell == name)?;
                Some((table, column))
            });
            let (table, column) = columns
                .next()
                .unwrap_or_else(|| panic!("no table for {name}"));
            assert!(columns.next().is_none(), "two tables for {name}");
            let params = spec.params_by_key();
            for (key, value) in &params {
                if key.ends_with("parallelism.auto.min_rows") {
                    assert_eq!(&threads[1][1], value, "{name}: {key}");
                    continue;
                }
                let row = (table.iter().skip(1))
                    .find(|row| &row[0] == key)
                    .unwrap_or_else(|| panic!("{name}: no row for {key}"));
                assert_eq!(&row[column], value, "{name}: {key}");
            }
            for row in table.iter().skip(1) {
                let listed = params.iter().any(|(key, _)| key == &row[0]);
                assert_eq!(listed, row[column] != "-", "{name}: {}", row[0]);
            }
        }
    }
}
