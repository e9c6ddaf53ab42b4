//! `hawiya eval docs`: per side and capture mode, exact-match rate and character
//! error rate of every printed field, the rate of documents with every field
//! exact, classification accuracy, locator accuracy and stage latencies; and the
//! same rates by the card's width in the image, since resolution decides most of
//! what a photo allows.
//!
//! Without a recognizer (`--geometry-only`) only decoding, locating and
//! classifying are measured.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::domain::DocumentKind;
use crate::domain::arabic::fold;
use crate::domain::edit;
use crate::pipeline::classify::Classifier;
use crate::pipeline::decode::{self, DecodeLimits};
use crate::pipeline::find::{find_document, reads_both_sides};
use crate::pipeline::locate::LocateConfig;
use crate::pipeline::post::LOW_CONFIDENCE;
use crate::pipeline::warp::Quad;
use crate::pipeline::{LEGIBLE_CARD_WIDTH, PipelineOptions};
use crate::progress::Progress;
use crate::synth::dataset::{OtherDocument, TruthRecord};
use crate::synth::render::{FaceSet, FontSet, Inventory};

#[derive(Debug, clap::Args)]
pub struct DocsArgs {
    /// Generator output folder holding truth.jsonl and the images.
    #[arg(long)]
    pub dir: PathBuf,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub pipeline: PipelineOptions,
    /// Measure decoding, locating and classifying only (no recognizer needed).
    #[arg(long)]
    pub geometry_only: bool,
    /// Evaluate at most this many documents.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Only the documents whose Arabic fields are printed in these font families
    /// (fonts/families.toml): held-out, training or all.
    #[arg(long, value_enum, default_value_t = FontSet::All)]
    pub fonts: FontSet,
    /// Only the documents printed on these card-face families: held-out, training
    /// or all.
    #[arg(long, value_enum, default_value_t = FaceSet::All)]
    pub faces: FaceSet,
    /// The kinds each document is asked for, as an `ID_type` asks: `none` (any
    /// kind), `own` (its own, and for a car licence both its sides: a valid
    /// document, never to be refused) or `other`
    /// (every kind not in the image: neither its own, nor a car licence's other
    /// side, which every request for a car licence accepts, nor the other side
    /// lying beside it on a page, which a request for it rightly reads: to be
    /// refused as `WRONG_ID_TYPE`).
    #[arg(long, value_enum, default_value_t = Request::None)]
    pub request: Request,
    /// List every document that was misclassified, not located or failed, and
    /// (with the recognizer) every field read wrong, (with `--line-finding`) every
    /// line missed.
    #[arg(long)]
    pub verbose: bool,
    /// An outline counts as found when every corner is within this fraction of the
    /// card's width of the truth.
    #[arg(long, default_value_t = 0.02)]
    pub outline_tolerance: f32,
    /// Measure line finding only: with the true outline and kind, the share of
    /// printed field lines that got a crop overlapping their true box, per kind.
    #[arg(long)]
    pub line_finding: bool,
    /// Write the crops cut from each document with its true outline and kind,
    /// labelled with the printed line each covers, as a `hawiya synth --lines`
    /// folder: recognizer training and evaluation on the pipeline's own crops.
    #[arg(long, value_name = "OUT")]
    pub export_lines: Option<PathBuf>,
    /// Also write one JSON line per document to this file: its capture (blur,
    /// noise), the card's true width and the width found in the image, the
    /// sharpness measured, the refusal if any, and every printed field's
    /// confidence and whether it was read exactly: what the size and sharpness
    /// thresholds are chosen from.
    #[arg(long, value_name = "FILE")]
    pub documents: Option<PathBuf>,
}

impl DocsArgs {
    /// The truth records of `dir` printed in the `fonts` families, at most `limit`.
    pub(super) fn records(&self) -> anyhow::Result<Vec<TruthRecord>> {
        let mut records = Vec::new();
        for record in TruthRecord::read_all(&self.dir)? {
            if self
                .fonts
                .admits(record.font.as_deref())
                .map_err(|e| anyhow::anyhow!("{}: {}: {e}", self.dir.display(), record.file))?
                && record
                    .in_faces(self.faces)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", self.dir.display()))?
            {
                records.push(record);
            }
        }
        anyhow::ensure!(
            !records.is_empty(),
            "{} holds no document printed in the {} fonts on the {} faces",
            self.dir.display(),
            self.fonts,
            self.faces
        );
        if let Some(limit) = self.limit {
            records.truncate(limit);
        }
        Ok(records)
    }
}

