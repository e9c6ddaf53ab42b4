//! The model's shape, saved beside the weights as `config.json`.

use serde::{Deserialize, Serialize};

/// Hyper-parameters that fix the shape of every weight. Changing any of them needs a
/// new training run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelConfig {
    /// Crops are scaled to this height in pixels, keeping their aspect ratio.
    pub height: usize,
    /// Wider crops are squeezed horizontally to this width (pixels).
    pub max_width: usize,
    /// Width in pixels of one encoder token: a full-height column strip.
    pub patch_width: usize,
    /// Two stride-2 3x3 convolutions before the token projection instead of a
    /// plain linear patch stem (then `patch_width` must be 4).
    #[serde(default)]
    pub conv_stem: bool,
    pub d_model: usize,
    pub heads: usize,
    pub ff_dim: usize,
    pub encoder_layers: usize,
    pub decoder_layers: usize,
    /// Longest decoder sequence, BOS included; transcripts are at most `max_len - 1`
    /// characters (the last position holds EOS).
    pub max_len: usize,
    /// Token ids, specials included; must equal the vocabulary's length.
    pub vocab_size: usize,
}

impl ModelConfig {
    /// The shipped model: small enough to train from scratch on two CPU cores in
    /// well under the 150-minute budget (about 0.3 s a batch of 32, see
    /// stack-notes) and to read one crop in a few milliseconds.
    pub fn small(vocab_size: usize) -> ModelConfig {
        ModelConfig {
            height: 32,
            max_width: 512,
            patch_width: 4,
            conv_stem: true,
            d_model: 160,
            heads: 4,
            ff_dim: 512,
            encoder_layers: 3,
            decoder_layers: 2,
            max_len: 72,
            vocab_size,
        }
    }

    /// Encoder positions for the widest crop.
    pub fn max_tokens(&self) -> usize {
        self.max_width / self.patch_width
    }

    pub fn validate(&self) -> Result<(), String> {
        let positive = [
            self.height,
            self.max_width,
            self.patch_width,
            self.d_model,
            self.heads,
            self.ff_dim,
            self.max_len,
            self.vocab_size,
        ];
        if positive.contains(&0) {
            return Err("every dimension must be positive".into());
        }
        if !self.d_model.is_multiple_of(self.heads) {
            return Err(format!(
                "d_model {} is not divisible by heads {}",
                self.d_model, self.heads
            ));
        }
        if self.conv_stem && (self.patch_width != 4 || !self.height.is_multiple_of(4)) {
            return Err("a conv stem needs patch_width 4 and a height divisible by 4".into());
        }
        if !self.max_width.is_multiple_of(self.patch_width) {
            return Err("max_width must be a multiple of patch_width".into());
        }
        Ok(())
    }

    /// Whether a model of this shape can start from the weights of `smaller`: the
    /// same in every dimension but the encoder and decoder depths, which may only
    /// grow (`hawiya train --init ... --encoder-layers N`).
    pub fn grows_from(&self, smaller: &ModelConfig) -> bool {
        let same_but_depth = ModelConfig {
            encoder_layers: self.encoder_layers,
            decoder_layers: self.decoder_layers,
            ..smaller.clone()
        };
        same_but_depth == *self
            && self.encoder_layers >= smaller.encoder_layers
            && self.decoder_layers >= smaller.decoder_layers
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_depths_may_grow() {
        let small = ModelConfig::small(145);
        assert!(small.grows_from(&small));
        let deeper = ModelConfig {
            encoder_layers: 5,
            decoder_layers: 3,
            ..small.clone()
        };
        assert!(deeper.grows_from(&small));
        assert!(!small.grows_from(&deeper));
        let wider = ModelConfig {
            encoder_layers: 5,
            d_model: 192,
            ..small.clone()
        };
        assert!(!wider.grows_from(&small));
    }
}
