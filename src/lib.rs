//! hawiya: reads Egyptian identity and vehicle documents and returns the printed fields.
//!
//! # The flow of one upload
//!
//! 1. [`http`] takes the request, checks its `APIKEY` or Bearer key ([`keys`], with
//!    its credits) and takes the file.
//! 2. [`jobs`] queues the extraction (in this process, or a Redis stream read by
//!    `hawiya worker`s) and runs the pipeline on it.
//! 3. [`pipeline`] runs its stages in order (`pipeline::engine`): decode, locate and
//!    classify the card, rectify it, cut each field's line from the box its
//!    [`layout`] gives, have the [`recognizer`]'s dynamic batcher read every line
//!    (with other requests' lines), read doubtful rule-checked lines again (the
//!    second look), check and normalise the fields per kind (`pipeline::post`, on
//!    the rules and vocabularies of [`domain`]), and decide whether the document is
//!    answered.
//! 4. [`record`] builds the Flow A and Flow B records from the fields, in one
//!    conversion per kind.
//! 5. Flow B answers at once; Flow A's result waits in the [`store`] until its
//!    `ReadImage` delivers it, and is then forgotten.
//!
//! # The components, top to bottom
//!
//! - [`cli`]: the `hawiya` command, one subcommand per job, every option a clap flag
//!   with its `HAWIYA_*` variable.
//! - [`http`], [`jobs`], [`store`], [`keys`], [`redis_client`]: the service around
//!   the pipeline, in one process or scaled out on one Redis.
//! - [`eval`]: accuracy and latency of the recognizer on line crops and of the
//!   pipeline on documents.
//! - [`pipeline`]: bytes in, one [`pipeline::Extraction`] out.
//! - [`recognizer`]: the line recognizer (Candle): loading a model
//!   (`recognizer::load`), its direct call (`recognizer::recognize`), the batcher
//!   the pipeline calls through its `LineRecognizer` trait, and the trainer.
//! - [`record`], [`layout`]: the output records; where each field is printed.
//! - [`domain`]: what the documents are (rules, lists, vocabularies), at the bottom.
//! - [`synth`]: the synthetic document generator, beside the reading side: it uses the
//!   ground floor, and nothing on the reading side uses it (`tests/dependencies.rs`).

pub mod cli;
pub mod domain;
pub mod eval;
pub mod http;
pub mod jobs;
pub mod keys;
pub mod layout;
pub mod pipeline;
pub mod progress;
pub mod recognizer;
pub mod record;
pub mod redis_client;
pub mod store;
pub mod synth;
