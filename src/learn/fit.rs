//! Fitting a set's head: class-balanced softmax regression over a model's embeddings, on top of
//! the model's own logits, shrunk towards the model.

use ndarray::{Array1, Array2, ArrayView2, Axis};

/// How a head is fitted.
#[derive(Debug, Clone, Copy)]
pub struct FitOptions {
    /// L2 penalty on the head's weights (over embeddings scaled to a mean squared norm of 1):
    /// larger keeps the set closer to the model.
    pub l2: f32,
    /// L2 penalty on the head's bias: unpenalised, it learns the class mix of the pictures
    /// learned from (a starting position's) rather than the set's look.
    pub bias_l2: f32,
    /// Full-batch Adam steps.
    pub steps: usize,
    /// Adam's step size.
    pub lr: f32,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions { l2: 1e-3, bias_l2: 1.0, steps: 150, lr: 0.05 }
    }
}

/// A fitted head: added to a model's logits, `weights · e + bias` for an embedding `e`.
#[derive(Debug, Clone, PartialEq)]
pub struct Head {
    /// `[classes, D]`.
    pub weights: Array2<f32>,
    /// `[classes]`.
    pub bias: Array1<f32>,
}

impl Head {
    /// The logits with the head: `logits + embedding · weightsᵀ + bias`.
    pub fn apply(&self, logits: ArrayView2<f32>, embedding: ArrayView2<f32>) -> Array2<f32> {
        let mut z = embedding.dot(&self.weights.t());
        z += &logits;
        z += &self.bias;
        z
    }
}

/// Softmax of each row, in place.
fn softmax_rows(z: &mut Array2<f32>) {
    for mut row in z.rows_mut() {
        let m = row.fold(f32::NEG_INFINITY, |a, &b| a.max(b));
        row.mapv_inplace(|v| (v - m).exp());
        let s = row.sum();
        row /= s;
    }
}

/// Fits a head to `labels` (class indices, one per row) over the model's `logits` `[N, K]` and
/// `embedding` `[N, D]`, each row weighted so that every class present counts the same (a
/// start position has 32 empty squares and one king of each colour).
pub fn fit_head(logits: ArrayView2<f32>, embedding: ArrayView2<f32>, labels: &[usize], opts: &FitOptions) -> Head {
    let (n, k) = logits.dim();
    let d = embedding.ncols();
    assert_eq!(embedding.nrows(), n, "one embedding per row of logits");
    assert_eq!(labels.len(), n, "one label per row");
    // Embeddings scaled to a mean squared norm of 1, so that the step size and penalty mean the
    // same for every model; the scale is folded back into the weights at the end.
    let mean_sq = embedding.iter().map(|v| v * v).sum::<f32>() / n.max(1) as f32;
    let scale = if mean_sq > 0.0 { mean_sq.sqrt().recip() } else { 1.0 };
    let x = embedding.mapv(|v| v * scale);
    let mut count = vec![0usize; k];
    labels.iter().for_each(|&y| count[y] += 1);
    let present = count.iter().filter(|&&c| c > 0).count().max(1);
    let row_weight: Vec<f32> = labels.iter().map(|&y| 1.0 / (count[y] * present) as f32).collect();

    let mut w = Array2::<f32>::zeros((k, d));
    let mut b = Array1::<f32>::zeros(k);
    let (mut mw, mut vw) = (Array2::<f32>::zeros((k, d)), Array2::<f32>::zeros((k, d)));
    let (mut mb, mut vb) = (Array1::<f32>::zeros(k), Array1::<f32>::zeros(k));
    let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    for t in 1..=opts.steps {
        let mut g = x.dot(&w.t());
        g += &logits;
        g += &b;
        softmax_rows(&mut g);
        for (i, mut row) in g.axis_iter_mut(Axis(0)).enumerate() {
            row[labels[i]] -= 1.0;
            row *= row_weight[i];
        }
        let mut gw = g.t().dot(&x);
        gw.scaled_add(opts.l2, &w);
        let mut gb = g.sum_axis(Axis(0));
        gb.scaled_add(opts.bias_l2, &b);
        let (c1, c2) = (1.0 - b1.powi(t as i32), 1.0 - b2.powi(t as i32));
        mw.zip_mut_with(&gw, |m, &g| *m = b1 * *m + (1.0 - b1) * g);
        vw.zip_mut_with(&gw, |v, &g| *v = b2 * *v + (1.0 - b2) * g * g);
        ndarray::Zip::from(&mut w).and(&mw).and(&vw).for_each(|w, &m, &v| {
            *w -= opts.lr * (m / c1) / ((v / c2).sqrt() + eps);
        });
        mb.zip_mut_with(&gb, |m, &g| *m = b1 * *m + (1.0 - b1) * g);
        vb.zip_mut_with(&gb, |v, &g| *v = b2 * *v + (1.0 - b2) * g * g);
        ndarray::Zip::from(&mut b).and(&mb).and(&vb).for_each(|b, &m, &v| {
            *b -= opts.lr * (m / c1) / ((v / c2).sqrt() + eps);
        });
    }
    Head { weights: w * scale, bias: b }
}

