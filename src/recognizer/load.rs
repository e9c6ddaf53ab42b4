//! Where a recognizer model comes from (a folder, or the local hub cache) and
//! loading it onto its device, with typed errors for what is missing or malformed.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device};
use candle_nn::VarBuilder;

use super::artifacts::{CALIBRATION_FILE, CONFIG_FILE, VOCAB_FILE, WEIGHTS_FILE};
use super::calibration::Calibration;
use super::config::ModelConfig;
use super::device::{ComputeDevice, DeviceError};
use super::model::{Kernels, LineModel};
use super::recognize::Recognizer;
use super::vocab::Vocab;

/// The folder the shipped model lives in, relative to the working directory.
pub const DEFAULT_MODEL_DIR: &str = "models/recognizer";

/// Where to load a model from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelSource {
    /// A folder with `model.safetensors`, `config.json` and `vocab.json`.
    Dir(PathBuf),
    /// A Hugging Face hub model repository already in the local hub cache
    /// (`HF_HOME` / `HF_HUB_CACHE`); nothing is downloaded.
    Hub {
        repo: String,
        revision: Option<String>,
    },
}

impl Default for ModelSource {
    fn default() -> Self {
        ModelSource::Dir(PathBuf::from(DEFAULT_MODEL_DIR))
    }
}

impl std::str::FromStr for ModelSource {
    type Err = std::convert::Infallible;

    /// An existing folder is a folder; `hf:owner/name[@revision]`, or a bare
    /// `owner/name` that is not a local folder, is a hub repository.
    fn from_str(s: &str) -> Result<ModelSource, Self::Err> {
        let hub = |id: &str| {
            let (repo, revision) = match id.split_once('@') {
                Some((r, rev)) => (r.to_string(), Some(rev.to_string())),
                None => (id.to_string(), None),
            };
            ModelSource::Hub { repo, revision }
        };
        if let Some(id) = s.strip_prefix("hf:") {
            return Ok(hub(id));
        }
        let path = Path::new(s);
        let looks_like_repo = s.matches('/').count() == 1 && !s.starts_with(['.', '/', '~']);
        if path.exists() || !looks_like_repo {
            Ok(ModelSource::Dir(path.to_path_buf()))
        } else {
            Ok(hub(s))
        }
    }
}

/// Why a model could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(
        "recognizer model file {path} is missing (train one with scripts/train.sh or point --model at a model folder)"
    )]
    Missing { path: PathBuf },
    #[error(
        "hub repository {repo} has no {file} in the local cache {cache} (nothing is downloaded; fetch it beforehand). A bare `owner/name` that is no folder from here is taken for a hub id: run from the repository root or give the model folder's full path"
    )]
    NotInHubCache {
        repo: String,
        file: String,
        cache: PathBuf,
    },
    #[error("recognizer file {path} is malformed: {reason}")]
    Malformed { path: PathBuf, reason: String },
    #[error(
        "recognizer config and vocabulary disagree: config has {config} tokens, vocabulary {vocab}"
    )]
    VocabMismatch { config: usize, vocab: usize },
    #[error("recognizer device: {0}")]
    Device(#[from] DeviceError),
}

impl Recognizer {
    /// Loads on the CPU.
    pub fn load(source: &ModelSource) -> Result<Recognizer, LoadError> {
        Recognizer::load_on(source, ComputeDevice::Cpu)
    }

    pub fn load_on(source: &ModelSource, device: ComputeDevice) -> Result<Recognizer, LoadError> {
        let device = device.open()?;
        match source {
            ModelSource::Dir(dir) => {
                let calibration = dir.join(CALIBRATION_FILE);
                Recognizer::load_files(
                    &dir.join(WEIGHTS_FILE),
                    &dir.join(CONFIG_FILE),
                    &dir.join(VOCAB_FILE),
                    calibration.exists().then_some(calibration.as_path()),
                    device,
                )
            }
            ModelSource::Hub { repo, revision } => {
                // HF_HUB_CACHE first (hf-hub 0.5 only reads HF_HOME), then HF_HOME,
                // then ~/.cache/huggingface/hub.
                let cache = match std::env::var_os("HF_HUB_CACHE") {
                    Some(path) => hf_hub::Cache::new(path.into()),
                    None => hf_hub::Cache::from_env(),
                };
                let cache_repo = match revision {
                    Some(rev) => cache.repo(hf_hub::Repo::with_revision(
                        repo.clone(),
                        hf_hub::RepoType::Model,
                        rev.clone(),
                    )),
                    None => cache.model(repo.clone()),
                };
                let get = |file: &str| {
                    cache_repo
                        .get(file)
                        .ok_or_else(|| LoadError::NotInHubCache {
                            repo: repo.clone(),
                            file: file.to_string(),
                            cache: cache.path().clone(),
                        })
                };
                Recognizer::load_files(
                    &get(WEIGHTS_FILE)?,
                    &get(CONFIG_FILE)?,
                    &get(VOCAB_FILE)?,
                    cache_repo.get(CALIBRATION_FILE).as_deref(),
                    device,
                )
            }
        }
    }

