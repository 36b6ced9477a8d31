//! A built-in detector with some of its parameters set: `late(alpha = 0.5)`.
//!
//! Every built-in [`DetectorSpec`] carries its parameters as a TOML table (the fields of
//! its `*Params` struct, by their serde names) and how to make the detector from another
//! such table. [`DetectorSpec::tuned`] sets some of them, checks them as the detector's
//! own `check` does, and names the result after what was set, so that a tuned detector
//! and the preset run side by side in one evaluation: `late` and `late(alpha=0.5)`.

use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use straggler_detect::DetectError;

use crate::unquoted::Unquoted;
use crate::{DetectorSpec, SimError};

/// Makes a detector's spec, and its parameters' table as the detector reads it back, from
/// a table of all its parameters.
type Respec = dyn Fn(&toml::Table) -> Result<(DetectorSpec, toml::Table), Refusal> + Send + Sync;

/// Why parameters were refused.
enum Refusal {
    /// They are not the parameters' struct (a value of another type): serde's message.
    Read(String),
    /// The detector's `check` refused them.
    Check(DetectError),
}

/// A parameter's key, its names from the outer table in: `["inner", "gap"]`.
type Path = Vec<String>;

/// A built-in detector's parameters and how it is made from others.
#[derive(Clone)]
pub(crate) struct Tuning {
    /// Every parameter, with its value.
    params: toml::Table,
    /// The parameters that may be left unset (an `Option` left `None`), top-level keys.
    unset: &'static [&'static str],
    /// The parameters set from the preset's (empty for the preset).
    set: toml::Table,
    /// The preset's name and description.
    base_name: String,
    base_description: String,
    respec: Arc<Respec>,
}

