//! Building blocks shared by the encoder and the decoder.
//!
//! Training must not use candle's fused softmax/layer-norm kernels: they have no
//! backward pass and silently stop gradients (stack-notes). Every block therefore
//! takes a [`Kernels`] choice: `Differentiable` for training, `Fused` for inference.

use candle_core::{D, Result, Tensor};
use candle_nn::{Init, VarBuilder, ops};

/// Which implementation of softmax and layer norm a forward pass uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernels {
    /// Composed from primitive ops; gradients flow. Use for training.
    Differentiable,
    /// candle's fused kernels; same results, faster, no gradients. Use for inference.
    Fused,
}

pub fn softmax(x: &Tensor, kernels: Kernels) -> Result<Tensor> {
    match kernels {
        Kernels::Differentiable => ops::softmax(x, D::Minus1),
        Kernels::Fused => ops::softmax_last_dim(&x.contiguous()?),
    }
}

/// `row` [d] repeated for every leading position of `like` [.., d].
///
/// Computed as ones [n, 1] x row [1, d] instead of a broadcast: the backward pass of
/// a broadcast sums over the leading dims with candle's slow strided reduction (a
/// quarter of a training step), while this one's backward is a single GEMM.
fn repeat_row(row: &Tensor, like: &Tensor) -> Result<Tensor> {
    let d = row.dim(0)?;
    let n = like.elem_count() / d;
    let ones = Tensor::ones((n, 1), row.dtype(), row.device())?;
    ones.matmul(&row.reshape((1, d))?)?.reshape(like.shape())
}

/// `x + row`, broadcasting `row` over the leading dims of `x`.
pub fn add_row(x: &Tensor, row: &Tensor, kernels: Kernels) -> Result<Tensor> {
    match kernels {
        Kernels::Differentiable => x + repeat_row(row, x)?,
        Kernels::Fused => x.broadcast_add(row),
    }
}

/// `x * row`, broadcasting `row` over the leading dims of `x`.
pub fn mul_row(x: &Tensor, row: &Tensor, kernels: Kernels) -> Result<Tensor> {
    match kernels {
        Kernels::Differentiable => x * repeat_row(row, x)?,
        Kernels::Fused => x.broadcast_mul(row),
    }
}

/// A fully connected layer (weight [out, in], bias [out]), named like candle-nn's.
#[derive(Debug, Clone)]
pub struct Linear {
    weight: Tensor,
    bias: Tensor,
}

impl Linear {
    pub fn new(in_dim: usize, out_dim: usize, vb: VarBuilder) -> Result<Linear> {
        let weight = vb.get_with_hints(
            (out_dim, in_dim),
            "weight",
            candle_nn::init::DEFAULT_KAIMING_NORMAL,
        )?;
        let bound = 1.0 / (in_dim as f64).sqrt();
        let bias = vb.get_with_hints(
            out_dim,
            "bias",
            Init::Uniform {
                lo: -bound,
                up: bound,
            },
        )?;
        Ok(Linear { weight, bias })
    }

    /// x [.., in] -> [.., out]
    pub fn forward(&self, x: &Tensor, kernels: Kernels) -> Result<Tensor> {
        let mut dims = x.dims().to_vec();
        let in_dim = dims.pop().unwrap_or(1);
        let n: usize = dims.iter().product();
        let y = x.reshape((n, in_dim))?.matmul(&self.weight.t()?)?;
        let y = add_row(&y, &self.bias, kernels)?;
        dims.push(self.weight.dim(0)?);
        y.reshape(dims)
    }
}

#[derive(Debug, Clone)]
pub struct LayerNorm {
    weight: Tensor,
    bias: Tensor,
}

const LN_EPS: f32 = 1e-5;

impl LayerNorm {
    pub fn new(dim: usize, vb: VarBuilder) -> Result<LayerNorm> {
        let weight = vb.get_with_hints(dim, "weight", Init::Const(1.0))?;
        let bias = vb.get_with_hints(dim, "bias", Init::Const(0.0))?;
        Ok(LayerNorm { weight, bias })
    }

