//! The document pipeline: bytes in, one extraction record out.
//!
//! decode → locate and rectify → classify kind and side → cut field crops → read
//! them through the recognizer's batcher → post-process and validate per kind.

pub mod classify;
pub mod cut;
pub mod decode;
mod engine;
mod extraction;
pub mod find;
pub mod locate;
mod options;
pub mod overlay;
pub mod overview;
pub mod post;
pub mod rectify;
mod regions;
pub mod second_look;
mod shrink;
mod title;
pub mod warp;

pub use engine::{
    CARD_WIDTH, LEGIBLE_CARD_WIDTH, LineRecognizer, Pipeline, PipelineConfig, SECOND_LOOK_BELOW,
    Trace,
};
pub use extraction::{ExtractError, Extraction, TOO_BLURRY_ADVICE, TOO_SMALL_ADVICE};
pub use options::{BEAM_WIDTH, PipelineOptions};
pub use overlay::{Overlay, OverlayField};
pub use regions::regions;

use crate::domain::DocumentKind;

/// Reads one uploaded file. Implemented by the real pipeline; the HTTP layer only
/// sees this trait, so its tests can substitute a double.
///
/// `extract` blocks (CPU work and waiting on the recognizer's batcher); async callers
/// run it on a blocking thread.
pub trait Extractor: Send + Sync + 'static {
    /// Reads `bytes` as a document of one of the `accepted` kinds; a document of
    /// another kind is refused ([`ExtractError::WrongKind`]) once it was read, so
    /// that only a kind positively recognised is named.
    /// With `overlay`, the extraction also carries the picture of what was read
    /// ([`Overlay`]).
    fn extract(
        &self,
        bytes: &[u8],
        accepted: &[DocumentKind],
        overlay: bool,
    ) -> Result<Extraction, ExtractError>;

    /// True once the model is loaded and the batcher is running.
    fn is_ready(&self) -> bool;
}