/// The kinds a document is asked for ([`DocsArgs::request`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Request {
    None,
    Own,
    Other,
}

impl Request {
    /// The kinds a document of `kind`, with `others` in its image, is asked for;
    /// `None` for any.
    fn accepted(self, kind: DocumentKind, others: &[OtherDocument]) -> Option<Vec<DocumentKind>> {
        let car_licence = |k: DocumentKind| {
            matches!(
                k,
                DocumentKind::CarLicenceFront | DocumentKind::CarLicenceBack
            )
        };
        // A kind in the image (the document's own, or its other side beside it on a
        // page) is read when asked for, as is either side of a car licence shown.
        let readable = |k: DocumentKind| {
            k == kind || others.iter().any(|o| o.kind == k) || (car_licence(k) && car_licence(kind))
        };
        match self {
            Request::None => None,
            // No `ID_type` asks for one side of a car licence alone.
            Request::Own if car_licence(kind) => Some(vec![
                DocumentKind::CarLicenceFront,
                DocumentKind::CarLicenceBack,
            ]),
            Request::Own => Some(vec![kind]),
            Request::Other => Some(
                DocumentKind::ALL
                    .into_iter()
                    .filter(|&k| !readable(k))
                    .collect(),
            ),
        }
    }
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct FieldScore {
    pub count: usize,
    pub exact: f64,
    /// Exact once both texts are folded ([`fold`]: hamza seats, final yaa, taa
    /// marbuta), as clients that match names against their records compare them.
    pub exact_folded: f64,
    pub cer: f64,
    /// Share of the documents where the field was read with a confidence of at
    /// least [`LOW_CONFIDENCE`], i.e. not sent for review...
    pub confident: f64,
    /// ...and the exact rate among those: how far an unreviewed value can be trusted.
    pub exact_when_confident: f64,
}

/// Counts behind a [`FieldScore`].
#[derive(Debug, Default, Clone, Copy)]
struct FieldTally {
    count: usize,
    exact: usize,
    exact_folded: usize,
    cer: f64,
    confident: usize,
    confident_exact: usize,
}

/// The field key of the national-ID number, on every kind that prints one.
const NATIONAL_ID: &str = "national_id";

/// Lower bounds of the card-width bands reported, in pixels of the image.
const WIDTH_BANDS: [u32; 5] = [0, 300, 400, 600, 800];

/// The documents of a group whose card is `min_px` wide or more, and narrower
/// than the next band's bound when there is one, either strongly blurred by the
/// generator or not ([`crate::synth::capture::CaptureParams::strongly_blurred`]).
#[derive(Debug, Clone, Serialize)]
pub struct WidthBand {
    pub min_px: u32,
    pub max_px: Option<u32>,
    pub strongly_blurred: bool,
    #[serde(flatten)]
    pub score: BandScore,
}

/// The rates of some of a group's documents (a [`WidthBand`], the legible ones).
#[derive(Debug, Clone, Serialize)]
pub struct BandScore {
    pub count: usize,
    pub classification_accuracy: f64,
    /// Absent for kinds that print no national ID.
    pub national_id_exact: Option<f64>,
    pub all_fields_exact: f64,
    /// Printed fields read with a confidence of at least [`LOW_CONFIDENCE`]...
    pub confident_fields: usize,
    /// ...and the exact rate among them (absent when there are none).
    pub confident_exact: Option<f64>,
}

impl WidthBand {
    fn of(card_width_px: f32) -> usize {
        WIDTH_BANDS
            .iter()
            .rposition(|&min| card_width_px >= min as f32)
            .unwrap_or(0)
    }
}

impl std::fmt::Display for BandScore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let percent = |r: Option<f64>| r.map_or("-".to_owned(), |r| format!("{:.1} %", 100.0 * r));
        write!(
            f,
            "{:>4} docs: class {:>5.1} %, national_ID {}, all fields {:>5.1} %, confident fields {} of which exact {}",
            self.count,
            100.0 * self.classification_accuracy,
            percent(self.national_id_exact),
            100.0 * self.all_fields_exact,
            self.confident_fields,
            percent(self.confident_exact),
        )
    }
}

/// Counts behind a [`BandScore`].
#[derive(Debug, Default, Clone, Copy)]
struct BandTally {
    count: usize,
    classified: usize,
    national_ids: usize,
    national_ids_exact: usize,
    all_exact: usize,
    confident: usize,
    confident_exact: usize,
}

