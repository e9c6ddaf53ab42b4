//! The image encoder: a patch stem over full-height column strips, learned positions
//! and pre-norm transformer layers.
//!
//! The stem turns full-height column strips (one token per 4 px of width) into
//! vectors: either a plain linear patch projection (fastest per step) or two small
//! stride-2 convolutions first. The patch stem has no vertical translation
//! invariance and learned far too slowly on loosely cropped, jittered lines (loss
//! still 1.2 after 2800 steps), so the shipped model uses the conv stem.

use candle_core::{Result, Tensor};
use candle_nn::VarBuilder;

use super::layers::{Attention, FeedForward, Kernels, LayerNorm, Linear, add_row};
use crate::recognizer::config::ModelConfig;

#[derive(Debug, Clone)]
struct EncoderLayer {
    norm1: LayerNorm,
    attn: Attention,
    norm2: LayerNorm,
    ff: FeedForward,
}

impl EncoderLayer {
    fn new(cfg: &ModelConfig, vb: VarBuilder) -> Result<EncoderLayer> {
        Ok(EncoderLayer {
            norm1: LayerNorm::new(cfg.d_model, vb.pp("norm1"))?,
            attn: Attention::new(cfg.d_model, cfg.heads, vb.pp("attn"))?,
            norm2: LayerNorm::new(cfg.d_model, vb.pp("norm2"))?,
            ff: FeedForward::new(cfg.d_model, cfg.ff_dim, vb.pp("ff"))?,
        })
    }

    fn forward(&self, x: &Tensor, key_mask: &Tensor, kernels: Kernels) -> Result<Tensor> {
        let h = self.norm1.forward(x, kernels)?;
        let (k, v) = self.attn.keys_values(&h, kernels)?;
        let x = (x + self.attn.attend(&h, &k, &v, Some(key_mask), kernels)?)?;
        let h = self.norm2.forward(&x, kernels)?;
        x + self.ff.forward(&h, kernels)?
    }
}

/// Optional convolutional front: 1 -> c1 -> c2 channels, each 3x3 stride 2, ReLU.
/// No conv biases: their broadcast backward is candle's slow strided reduction.
#[derive(Debug, Clone)]
struct ConvStem {
    conv1: candle_nn::Conv2d,
    conv2: candle_nn::Conv2d,
}

const CONV1: usize = 16;
const CONV2: usize = 32;

impl ConvStem {
    fn new(vb: VarBuilder) -> Result<ConvStem> {
        let cfg = candle_nn::Conv2dConfig {
            padding: 1,
            stride: 2,
            ..Default::default()
        };
        Ok(ConvStem {
            conv1: candle_nn::conv2d_no_bias(1, CONV1, 3, cfg, vb.pp("conv1"))?,
            conv2: candle_nn::conv2d_no_bias(CONV1, CONV2, 3, cfg, vb.pp("conv2"))?,
        })
    }

    /// [B, H, W] -> [B, W / 4, CONV2 * H / 4]
    fn forward(&self, pixels: &Tensor) -> Result<Tensor> {
        use candle_core::Module;
        let (b, _, _) = pixels.dims3()?;
        let x = self.conv1.forward(&pixels.unsqueeze(1)?)?.relu()?;
        let x = self.conv2.forward(&x)?.relu()?;
        let (_, c, h, t) = x.dims4()?;
        x.reshape((b, c * h, t))?.transpose(1, 2)?.contiguous()
    }
}

#[derive(Debug, Clone)]
pub struct Encoder {
    conv: Option<ConvStem>,
    stem: Linear,
    positions: Tensor,
    layers: Vec<EncoderLayer>,
    norm: LayerNorm,
    height: usize,
    patch_width: usize,
}

impl Encoder {
    pub fn new(cfg: &ModelConfig, vb: VarBuilder) -> Result<Encoder> {
        let positions = vb.get_with_hints(
            (cfg.max_tokens(), cfg.d_model),
            "positions",
            candle_nn::Init::Randn {
                mean: 0.0,
                stdev: 0.02,
            },
        )?;
        let (conv, stem_in) = if cfg.conv_stem {
            (Some(ConvStem::new(vb.pp("conv"))?), CONV2 * cfg.height / 4)
        } else {
            (None, cfg.height * cfg.patch_width)
        };
        Ok(Encoder {
            conv,
            stem: Linear::new(stem_in, cfg.d_model, vb.pp("stem"))?,
            positions,
            layers: (0..cfg.encoder_layers)
                .map(|i| EncoderLayer::new(cfg, vb.pp(format!("layers.{i}"))))
                .collect::<Result<_>>()?,
            norm: LayerNorm::new(cfg.d_model, vb.pp("norm"))?,
            height: cfg.height,
            patch_width: cfg.patch_width,
        })
    }

    /// pixels [B, height, width] -> memory [B, width / patch_width, d_model]
    pub fn forward(&self, pixels: &Tensor, key_mask: &Tensor, kernels: Kernels) -> Result<Tensor> {
        let (b, h, w) = pixels.dims3()?;
        if h != self.height || w % self.patch_width != 0 {
            candle_core::bail!(
                "encoder input {h}x{w} does not match height {} / patch {}",
                self.height,
                self.patch_width
            );
        }
        let t = w / self.patch_width;
        let patches = match &self.conv {
            Some(conv) => conv.forward(pixels)?,
            None => pixels
                .reshape((b, h, t, self.patch_width))?
                .transpose(1, 2)?
                .contiguous()?
                .reshape((b, t, h * self.patch_width))?,
        };
        let positions = self
            .positions
            .narrow(0, 0, t)?
            .reshape(t * self.positions.dim(1)?)?;
        let x = self.stem.forward(&patches, kernels)?;
        let mut x = add_row(&x.reshape((b, ()))?, &positions, kernels)?.reshape(x.shape())?;
        for layer in &self.layers {
            x = layer.forward(&x, key_mask, kernels)?;
        }
        self.norm.forward(&x, kernels)
    }
}