/// The temperature (from 1/8 to 8, on a geometric grid) that gives `readings` (logits and the
/// true class) the lowest mean log loss; 1 without readings.
pub fn fit_temperature(readings: &[(Vec<f32>, usize)]) -> f32 {
    let loss = |t: f32| -> f32 {
        readings
            .iter()
            .map(|(z, y)| {
                let m = z.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b)) / t;
                let lse = m + z.iter().map(|v| (v / t - m).exp()).sum::<f32>().ln();
                lse - z[*y] / t
            })
            .sum::<f32>()
    };
    if readings.is_empty() {
        return 1.0;
    }
    (-24..=24).map(|k| 2f32.powf(k as f32 / 8.0)).min_by(|&a, &b| loss(a).total_cmp(&loss(b))).expect("a grid")
}

/// The index of each row's largest value.
pub fn argmax_rows(z: ArrayView2<f32>) -> Vec<usize> {
    z.rows()
        .into_iter()
        .map(|r| r.iter().enumerate().fold((0, f32::NEG_INFINITY), |a, (i, &v)| if v > a.1 { (i, v) } else { a }).0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    /// Two classes the "model" confuses (its logits favour class 0 everywhere) but whose
    /// embeddings separate cleanly: the head must learn to tell them apart, and keep a third
    /// class it was never shown as the model had it.
    #[test]
    fn a_head_corrects_what_the_embedding_separates() {
        let n = 40;
        let mut emb = Array2::<f32>::zeros((n, 4));
        let mut logits = Array2::<f32>::zeros((n, 3));
        let mut labels = vec![];
        for i in 0..n {
            let y = i % 2;
            emb[[i, y]] = 1.0 + (i as f32 * 0.37).sin() * 0.2;
            emb[[i, 3]] = 0.5;
            logits[[i, 0]] = 2.0;
            labels.push(y);
        }
        assert_eq!(argmax_rows(logits.view()).iter().filter(|&&p| p == 0).count(), n, "the model reads all as 0");
        let head = fit_head(logits.view(), emb.view(), &labels, &FitOptions::default());
        let z = head.apply(logits.view(), emb.view());
        assert_eq!(argmax_rows(z.view()), labels, "the set reads every row right");
        // A row the model is sure is class 2, unlike anything shown, stays class 2.
        let other = Array2::from_shape_vec((1, 3), vec![0.0, 0.0, 8.0]).unwrap();
        let e = Array2::from_shape_vec((1, 4), vec![0.0, 0.0, 0.0, 0.5]).unwrap();
        assert_eq!(argmax_rows(head.apply(other.view(), e.view()).view()), vec![2]);
    }

    #[test]
    fn a_temperature_makes_overconfident_readings_honest() {
        // Right three times in four at a margin of 6 nats: far too sure; a temperature above 1
        // softens it. Always right: sharper, at the top of the grid.
        let sure = |y| (vec![6.0, 0.0], y);
        let mixed = [sure(0), sure(0), sure(0), sure(1)];
        let t = fit_temperature(&mixed);
        assert!(t > 2.0 && t < 8.0, "{t}");
        assert_eq!(fit_temperature(&[sure(0), sure(0)]), 2f32.powf(-3.0));
        assert_eq!(fit_temperature(&[]), 1.0);
    }
}
