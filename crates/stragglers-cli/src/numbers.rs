//! Numbers as the commands print them in notes, headers and summaries: a value too large
//! (or too small) to read in full, such as a flag's `1e308`, in scientific notation rather
//! than as hundreds of digits.

/// From this magnitude on, a number is printed in scientific notation.
const LARGE: f64 = 1e6;
/// Below this magnitude (but not 0), `plain` prints a number in scientific notation.
const SMALL: f64 = 1e-4;

/// `x` as `{}` prints it (the shortest decimal that reads back as `x`: `20`, `0.08`), or in
/// scientific notation from 1e6 on and below 1e-4 (`1e308`, `1.5e-7`).
pub fn plain(x: f64) -> String {
    let magnitude = x.abs();
    if x.is_finite() && (magnitude >= LARGE || (magnitude > 0.0 && magnitude < SMALL)) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// `x` with `decimals` decimals (`1923.3`), or in scientific notation with three from 1e6
/// on (`1.000e308`).
pub fn fixed(x: f64, decimals: usize) -> String {
    if x.is_finite() && x.abs() >= LARGE {
        format!("{x:.3e}")
    } else {
        format!("{x:.decimals$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_print_in_full_and_huge_ones_compactly() {
        assert_eq!(plain(20.0), "20");
        assert_eq!(plain(0.08), "0.08");
        assert_eq!(plain(999_999.5), "999999.5");
        assert_eq!(plain(1e6), "1e6");
        assert_eq!(plain(1e308), "1e308");
        assert_eq!(plain(-2.5e9), "-2.5e9");
        assert_eq!(plain(1.5e-7), "1.5e-7");
        assert_eq!(plain(0.0), "0");
        assert_eq!(plain(f64::INFINITY), "inf");
        assert_eq!(fixed(1923.25, 1), "1923.2");
        assert_eq!(fixed(1e308, 1), "1.000e308");
        assert_eq!(fixed(f64::NAN, 1), "NaN");
    }
}
