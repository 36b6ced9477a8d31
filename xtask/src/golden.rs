//! Compares results with the golden file: same structure, same strings, numbers within a
//! tolerance. Each difference is reported with its path in the document, and cells are
//! named by experiment, scenario, policy and detector rather than by index.

use serde_json::Value;

/// Numbers match when `|a - b| <= ABS + REL * max(|a|, |b|)`. The simulation is
/// deterministic, so on the same platform results are identical; the slack absorbs
/// last-bit differences of the system's `exp`, `ln` and `cos` across C libraries.
const ABS: f64 = 1e-9;
const REL: f64 = 1e-6;
/// The tolerance, for messages.
pub const TOLERANCE_TEXT: &str = "numbers within 1e-9 + 1e-6 x magnitude";

/// Every difference between `golden` and `actual`, as readable lines.
pub fn compare(golden: &Value, actual: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk("", golden, actual, &mut out);
    out
}

fn walk(path: &str, golden: &Value, actual: &Value, out: &mut Vec<String>) {
    match (golden, actual) {
        (Value::Number(g), Value::Number(a)) => {
            let (g, a) = (
                g.as_f64().unwrap_or(f64::NAN),
                a.as_f64().unwrap_or(f64::NAN),
            );
            let close = (g - a).abs() <= ABS + REL * g.abs().max(a.abs());
            if !close {
                out.push(format!(
                    "{path}: golden {g}, now {a} (difference {:+.3e})",
                    a - g
                ));
            }
        }
        (Value::Object(g), Value::Object(a)) => {
            for (key, gv) in g {
                match a.get(key) {
                    Some(av) => walk(&format!("{path}.{key}"), gv, av, out),
                    None => out.push(format!("{path}.{key}: in golden, missing now")),
                }
            }
            for key in a.keys().filter(|k| !g.contains_key(*k)) {
                out.push(format!("{path}.{key}: new, not in golden"));
            }
        }
        (Value::Array(g), Value::Array(a)) => {
            if g.len() != a.len() {
                out.push(format!(
                    "{path}: golden has {} items, now {}",
                    g.len(),
                    a.len()
                ));
            }
            for (i, (gv, av)) in g.iter().zip(a).enumerate() {
                walk(&format!("{path}[{}]", item_name(gv, i)), gv, av, out);
            }
        }
        _ if golden == actual => {}
        _ => out.push(format!("{path}: golden {golden}, now {actual}")),
    }
}

/// A cell's name (`table6/C1/x100/default`) or the index.
fn item_name(value: &Value, index: usize) -> String {
    let fields = ["experiment", "scenario", "policy", "detector"];
    let parts: Option<Vec<&str>> = fields
        .iter()
        .map(|f| value.get(f).and_then(Value::as_str))
        .collect();
    match parts {
        Some(parts) => parts.join("/"),
        None => index.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_documents_have_no_difference() {
        let doc = json!({"a": [1.0, {"b": null}], "s": "x"});
        assert!(compare(&doc, &doc).is_empty());
    }

    #[test]
    fn differences_are_named() {
        let golden = json!({"cells": [{"experiment": "table6", "scenario": "C1", "policy": "x100",
            "detector": "late", "metrics": {"recall": {"mean": 0.5}}}], "gone": 1});
        let actual = json!({"cells": [{"experiment": "table6", "scenario": "C1", "policy": "x100",
            "detector": "late", "metrics": {"recall": {"mean": 0.6}}}], "new": 1});
        let diffs = compare(&golden, &actual);
        assert_eq!(diffs.len(), 3, "{diffs:?}");
        assert!(
            diffs[0].starts_with(
                ".cells[table6/C1/x100/late].metrics.recall.mean: golden 0.5, now 0.6"
            )
        );
        assert_eq!(diffs[1], ".gone: in golden, missing now");
        assert_eq!(diffs[2], ".new: new, not in golden");
    }

    #[test]
    fn tolerance_absorbs_last_bits_only() {
        assert!(compare(&json!(1.0), &json!(1.0 + 1e-12)).is_empty());
        assert_eq!(compare(&json!(1.0), &json!(1.001)).len(), 1);
        assert_eq!(compare(&json!(null), &json!(0.0)).len(), 1);
    }
}
