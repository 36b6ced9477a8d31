//! Seeded random numbers: ChaCha8 streams derived from a master seed and a label, and the
//! few distributions the simulator draws from, written out so that the same seed gives the
//! same numbers whatever the version of any random-number crate. The normal draws use the
//! platform's `ln` and `cos`, which IEEE 754 does not require to be correctly rounded: the
//! same seed gives the same bytes on one platform whatever the number of threads, and may
//! differ in the last bits on another (the golden evaluation compares within a tolerance,
//! not bit for bit).

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// A random stream.
#[derive(Debug, Clone)]
pub(crate) struct Stream {
    rng: ChaCha8Rng,
}

impl Stream {
    /// The stream of `seed` for the purpose named by `labels` (e.g. scenario, repetition,
    /// "noise"). Different labels give independent streams.
    pub(crate) fn new(seed: u64, labels: &[u64]) -> Self {
        let mut state = splitmix(seed);
        for &label in labels {
            state = splitmix(state ^ splitmix(label));
        }
        Stream {
            rng: ChaCha8Rng::seed_from_u64(state),
        }
    }

    /// A 64-bit seed drawn from the stream, for a run of its own.
    pub(crate) fn seed(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// Uniform in `[0, 1)`, 53 random bits.
    pub(crate) fn uniform(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Standard normal, by the Box-Muller transform (one of the pair is used).
    pub(crate) fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform(); // (0, 1]
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// A uniformly chosen permutation of `0..n` (Fisher-Yates).
    pub(crate) fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut items: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = (self.uniform() * (i + 1) as f64) as usize;
            items.swap(i, j.min(i));
        }
        items
    }
}

/// Hashes a string label into a stream label.
pub(crate) fn label(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// SplitMix64's finaliser: a bijective mix of 64 bits.
pub(crate) fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_numbers_other_label_other_numbers() {
        let a: Vec<f64> = (0..4)
            .map({
                let mut s = Stream::new(7, &[1, 2]);
                move |_| s.uniform()
            })
            .collect();
        let b: Vec<f64> = (0..4)
            .map({
                let mut s = Stream::new(7, &[1, 2]);
                move |_| s.uniform()
            })
            .collect();
        let c = Stream::new(7, &[2, 1]).uniform();
        assert_eq!(a, b);
        assert_ne!(a[0], c);
        assert!(a.iter().all(|u| (0.0..1.0).contains(u)));
    }

    #[test]
    fn normal_has_unit_moments_and_permutation_is_one() {
        let mut s = Stream::new(1, &[]);
        let xs: Vec<f64> = (0..20_000).map(|_| s.normal()).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64;
        assert!(mean.abs() < 0.03, "mean {mean}");
        assert!((var - 1.0).abs() < 0.05, "variance {var}");
        let mut p = s.permutation(50);
        p.sort_unstable();
        assert_eq!(p, (0..50).collect::<Vec<_>>());
    }
}