    pub fn forward(&self, x: &Tensor, kernels: Kernels) -> Result<Tensor> {
        match kernels {
            Kernels::Differentiable => {
                // ops::layer_norm_slow, with the affine part done by add_row/mul_row.
                let d = x.dim(D::Minus1)? as f64;
                let centred = x.broadcast_sub(&(x.sum_keepdim(D::Minus1)? / d)?)?;
                let var = (centred.sqr()?.sum_keepdim(D::Minus1)? / d)?;
                let normed = centred.broadcast_div(&(var + LN_EPS as f64)?.sqrt()?)?;
                add_row(
                    &mul_row(&normed, &self.weight, kernels)?,
                    &self.bias,
                    kernels,
                )
            }
            Kernels::Fused => ops::layer_norm(&x.contiguous()?, &self.weight, &self.bias, LN_EPS),
        }
    }
}

/// Multi-head attention. Queries come from `x`; keys and values from `x` itself
/// (self-attention) or from the encoder output (cross-attention).
#[derive(Debug, Clone)]
pub struct Attention {
    q: Linear,
    k: Linear,
    v: Linear,
    out: Linear,
    heads: usize,
    head_dim: usize,
}

impl Attention {
    pub fn new(d_model: usize, heads: usize, vb: VarBuilder) -> Result<Attention> {
        Ok(Attention {
            q: Linear::new(d_model, d_model, vb.pp("q"))?,
            k: Linear::new(d_model, d_model, vb.pp("k"))?,
            v: Linear::new(d_model, d_model, vb.pp("v"))?,
            out: Linear::new(d_model, d_model, vb.pp("out"))?,
            heads,
            head_dim: d_model / heads,
        })
    }

    /// [B, L, d] -> [B, heads, L, head_dim]
    fn split(&self, x: &Tensor) -> Result<Tensor> {
        let (b, l, _) = x.dims3()?;
        x.reshape((b, l, self.heads, self.head_dim))?
            .transpose(1, 2)?
            .contiguous()
    }

    /// Keys and values of `source`, split into heads: computed once per crop for
    /// cross-attention, once per step for self-attention.
    pub fn keys_values(&self, source: &Tensor, kernels: Kernels) -> Result<(Tensor, Tensor)> {
        Ok((
            self.split(&self.k.forward(source, kernels)?)?,
            self.split(&self.v.forward(source, kernels)?)?,
        ))
    }

    /// Attends from `x` [B, Lq, d] to already split keys/values [B, h, Lk, dh].
    /// `mask` is additive and broadcasts to [B, h, Lq, Lk] (0 keep, large negative drop).
    pub fn attend(
        &self,
        x: &Tensor,
        keys: &Tensor,
        values: &Tensor,
        mask: Option<&Tensor>,
        kernels: Kernels,
    ) -> Result<Tensor> {
        let (b, lq, _) = x.dims3()?;
        let q = (self.split(&self.q.forward(x, kernels)?)? * (self.head_dim as f64).powf(-0.5))?;
        let scores = q.matmul(&keys.transpose(2, 3)?.contiguous()?)?;
        let scores = match mask {
            Some(m) => scores.broadcast_add(m)?,
            None => scores,
        };
        let weights = softmax(&scores, kernels)?;
        let y = weights.matmul(values)?;
        let y = y
            .transpose(1, 2)?
            .reshape((b, lq, self.heads * self.head_dim))?;
        self.out.forward(&y, kernels)
    }
}

#[derive(Debug, Clone)]
pub struct FeedForward {
    up: Linear,
    down: Linear,
}

impl FeedForward {
    pub fn new(d_model: usize, ff_dim: usize, vb: VarBuilder) -> Result<FeedForward> {
        Ok(FeedForward {
            up: Linear::new(d_model, ff_dim, vb.pp("up"))?,
            down: Linear::new(ff_dim, d_model, vb.pp("down"))?,
        })
    }

    pub fn forward(&self, x: &Tensor, kernels: Kernels) -> Result<Tensor> {
        // ReLU, not GELU: GELU's tanh/pow backward took a fifth of a training step on CPU.
        self.down
            .forward(&self.up.forward(x, kernels)?.relu()?, kernels)
    }
}

/// Large negative additive mask value; finite so fully masked rows stay NaN-free.
pub const NEG_INF: f32 = -1e9;
