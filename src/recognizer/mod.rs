//! The recognizer: a TrOCR-style line recognizer (image encoder + autoregressive
//! transformer decoder, auxiliary CTC head) written with candle, trained by us on
//! synthetic crops, and served through a dynamic batcher.
//!
//! [`load`] finds and loads a model; [`recognize`] is the model's direct call
//! ([`Recognizer`], and [`RecognizerWithOptions`] that fixes how it decodes);
//! [`batcher`] queues the crops of concurrent requests into batches for its threads
//! ([`BatcherHandle`], the service's way in).

pub mod artifacts;
pub mod augment;
pub mod batcher;
pub mod bidi;
pub mod calibration;
pub mod cli;
pub mod config;
pub mod ctc;
pub mod decode;
pub mod device;
pub mod ema;
pub mod eval;
pub mod load;
pub mod model;
pub mod optim;
pub mod preprocess;
pub mod recognize;
pub mod sources;
pub mod train;
pub mod vocab;

pub use batcher::{BatchRecognizer, Batcher, BatcherConfig, BatcherHandle, BatcherOptions};
pub use calibration::Calibration;
pub use config::ModelConfig;
pub use decode::{DecodeOptions, Hypothesis, Reading, Rivals};
pub use device::{ComputeDevice, DeviceError, DeviceOption};
pub use load::{DEFAULT_MODEL_DIR, LoadError, ModelSource};
pub use recognize::{RecognizeError, Recognizer, RecognizerWithOptions};
pub use vocab::Vocab;
