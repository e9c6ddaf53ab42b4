//! Training from scratch on generated line crops: batches made on the fly by a
//! producer thread, hybrid attention + CTC loss, AdamW with warm-up and cosine decay,
//! resumable checkpoints, and periodic exports so a usable model always exists.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use candle_core::{D, DType, Device, Tensor};
use candle_nn::{VarBuilder, VarMap};
use image::GrayImage;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::artifacts::{
    WEIGHTS_FILE, current_weights, export, export_weights, read_config, write_atomic,
};
use super::augment::Augment;
use super::bidi::visual_order;
use super::config::ModelConfig;
use super::ctc;
use super::device::ComputeDevice;
use super::ema::WeightAverage;
use super::model::{Kernels, LineModel};
use super::optim::{AdamW, AdamWParams};
use super::preprocess::{ImageBatch, LineInput, prepare};
use super::vocab::{BOS, EOS, PAD, UNK, Vocab};
use crate::progress::Progress;

/// Anything that yields labelled line crops by index (deterministic per index).
pub trait LineSource: Send + Sync {
    fn line(&self, index: u64) -> (GrayImage, String);
}

/// One training example after preprocessing.
#[derive(Debug, Clone)]
pub struct Example {
    pub input: LineInput,
    /// Decoder targets, logical order.
    pub tokens: Vec<u32>,
    /// CTC targets, visual order (see [`super::bidi`]).
    pub ctc_tokens: Vec<u32>,
}

impl Example {
    /// `None` when the text has characters outside the vocabulary or is too long.
    pub fn new(crop: &GrayImage, text: &str, vocab: &Vocab, cfg: &ModelConfig) -> Option<Example> {
        let tokens = vocab.encode(text);
        if tokens.contains(&UNK) || tokens.len() + 1 > cfg.max_len {
            return None;
        }
        Some(Example {
            input: prepare(crop, cfg),
            ctc_tokens: vocab.encode(&visual_order(text)),
            tokens,
        })
    }
}

/// A padded batch with decoder inputs/targets.
pub struct TrainBatch {
    pub images: ImageBatch,
    /// [B, L]: BOS then the characters.
    pub decoder_input: Tensor,
    /// [B, L, 1]: the characters then EOS, padded.
    pub decoder_target: Tensor,
    /// [B, L]: 1 on real target positions.
    pub target_mask: Tensor,
    /// CTC targets per crop, visual order.
    pub ctc_targets: Vec<Vec<u32>>,
}

impl TrainBatch {
    pub fn new(
        examples: &[Example],
        cfg: &ModelConfig,
        device: &Device,
    ) -> candle_core::Result<TrainBatch> {
        let inputs: Vec<&LineInput> = examples.iter().map(|e| &e.input).collect();
        let images = ImageBatch::new(&inputs, cfg, device)?;
        let b = examples.len();
        let l = examples
            .iter()
            .map(|e| e.tokens.len() + 1)
            .max()
            .unwrap_or(1);
        let mut input = vec![PAD; b * l];
        let mut target = vec![PAD; b * l];
        let mut mask = vec![0f32; b * l];
        for (i, e) in examples.iter().enumerate() {
            input[i * l] = BOS;
            input[i * l + 1..i * l + 1 + e.tokens.len()].copy_from_slice(&e.tokens);
            target[i * l..i * l + e.tokens.len()].copy_from_slice(&e.tokens);
            target[i * l + e.tokens.len()] = EOS;
            mask[i * l..i * l + e.tokens.len() + 1].fill(1.0);
        }
        Ok(TrainBatch {
            images,
            decoder_input: Tensor::from_vec(input, (b, l), device)?,
            decoder_target: Tensor::from_vec(target, (b, l, 1), device)?,
            target_mask: Tensor::from_vec(mask, (b, l), device)?,
            ctc_targets: examples.iter().map(|e| e.ctc_tokens.clone()).collect(),
        })
    }
}

/// The differentiable loss and its parts for logging.
pub struct Loss {
    pub total: Tensor,
    /// Mean per-token cross-entropy of the decoder.
    pub attention: f32,
    /// Mean per-character CTC negative log-likelihood.
    pub ctc: f32,
}