    fn load_files(
        weights: &Path,
        config: &Path,
        vocab: &Path,
        calibration: Option<&Path>,
        device: Device,
    ) -> Result<Recognizer, LoadError> {
        fn malformed(path: &Path, reason: String) -> LoadError {
            LoadError::Malformed {
                path: path.to_path_buf(),
                reason,
            }
        }
        fn read(path: &Path) -> Result<Vec<u8>, LoadError> {
            std::fs::read(path).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => LoadError::Missing {
                    path: path.to_path_buf(),
                },
                _ => malformed(path, e.to_string()),
            })
        }
        fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, LoadError> {
            serde_json::from_slice(&read(path)?).map_err(|e| malformed(path, e.to_string()))
        }
        let cfg: ModelConfig = read_json(config)?;
        cfg.validate().map_err(|e| malformed(config, e))?;
        let voc: Vocab = read_json(vocab)?;
        if voc.len() != cfg.vocab_size {
            return Err(LoadError::VocabMismatch {
                config: cfg.vocab_size,
                vocab: voc.len(),
            });
        }
        let calibration: Option<Calibration> = calibration.map(read_json).transpose()?;
        let bytes = read(weights)?;
        // fp16 on disk, f32 in memory: the CPU kernels are fastest in f32.
        let vb = VarBuilder::from_buffered_safetensors(bytes, DType::F32, &device)
            .map_err(|e| malformed(weights, e.to_string()))?;
        let model = LineModel::new(&cfg, vb, Kernels::Fused)
            .map_err(|e| malformed(weights, e.to_string()))?;
        Ok(Recognizer::from_model(model, voc, device).with_calibration(calibration))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::recognizer::DecodeOptions;
    use crate::recognizer::artifacts::export;
    use crate::recognizer::train::tests::{bar_crop, tiny_config};
    use candle_nn::VarMap;
    use image::GrayImage;

    /// A random tiny model exported to `dir`, and the same model in memory.
    pub(crate) fn exported(dir: &Path) -> (Recognizer, Vocab) {
        let vocab = Vocab::default_arabic_latin();
        let cfg = tiny_config(&vocab);
        let varmap = VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
        let model = LineModel::new(&cfg, vb, Kernels::Fused).unwrap();
        // Round the weights to fp16 as the export does, so both read identically
        // (a random model's near-tied logits would otherwise flip).
        for var in varmap.all_vars() {
            var.set(
                &var.as_tensor()
                    .to_dtype(DType::F16)
                    .unwrap()
                    .to_dtype(DType::F32)
                    .unwrap(),
            )
            .unwrap();
        }
        export(&varmap, &cfg, &vocab, dir).unwrap();
        (
            Recognizer::from_model(model, vocab.clone(), Device::Cpu),
            vocab,
        )
    }

    #[test]
    fn exported_models_load_and_read_like_the_original() {
        let dir = tempfile::tempdir().unwrap();
        let (original, _) = exported(dir.path());
        let loaded = Recognizer::load(&ModelSource::Dir(dir.path().to_path_buf())).unwrap();
        let crops: Vec<GrayImage> = ["١٢٣", "AB"].iter().map(|t| bar_crop(t)).collect();
        let a = original.recognize(&crops, DecodeOptions::greedy()).unwrap();
        let b = loaded.recognize(&crops, DecodeOptions::greedy()).unwrap();
        for (a, b) in a.iter().zip(&b) {
            assert_eq!(a.best.text, b.best.text);
            assert_eq!(a.best.char_probs, b.best.char_probs);
        }
        assert!(
            loaded
                .recognize(&[], DecodeOptions::greedy())
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_saved_calibration_maps_the_confidences_until_the_next_export() {
        let dir = tempfile::tempdir().unwrap();
        let (original, _) = exported(dir.path());
        let calibration = Calibration {
            bias: 3.0,
            log_nll: -1.5,
            log_length: 0.5,
        };
        let path = dir.path().join(CALIBRATION_FILE);
        std::fs::write(&path, serde_json::to_string(&calibration).unwrap()).unwrap();
        let source = ModelSource::Dir(dir.path().to_path_buf());
        let loaded = Recognizer::load(&source).unwrap();
        assert_eq!(loaded.calibration(), Some(&calibration));
        let crops = [bar_crop("١٢٣")];
        let options = DecodeOptions::beam(2);
        let raw = &original.recognize(&crops, options).unwrap()[0];
        let mapped = &loaded.recognize(&crops, options).unwrap()[0];
        assert_eq!(raw.best.text, mapped.best.text);
        assert!((raw.best.confidence - raw.best.log_prob.exp()).abs() < 1e-6);
        let expected = calibration.probability(raw.best.log_prob, raw.best.text.chars().count());
        assert!((mapped.best.confidence - expected).abs() < 1e-4);
        for (r, m) in raw.alternatives.iter().zip(&mapped.alternatives) {
            let expected = calibration.probability(r.log_prob, r.text.chars().count());
            assert!((m.confidence - expected).abs() < 1e-4);
        }

        std::fs::write(&path, "{\"bias\": 1}").unwrap();
        assert!(matches!(
            Recognizer::load(&source),
            Err(LoadError::Malformed { .. })
        ));
        // A new export is other weights: the old calibration goes.
        exported(dir.path());
        assert!(!path.exists());
        assert_eq!(Recognizer::load(&source).unwrap().calibration(), None);
    }

    #[test]
    fn missing_or_malformed_models_give_typed_errors() {
        let dir = tempfile::tempdir().unwrap();
        let missing = Recognizer::load(&ModelSource::Dir(dir.path().join("nope")));
        assert!(
            matches!(missing, Err(LoadError::Missing { .. })),
            "{missing:?}"
        );

        exported(dir.path());
        std::fs::write(dir.path().join(CONFIG_FILE), "{not json").unwrap();
        assert!(matches!(
            Recognizer::load(&ModelSource::Dir(dir.path().into())),
            Err(LoadError::Malformed { .. })
        ));

        exported(dir.path());
        std::fs::write(dir.path().join(WEIGHTS_FILE), b"garbage").unwrap();
        assert!(matches!(
            Recognizer::load(&ModelSource::Dir(dir.path().into())),
            Err(LoadError::Malformed { .. })
        ));

        exported(dir.path());
        std::fs::write(
            dir.path().join(VOCAB_FILE),
            r#"{"specials":["<pad>","<bos>","<eos>","<unk>"],"characters":["a"]}"#,
        )
        .unwrap();
        assert!(matches!(
            Recognizer::load(&ModelSource::Dir(dir.path().into())),
            Err(LoadError::VocabMismatch { .. })
        ));
    }

    #[test]
    fn hub_sources_resolve_from_the_local_cache_only() {
        let cache = tempfile::tempdir().unwrap();
        // SAFETY: no other test reads HF_HUB_CACHE.
        unsafe { std::env::set_var("HF_HUB_CACHE", cache.path()) };
        let source: ModelSource = "hf:hawiya/recognizer".parse().unwrap();
        assert_eq!(
            source,
            ModelSource::Hub {
                repo: "hawiya/recognizer".into(),
                revision: None
            }
        );
        assert!(matches!(
            Recognizer::load(&source),
            Err(LoadError::NotInHubCache { .. })
        ));

        // Lay out a cache snapshot the way hf-hub does and load from it.
        let repo = hf_hub::Cache::new(cache.path().to_path_buf()).model("hawiya/recognizer".into());
        repo.create_ref("0123abcd").unwrap();
        let snapshot = cache
            .path()
            .join("models--hawiya--recognizer/snapshots/0123abcd");
        exported(&snapshot);
        assert!(Recognizer::load(&source).is_ok());

        let local: ModelSource = cache.path().to_str().unwrap().parse().unwrap();
        assert_eq!(local, ModelSource::Dir(cache.path().to_path_buf()));
        assert!(matches!(
            "owner/name@v1".parse().unwrap(),
            ModelSource::Hub {
                revision: Some(_),
                ..
            }
        ));
    }
}
