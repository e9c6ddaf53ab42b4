//! The autoregressive text decoder: pre-norm transformer layers with causal
//! self-attention and cross-attention to the encoder output, plus a key-value cache
//! so decoding costs one token per step.

use candle_core::{DType, Device, IndexOp, Module, Result, Tensor};
use candle_nn::{Embedding, VarBuilder, embedding};

use super::layers::{Attention, FeedForward, Kernels, LayerNorm, Linear, NEG_INF, add_row};
use crate::recognizer::config::ModelConfig;

#[derive(Debug, Clone)]
struct DecoderLayer {
    norm1: LayerNorm,
    self_attn: Attention,
    norm2: LayerNorm,
    cross_attn: Attention,
    norm3: LayerNorm,
    ff: FeedForward,
}

impl DecoderLayer {
    fn new(cfg: &ModelConfig, vb: VarBuilder) -> Result<DecoderLayer> {
        Ok(DecoderLayer {
            norm1: LayerNorm::new(cfg.d_model, vb.pp("norm1"))?,
            self_attn: Attention::new(cfg.d_model, cfg.heads, vb.pp("self_attn"))?,
            norm2: LayerNorm::new(cfg.d_model, vb.pp("norm2"))?,
            cross_attn: Attention::new(cfg.d_model, cfg.heads, vb.pp("cross_attn"))?,
            norm3: LayerNorm::new(cfg.d_model, vb.pp("norm3"))?,
            ff: FeedForward::new(cfg.d_model, cfg.ff_dim, vb.pp("ff"))?,
        })
    }
}

/// Per-layer keys and values: cross-attention ones fixed per crop, self-attention
/// ones growing by one position per decoding step.
#[derive(Debug, Clone)]
pub struct DecoderCache {
    /// Cross-attention keys and values of the memory, one row per crop.
    crop_cross: Vec<(Tensor, Tensor)>,
    crop_mask: Tensor,
    /// The crop each live row reads, and `crop_cross`/`crop_mask` expanded to them.
    row_crops: Vec<u32>,
    cross: Vec<(Tensor, Tensor)>,
    memory_mask: Tensor,
    past: Vec<Option<(Tensor, Tensor)>>,
    /// Tokens decoded so far (the position of the next one).
    pub len: usize,
}

impl DecoderCache {
    pub fn device(&self) -> &candle_core::Device {
        self.crop_mask.device()
    }