/// Attention cross-entropy plus `ctc_weight` times the CTC loss.
///
/// The CTC gradient is computed on the host and injected as `sum(logits * grad)`,
/// whose gradient with respect to the logits is exactly `grad`.
pub fn loss(model: &LineModel, batch: &TrainBatch, ctc_weight: f64) -> candle_core::Result<Loss> {
    let memory = model.encode(&batch.images)?;
    let logits = model.decoder_logits(&batch.decoder_input, &memory, &batch.images)?;
    let logp = candle_nn::ops::log_softmax(&logits, D::Minus1)?;
    let picked = logp.gather(&batch.decoder_target, 2)?.squeeze(2)?;
    let count = batch.target_mask.sum_all()?;
    let attention = (picked * &batch.target_mask)?
        .sum_all()?
        .neg()?
        .broadcast_div(&count)?;

    let ctc_logits = model.ctc_logits(&memory)?;
    let (b, t, v) = ctc_logits.dims3()?;
    let host = candle_nn::ops::log_softmax(&ctc_logits.detach(), D::Minus1)?.to_vec3::<f32>()?;
    let mut grad = vec![0f32; b * t * v];
    // Crop by crop on the host: in parallel, as beside a GPU step this loop would
    // otherwise take about as long as the step itself.
    let per_crop: Vec<Option<(f64, Vec<f32>)>> = batch
        .ctc_targets
        .par_iter()
        .enumerate()
        .map(|(i, target)| {
            let frames = batch.images.token_lengths[i];
            let flat: Vec<f32> = host[i][..frames].iter().flatten().copied().collect();
            ctc::loss_and_grad(&flat, frames, v, target)
        })
        .collect();
    let mut ctc_total = 0f64;
    for (i, (target, crop)) in batch.ctc_targets.iter().zip(per_crop).enumerate() {
        if let Some((nll, g)) = crop {
            let scale = 1.0 / (b as f64 * target.len().max(1) as f64);
            ctc_total += nll * scale;
            for (dst, src) in grad[i * t * v..].iter_mut().zip(&g) {
                *dst = (*src as f64 * scale) as f32;
            }
        }
    }
    let grad = Tensor::from_vec(grad, (b, t, v), ctc_logits.device())?;
    let surrogate = (ctc_logits * grad)?.sum_all()?;
    let total = (&attention + (surrogate * ctc_weight)?)?;
    Ok(Loss {
        attention: attention.to_scalar::<f32>()?,
        ctc: ctc_total as f32,
        total,
    })
}

/// Everything that controls a run.
#[derive(Debug, Clone)]
pub struct TrainOptions {
    /// Where the exported model goes (`model.safetensors`, `config.json`, `vocab.json`).
    pub out_dir: PathBuf,
    /// Where resumable checkpoints go (kept out of git).
    pub checkpoint_dir: PathBuf,
    /// An exported model to start from instead of random weights (ignored when
    /// resuming from a checkpoint): continues training a shipped model.
    pub init_from: Option<PathBuf>,
    pub device: ComputeDevice,
    pub steps: usize,
    pub batch_size: usize,
    pub learning_rate: f64,
    pub warmup_steps: usize,
    /// Wall-clock budget; the learning-rate schedule follows whichever of steps or
    /// time runs out first, so a slow machine still ends on a decayed rate.
    pub time_limit: Duration,
    /// Threads producing training crops (pools interleave across them); `None`
    /// picks by device ([`producer_threads`]).
    pub data_threads: Option<usize>,
    pub ctc_weight: f64,
    pub augment_probability: f64,
    pub seed: u64,
    pub log_every: usize,
    pub checkpoint_every: Duration,
    pub export_every: Duration,
    /// Keep an exponential moving average of the weights with this decay and export
    /// it instead of the last step's weights.
    pub ema_decay: Option<f64>,
}

#[derive(Debug, Serialize, Deserialize)]
struct CheckpointState {
    step: usize,
    elapsed_secs: f64,
    config: ModelConfig,
    seed: u64,
}

/// The model config of the checkpoint in `dir`, if there is one to resume: a resumed
/// run keeps its shape whatever `--init` says.
pub fn checkpoint_config(dir: &Path) -> anyhow::Result<Option<ModelConfig>> {
    Ok(checkpoint_state(dir)?.map(|state| state.config))
}