impl DetectorSpec {
    /// The spec `spec_of(preset)`, whose parameters [`DetectorSpec::tuned`] can set: its
    /// parameters are `P`'s fields, of which those in `unset` may be left out (an
    /// `Option` field). `spec_of` is given every parameter set with the preset's others,
    /// and refuses what the detector's `check` refuses.
    pub(crate) fn tunable<P>(
        preset: P,
        unset: &'static [&'static str],
        spec_of: impl Fn(P) -> Result<DetectorSpec, DetectError> + Send + Sync + 'static,
    ) -> DetectorSpec
    where
        P: Serialize + DeserializeOwned + 'static,
    {
        let params = toml::Table::try_from(&preset).expect("a preset's parameters are a table");
        let mut spec =
            spec_of(preset).unwrap_or_else(|e| panic!("preset parameters are invalid: {e}"));
        let respec = move |table: &toml::Table| {
            let params: P = (table.clone().try_into())
                .map_err(|e: toml::de::Error| Refusal::Read(e.message().trim().to_owned()))?;
            let read_back =
                toml::Table::try_from(&params).map_err(|e| Refusal::Read(e.to_string()))?;
            let spec = spec_of(params).map_err(Refusal::Check)?;
            Ok((spec, read_back))
        };
        spec.tuning = Some(Tuning {
            params,
            unset,
            set: toml::Table::new(),
            base_name: spec.name().to_owned(),
            base_description: spec.description().to_owned(),
            respec: Arc::new(respec),
        });
        spec
    }

    /// Every parameter of a built-in detector, with its value (its `*Params` struct's fields
    /// by their serde names, a nested struct as a table); `None` for a detector made by
    /// [`DetectorSpec::new`]. A parameter left unset is not in it
    /// ([`DetectorSpec::unset_params`]).
    pub fn params(&self) -> Option<&toml::Table> {
        self.tuning.as_ref().map(|tuning| &tuning.params)
    }

    /// Every parameter of [`DetectorSpec::params`] by its dotted key (`inner.gap`), in key
    /// order, with its value as TOML writes it (`1.0`, `"sequential"`, `[1,2]`), which
    /// [`DetectorSpec::tuned_from`] reads back. Empty for a detector made by
    /// [`DetectorSpec::new`].
    pub fn params_by_key(&self) -> Vec<(String, String)> {
        let leaves = self.params().map(leaves).unwrap_or_default();
        (leaves.into_iter())
            .map(|(path, value)| (path.join("."), render(&value)))
            .collect()
    }

    /// The parameters of a built-in detector that are not set and may be
    /// (`blacklist_size` of `dsb`: P-Cores without number).
    pub fn unset_params(&self) -> Vec<&'static str> {
        let Some(tuning) = &self.tuning else {
            return Vec::new();
        };
        (tuning.unset.iter().copied())
            .filter(|key| !tuning.params.contains_key(*key))
            .collect()
    }

    /// This detector with the parameters of `set` changed, the others as they are: named
    /// `<preset>(<key>=<value>,...)`, every parameter set from the preset's in key order
    /// (`late(alpha=0.5)`, `hierarchical(inner.gap=0.3,node_threshold=0.8)`), and described
    /// by what was set and the preset's description. The preset's name is that of
    /// [`DetectorSpec::all`] or `"oracle"`.
    ///
    /// # Errors
    ///
    /// [`SimError::DetectorParams`], naming the parameter where one is at fault: the
    /// detector has no parameters to set (one made by [`DetectorSpec::new`]), `set` names a
    /// parameter it has not or gives one a value of another type, or the detector refuses
    /// a value (as its `check` does).
    pub fn tuned(&self, set: &toml::Table) -> Result<DetectorSpec, SimError> {
        let error = |parameter: Option<&Path>, message: String| SimError::DetectorParams {
            detector: self.name().to_owned(),
            parameter: parameter.map(|path| path.join(".")),
            message,
        };
        let Some(tuning) = &self.tuning else {
            return Err(error(None, "has no parameters that can be set".to_owned()));
        };
        let set_leaves = leaves(set);
        let unknown = |path: &Path| {
            let mut known: Vec<String> = self.params_by_key().into_iter().map(|(k, _)| k).collect();
            known.extend(self.unset_params().iter().map(|k| (*k).to_owned()));
            known.sort();
            let message = format!(
                "parameter {}: no such parameter; its parameters: {}",
                path.join("."),
                known.join(", ")
            );
            error(Some(path), message)
        };
        // Keys are snake_case names: a quoted key with a dot is no parameter's.
        let is_name = |name: &String| {
            !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        };
        if let Some((path, _)) = set_leaves
            .iter()
            .find(|(path, _)| !path.iter().all(is_name))
        {
            let message = match path.iter().find(|name| name.contains('.')) {
                Some(quoted) => format!(
                    "parameter {quoted:?}: a quoted key holds a dot; write a nested key unquoted \
                     ({quoted} = ...)"
                ),
                None => return Err(unknown(path)),
            };
            return Err(error(Some(path), message));
        }
        if let Some(path) = empty_table(set, &[]) {
            let message = format!("parameter {}: an empty table sets nothing", path.join("."));
            return Err(error(Some(&path), message));
        }
        if let Some((path, _)) = (set_leaves.iter())
            .find(|(path, _)| !names_a_parameter(&tuning.params, tuning.unset, path))
        {
            return Err(unknown(path));
        }
        let with = |set: &toml::Table| {
            let mut params = tuning.params.clone();
            merge(&mut params, set);
            (tuning.respec)(&params)
        };
        let (mut spec, read_back) = match with(set) {
            Ok(made) => made,
            Err(refusal) => {
                // The parameter at fault, the first refused when set alone, with its own
                // refusal; else the refusal of them all.
                let solo = set_leaves.iter().find_map(|leaf @ (path, value)| {
                    with(&table_at(path, value.clone()))
                        .err()
                        .map(|r| (leaf, r))
                });
                let (culprit, refusal) = match solo {
                    Some((leaf, refusal)) => (Some(leaf), refusal),
                    None => (None, refusal),
                };
                let (path, message) = match (culprit, refusal) {
                    (Some((path, value)), Refusal::Read(reason)) => {
                        let message =
                            format!("parameter {} = {}: {reason}", path.join("."), render(value));
                        (Some(path), message)
                    }
                    (None, Refusal::Read(reason)) => (None, reason),
                    (
                        culprit,
                        Refusal::Check(DetectError::InvalidParam {
                            param,
                            value,
                            expected,
                        }),
                    ) => {
                        let key =
                            culprit.map_or_else(|| param.to_owned(), |(path, _)| path.join("."));
                        (
                            culprit.map(|(path, _)| path),
                            format!("parameter {key} = {value}: must be {expected}"),
                        )
                    }
                    (culprit, Refusal::Check(other)) => {
                        (culprit.map(|(path, _)| path), other.to_string())
                    }
                };
                return Err(error(path, message));
            }
        };
        if let Some((path, _)) = set_leaves
            .iter()
            .find(|(path, _)| lookup(&read_back, path).is_none())
        {
            return Err(unknown(path));
        }
        let mut all_set = tuning.set.clone();
        merge(&mut all_set, set);
        // Each value as the detector reads it back, so that `alpha = 1` and `alpha = 1.0`
        // name one detector.
        let rendered: Vec<String> = leaves(&all_set)
            .into_iter()
            .map(|(path, value)| {
                let read = lookup(&read_back, &path).unwrap_or(&value);
                format!("{}={}", path.join("."), render(read))
            })
            .collect();
        if !rendered.is_empty() {
            spec.name = format!("{}({})", tuning.base_name, rendered.join(","));
            spec.description = format!(
                "set {}; the preset: {}",
                rendered.join(", "),
                tuning.base_description
            );
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
        let unreadable = |reason: &str| SimError::DetectorParams {
            detector: self.name().to_owned(),
            parameter: None,
            message: format!(
                "cannot read the parameters {set:?} (key = value, comma-separated){reason}"
            ),
        };
        let document: toml::Table = format!("set = {{ {set} }}")
            .parse()
            .map_err(|e: toml::de::Error| unreadable(&format!(": {}", e.message().trim())))?;
        match document.get("set") {
            Some(toml::Value::Table(set)) if document.len() == 1 => self.tuned(set),
            _ => Err(unreadable("")),
        }
    }
}

