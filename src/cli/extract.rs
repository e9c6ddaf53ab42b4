//! `hawiya extract`: one file through the pipeline, printed as JSON.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use crate::http::ApiError;
use crate::jobs::IdType;
use crate::pipeline::{Overlay, PipelineOptions};

#[derive(Debug, clap::Args)]
pub struct ExtractArgs {
    /// A JPEG, PNG or PDF file.
    pub image: PathBuf,
    /// The `ID_type` an HTTP client would send (0 to 3); refuses other documents.
    #[arg(long)]
    pub id_type: Option<u8>,
    /// Also write the rectified card with the box of every line read, coloured by
    /// confidence, to this JPEG file (the picture `uploadImage?overlay=true` answers).
    #[arg(long, value_name = "OUT.jpg")]
    pub overlay: Option<PathBuf>,
    #[command(flatten)]
    pub pipeline: PipelineOptions,
}

/// Exit status of `hawiya extract` when the document is refused (the record printed
/// then holds the reason); 1 stays for a file that cannot be read at all.
const REFUSED: u8 = 2;

impl ExtractArgs {
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let bytes = std::fs::read(&self.image)
            .with_context(|| format!("reading {}", self.image.display()))?;
        let id_type = match self.id_type {
            Some(code) => Some(
                IdType::from_code(code)
                    .with_context(|| format!("ID_type {code} is not 0, 1, 2 or 3"))?,
            ),
            None => None,
        };
        let pipeline = self.pipeline.load()?;
        let (result, trace) = pipeline.run(&bytes, id_type.map(IdType::kinds));
        let timings: BTreeMap<&str, f64> = trace
            .timings
            .iter()
            .map(|(stage, d)| (*stage, d.as_secs_f64() * 1e3))
            .collect();
        // Folded from +0.0: an empty `sum` of floats is -0.0.
        let total = timings.values().fold(0.0, |total, ms| total + ms);
        let output = match &result {
            Ok(extraction) => {
                let mut output = serde_json::json!({
                    "kind": extraction.kind,
                    "flow_a": extraction.flow_a,
                    "flow_b": extraction.flow_b,
                    "confidence": extraction.confidence,
                    "field_confidence": extraction.field_confidence,
                    "low_confidence_fields": extraction.low_confidence_fields,
                    "sharpness": trace.sharpness,
                    "timings_ms": timings,
                    "total_ms": total,
                });
                if let Some(path) = &self.overlay {
                    let overlay = Overlay::of_run(&trace, extraction)
                        .context("the pipeline kept no card to draw")?;
                    std::fs::write(path, &overlay.jpeg)
                        .with_context(|| format!("writing {}", path.display()))?;
                    output["overlay"] = serde_json::to_value(&overlay)?;
                }
                output
            }
            Err(err) => {
                // Worded as the service answers the same request.
                let message = match id_type {
                    Some(id_type) => ApiError::extraction(err.clone(), id_type).to_string(),
                    None => err.to_string(),
                };
                serde_json::json!({
                    "error": { "reason": err.reason(), "message": message },
                    "sharpness": trace.sharpness,
                    "timings_ms": timings,
                    "total_ms": total,
                })
            }
        };
        println!("{}", serde_json::to_string_pretty(&output)?);
        Ok(match result {
            Ok(_) => ExitCode::SUCCESS,
            Err(_) => ExitCode::from(REFUSED),
        })
    }
}
