//! The exported model folder: `model.safetensors` (fp16), `config.json`, `vocab.json`.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;
use candle_core::{DType, Tensor};
use candle_nn::VarMap;

use super::config::ModelConfig;
use super::vocab::Vocab;

pub const WEIGHTS_FILE: &str = "model.safetensors";
pub const CONFIG_FILE: &str = "config.json";
pub const VOCAB_FILE: &str = "vocab.json";
/// Optional: the confidence calibration `hawiya calibrate` fits.
pub const CALIBRATION_FILE: &str = "calibration.json";

/// The shape of the exported model in `dir` (its `config.json`).
pub fn read_config(dir: &Path) -> anyhow::Result<ModelConfig> {
    let path = dir.join(CONFIG_FILE);
    serde_json::from_slice(&fs::read(&path).with_context(|| format!("reading {}", path.display()))?)
        .with_context(|| format!("parsing {}", path.display()))
}

/// Writes `path` through a temporary file and a rename, so a reader (or a crash)
/// never sees half a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, bytes)?;
    fs::rename(&tmp, path)
}

/// Exports the trained variables as fp16 plus the config and vocabulary.
pub fn export(
    varmap: &VarMap,
    config: &ModelConfig,
    vocab: &Vocab,
    dir: &Path,
) -> anyhow::Result<PathBuf> {
    export_weights(&current_weights(varmap), config, vocab, dir)
}

/// The variables' current values, keyed by name.
pub fn current_weights(varmap: &VarMap) -> HashMap<String, Tensor> {
    varmap
        .data()
        .lock()
        .expect("varmap lock")
        .iter()
        .map(|(name, var)| (name.clone(), var.as_tensor().clone()))
        .collect()
}

/// Exports `weights` (named as the model's variables: their current values, or a
/// run's average of them) as fp16 plus the config and vocabulary.
pub fn export_weights(
    weights: &HashMap<String, Tensor>,
    config: &ModelConfig,
    vocab: &Vocab,
    dir: &Path,
) -> anyhow::Result<PathBuf> {
    fs::create_dir_all(dir)?;
    let tensors: HashMap<String, Tensor> = weights
        .iter()
        .map(|(name, t)| Ok((name.clone(), t.to_dtype(DType::F16)?)))
        .collect::<candle_core::Result<_>>()?;
    let weights = dir.join(WEIGHTS_FILE);
    let tmp = weights.with_extension("tmp");
    candle_core::safetensors::save(&tensors, &tmp)?;
    fs::rename(&tmp, &weights)?;
    write_atomic(
        &dir.join(CONFIG_FILE),
        serde_json::to_string_pretty(config)?.as_bytes(),
    )?;
    write_atomic(&dir.join(VOCAB_FILE), vocab.to_json().as_bytes())?;
    // A calibration belongs to the weights it was fitted on.
    match fs::remove_file(dir.join(CALIBRATION_FILE)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
        _ => {}
    }
    Ok(weights)
}