/// Where the run checkpointed in `dir` stopped, if there is one.
fn checkpoint_state(dir: &Path) -> anyhow::Result<Option<CheckpointState>> {
    let path = dir.join(CHECKPOINT_STATE);
    if !path.exists() {
        return Ok(None);
    }
    let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    let state =
        serde_json::from_slice(&bytes).with_context(|| format!("parsing {}", path.display()))?;
    Ok(Some(state))
}

const CHECKPOINT_WEIGHTS: &str = "checkpoint.safetensors";
const CHECKPOINT_STATE: &str = "checkpoint.json";
/// Batches generated together, sorted by width and shuffled: width bucketing.
const POOL_BATCHES: usize = 8;

fn learning_rate(opts: &TrainOptions, step: usize, elapsed: Duration) -> f64 {
    if step < opts.warmup_steps {
        return opts.learning_rate * (step + 1) as f64 / opts.warmup_steps as f64;
    }
    let by_steps = step as f64 / opts.steps as f64;
    let by_time = elapsed.as_secs_f64() / opts.time_limit.as_secs_f64();
    let progress = by_steps.max(by_time).min(1.0);
    let floor = 0.05;
    opts.learning_rate
        * (floor + (1.0 - floor) * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos()))
}

/// How many threads produce crops: as asked, else one beside a CPU step (it keeps
/// up, and the step needs the cores) and all `cores` but two beside a GPU step (a
/// step of 256 crops takes 110 to 150 ms on an H100; one thread renders about 1,000
/// crops a second).
fn producer_threads(asked: Option<usize>, on_gpu: bool, cores: usize) -> usize {
    match asked {
        Some(n) => n.max(1),
        None if on_gpu => cores.saturating_sub(2).max(1),
        None => 1,
    }
}

/// Producer: generates, augments and prepares pools of examples, then sends them
/// as width-bucketed batches.
fn spawn_producer(
    source: Arc<dyn LineSource>,
    vocab: Vocab,
    cfg: ModelConfig,
    opts: TrainOptions,
    first_pool: u64,
    stop: Arc<AtomicBool>,
    threads: usize,
) -> crossbeam_channel::Receiver<Vec<Example>> {
    let (tx, rx) = crossbeam_channel::bounded::<Vec<Example>>(2 * POOL_BATCHES);
    for worker in 0..threads as u64 {
        let (source, vocab, cfg, opts, stop, tx) = (
            source.clone(),
            vocab.clone(),
            cfg.clone(),
            opts.clone(),
            stop.clone(),
            tx.clone(),
        );
        std::thread::spawn(move || {
            let augment = Augment {
                probability: opts.augment_probability,
            };
            let pool_size = (opts.batch_size * POOL_BATCHES) as u64;
            let mut pool_index = first_pool + worker;
            while !stop.load(Ordering::Relaxed) {
                let mut rng = ChaCha8Rng::seed_from_u64(
                    opts.seed ^ pool_index.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                );
                let mut examples: Vec<Example> = (pool_index * pool_size
                    ..(pool_index + 1) * pool_size)
                    .filter_map(|i| {
                        let (crop, text) = source.line(i);
                        let crop = augment.apply(&crop, &mut rng);
                        Example::new(&crop, &text, &vocab, &cfg)
                    })
                    .collect();
                examples.sort_by_key(|e| e.input.width);
                let mut batches: Vec<Vec<Example>> = examples
                    .chunks(opts.batch_size)
                    .map(|c| c.to_vec())
                    .collect();
                batches.shuffle(&mut rng);
                for batch in batches {
                    if tx.send(batch).is_err() {
                        return;
                    }
                }
                pool_index += threads as u64;
            }
        });
    }
    rx
}

fn save_checkpoint(
    varmap: &VarMap,
    optimizer: &AdamW,
    average: Option<&WeightAverage>,
    step: usize,
    elapsed: Duration,
    config: &ModelConfig,
    opts: &TrainOptions,
) -> anyhow::Result<()> {
    let state = CheckpointState {
        step,
        elapsed_secs: elapsed.as_secs_f64(),
        config: config.clone(),
        seed: opts.seed,
    };
    std::fs::create_dir_all(&opts.checkpoint_dir)?;
    let mut tensors = current_weights(varmap);
    tensors.extend(optimizer.state());
    if let Some(average) = average {
        tensors.extend(average.state());
    }
    let path = opts.checkpoint_dir.join(CHECKPOINT_WEIGHTS);
    let tmp = path.with_extension("tmp");
    candle_core::safetensors::save(&tensors, &tmp)?;
    std::fs::rename(&tmp, &path)?;
    write_atomic(
        &opts.checkpoint_dir.join(CHECKPOINT_STATE),
        serde_json::to_string_pretty(&state)?.as_bytes(),
    )?;
    Ok(())
}