    /// Keeps (and repeats) the live rows `rows`: beam search uses it to follow
    /// surviving hypotheses and to expand each crop into its beams. The memory's
    /// keys and values depend only on the crop, so they are re-gathered (from the
    /// per-crop copy, in one step) only when the rows' crops change: between most
    /// beam steps they do not, and the largest part of the cache stays put.
    pub fn select_rows(&mut self, rows: &[u32]) -> Result<()> {
        let device = self.device().clone();
        let row_tensor = Tensor::new(rows, &device)?;
        for (k, v) in self.past.iter_mut().flatten() {
            *k = k.index_select(&row_tensor, 0)?;
            *v = v.index_select(&row_tensor, 0)?;
        }
        let row_crops: Vec<u32> = rows.iter().map(|&r| self.row_crops[r as usize]).collect();
        if row_crops != self.row_crops {
            let crops = Tensor::new(row_crops.as_slice(), &device)?;
            self.cross = self
                .crop_cross
                .iter()
                .map(|(k, v)| Ok((k.index_select(&crops, 0)?, v.index_select(&crops, 0)?)))
                .collect::<Result<_>>()?;
            self.memory_mask = self.crop_mask.index_select(&crops, 0)?;
            self.row_crops = row_crops;
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
pub struct Decoder {
    embed: Embedding,
    positions: Tensor,
    layers: Vec<DecoderLayer>,
    norm: LayerNorm,
    head: Linear,
    max_len: usize,
}

impl Decoder {
    pub fn new(cfg: &ModelConfig, vb: VarBuilder) -> Result<Decoder> {
        let positions = vb.get_with_hints(
            (cfg.max_len, cfg.d_model),
            "positions",
            candle_nn::Init::Randn {
                mean: 0.0,
                stdev: 0.02,
            },
        )?;
        Ok(Decoder {
            embed: embedding(cfg.vocab_size, cfg.d_model, vb.pp("embed"))?,
            positions,
            layers: (0..cfg.decoder_layers)
                .map(|i| DecoderLayer::new(cfg, vb.pp(format!("layers.{i}"))))
                .collect::<Result<_>>()?,
            norm: LayerNorm::new(cfg.d_model, vb.pp("norm"))?,
            head: Linear::new(cfg.d_model, cfg.vocab_size, vb.pp("head"))?,
            max_len: cfg.max_len,
        })
    }

    pub fn max_len(&self) -> usize {
        self.max_len
    }

    fn embed(&self, tokens: &Tensor, start: usize, kernels: Kernels) -> Result<Tensor> {
        let (b, l) = tokens.dims2()?;
        if start + l > self.max_len {
            candle_core::bail!(
                "decoder position {} beyond max_len {}",
                start + l,
                self.max_len
            );
        }
        let d = self.positions.dim(1)?;
        let positions = self.positions.narrow(0, start, l)?.reshape(l * d)?;
        let x = self.embed.forward(tokens)?.reshape((b, l * d))?;
        add_row(&x, &positions, kernels)?.reshape((b, l, d))
    }

    /// Teacher-forced pass over whole sequences: tokens [B, L] -> logits [B, L, vocab].
    pub fn forward(
        &self,
        tokens: &Tensor,
        memory: &Tensor,
        memory_mask: &Tensor,
        kernels: Kernels,
    ) -> Result<Tensor> {
        let (_, l) = tokens.dims2()?;
        let causal = causal_mask(l, tokens.device())?;
        let mut x = self.embed(tokens, 0, kernels)?;
        for layer in &self.layers {
            let h = layer.norm1.forward(&x, kernels)?;
            let (k, v) = layer.self_attn.keys_values(&h, kernels)?;
            x = (x + layer.self_attn.attend(&h, &k, &v, Some(&causal), kernels)?)?;
            let h = layer.norm2.forward(&x, kernels)?;
            let (k, v) = layer.cross_attn.keys_values(memory, kernels)?;
            x = (x + layer
                .cross_attn
                .attend(&h, &k, &v, Some(memory_mask), kernels)?)?;
            let h = layer.norm3.forward(&x, kernels)?;
            x = (&x + layer.ff.forward(&h, kernels)?)?;
        }
        self.head.forward(&self.norm.forward(&x, kernels)?, kernels)
    }

    /// Starts incremental decoding for a batch of encoded crops.
    pub fn start(
        &self,
        memory: &Tensor,
        memory_mask: &Tensor,
        kernels: Kernels,
    ) -> Result<DecoderCache> {
        let cross: Vec<(Tensor, Tensor)> = self
            .layers
            .iter()
            .map(|l| l.cross_attn.keys_values(memory, kernels))
            .collect::<Result<_>>()?;
        Ok(DecoderCache {
            crop_cross: cross.clone(),
            crop_mask: memory_mask.clone(),
            row_crops: (0..memory.dim(0)? as u32).collect(),
            cross,
            memory_mask: memory_mask.clone(),
            past: vec![None; self.layers.len()],
            len: 0,
        })
    }

    /// One decoding step: the last token of every row [B] -> logits [B, vocab].
    pub fn step(
        &self,
        last: &Tensor,
        cache: &mut DecoderCache,
        kernels: Kernels,
    ) -> Result<Tensor> {
        let tokens = last.unsqueeze(1)?;
        let mut x = self.embed(&tokens, cache.len, kernels)?;
        for (i, layer) in self.layers.iter().enumerate() {
            let h = layer.norm1.forward(&x, kernels)?;
            let (k, v) = layer.self_attn.keys_values(&h, kernels)?;
            let (k, v) = match cache.past[i].take() {
                Some((pk, pv)) => (Tensor::cat(&[&pk, &k], 2)?, Tensor::cat(&[&pv, &v], 2)?),
                None => (k, v),
            };
            x = (x + layer.self_attn.attend(&h, &k, &v, None, kernels)?)?;
            cache.past[i] = Some((k, v));
            let h = layer.norm2.forward(&x, kernels)?;
            let (ck, cv) = &cache.cross[i];
            x = (x + layer
                .cross_attn
                .attend(&h, ck, cv, Some(&cache.memory_mask), kernels)?)?;
            let h = layer.norm3.forward(&x, kernels)?;
            x = (&x + layer.ff.forward(&h, kernels)?)?;
        }
        cache.len += 1;
        self.head
            .forward(&self.norm.forward(&x, kernels)?, kernels)?
            .i((.., 0))
    }
}

/// Additive causal mask [1, 1, L, L].
fn causal_mask(l: usize, device: &Device) -> Result<Tensor> {
    let mask: Vec<f32> = (0..l)
        .flat_map(|i| (0..l).map(move |j| if j > i { NEG_INF } else { 0.0 }))
        .collect();
    Tensor::from_vec(mask, (1, 1, l, l), device)?.to_dtype(DType::F32)
}
