//! The recognizer network: image encoder, auxiliary CTC head, autoregressive decoder.

pub mod decoder;
pub mod encoder;
pub mod layers;

use candle_core::{Result, Tensor};
use candle_nn::VarBuilder;

pub use decoder::{Decoder, DecoderCache};
pub use encoder::Encoder;
pub use layers::{Kernels, Linear};

use super::config::ModelConfig;
use super::preprocess::ImageBatch;

/// The encoder-decoder network that recognizes a line crop.
#[derive(Debug, Clone)]
pub struct LineModel {
    pub encoder: Encoder,
    /// Per-token character logits on the encoder output, trained with CTC: speeds up
    /// encoder training and gives a cheap second opinion.
    pub ctc_head: Linear,
    pub decoder: Decoder,
    pub config: ModelConfig,
    pub kernels: Kernels,
}

impl LineModel {
    pub fn new(config: &ModelConfig, vb: VarBuilder, kernels: Kernels) -> Result<LineModel> {
        if let Err(e) = config.validate() {
            candle_core::bail!("invalid model config: {e}");
        }
        Ok(LineModel {
            encoder: Encoder::new(config, vb.pp("encoder"))?,
            ctc_head: Linear::new(config.d_model, config.vocab_size, vb.pp("ctc_head"))?,
            decoder: Decoder::new(config, vb.pp("decoder"))?,
            config: config.clone(),
            kernels,
        })
    }

    /// Encoder output [B, T, d] for a batch of crops.
    pub fn encode(&self, batch: &ImageBatch) -> Result<Tensor> {
        self.encoder
            .forward(&batch.pixels, &batch.key_mask, self.kernels)
    }

    pub fn ctc_logits(&self, memory: &Tensor) -> Result<Tensor> {
        self.ctc_head.forward(memory, self.kernels)
    }

    /// Teacher-forced decoder logits [B, L, vocab] for input tokens [B, L].
    pub fn decoder_logits(
        &self,
        tokens: &Tensor,
        memory: &Tensor,
        batch: &ImageBatch,
    ) -> Result<Tensor> {
        self.decoder
            .forward(tokens, memory, &batch.key_mask, self.kernels)
    }
}