/// Sets every variable from `tensors` (any float dtype: exports are fp16). Variables
/// of the layers named by `added_layers` (prefixes such as `encoder.layers.3.`) may be
/// missing: they keep their fresh initialisation, but for the residual outputs,
/// which start at zero so each added layer is the identity.
fn set_variables(
    varmap: &VarMap,
    tensors: &HashMap<String, Tensor>,
    added_layers: &[String],
) -> anyhow::Result<()> {
    for (name, var) in varmap.data().lock().expect("varmap lock").iter() {
        match tensors.get(name) {
            Some(t) => var.set(&t.to_dtype(var.dtype())?)?,
            None => {
                let layer = added_layers
                    .iter()
                    .find(|p| name.starts_with(p.as_str()))
                    .with_context(|| format!("no tensor {name}"))?;
                let part = &name[layer.len()..];
                if RESIDUAL_OUTPUTS.iter().any(|r| part.starts_with(r)) {
                    var.set(&var.as_tensor().zeros_like()?)?;
                }
            }
        }
    }
    Ok(())
}

/// The branches whose output a pre-norm layer adds to its input: zero them and the
/// layer passes its input through unchanged.
const RESIDUAL_OUTPUTS: [&str; 4] = ["attn.out.", "self_attn.out.", "cross_attn.out.", "ff.down."];

/// Sets the variables of a model of shape `config` from the exported model in `dir`;
/// returns whether the model grew. `config` may have more encoder or decoder layers
/// than the export (capacity added to a trained model rather than a new run from
/// scratch): every added pre-norm layer starts as the identity, so the grown model
/// reads exactly as the export did until training moves it.
fn init_from_export(
    varmap: &VarMap,
    config: &ModelConfig,
    dir: &std::path::Path,
    device: &Device,
) -> anyhow::Result<bool> {
    let exported = read_config(dir)?;
    anyhow::ensure!(
        config.grows_from(&exported),
        "{} holds a model of a different config ({exported:?}); only the encoder and \
         decoder depths may grow",
        dir.display()
    );
    let added: Vec<String> = (exported.encoder_layers..config.encoder_layers)
        .map(|i| format!("encoder.layers.{i}."))
        .chain(
            (exported.decoder_layers..config.decoder_layers)
                .map(|i| format!("decoder.layers.{i}.")),
        )
        .collect();
    let tensors = candle_core::safetensors::load(dir.join(WEIGHTS_FILE), device)?;
    set_variables(varmap, &tensors, &added).with_context(|| dir.display().to_string())?;
    Ok(!added.is_empty())
}

