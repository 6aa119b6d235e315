//! Medians of repeated measurements: on a shared machine a run can be slowed by anything else
//! that runs, so the benches report the middle run rather than the mean, which one slow run
//! moves.

/// The median of `v` (the upper one of an even count).
pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The median of `v`, and `v` in its original order (the samples a report lists).
pub(crate) fn median_of(v: Vec<f64>) -> (f64, Vec<f64>) {
    (median(v.clone()), v)
}

/// The median and the largest of `v`.
pub(crate) fn median_max(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(|a, b| a.total_cmp(b));
    (v[v.len() / 2], v[v.len() - 1])
}