/// The items of a list of detectors as the command line writes it (`late, mad(k = 3)`),
/// each of which [`split_params`] splits: the text between the commas outside
/// parentheses, brackets, braces and quoted strings (TOML's: `"..."` with backslash
/// escapes, `'...'` without, and their multi-line forms), each trimmed, the empty ones
/// left out (`a,,b,` is `a` and `b`).
///
/// # Errors
///
/// [`SimError::UnbalancedList`] where a closing character does not match the last one
/// opened (or closes nothing), or where a bracket or a quote is left open.
pub fn split_list(list: &str) -> Result<Vec<&str>, SimError> {
    let unbalanced = |message: String| SimError::UnbalancedList {
        list: list.to_owned(),
        message,
    };
    let (mut items, mut open, mut start) = (Vec::new(), Vec::new(), 0);
    let mut unquoted = Unquoted::new(list);
    for (i, c) in &mut unquoted {
        match c {
            '(' | '[' | '{' => open.push(c),
            ')' | ']' | '}' => {
                let due = open.pop().map(|o| match o {
                    '(' => ')',
                    '[' => ']',
                    _ => '}',
                });
                match due {
                    None => return Err(unbalanced(format!("{c:?} at byte {i} closes nothing"))),
                    Some(due) if due != c => {
                        return Err(unbalanced(format!(
                            "{c:?} at byte {i} where {due:?} is due"
                        )));
                    }
                    Some(_) => {}
                }
            }
            ',' if open.is_empty() => {
                items.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if let Some(quote) = unquoted.open() {
        let mark = quote.mark();
        return Err(unbalanced(format!("the quote {mark:?} is left open")));
    }
    if let Some(c) = open.last() {
        return Err(unbalanced(format!("{c:?} is left open")));
    }
    items.push(&list[start..]);
    Ok(items
        .into_iter()
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .collect())
}

/// A detector as a list names it, split into its name and the parameters it sets:
/// `late` is `("late", None)`, `late(alpha = 0.5)` is `("late", Some("alpha = 0.5"))`
/// ([`DetectorSpec::tuned_from`] reads them); `None` when a parenthesis is opened and not
/// closed last (`late(alpha = 0.5`, `late(alpha = 0.5) x`).
pub fn split_params(text: &str) -> Option<(&str, Option<&str>)> {
    let text = text.trim();
    match text.split_once('(') {
        Some((name, rest)) => Some((name.trim_end(), Some(rest.strip_suffix(')')?))),
        None => Some((text, None)),
    }
}

/// The parameters of `to` that differ from `from`'s, as a table to
/// [`DetectorSpec::tuned`].
pub(crate) fn differing(from: &toml::Table, to: &toml::Table) -> toml::Table {
    let mut out = toml::Table::new();
    for (path, value) in leaves(to) {
        if lookup(from, &path) != Some(&value) {
            merge(&mut out, &table_at(&path, value));
        }
    }
    out
}

/// Sets every value of `set` in `into`. A table of `set` is merged key by key into the
/// table of `into` that has every one of its keys (a nested struct's); any other value
/// replaces `into`'s (an enum's table, `{ auto = { min_rows = 5 } }`, by another variant).
fn merge(into: &mut toml::Table, set: &toml::Table) {
    for (key, value) in set {
        match (into.get_mut(key), value) {
            (Some(toml::Value::Table(inner)), toml::Value::Table(set))
                if set.keys().all(|k| inner.contains_key(k)) =>
            {
                merge(inner, set);
            }
            _ => {
                into.insert(key.clone(), value.clone());
            }
        }
    }
}

/// Whether `path` names a parameter of `params` (or one of the top-level `unset` ones), or
/// a variant of an enum's (`parallelism.auto.min_rows` where the preset is
/// `parallelism = "sequential"`, `parallelism = { parallel = ... }` where it is
/// `{ auto = ... }`: a table of one key holding a table, or a string, is an enum's and its
/// variant may change).
fn names_a_parameter(params: &toml::Table, unset: &[&str], path: &[String]) -> bool {
    let Some((first, rest)) = path.split_first() else {
        return false;
    };
    match params.get(first) {
        None => unset.contains(&first.as_str()) && rest.is_empty(),
        Some(_) if rest.is_empty() => true,
        // An enum's table: one variant, itself a table.
        Some(toml::Value::Table(inner))
            if inner.len() == 1
                && !inner.contains_key(&rest[0])
                && inner.values().all(toml::Value::is_table) =>
        {
            true
        }
        Some(toml::Value::Table(inner)) => names_a_parameter(inner, &[], rest),
        Some(toml::Value::String(_)) => true,
        Some(_) => false,
    }
}

/// The path of the first empty table of `set` (under `path`), which sets nothing.
fn empty_table(set: &toml::Table, path: &[String]) -> Option<Path> {
    set.iter().find_map(|(key, value)| {
        let mut at = path.to_vec();
        at.push(key.clone());
        match value {
            toml::Value::Table(inner) if inner.is_empty() => Some(at),
            toml::Value::Table(inner) => empty_table(inner, &at),
            _ => None,
        }
    })
}

/// A table holding `value` at `path`.
fn table_at(path: &[String], value: toml::Value) -> toml::Table {
    let (last, outer) = path.split_last().expect("a parameter has a key");
    let mut table = toml::Table::from_iter([(last.clone(), value)]);
    for key in outer.iter().rev() {
        table = toml::Table::from_iter([(key.clone(), toml::Value::Table(table))]);
    }
    table
}

/// Every value of `table` that is not a table, by its path, in key order (sorted here: a
/// `toml::Table` keeps its keys in the order written where toml's `preserve_order` is on).
fn leaves(table: &toml::Table) -> Vec<(Path, toml::Value)> {
    let mut out = unsorted_leaves(table);
    out.sort_by(|(a, _), (b, _)| a.cmp(b));
    out
}

/// [`leaves`] in the table's order.
fn unsorted_leaves(table: &toml::Table) -> Vec<(Path, toml::Value)> {
    let mut out = Vec::new();
    for (key, value) in table {
        match value {
            toml::Value::Table(inner) => {
                out.extend(leaves(inner).into_iter().map(|(mut path, value)| {
                    path.insert(0, key.clone());
                    (path, value)
                }));
            }
            other => out.push((vec![key.clone()], other.clone())),
        }
    }
    out
}

/// The value at `path` of `table`.
fn lookup<'t>(table: &'t toml::Table, path: &[String]) -> Option<&'t toml::Value> {
    let (first, rest) = path.split_first()?;
    match (table.get(first)?, rest) {
        (value, []) => Some(value),
        (toml::Value::Table(inner), rest) => lookup(inner, rest),
        _ => None,
    }
}

/// A value that is not a table as TOML reads it back, without whitespace outside strings:
/// a float always with a point or an exponent (`1.0`, `1e30`).
fn render(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => format!("{s:?}"),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => format!("{f:?}"),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Datetime(d) => d.to_string(),
        toml::Value::Array(items) => {
            let items: Vec<String> = items.iter().map(render).collect();
            format!("[{}]", items.join(","))
        }
        toml::Value::Table(table) => {
            let items: Vec<String> = leaves(table)
                .into_iter()
                .map(|(path, value)| format!("{}={}", path.join("."), render(&value)))
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

    /// The dotted keys of `spec`'s parameters.
    fn keys(spec: &DetectorSpec) -> Vec<String> {
        spec.params_by_key()
            .into_iter()
            .map(|(key, _)| key)
            .collect()
    }

    /// Rows flagged by one scan of a straggling stage.
    fn flagged(spec: &DetectorSpec) -> usize {
        let snapshot = straggling_stage(2000, 40, 7).unwrap();
        let mut findings = Findings::default();
        spec.make().scan(&snapshot, &mut findings);
        findings.rows().len()
    }

    #[test]
    fn a_list_splits_at_the_commas_outside_brackets_and_quotes() {
        let check = |list: &str, expected: &[&str]| {
            assert_eq!(split_list(list).unwrap(), expected, "{list:?}");
        };
        check(" b, none,,all,none ,", &["b", "none", "all", "none"]);
        check("", &[]);
        check(" , ,", &[]);
        check(
            "late(alpha = 0.5, parallelism = \"sequential\"), default",
            &["late(alpha = 0.5, parallelism = \"sequential\")", "default"],
        );
        check(
            "a(x = [1, 2], y = { z = 3 }),b",
            &["a(x = [1, 2], y = { z = 3 })", "b"],
        );
        // Brackets and commas inside quotes are the string's: an escaped quote does not
        // close a basic string, a backslash does not escape in a literal one.
        check(
            "b(s = \"),(\", t = '['),c",
            &["b(s = \"),(\", t = '[')", "c"],
        );
        check(r#"a(s = "\",)"),b"#, &[r#"a(s = "\",)")"#, "b"]);
        check(r"a(s = '\'),b", &[r"a(s = '\')", "b"]);
        check(
            "a(s = \"\"\"x\", ]\"\"\"),b",
            &["a(s = \"\"\"x\", ]\"\"\")", "b"],
        );
    }

    #[test]
    fn a_list_with_a_bracket_or_a_quote_out_of_turn_is_refused() {
        for (list, problem) in [
            ("a(x = 1", "'(' is left open"),
            ("a(x = [1, 2)", "')' at byte 11 where ']' is due"),
            ("a(s = \")", "the quote '\"' is left open"),
            ("a, 'b", "the quote '\\'' is left open"),
            (r#"a(s = "x\")"#, "the quote '\"' is left open"),
            ("a]", "']' at byte 1 closes nothing"),
            ("a(x = 1]", "']' at byte 7 where ')' is due"),
            ("a(x = { y = 1)}", "')' at byte 13 where '}' is due"),
            ("a(s = \"]\")]", "']' at byte 10 closes nothing"),
        ] {
            let error = split_list(list).unwrap_err();
            assert!(
                matches!(&error, SimError::UnbalancedList { list: l, message } if l == list && message == problem),
                "{list:?}: {error:?}"
            );
            assert_eq!(error.to_string(), format!("{list:?}: {problem}"));
        }
    }

    #[test]
    fn a_tuned_detector_is_named_after_what_was_set_and_runs_with_it() {
        let late = spec("late");
        let eager = late.tuned_from("alpha = 0").unwrap();
        assert_eq!(eager.name(), "late(alpha=0.0)");
        // The value as the detector reads it: one name for one detector.
        assert_eq!(late.tuned_from("alpha = 0.0").unwrap().name(), eager.name());
        assert_eq!(
            eager.description(),
            format!("set alpha=0.0; the preset: {}", late.description())
        );
        assert_eq!(eager.params().unwrap()["alpha"], toml::Value::Float(0.0));
        // alpha 0 flags every rate below the mean, 1 only those a deviation below.
        let (preset, tuned) = (flagged(&late), flagged(&eager));
        assert!(0 < preset && preset < tuned, "{preset} {tuned}");
        // Setting again keeps what was set before, keys in order.
        let twice = eager.tuned_from("parallelism = \"sequential\"").unwrap();
        assert_eq!(twice.name(), "late(alpha=0.0,parallelism=\"sequential\")");
        assert_eq!(flagged(&twice), tuned);
        // An enum's table is replaced by another variant, not merged into.
        let auto = twice
            .tuned_from("parallelism = { auto = { min_rows = 5 } }")
            .unwrap();
        assert_eq!(
            auto.params_by_key()[1],
            ("parallelism.auto.min_rows".to_owned(), "5".to_owned())
        );
        // Nothing set: the preset.
        assert_eq!(late.tuned_from("").unwrap().name(), "late");
    }

    #[test]
    fn a_tuned_name_reads_back_as_the_same_detector() {
        let tuned = spec("hadoop1")
            .tuned_from("lag_secs = 1e30, gap = 0.5")
            .unwrap();
        assert_eq!(tuned.name(), "hadoop1(gap=0.5,lag_secs=1e30)");
        let inside = &tuned.name()["hadoop1(".len()..tuned.name().len() - 1];
        let again = spec("hadoop1")
            .tuned_from(&inside.replace(',', ", "))
            .unwrap();
        assert_eq!(again.name(), tuned.name());
        assert_eq!(again.params(), tuned.params());
    }

    #[test]
    fn nested_and_side_by_side_parameters_are_set_by_their_keys() {
        let hierarchical = spec("hierarchical");
        assert_eq!(
            keys(&hierarchical),
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
        assert_eq!(
            tuned.name(),
            "hierarchical(inner.gap=0.0,node_threshold=2.0)"
        );
        assert!(flagged(&tuned) > flagged(&hierarchical));
        let smoothed = spec("hadoop-exp-smoothed");
        let keys = keys(&smoothed);
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
        // An optional parameter left unset is listed as such, and can be set.
        let dsb = spec("dsb");
        assert_eq!(dsb.unset_params(), ["blacklist_size"]);
        let top2 = dsb.tuned_from("blacklist_size = 2").unwrap();
        assert!(top2.unset_params().is_empty());
        assert_eq!(
            top2.params().unwrap()["blacklist_size"],
            toml::Value::Integer(2)
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
        assert_eq!(oracle.name(), "oracle(fraction=0.5)");
        // The library's constructor names it the same way.
        let params = straggler_detect::OracleParams {
            fraction: 0.5,
            ..Default::default()
        };
        assert_eq!(DetectorSpec::oracle(params).unwrap().name(), oracle.name());
        let online = spec("garraghan").tuned_from("mode = \"online\"").unwrap();
        assert!(online.with_history.is_none());
        assert!(spec("garraghan").with_history.is_some());
    }

    #[test]
    fn what_cannot_be_set_is_refused_naming_the_detector_and_the_parameter() {
        let cases = [
            (
                "late",
                "alpah = 0.5",
                "detector late: parameter alpah: no such parameter; its parameters: alpha, parallelism.auto.min_rows",
            ),
            (
                "late",
                "alpha = \"high\"",
                "detector late: parameter alpha = \"high\": invalid type: string \"high\", expected f64",
            ),
            (
                "late",
                "alpha = -1",
                "detector late: parameter alpha = -1: must be finite and >= 0",
            ),
            (
                "garraghan",
                "diff = 0.5, segments = 2.5",
                "detector garraghan: parameter segments = 2.5: invalid type: floating point `2.5`, expected u32",
            ),
            (
                "hierarchical",
                "inner.gap = 1.5",
                "detector hierarchical: parameter inner.gap = 1.5: must be in [0, 1]",
            ),
            (
                "hierarchical",
                "\"inner.gap\" = 0",
                "detector hierarchical: parameter \"inner.gap\": a quoted key holds a dot; write a nested key unquoted (inner.gap = ...)",
            ),
            (
                "dsb",
                "blacklist = 3",
                "detector dsb: parameter blacklist: no such parameter; its parameters: blacklist_size, confidence, seed, window_secs",
            ),
            (
                "dsb",
                "blacklist_size = 0",
                "detector dsb: parameter blacklist_size = 0: must be >= 1 (unset: P-Cores without number)",
            ),
            (
                "spark",
                "quantile 0.5",
                "detector spark: cannot read the parameters \"quantile 0.5\" (key = value, comma-separated): missing assignment between key-value pairs, expected `=`",
            ),
            // Each parameter's own refusal, not another's.
            (
                "hadoop1",
                "gap = 2, lag_secs = \"x\"",
                "detector hadoop1: parameter gap = 2: must be in (0, 1]",
            ),
            (
                "hierarchical",
                "inner.bogus = 1",
                "detector hierarchical: parameter inner.bogus: no such parameter; its parameters: inner.gap, inner.parallelism.auto.min_rows, node_threshold, parallelism.auto.min_rows",
            ),
            (
                "late",
                "parallelism.auto.bogus = 1",
                "detector late: parameter parallelism.auto.bogus: no such parameter; its parameters: alpha, parallelism.auto.min_rows",
            ),
            (
                "late",
                "alpah = {}",
                "detector late: parameter alpah: an empty table sets nothing",
            ),
            (
                "late",
                "parallelism = { auto = {} }",
                "detector late: parameter parallelism.auto: an empty table sets nothing",
            ),
        ];
        for (name, set, expected) in cases {
            assert_eq!(error(name, set), expected, "{name}({set})");
        }
        let parameter = |name: &str, set: &str| match spec(name).tuned_from(set) {
            Err(SimError::DetectorParams { parameter, .. }) => parameter,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            parameter("hierarchical", "inner.gap = 1.5").as_deref(),
            Some("inner.gap")
        );
        assert_eq!(parameter("spark", "quantile 0.5"), None);
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
                let unset = spec.unset_params().contains(&row[0].as_str());
                let expected = match (listed, unset) {
                    (false, true) => "not set",
                    (false, false) => "-",
                    (true, _) => continue,
                };
                assert_eq!(row[column], expected, "{name}: {}", row[0]);
            }
        }
    }
}