impl std::ops::AddAssign for BandTally {
    fn add_assign(&mut self, other: BandTally) {
        self.count += other.count;
        self.classified += other.classified;
        self.national_ids += other.national_ids;
        self.national_ids_exact += other.national_ids_exact;
        self.all_exact += other.all_exact;
        self.confident += other.confident;
        self.confident_exact += other.confident_exact;
    }
}

impl BandTally {
    fn score(&self) -> BandScore {
        BandScore {
            count: self.count,
            classification_accuracy: rate(self.classified, self.count),
            national_id_exact: (self.national_ids > 0)
                .then(|| rate(self.national_ids_exact, self.national_ids)),
            all_fields_exact: rate(self.all_exact, self.count),
            confident_fields: self.confident,
            confident_exact: (self.confident > 0)
                .then(|| rate(self.confident_exact, self.confident)),
        }
    }
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct GroupReport {
    pub count: usize,
    /// Documents answered with an error (any reason; `errors` counts each).
    pub refused: f64,
    pub classification_accuracy: f64,
    /// Documents whose outline was found with every corner within 2 % of the
    /// card width of the truth (either way round).
    pub located: f64,
    pub all_fields_exact: f64,
    pub flow_a_exact: f64,
    pub fields: BTreeMap<String, FieldScore>,
    pub errors: BTreeMap<String, usize>,
    /// Per field key, documents that print the field blank (an optional line left
    /// empty) for which a value was read anyway.
    pub invented: BTreeMap<String, usize>,
    /// The same rates by the card's width in the image and whether the photo was
    /// strongly blurred (bands without documents left out).
    pub by_card_width: Vec<WidthBand>,
    /// The same rates for the legible documents, whose card is at least
    /// [`LEGIBLE_CARD_WIDTH`] wide in the image, blurred or not (absent when none is).
    pub legible: Option<BandScore>,
    /// The same rates by the font family the fields are printed in (documents whose
    /// folder does not say are left out).
    pub by_font: Vec<FontRow>,
}

/// The documents of a group whose Arabic fields are printed in one font family.
#[derive(Debug, Clone, Serialize)]
pub struct FontRow {
    pub family: String,
    /// `training`, `held-out` (`?` for a family the inventory does not know).
    pub split: &'static str,
    pub class: &'static str,
    pub count: usize,
    pub all_fields_exact: f64,
    /// The exact rate of each field printed.
    pub fields: BTreeMap<String, f64>,
}

/// Counts behind a [`FontRow`]: documents, documents with every field exact, and
/// per field key (printed, exact).
#[derive(Debug, Default, Clone)]
struct FontTally {
    count: usize,
    all_exact: usize,
    fields: BTreeMap<String, (usize, usize)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Percentiles {
    pub p50: f64,
    pub p95: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub documents: usize,
    /// The kinds each document was asked for.
    pub request: Request,
    /// Documents answered with an error, and those refused as `WRONG_ID_TYPE`.
    pub refused: f64,
    pub wrong_id_type: f64,
    pub classification_accuracy: f64,
    pub orientation_accuracy: f64,
    pub located: f64,
    /// Keyed `kind/capture`, e.g. `nid-front/photo`.
    pub groups: BTreeMap<String, GroupReport>,
    /// Stage latencies in milliseconds, plus `total`.
    pub latency_ms: BTreeMap<String, Percentiles>,
}

impl Report {
    /// The line `eval docs` ends with: how many documents in how long, how they
    /// were classified and located, and how many were refused.
    fn summary(&self, elapsed: Duration) -> String {
        let seconds = elapsed.as_secs_f64();
        format!(
            "{} documents in {seconds:.1} s ({:.1} documents/s): classification {:.2} %, outline found {:.2} %, found and upright {:.2} %; asked for {}: refused {:.2} %, of which WRONG_ID_TYPE {:.2} %",
            self.documents,
            self.documents as f64 / seconds.max(1e-9),
            100.0 * self.classification_accuracy,
            100.0 * self.located,
            100.0 * self.orientation_accuracy,
            match self.request {
                Request::None => "any kind",
                Request::Own => "their own kind",
                Request::Other => "another kind",
            },
            100.0 * self.refused,
            100.0 * self.wrong_id_type
        )
    }
}

/// What one document gave.
struct Outcome {
    group: String,
    /// The kind it was read as.
    kind: Option<DocumentKind>,
    kind_correct: bool,
    orientation_correct: bool,
    located: bool,
    error: Option<String>,
    fields: BTreeMap<String, String>,
    /// Confidence of every line read, by field key (empty when the document failed).
    confidence: BTreeMap<String, f32>,
    flow_a_exact: bool,
    timings: Vec<(&'static str, Duration)>,
    /// The outline the document was read from.
    quad: Option<Quad>,
    /// Its largest corner error as a share of the card's width (either way round).
    outline_error: Option<f32>,
    /// The card's sharpness as the pipeline measured it ([`crate::pipeline::cut::sharpness`]).
    sharpness: Option<f32>,
}

/// How far `found` is from the truth outline.
#[derive(Debug, Clone, Copy)]
struct OutlineMatch {
    /// Largest corner error, either way round, as a share of the card's width.
    error: f32,
    /// Whether it is nearer the truth the right way up than upside down.
    upright: bool,
}

impl OutlineMatch {
    fn new(found: &Quad, truth: &Quad) -> OutlineMatch {
        let width = truth.corners[0].distance(truth.corners[1]).max(1.0);
        let (up, down) = (
            found.corner_error(truth),
            found.turned(2).corner_error(truth),
        );
        OutlineMatch {
            error: up.min(down) / width,
            upright: up <= down,
        }
    }