/// Trains (or resumes) a model, exporting it to `opts.out_dir` periodically and at the end.
pub fn train(
    source: Arc<dyn LineSource>,
    config: ModelConfig,
    vocab: Vocab,
    opts: TrainOptions,
) -> anyhow::Result<()> {
    anyhow::ensure!(
        config.vocab_size == vocab.len(),
        "config vocab_size {} != vocabulary {}",
        config.vocab_size,
        vocab.len()
    );
    let device = opts.device.open()?;
    println!("training on {:?}", device.location());
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &device);
    let model = LineModel::new(&config, vb, Kernels::Differentiable)?;
    let named: Vec<_> = varmap
        .data()
        .lock()
        .expect("varmap lock")
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let params: usize = named.iter().map(|(_, v)| v.elem_count()).sum();
    let mut optimizer = AdamW::new(named.clone(), AdamWParams::default())?;

    let (mut step, mut elapsed_before) = (0usize, 0f64);
    let mut resumed = None;
    if let Some(state) = checkpoint_state(&opts.checkpoint_dir)? {
        anyhow::ensure!(
            state.config == config,
            "checkpoint was trained with a different model config"
        );
        let tensors =
            candle_core::safetensors::load(opts.checkpoint_dir.join(CHECKPOINT_WEIGHTS), &device)?;
        set_variables(&varmap, &tensors, &[]).context("checkpoint")?;
        optimizer.load_state(&tensors, state.step)?;
        step = state.step;
        elapsed_before = state.elapsed_secs;
        tracing::info!(step, "resumed from checkpoint");
        resumed = Some(tensors);
    } else if let Some(dir) = &opts.init_from {
        let grown = init_from_export(&varmap, &config, dir, &device)?;
        println!(
            "initialised from {}{}",
            dir.display(),
            if grown {
                " (grown: added layers start as the identity)"
            } else {
                ""
            }
        );
    }
    println!("model: {params} parameters; starting at step {step}");
    // Begun on the weights just set, so resumed or initialised ones, never random.
    let mut average = match opts.ema_decay {
        Some(decay) => {
            let mut average = WeightAverage::new(&named, decay)?;
            let restored = match &resumed {
                Some(tensors) => average.load_state(tensors, step)?,
                None => false,
            };
            if !restored {
                println!("averaging the weights (decay {decay}) from step {step}");
            }
            Some(average)
        }
        None => None,
    };
    drop(resumed);
    let export_now = |average: &Option<WeightAverage>| match average {
        Some(average) => export_weights(&average.weights(), &config, &vocab, &opts.out_dir),
        None => export(&varmap, &config, &vocab, &opts.out_dir),
    };

    let stop = Arc::new(AtomicBool::new(false));
    let first_pool = (step / POOL_BATCHES) as u64;
    let batches = spawn_producer(
        source,
        vocab.clone(),
        config.clone(),
        opts.clone(),
        first_pool,
        stop.clone(),
        producer_threads(opts.data_threads, !device.is_cpu(), num_cpus::get()),
    );

    let started = Instant::now();
    let elapsed = || Duration::from_secs_f64(elapsed_before) + started.elapsed();
    let checkpoint = |optimizer: &AdamW, average: Option<&WeightAverage>, step: usize| {
        save_checkpoint(&varmap, optimizer, average, step, elapsed(), &config, &opts)
    };
    let (mut last_checkpoint, mut last_export) = (Instant::now(), Instant::now());
    let (mut sum_att, mut sum_ctc, mut sum_n) = (0f64, 0f64, 0usize);
    let mut window = Instant::now();
    let progress = Progress::bar_only("train", opts.steps as u64, "steps").resumed_at(step as u64);
    while step < opts.steps && elapsed() < opts.time_limit {
        let examples = batches.recv().context("data producer stopped")?;
        let batch = TrainBatch::new(&examples, &config, &device)?;
        let lr = learning_rate(&opts, step, elapsed());
        let parts = loss(&model, &batch, opts.ctc_weight)?;
        let grads = parts.total.backward()?;
        let norm = optimizer.grad_norm(&grads)?;
        let scale = if norm > 1.0 { 1.0 / norm } else { 1.0 };
        optimizer.step(&grads, lr, scale)?;
        if let Some(average) = &mut average {
            average.update()?;
        }
        step += 1;
        sum_att += parts.attention as f64;
        sum_ctc += parts.ctc as f64;
        sum_n += 1;
        progress.add(1);
        if step % opts.log_every == 0 {
            let ms = window.elapsed().as_secs_f64() * 1000.0 / sum_n as f64;
            progress.println(format!(
                "step {step} loss_att {:.4} loss_ctc {:.4} lr {lr:.2e} grad_norm {norm:.2} {ms:.0} ms/step elapsed {:.0}s",
                sum_att / sum_n as f64,
                sum_ctc / sum_n as f64,
                elapsed().as_secs_f64()
            ));
            (sum_att, sum_ctc, sum_n) = (0.0, 0.0, 0);
            window = Instant::now();
        }
        if last_checkpoint.elapsed() >= opts.checkpoint_every {
            checkpoint(&optimizer, average.as_ref(), step)?;
            last_checkpoint = Instant::now();
        }
        if last_export.elapsed() >= opts.export_every {
            export_now(&average)?;
            progress.println(format!(
                "exported step {step} to {}",
                opts.out_dir.display()
            ));
            last_export = Instant::now();
        }
    }
    progress.finish();
    stop.store(true, Ordering::Relaxed);
    drop(batches);
    checkpoint(&optimizer, average.as_ref(), step)?;
    let path = export_now(&average)?;
    println!(
        "finished at step {step} after {:.0}s; exported {}",
        elapsed().as_secs_f64(),
        path.display()
    );
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use image::Luma;

    /// A tiny config so tests run in well under a second.
    pub(crate) fn tiny_config(vocab: &Vocab) -> ModelConfig {
        ModelConfig {
            height: 16,
            max_width: 128,
            patch_width: 4,
            conv_stem: false,
            d_model: 32,
            heads: 4,
            ff_dim: 64,
            encoder_layers: 1,
            decoder_layers: 1,
            max_len: 16,
            vocab_size: vocab.len(),
        }
    }

    #[test]
    fn crop_producers_are_one_beside_a_cpu_step_and_most_cores_beside_a_gpu() {
        assert_eq!(producer_threads(None, false, 16), 1);
        assert_eq!(producer_threads(None, true, 16), 14);
        assert_eq!(producer_threads(None, true, 2), 1);
        assert_eq!(producer_threads(Some(6), false, 2), 6);
        assert_eq!(producer_threads(Some(0), true, 16), 1);
    }

    /// Crops whose dark bars encode the text: distinct per string, learnable.
    pub(crate) fn bar_crop(text: &str) -> GrayImage {
        let mut img = GrayImage::from_pixel(12 * text.chars().count() as u32 + 8, 16, Luma([235]));
        for (i, c) in text.chars().enumerate() {
            let code = c as u32;
            for x in 0..12 {
                for y in 2..14 {
                    if (code >> ((x / 3 + y / 4) % 8)) & 1 == 1 {
                        img.put_pixel(4 + i as u32 * 12 + x, y, Luma([20]));
                    }
                }
            }
        }
        img
    }

    #[test]
    fn every_trainable_variable_receives_a_gradient() {
        for conv_stem in [false, true] {
            every_variable_gets_a_gradient(conv_stem);
        }
    }

    fn every_variable_gets_a_gradient(conv_stem: bool) {
        let vocab = Vocab::default_arabic_latin();
        let cfg = ModelConfig {
            conv_stem,
            ..tiny_config(&vocab)
        };
        let varmap = VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
        let model = LineModel::new(&cfg, vb, Kernels::Differentiable).unwrap();
        let examples: Vec<Example> = ["٣٠١", "AB", "مصر"]
            .iter()
            .map(|t| Example::new(&bar_crop(t), t, &vocab, &cfg).unwrap())
            .collect();
        let batch = TrainBatch::new(&examples, &cfg, &Device::Cpu).unwrap();
        let grads = loss(&model, &batch, 0.5).unwrap().total.backward().unwrap();
        let data = varmap.data().lock().unwrap();
        assert!(data.len() > 40);
        for (name, var) in data.iter() {
            let g = grads
                .get(var.as_tensor())
                .unwrap_or_else(|| panic!("{name} has no gradient"));
            let size = g
                .abs()
                .unwrap()
                .sum_all()
                .unwrap()
                .to_scalar::<f32>()
                .unwrap();
            assert!(size > 0.0, "{name} has an all-zero gradient");
        }
    }

    /// A freshly initialised model for training and its named variables.
    fn trainable(cfg: &ModelConfig) -> (LineModel, Vec<(String, candle_core::Var)>) {
        let varmap = VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
        let model = LineModel::new(cfg, vb, Kernels::Differentiable).unwrap();
        let named = varmap
            .data()
            .lock()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        (model, named)
    }

    #[test]
    fn training_overfits_a_few_crops() {
        let vocab = Vocab::default_arabic_latin();
        let cfg = tiny_config(&vocab);
        let (model, named) = trainable(&cfg);
        let mut opt = AdamW::new(named, AdamWParams::default()).unwrap();
        let examples: Vec<Example> = ["١٢", "AB", "مصر", "٣/٤"]
            .iter()
            .map(|t| Example::new(&bar_crop(t), t, &vocab, &cfg).unwrap())
            .collect();
        let batch = TrainBatch::new(&examples, &cfg, &Device::Cpu).unwrap();
        let first = loss(&model, &batch, 0.5).unwrap();
        for _ in 0..150 {
            let l = loss(&model, &batch, 0.5).unwrap();
            let grads = l.total.backward().unwrap();
            opt.step(&grads, 3e-3, 1.0).unwrap();
        }
        // The optimizer state must not keep the step's op graph alive (memory leak).
        assert!(opt.state().values().all(|t| !t.track_op()));
        let last = loss(&model, &batch, 0.5).unwrap();
        assert!(
            last.attention < first.attention / 10.0,
            "{} -> {}",
            first.attention,
            last.attention
        );
        assert!(last.ctc < first.ctc / 3.0, "{} -> {}", first.ctc, last.ctc);
    }

    #[test]
    fn a_grown_model_reads_as_its_export_did() {
        let vocab = Vocab::default_arabic_latin();
        let cfg = tiny_config(&vocab);
        let dir = tempfile::tempdir().unwrap();
        let trained = VarMap::new();
        LineModel::new(
            &cfg,
            VarBuilder::from_varmap(&trained, DType::F32, &Device::Cpu),
            Kernels::Differentiable,
        )
        .unwrap();
        export(&trained, &cfg, &vocab, dir.path()).unwrap();

        let examples: Vec<Example> = ["٣٠١", "AB", "مصر"]
            .iter()
            .map(|t| Example::new(&bar_crop(t), t, &vocab, &cfg).unwrap())
            .collect();
        let batch = TrainBatch::new(&examples, &cfg, &Device::Cpu).unwrap();
        let loss_of = |shape: &ModelConfig| {
            let varmap = VarMap::new();
            let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
            let model = LineModel::new(shape, vb, Kernels::Differentiable).unwrap();
            let grown = init_from_export(&varmap, shape, dir.path(), &Device::Cpu).unwrap();
            (grown, loss(&model, &batch, 0.5).unwrap())
        };
        let (grown, original) = loss_of(&cfg);
        assert!(!grown);
        let deeper = ModelConfig {
            encoder_layers: 3,
            decoder_layers: 2,
            ..cfg.clone()
        };
        let (grown, deeper_loss) = loss_of(&deeper);
        assert!(grown);
        assert!((original.attention - deeper_loss.attention).abs() < 1e-5);
        assert!((original.ctc - deeper_loss.ctc).abs() < 1e-4);

        // The added layers are in the forward pass: once their output projections
        // move off zero, the output changes.
        let varmap = VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
        let model = LineModel::new(&deeper, vb, Kernels::Differentiable).unwrap();
        init_from_export(&varmap, &deeper, dir.path(), &Device::Cpu).unwrap();
        for (name, var) in varmap.data().lock().unwrap().iter() {
            if name == "encoder.layers.2.attn.out.weight" {
                var.set(&var.as_tensor().randn_like(0.0, 1.0).unwrap())
                    .unwrap();
            }
        }
        let moved = loss(&model, &batch, 0.5).unwrap();
        assert!((original.attention - moved.attention).abs() > 1e-3);

        for other in [
            ModelConfig {
                d_model: 64,
                ..deeper.clone()
            },
            ModelConfig {
                encoder_layers: 2,
                ..deeper
            },
        ] {
            let dir2 = tempfile::tempdir().unwrap();
            export(&VarMap::new(), &other, &vocab, dir2.path()).unwrap();
            let varmap = VarMap::new();
            let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
            LineModel::new(&cfg, vb, Kernels::Differentiable).unwrap();
            // `cfg` has fewer layers than the 2-layer export and a different width
            // than the 64-wide one: neither may start from it.
            assert!(init_from_export(&varmap, &cfg, dir2.path(), &Device::Cpu).is_err());
        }
    }

    /// Bar crops of a few texts, in turn.
    struct Bars;

    impl LineSource for Bars {
        fn line(&self, index: u64) -> (GrayImage, String) {
            let text = ["١٢", "AB", "مصر", "٣/٤"][index as usize % 4];
            (bar_crop(text), text.to_owned())
        }
    }

    #[test]
    fn a_run_with_a_weight_average_exports_the_average() {
        let vocab = Vocab::default_arabic_latin();
        let cfg = tiny_config(&vocab);
        let (out, checkpoints) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let opts = TrainOptions {
            out_dir: out.path().to_owned(),
            checkpoint_dir: checkpoints.path().to_owned(),
            init_from: None,
            device: ComputeDevice::Cpu,
            steps: 6,
            batch_size: 4,
            learning_rate: 1e-2,
            warmup_steps: 1,
            time_limit: Duration::from_secs(600),
            data_threads: Some(1),
            ctc_weight: 0.3,
            augment_probability: 0.0,
            seed: 5,
            log_every: 100,
            checkpoint_every: Duration::from_secs(600),
            export_every: Duration::from_secs(600),
            ema_decay: Some(0.9),
        };
        train(Arc::new(Bars), cfg, vocab, opts).unwrap();

        let exported =
            candle_core::safetensors::load(out.path().join(WEIGHTS_FILE), &Device::Cpu).unwrap();
        let saved = candle_core::safetensors::load(
            checkpoints.path().join(CHECKPOINT_WEIGHTS),
            &Device::Cpu,
        )
        .unwrap();
        let as_f32 = |t: &Tensor| -> Vec<f32> {
            t.to_dtype(DType::F16)
                .unwrap()
                .to_dtype(DType::F32)
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1()
                .unwrap()
        };
        let mut differ = 0;
        for (name, weights) in &exported {
            assert_eq!(
                as_f32(weights),
                as_f32(&saved[&format!("ema.{name}")]),
                "{name}"
            );
            differ += usize::from(as_f32(weights) != as_f32(&saved[name]));
        }
        // Six steps at 1e-2 move nearly every variable, and the average lags them.
        assert!(
            differ > exported.len() / 2,
            "{differ} of {}",
            exported.len()
        );
    }

    #[test]
    fn a_checkpoint_tells_the_shape_it_was_trained_with() {
        let dir = tempfile::tempdir().unwrap();
        assert!(checkpoint_config(dir.path()).unwrap().is_none());
        let config = tiny_config(&Vocab::default_arabic_latin());
        let state = CheckpointState {
            step: 7,
            elapsed_secs: 1.0,
            config: config.clone(),
            seed: 3,
        };
        let path = dir.path().join(CHECKPOINT_STATE);
        std::fs::write(&path, serde_json::to_vec(&state).unwrap()).unwrap();
        assert_eq!(checkpoint_config(dir.path()).unwrap(), Some(config));
        std::fs::write(&path, b"{").unwrap();
        assert!(checkpoint_config(dir.path()).is_err());
    }

    /// Measures the training step of the shipped config on random crops:
    /// `cargo test --release --lib step_time -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn step_time() {
        let vocab = Vocab::default_arabic_latin();
        let mut cfg = ModelConfig::small(vocab.len());
        if let Ok(d) = std::env::var("D_MODEL") {
            cfg.d_model = d.parse().unwrap();
        }
        if let Ok(d) = std::env::var("ENC_LAYERS") {
            cfg.encoder_layers = d.parse().unwrap();
        }
        if let Ok(d) = std::env::var("DEC_LAYERS") {
            cfg.decoder_layers = d.parse().unwrap();
        }
        cfg.conv_stem = std::env::var("CONV_STEM").is_ok();
        if let Ok(d) = std::env::var("FF") {
            cfg.ff_dim = d.parse().unwrap();
        }
        let width: u32 = std::env::var("WIDTH")
            .ok()
            .and_then(|w| w.parse().ok())
            .unwrap_or(256);
        let (model, named) = trainable(&cfg);
        let params: usize = named.iter().map(|(_, v)| v.elem_count()).sum();
        let mut opt = AdamW::new(named, AdamWParams::default()).unwrap();
        let text = "محمد احمد ابراهيم ١٢٣";
        let examples: Vec<Example> = (0..32)
            .map(|_| {
                let crop = image::imageops::resize(
                    &bar_crop(text),
                    width,
                    32,
                    image::imageops::FilterType::Nearest,
                );
                Example::new(&crop, text, &vocab, &cfg).unwrap()
            })
            .collect();
        let batch = TrainBatch::new(&examples, &cfg, &Device::Cpu).unwrap();
        for i in 0..6 {
            let t = Instant::now();
            let l = loss(&model, &batch, 0.3).unwrap();
            let t_fwd = t.elapsed();
            let grads = l.total.backward().unwrap();
            let t_bwd = t.elapsed();
            let n = opt.grad_norm(&grads).unwrap();
            opt.step(&grads, 1e-3, 1.0 / n.max(1.0)).unwrap();
            println!(
                "{cfg:?} params={params} step {i}: fwd {t_fwd:?} +bwd {t_bwd:?} total {:?}",
                t.elapsed()
            );
        }
    }
}