    /// (located within `tolerance`, located and upright)
    fn verdict(&self, tolerance: f32) -> (bool, bool) {
        let located = self.error <= tolerance;
        (located, located && self.upright)
    }
}

/// `record` as its request is answered: with the printed fields of its other side
/// lying beside it where the request reads both sides ([`reads_both_sides`]: a car
/// licence's front and back on one page make one record).
fn as_read(mut record: TruthRecord, request: Request) -> TruthRecord {
    let accepted = request.accepted(record.kind, &record.others);
    if let Some(other) = reads_both_sides(record.kind, accepted.as_deref()) {
        for side in record.others.iter().filter(|o| o.kind == other) {
            record.fields.extend(side.fields.clone());
        }
    }
    record
}

fn geometry(
    dir: &std::path::Path,
    record: &TruthRecord,
    classifier: &Classifier,
    request: Request,
    tolerance: f32,
) -> anyhow::Result<Outcome> {
    let bytes = std::fs::read(dir.join(&record.file))?;
    let mut timings = Vec::new();
    let mut last = Instant::now();
    let mut lap = |stage: &'static str, timings: &mut Vec<(&'static str, Duration)>| {
        let now = Instant::now();
        timings.push((stage, now - last));
        last = now;
    };
    let group = format!("{}/{}", record.kind, record.capture.mode());
    let mut outcome = Outcome {
        group,
        kind: None,
        kind_correct: false,
        orientation_correct: false,
        located: false,
        error: None,
        fields: BTreeMap::new(),
        confidence: BTreeMap::new(),
        flow_a_exact: false,
        timings: Vec::new(),
        quad: None,
        outline_error: None,
        sharpness: None,
    };
    let image = match decode::decode(&bytes, &DecodeLimits::default()) {
        Ok(decoded) => decoded.image,
        Err(err) => {
            outcome.error = Some(crate::pipeline::ExtractError::from(err).reason().to_owned());
            return Ok(outcome);
        }
    };
    lap("decode", &mut timings);
    let truth = Quad::from_xy(record.corners_in(image.width(), image.height()));
    let accepted = request.accepted(record.kind, &record.others);
    let Some(found) = find_document(
        &image,
        &LocateConfig::default(),
        classifier,
        accepted.as_deref(),
        |_| (),
    ) else {
        outcome.error = Some("NO_DOCUMENT_FOUND".into());
        outcome.timings = timings;
        return Ok(outcome);
    };
    lap("locate_classify", &mut timings);
    let (read_as, class) = (found.card.quad, found.card.class);
    outcome.quad = Some(read_as);
    let matched = OutlineMatch::new(&read_as, &truth);
    let (located, upright) = matched.verdict(tolerance);
    outcome.outline_error = Some(matched.error);
    outcome.located = located;
    outcome.orientation_correct = upright;
    outcome.kind = Some(class.kind);
    outcome.kind_correct = class.kind == record.kind;
    if accepted.is_some_and(|accepted| !accepted.contains(&class.kind)) {
        outcome.error = Some(
            crate::pipeline::ExtractError::WrongKind { found: class.kind }
                .reason()
                .to_owned(),
        );
    }
    outcome.timings = timings;
    Ok(outcome)
}

fn full(
    dir: &std::path::Path,
    record: &TruthRecord,
    pipeline: &crate::pipeline::Pipeline,
    request: Request,
    tolerance: f32,
) -> anyhow::Result<Outcome> {
    let bytes = std::fs::read(dir.join(&record.file))?;
    let accepted = request.accepted(record.kind, &record.others);
    let (result, trace) = pipeline.run(&bytes, accepted.as_deref());
    let group = format!("{}/{}", record.kind, record.capture.mode());
    let kind_correct = trace.classification.is_some_and(|c| c.kind == record.kind);
    // The truth outline is in raster pixels; the trace's quad in the decoded image's.
    let matched = trace.quad.map(|quad| {
        let (w, h) = trace.image_size.unwrap_or((record.width, record.height));
        OutlineMatch::new(&quad, &Quad::from_xy(record.corners_in(w, h)))
    });
    let (located, upright) = matched.map_or((false, false), |m| m.verdict(tolerance));
    let (error, flow_a_exact, confidence) = match result {
        Ok(extraction) => (
            None,
            extraction.flow_a == record.flow_a,
            extraction.field_confidence,
        ),
        Err(err) => (Some(err.reason().to_owned()), false, BTreeMap::new()),
    };
    Ok(Outcome {
        group,
        kind: trace.classification.map(|c| c.kind),
        kind_correct,
        orientation_correct: upright,
        located,
        error,
        fields: trace.fields,
        confidence,
        flow_a_exact,
        timings: trace.timings,
        quad: trace.quad,
        outline_error: matched.map(|m| m.error),
        sharpness: trace.sharpness,
    })
}

/// Every field of `record` that `outcome` read wrong, and every field it read where
/// the card prints nothing, one line each on stderr with the field's confidence.
fn print_misread_fields(record: &TruthRecord, outcome: &Outcome) {
    let keys: BTreeSet<&String> = record.fields.keys().chain(outcome.fields.keys()).collect();
    for key in keys {
        let truth = record.fields.get(key).map(String::as_str).unwrap_or("");
        let read = outcome.fields.get(key).map(String::as_str).unwrap_or("");
        let wrong = if truth.trim().is_empty() {
            !read.trim().is_empty()
        } else {
            read != truth
        };
        if wrong {
            eprintln!(
                "{} {} outline error {}: {key}: read {read:?} (confidence {}), printed {truth:?}",
                record.file,
                outcome.group,
                outcome
                    .outline_error
                    .map_or("-".to_owned(), |e| format!("{:.1} %", e * 100.0)),
                outcome
                    .confidence
                    .get(key)
                    .map_or("-".to_owned(), |c| format!("{c:.2}")),
            );
        }
    }
}

/// One document as `--documents` writes it.
#[derive(Serialize)]
struct DocumentLine<'a> {
    file: &'a str,
    group: &'a str,
    font: Option<&'a str>,
    capture: &'a crate::synth::capture::CaptureParams,
    /// The card's true width in the image, and the width of the outline read.
    card_width_px: f32,
    found_width_px: Option<f32>,
    sharpness: Option<f32>,
    error: Option<&'a str>,
    /// Every printed field, by key.
    fields: BTreeMap<&'a str, FieldRead>,
}

/// How one printed field was read: its confidence (absent when the document was
/// refused) and whether the text is exact.
#[derive(Serialize)]
struct FieldRead {
    confidence: Option<f32>,
    exact: bool,
}

fn percentiles(mut values: Vec<f64>) -> Percentiles {
    values.sort_by(f64::total_cmp);
    let at = |q: f64| {
        if values.is_empty() {
            return 0.0;
        }
        let i = ((values.len() - 1) as f64 * q).round() as usize;
        values[i]
    };
    Percentiles {
        p50: at(0.5),
        p95: at(0.95),
    }
}

/// `hits` of `count` as a share: 0 when there are none.
pub(super) fn rate(hits: usize, count: usize) -> f64 {
    hits as f64 / count.max(1) as f64
}

/// What a document goes through: decoding, locating and classifying alone
/// (`--geometry-only`), or the whole pipeline.
enum Stages {
    Geometry(Classifier),
    All(crate::pipeline::Pipeline),
}

pub fn evaluate(args: &DocsArgs) -> anyhow::Result<Report> {
    let records = args.records()?;
    let progress = Progress::new("eval docs", records.len() as u64, "documents");
    let stages = if args.geometry_only {
        Stages::Geometry(Classifier::load(
            &args.pipeline.models.join("classifier.json"),
        )?)
    } else {
        Stages::All(args.pipeline.load()?)
    };
    let (dir, request, tolerance) = (&args.dir, args.request, args.outline_tolerance);
    let outcomes: Vec<(TruthRecord, Outcome)> = records
        .into_iter()
        .map(|r| {
            let o = match &stages {
                Stages::Geometry(classifier) => geometry(dir, &r, classifier, request, tolerance)?,
                Stages::All(pipeline) => full(dir, &r, pipeline, request, tolerance)?,
            };
            progress.add(1);
            Ok((as_read(r, request), o))
        })
        .collect::<anyhow::Result<_>>()?;
    progress.finish();

    if args.verbose {
        for (record, o) in &outcomes {
            if !args.geometry_only {
                print_misread_fields(record, o);
            }
            if !o.kind_correct || !o.located || o.error.is_some() {
                let corners =
                    |q: &Quad| q.corners.map(|p| (p.x.round() as i32, p.y.round() as i32));
                eprintln!(
                    "{} {}: class ok {} ({}), located {}, upright {}, error {:?}, found {:?}, truth {:?}",
                    record.file,
                    o.group,
                    o.kind_correct,
                    o.kind.map_or("-".to_owned(), |k| k.to_string()),
                    o.located,
                    o.orientation_correct,
                    o.error,
                    o.quad.as_ref().map(corners),
                    record
                        .corners
                        .map(|[x, y]| (x.round() as i32, y.round() as i32)),
                );
            }
        }
    }
    let mut groups: BTreeMap<String, GroupReport> = BTreeMap::new();
    let mut tallies: BTreeMap<String, (usize, usize, usize, usize)> = BTreeMap::new();
    let mut field_tallies: BTreeMap<(String, String), FieldTally> = BTreeMap::new();
    let mut band_tallies: BTreeMap<(String, usize, bool), BandTally> = BTreeMap::new();
    let mut legible_tallies: BTreeMap<String, BandTally> = BTreeMap::new();
    let mut documents = match &args.documents {
        Some(path) => Some(std::io::BufWriter::new(std::fs::File::create(path)?)),
        None => None,
    };
    let mut font_tallies: BTreeMap<(String, String), FontTally> = BTreeMap::new();
    let mut stage_times: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (record, outcome) in &outcomes {
        let group = groups.entry(outcome.group.clone()).or_default();
        group.count += 1;
        if let Some(err) = &outcome.error {
            *group.errors.entry(err.clone()).or_default() += 1;
            group.refused += 1.0;
        }
        let t = tallies.entry(outcome.group.clone()).or_default();
        t.0 += usize::from(outcome.kind_correct);
        t.1 += usize::from(outcome.located);
        t.3 += usize::from(outcome.flow_a_exact);
        let card_width = Quad::from_xy(record.corners).width();
        let mut doc = BandTally {
            count: 1,
            classified: usize::from(outcome.kind_correct),
            ..BandTally::default()
        };
        let mut read_fields = BTreeMap::new();
        let mut font = record.font.as_ref().map(|family| {
            let tally = font_tallies
                .entry((outcome.group.clone(), family.clone()))
                .or_default();
            tally.count += 1;
            tally
        });
        if !args.geometry_only {
            let mut all_exact = true;
            for (key, truth) in &record.fields {
                if truth.trim().is_empty() {
                    continue;
                }
                let read = outcome.fields.get(key).map(String::as_str).unwrap_or("");
                let exact = read == truth;
                all_exact &= exact;
                let cer = edit::distance(read, truth) as f64 / truth.chars().count().max(1) as f64;
                let f = field_tallies
                    .entry((outcome.group.clone(), key.clone()))
                    .or_default();
                let confident = outcome
                    .confidence
                    .get(key)
                    .is_some_and(|&c| c >= LOW_CONFIDENCE);
                f.count += 1;
                f.exact += usize::from(exact);
                f.exact_folded += usize::from(fold(read) == fold(truth));
                f.cer += cer;
                f.confident += usize::from(confident);
                f.confident_exact += usize::from(confident && exact);
                doc.confident += usize::from(confident);
                doc.confident_exact += usize::from(confident && exact);
                if key == NATIONAL_ID {
                    doc.national_ids += 1;
                    doc.national_ids_exact += usize::from(exact);
                }
                read_fields.insert(
                    key.as_str(),
                    FieldRead {
                        confidence: outcome.confidence.get(key).copied(),
                        exact,
                    },
                );
                if let Some(font) = font.as_mut() {
                    let (printed, hits) = font.fields.entry(key.clone()).or_default();
                    *printed += 1;
                    *hits += usize::from(exact);
                }
            }
            t.2 += usize::from(all_exact);
            doc.all_exact += usize::from(all_exact);
            if let Some(font) = font {
                font.all_exact += usize::from(all_exact);
            }
            for (key, read) in &outcome.fields {
                let printed = record.fields.get(key).is_some_and(|t| !t.trim().is_empty());
                if !printed && !read.trim().is_empty() {
                    *group.invented.entry(key.clone()).or_default() += 1;
                }
            }
        }
        *band_tallies
            .entry((
                outcome.group.clone(),
                WidthBand::of(card_width),
                record.capture.strongly_blurred(),
            ))
            .or_default() += doc;
        if card_width >= LEGIBLE_CARD_WIDTH {
            *legible_tallies.entry(outcome.group.clone()).or_default() += doc;
        }
        if let Some(out) = documents.as_mut() {
            let line = DocumentLine {
                file: &record.file,
                group: &outcome.group,
                font: record.font.as_deref(),
                capture: &record.capture,
                card_width_px: card_width,
                found_width_px: outcome.quad.map(|q| q.width()),
                sharpness: outcome.sharpness,
                error: outcome.error.as_deref(),
                fields: read_fields,
            };
            serde_json::to_writer(&mut *out, &line)?;
            std::io::Write::write_all(out, b"\n")?;
        }
        let mut total = 0.0;
        for (stage, d) in &outcome.timings {
            let ms = d.as_secs_f64() * 1e3;
            total += ms;
            stage_times.entry((*stage).to_owned()).or_default().push(ms);
        }
        if outcome.error.is_none() {
            stage_times
                .entry("total".to_owned())
                .or_default()
                .push(total);
        }
    }
    for (name, group) in groups.iter_mut() {
        let t = tallies[name];
        group.refused /= group.count.max(1) as f64;
        group.classification_accuracy = rate(t.0, group.count);
        group.located = rate(t.1, group.count);
        group.all_fields_exact = rate(t.2, group.count);
        group.flow_a_exact = rate(t.3, group.count);
    }
    for ((group, key), f) in field_tallies {
        if let Some(g) = groups.get_mut(&group) {
            g.fields.insert(
                key,
                FieldScore {
                    count: f.count,
                    exact: rate(f.exact, f.count),
                    exact_folded: rate(f.exact_folded, f.count),
                    cer: f.cer / f.count.max(1) as f64,
                    confident: rate(f.confident, f.count),
                    exact_when_confident: rate(f.confident_exact, f.confident),
                },
            );
        }
    }
    if let Some(mut out) = documents {
        std::io::Write::flush(&mut out)?;
    }
    for ((group, band, strongly_blurred), tally) in band_tallies {
        if let Some(g) = groups.get_mut(&group) {
            g.by_card_width.push(WidthBand {
                min_px: WIDTH_BANDS[band],
                max_px: WIDTH_BANDS.get(band + 1).copied(),
                strongly_blurred,
                score: tally.score(),
            });
        }
    }
    for (group, tally) in legible_tallies {
        if let Some(g) = groups.get_mut(&group) {
            g.legible = Some(tally.score());
        }
    }
    for ((group, family), tally) in font_tallies {
        if let Some(g) = groups.get_mut(&group) {
            let known = Inventory::builtin().family(&family);
            g.by_font.push(FontRow {
                split: known.map_or("?", |f| f.split_name()),
                class: known.map_or("?", |f| f.class_name()),
                family,
                count: tally.count,
                all_fields_exact: rate(tally.all_exact, tally.count),
                fields: tally
                    .fields
                    .into_iter()
                    .map(|(key, (printed, exact))| (key, rate(exact, printed)))
                    .collect(),
            });
        }
    }
    let n = outcomes.len();
    let refused_as = |reason: Option<&str>| {
        let hits = outcomes.iter().filter(|(_, o)| match (&o.error, reason) {
            (Some(_), None) => true,
            (Some(error), Some(reason)) => error == reason,
            (None, _) => false,
        });
        rate(hits.count(), n)
    };
    Ok(Report {
        documents: n,
        request: args.request,
        refused: refused_as(None),
        wrong_id_type: refused_as(Some("WRONG_ID_TYPE")),
        classification_accuracy: rate(outcomes.iter().filter(|(_, o)| o.kind_correct).count(), n),
        orientation_accuracy: rate(
            outcomes
                .iter()
                .filter(|(_, o)| o.orientation_correct)
                .count(),
            n,
        ),
        located: rate(outcomes.iter().filter(|(_, o)| o.located).count(), n),
        groups,
        latency_ms: stage_times
            .into_iter()
            .map(|(k, v)| (k, percentiles(v)))
            .collect(),
    })
}

pub fn run(args: DocsArgs) -> anyhow::Result<()> {
    if args.line_finding {
        return super::line_finding::run(&args);
    }
    if let Some(out) = &args.export_lines {
        return super::line_finding::export(&args, out);
    }
    let started = std::time::Instant::now();
    let report = evaluate(&args)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    for (name, group) in &report.groups {
        println!(
            "{name} ({} docs): refused {:.1} %, class {:.1} %, located {:.1} %, all fields exact {:.1} %, Flow A exact {:.1} %{}",
            group.count,
            100.0 * group.refused,
            100.0 * group.classification_accuracy,
            100.0 * group.located,
            100.0 * group.all_fields_exact,
            100.0 * group.flow_a_exact,
            if group.errors.is_empty() {
                String::new()
            } else {
                format!(", errors {:?}", group.errors)
            }
        );
        if !group.invented.is_empty() {
            println!("  read where the card prints nothing: {:?}", group.invented);
        }
        for (key, score) in &group.fields {
            println!(
                "  {key:<20} exact {:>6.1} %   folded {:>6.1} %   CER {:>6.2} %   confident {:>5.1} %, of which exact {:>5.1} %",
                100.0 * score.exact,
                100.0 * score.exact_folded,
                100.0 * score.cer,
                100.0 * score.confident,
                100.0 * score.exact_when_confident,
            );
        }
        for band in &group.by_card_width {
            let width = match band.max_px {
                Some(max) => format!("{}-{} px", band.min_px, max - 1),
                None => format!(">= {} px", band.min_px),
            };
            let blur = if band.strongly_blurred { "blurred" } else { "" };
            println!("  card {width:<12} {blur:<8} {}", band.score);
        }
        if let Some(legible) = &group.legible {
            println!("  legible (card >= {LEGIBLE_CARD_WIDTH} px) {legible}");
        }
        if !group.by_font.is_empty() {
            println!("  by font family (exact % of each field):");
        }
        for row in &group.by_font {
            let fields: Vec<String> = row
                .fields
                .iter()
                .map(|(key, exact)| format!("{key} {:.1}", 100.0 * exact))
                .collect();
            println!(
                "  {:<24} {:<8} {:<10} {:>4} docs: all fields {:>5.1} %; {}",
                row.family,
                row.split,
                row.class,
                row.count,
                100.0 * row.all_fields_exact,
                fields.join(", ")
            );
        }
        println!();
    }
    println!("latency (ms)");
    for (stage, p) in &report.latency_ms {
        println!("  {stage:<14} p50 {:>8.1}   p95 {:>8.1}", p.p50, p.p95);
    }
    println!("\n{}", report.summary(started.elapsed()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_line_says_how_many_documents_in_how_long_and_how_they_fared() {
        let report = Report {
            documents: 40,
            request: Request::Own,
            refused: 0.05,
            wrong_id_type: 0.025,
            classification_accuracy: 0.95,
            orientation_accuracy: 0.9,
            located: 0.925,
            groups: BTreeMap::new(),
            latency_ms: BTreeMap::new(),
        };
        assert_eq!(
            report.summary(Duration::from_secs(20)),
            "40 documents in 20.0 s (2.0 documents/s): classification 95.00 %, outline found \
             92.50 %, found and upright 90.00 %; asked for their own kind: refused 5.00 %, of \
             which WRONG_ID_TYPE 2.50 %"
        );
    }

    #[test]
    fn another_kind_is_never_a_kind_lying_beside_the_document() {
        let back = OtherDocument {
            kind: DocumentKind::NidBack,
            corners: [[0.0; 2]; 4],
            fields: BTreeMap::new(),
        };
        let alone = Request::Other
            .accepted(DocumentKind::NidFront, &[])
            .unwrap();
        let beside = Request::Other
            .accepted(DocumentKind::NidFront, &[back])
            .unwrap();
        assert!(alone.contains(&DocumentKind::NidBack));
        assert!(!beside.contains(&DocumentKind::NidBack));
        assert!(!beside.contains(&DocumentKind::NidFront));
        assert_eq!(beside.len(), alone.len() - 1);
        let car = Request::Other
            .accepted(DocumentKind::CarLicenceFront, &[])
            .unwrap();
        assert!(!car.contains(&DocumentKind::CarLicenceBack));
    }

    #[test]
    fn card_widths_fall_in_their_bands() {
        let bands: Vec<usize> = [0.0, 299.9, 300.0, 399.0, 400.0, 599.9, 600.0, 800.0, 4000.0]
            .into_iter()
            .map(WidthBand::of)
            .collect();
        assert_eq!(bands, [0, 0, 1, 1, 2, 2, 3, 4, 4]);
    }
}
