//! The pipeline itself: the stages run in order on one upload, timed.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use image::{GrayImage, RgbImage};

use super::classify::{Classification, Classifier};
use super::cut::{self, LineBox, LineCrop};
use super::decode::{self, DecodeLimits, Format};
use super::find::{Found, find_document};
use super::locate::{LocateConfig, LocateMethod};
use super::overlay::Overlay;
use super::post::{self, Checked, CheckedFields, LineReading, Readings};
use super::rectify::{Rectified, rectify};
use super::regions::regions;
use super::second_look::{SideLines, second_look};
use super::title::TitleCheck;
use super::warp::Quad;
use super::{ExtractError, Extraction, Extractor};
use crate::domain::DocumentKind;
use crate::layout;

/// What the pipeline calls to get the text of line crops: the recognizer's batcher
/// in the service, the recognizer itself where no batcher runs (`eval lines
/// --as-pipeline`). One call carries every crop of one document, so the batcher
/// can group them with other requests.
pub trait LineRecognizer: Send + Sync + 'static {
    /// One reading per crop, in order.
    fn recognize(&self, crops: Vec<GrayImage>) -> Result<Vec<LineReading>, ExtractError>;

    /// [`recognize`](Self::recognize), refusing an answer that is not one reading
    /// per crop.
    fn recognize_each(&self, crops: Vec<GrayImage>) -> Result<Vec<LineReading>, ExtractError> {
        let count = crops.len();
        let readings = self.recognize(crops)?;
        if readings.len() != count {
            return Err(ExtractError::Internal(format!(
                "the recognizer returned {} readings for {count} crops",
                readings.len()
            )));
        }
        Ok(readings)
    }

    fn is_ready(&self) -> bool;
}

/// The recognizer's batcher recognizes for the pipeline.
impl LineRecognizer for crate::recognizer::BatcherHandle {
    fn recognize(&self, crops: Vec<GrayImage>) -> Result<Vec<LineReading>, ExtractError> {
        use crate::recognizer::RecognizeError;
        let readings =
            crate::recognizer::BatcherHandle::recognize(self, crops).map_err(|e| match e {
                RecognizeError::Overloaded => ExtractError::Overloaded,
                other => ExtractError::Internal(other.to_string()),
            })?;
        Ok(readings.iter().map(LineReading::from).collect())
    }

    fn is_ready(&self) -> bool {
        crate::recognizer::BatcherHandle::is_ready(self)
    }
}

/// The recognizer called directly, on the calling thread, as the batcher would.
impl LineRecognizer for crate::recognizer::RecognizerWithOptions {
    fn recognize(&self, crops: Vec<GrayImage>) -> Result<Vec<LineReading>, ExtractError> {
        let readings = self
            .recognizer
            .recognize(&crops, self.options)
            .map_err(|e| ExtractError::Internal(e.to_string()))?;
        Ok(readings.iter().map(LineReading::from).collect())
    }

    fn is_ready(&self) -> bool {
        true
    }
}

/// Width of every rectified card; the height follows the layout's aspect.
pub const CARD_WIDTH: u32 = 1000;

/// Tunables of the pipeline as a whole.
#[derive(Debug, Clone)]
pub struct PipelineConfig {
    pub limits: DecodeLimits,
    pub locate: LocateConfig,
    /// Below this Laplacian variance, taken at the upload's own resolution (see
    /// [`cut::sharpness`]), a capture is refused as too blurry. Pixel noise raises
    /// the measure, so a clean photo measures far lower than a noisy one as soft:
    /// the photo fixture blurred by 2 px measures 2.6 and is still read whole, and
    /// tuning photos (seed 4245) enlarged 2.5 times, their noise smoothed away as a
    /// phone's camera does, measure 2.3 to 8 where the originals were read. On the
    /// tuning seed the least sharp scan measured 27, PDF 16 and photo 13.
    pub min_sharpness: f32,
    /// A document narrower than this in the upload (pixels) is refused as too small.
    pub min_card_width: f32,
    /// A document on which nothing identifying was read ([`verdict`]) is refused as
    /// too small rather than as showing no text when it is narrower than this in
    /// the upload (pixels), and as too blurry when its sharpness is under
    /// `readable_sharpness`: what the user can do something about. Of the 265
    /// National ID photos so refused on the tuning seed (4247, 1,200 photos, card
    /// faces held out, both font splits), 156 are under 400 px wide (108 of them
    /// strongly blurred); of the 109 wider ones, 60 measure under 100, 51 of them
    /// strongly blurred, where 84 of the 109 are.
    pub readable_card_width: f32,
    /// See [`PipelineConfig::readable_card_width`].
    pub readable_sharpness: f32,
    /// Lines whose field rules choose among hypotheses (names, national IDs...) read
    /// less confidently than this (calibrated, 0 to 1) are read again from variants
    /// of their crop (`pipeline::second_look`); `None` reads every line once.
    pub second_look_below: Option<f32>,
}

/// Default of [`PipelineConfig::second_look_below`], tuned on photo and scan
/// documents of seeds 4243, 4245 and 4248 (docs/tuning-log.md, "Second look").
pub const SECOND_LOOK_BELOW: f32 = 0.8;

impl Default for PipelineConfig {
    fn default() -> Self {
        PipelineConfig {
            limits: DecodeLimits::default(),
            locate: LocateConfig::default(),
            min_sharpness: 2.0,
            min_card_width: 200.0,
            readable_card_width: 400.0,
            readable_sharpness: 100.0,
            second_look_below: Some(SECOND_LOOK_BELOW),
        }
    }
}

/// What the pipeline saw on the way, for the CLI and the evaluation.
#[derive(Debug, Clone)]
pub struct Trace {
    pub format: Option<Format>,
    /// Size of the decoded image, the space `quad` is in.
    pub image_size: Option<(u32, u32)>,
    pub quad: Option<Quad>,
    pub locate_method: Option<LocateMethod>,
    pub classification: Option<Classification>,
    pub sharpness: Option<f32>,
    pub readings: Readings,
    /// The validated printed texts, by field key.
    pub fields: BTreeMap<String, String>,
    /// The rectified card the lines were cut from; a car licence's two sides read
    /// together, one above the other, the front on top.
    pub card: Option<GrayImage>,
    /// Where each field's line was found on `card` (the crop read), in the
    /// layouts' order.
    pub lines: Vec<(String, LineBox)>,
    pub timings: Vec<(&'static str, Duration)>,
}

/// The document pipeline: decode → locate → classify → rectify → cut lines →
/// recognize → post-process.
pub struct Pipeline {
    config: PipelineConfig,
    classifier: Classifier,
    recognizer: Arc<dyn LineRecognizer>,
}

struct Timer {
    last: Instant,
    timings: Vec<(&'static str, Duration)>,
}

impl Timer {
    fn lap(&mut self, stage: &'static str) {
        let now = Instant::now();
        self.timings.push((stage, now - self.last));
        self.last = now;
    }
}

impl Pipeline {
    pub fn new(
        config: PipelineConfig,
        classifier: Classifier,
        recognizer: Arc<dyn LineRecognizer>,
    ) -> Pipeline {
        Pipeline {
            config,
            classifier,
            recognizer,
        }
    }

    /// Runs every stage and returns what was found along with the result. A
    /// document of a kind not in `accepted` (when given) is refused once read ([`verdict`]).
    pub fn run(
        &self,
        bytes: &[u8],
        accepted: Option<&[DocumentKind]>,
    ) -> (Result<Extraction, ExtractError>, Trace) {
        let mut trace = Trace {
            format: None,
            image_size: None,
            quad: None,
            locate_method: None,
            classification: None,
            sharpness: None,
            readings: Readings::new(),
            fields: BTreeMap::new(),
            card: None,
            lines: Vec::new(),
            timings: Vec::new(),
        };
        let mut timer = Timer {
            last: Instant::now(),
            timings: Vec::new(),
        };
        let result = self.stages(bytes, accepted, &mut trace, &mut timer);
        trace.timings = timer.timings;
        let result = result.map(|mut extraction| {
            extraction.timings = trace.timings.clone();
            extraction
        });
        (result, trace)
    }

    /// `card` upright at [`CARD_WIDTH`], with what the upload gave to read it; its
    /// lines not cut yet.
    fn rectify_card(&self, image: &RgbImage, card: &Found) -> Side {
        let kind = card.class.kind;
        let height = (CARD_WIDTH as f32 / layout::builtin(kind).page.aspect()).round() as u32;
        let Rectified {
            card: rectified,
            source_width,
        } = rectify(image, &card.quad, CARD_WIDTH, height);
        let upsampling = (CARD_WIDTH as f32 / source_width).round().max(1.0) as usize;
        Side {
            kind,
            capture: Capture {
                card_width: card.quad.width(),
                sharpness: cut::sharpness(&rectified, upsampling),
            },
            card: rectified,
            crops: Vec::new(),
            readings: Readings::new(),
        }
    }

    fn stages(
        &self,
        bytes: &[u8],
        accepted: Option<&[DocumentKind]>,
        trace: &mut Trace,
        timer: &mut Timer,
    ) -> Result<Extraction, ExtractError> {
        let decoded = decode::decode(bytes, &self.config.limits)?;
        trace.format = Some(decoded.format);
        let image = decoded.image;
        trace.image_size = Some(image.dimensions());
        timer.lap("decode");

        let found = find_document(
            &image,
            &self.config.locate,
            &self.classifier,
            accepted,
            |stage| timer.lap(stage),
        )
        .ok_or(ExtractError::NoDocumentFound)?;
        let class = found.card.class;
        trace.quad = Some(found.card.quad);
        trace.locate_method = Some(found.card.method);
        trace.classification = Some(class);
        timer.lap("classify");

        let first = self.rectify_card(&image, &found.card);
        trace.sharpness = Some(first.capture.sharpness);
        first.capture.check(&first.card, &self.config)?;
        let capture = first.capture;
        // The other side, too small or soft to read, leaves the card asked for alone.
        let other_side = found
            .other_side
            .map(|card| self.rectify_card(&image, &card))
            .filter(|other| other.capture.check(&other.card, &self.config).is_ok());
        let mut sides: Vec<Side> = std::iter::once(first).chain(other_side).collect();
        timer.lap("rectify");

        for side in &mut sides {
            side.crops = cut::cut_lines(&side.card, &regions(side.kind));
        }
        trace.lines = sides[0]
            .crops
            .iter()
            .map(|c| (c.key.clone(), c.line))
            .collect();
        // A card on which the classifier found another kind likelier is read for
        // its title too.
        let title_check = TitleCheck::of(&class);
        let titles = title_check
            .as_ref()
            .map_or_else(Vec::new, |check| check.crops(&sides[0].card));
        timer.lap("cut_lines");

        // Every side's lines and the titles in one call, so the batcher groups them.
        let crops = sides.iter().flat_map(|s| &s.crops).chain(&titles);
        let crops = crops.map(|c| c.image.clone()).collect();
        let mut readings = self.recognizer.recognize_each(crops)?.into_iter();
        for side in &mut sides {
            let read: Vec<LineReading> = readings.by_ref().take(side.crops.len()).collect();
            side.readings = side.crops.iter().map(|c| c.key.clone()).zip(read).collect();
            side.readings.retain(|_, r| !r.candidates.is_empty());
        }
        timer.lap("recognize");
        if let Some(check) = title_check
            && check.names_rival(&readings.collect::<Vec<_>>())
        {
            return Err(ExtractError::WrongKind {
                found: check.rival.kind,
            });
        }
        if let Some(below) = self.config.second_look_below {
            let mut lines: Vec<SideLines> = sides
                .iter_mut()
                .map(|side| SideLines {
                    layout: layout::builtin(side.kind),
                    crops: &side.crops,
                    readings: &mut side.readings,
                })
                .collect();
            second_look(&*self.recognizer, &mut lines, below)?;
            timer.lap("second_look");
        }

        // The other side adds its fields only when it was read as one.
        let mut sides = sides.into_iter();
        let Some(first) = sides.next() else {
            return Err(ExtractError::Internal("no side was read".into()));
        };
        let mut fields = post::check(first.kind, &first.readings);
        trace.readings = first.readings;
        let mut card = first.card;
        for other in sides {
            let other_fields = post::check(other.kind, &other.readings);
            if read_enough(other.kind, &other_fields).is_ok() {
                fields.extend(other_fields);
                trace.readings.extend(other.readings);
                // The picture of the read shows the other side under the card.
                let below = card.height();
                let lines = other
                    .crops
                    .iter()
                    .map(|c| (c.key.clone(), c.line.moved_down(below)));
                trace.lines.extend(lines);
                card = one_above_the_other(&card, &other.card);
            }
        }
        trace.card = Some(card);
        let processed = post::finish(class.kind, fields);
        trace.fields = processed
            .fields
            .iter()
            .map(|(k, f)| (k.clone(), f.text.clone()))
            .collect();
        timer.lap("post_process");
        verdict(accepted, class.kind, &processed.fields)
            .map_err(|refusal| capture.explain(refusal, &self.config))?;
        Ok(Extraction {
            kind: class.kind,
            flow_a: processed.flow_a,
            flow_b: processed.flow_b,
            confidence: processed.confidence * class.confidence.clamp(0.5, 1.0),
            field_confidence: processed.field_confidence,
            low_confidence_fields: processed.low_confidence_fields,
            timings: Vec::new(),
            overlay: None,
        })
    }
}

/// `top` with `bottom` under it (both [`CARD_WIDTH`] wide).
fn one_above_the_other(top: &GrayImage, bottom: &GrayImage) -> GrayImage {
    let width = top.width().max(bottom.width());
    let mut both = GrayImage::new(width, top.height() + bottom.height());
    image::imageops::replace(&mut both, top, 0, 0);
    image::imageops::replace(&mut both, bottom, 0, i64::from(top.height()));
    both
}

/// One side of a document on its way through the stages: rectified, then its
/// lines cut, then read.
struct Side {
    kind: DocumentKind,
    card: GrayImage,
    capture: Capture,
    crops: Vec<LineCrop>,
    /// By field key; a line the recognizer made nothing of is left out.
    readings: Readings,
}

/// Whether a read document is answered, or why not: the one place that decides.
///
/// A document counts as read when one of the fields that identify its kind
/// (`identifies` in `layouts/<kind>.toml`) was read, or, its identifying field
/// misread, when at least [`LINES_READ`] of its lines were read with a confidence
/// of at least [`LINE_READ`]: a valid document is not refused for one doubtful
/// field (that field is answered empty and listed for review), while what the
/// recognizer makes of noise or a page without a document (no line above 0.07 in
/// our probes) is. Only a document so read is refused as a kind the request does
/// not accept, so `WRONG_ID_TYPE` never names a kind seen in noise.
fn verdict(
    accepted: Option<&[DocumentKind]>,
    kind: DocumentKind,
    fields: &CheckedFields,
) -> Result<(), ExtractError> {
    read_enough(kind, fields)?;
    match accepted {
        Some(accepted) if !accepted.contains(&kind) => Err(ExtractError::WrongKind { found: kind }),
        _ => Ok(()),
    }
}

/// Whether enough of a `kind` document was read for it to be one ([`verdict`]).
fn read_enough(kind: DocumentKind, fields: &CheckedFields) -> Result<(), ExtractError> {
    let layout = layout::builtin(kind);
    let identified = layout
        .identifying_fields()
        .any(|key| fields.get(key).is_some_and(Checked::is_read));
    let lines_read = fields
        .values()
        .filter(|f| !f.text.is_empty() && f.confidence >= LINE_READ)
        .count();
    if !identified && lines_read < LINES_READ {
        let keys: Vec<&str> = layout.identifying_fields().collect();
        return Err(ExtractError::NoTextFound(format!(
            "what looks most like a {kind} shows none of its identifying fields ({}) and {lines_read} lines read with confidence",
            keys.join(", ")
        )));
    }
    Ok(())
}

/// What the upload gave the reader to work with: the card's width in it (pixels)
/// and its sharpness ([`cut::sharpness`]).
#[derive(Debug, Clone, Copy)]
struct Capture {
    card_width: f32,
    sharpness: f32,
}

impl Capture {
    /// Whether the upload shows `card` (rectified) large and sharp enough to read.
    fn check(self, card: &GrayImage, config: &PipelineConfig) -> Result<(), ExtractError> {
        if self.card_width < config.min_card_width {
            return Err(ExtractError::ImageTooSmall(format!(
                "the card is {:.0} pixels wide in it; at least {:.0} are needed",
                self.card_width, config.min_card_width
            )));
        }
        if self.sharpness < config.min_sharpness {
            return Err(if cut::is_blank(card) {
                ExtractError::NoTextFound("the document is blank".into())
            } else {
                ExtractError::TooBlurry
            });
        }
        Ok(())
    }

    /// A document on which nothing was read ([`ExtractError::NoTextFound`]) is
    /// answered with what the user can change: a card too small in the picture
    /// (come closer) or too soft (hold still, focus), when it is.
    fn explain(self, refusal: ExtractError, config: &PipelineConfig) -> ExtractError {
        match refusal {
            ExtractError::NoTextFound(_) if self.card_width < config.readable_card_width => {
                ExtractError::ImageTooSmall(format!(
                    "the card is {:.0} pixels wide in it, too few for what identifies it to be read; {:.0} or more read best",
                    self.card_width, LEGIBLE_CARD_WIDTH
                ))
            }
            ExtractError::NoTextFound(_) if self.sharpness < config.readable_sharpness => {
                ExtractError::TooBlurry
            }
            other => other,
        }
    }
}

/// A phone photo taken to be read shows the card at least this wide (pixels).
pub const LEGIBLE_CARD_WIDTH: f32 = 600.0;

/// How many lines read with a confidence of at least [`LINE_READ`] make a document
/// read even when its identifying field was misread (see [`verdict`]). Of 140
/// held-out photos (seed 777), three have fewer and no identifying field read, and
/// not one of their fields had been read right: two located wrongly (no line above
/// 0.13) and one whose best line reads at 0.59. Noise reads no line above 0.07.
const LINES_READ: usize = 2;

/// See [`LINES_READ`].
const LINE_READ: f32 = 0.5;

impl Extractor for Pipeline {
    fn extract(
        &self,
        bytes: &[u8],
        accepted: &[DocumentKind],
        overlay: bool,
    ) -> Result<Extraction, ExtractError> {
        let (result, trace) = self.run(bytes, Some(accepted));
        let mut extraction = result?;
        if overlay {
            extraction.overlay = Overlay::of_run(&trace, &extraction);
        }
        Ok(extraction)
    }

    fn is_ready(&self) -> bool {
        self.recognizer.is_ready()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(pairs: &[(&str, &str, f32)]) -> CheckedFields {
        pairs
            .iter()
            .map(|&(key, text, confidence)| (key.to_owned(), Checked::new(text, confidence)))
            .collect()
    }

    #[test]
    fn a_document_none_of_whose_identifying_fields_was_read_is_no_text_found() {
        use crate::domain::DocumentKind::*;
        // One name read, the number not: nothing identifies the card.
        let unread = fields(&[("first_name", "باسل", 0.9), ("national_id", "", 0.2)]);
        let err = verdict(None, NidFront, &unread).unwrap_err();
        assert_eq!(err.reason(), "NO_TEXT_FOUND");
        // Its number misread but its names and address read: answered, the number
        // empty, rather than refused for one doubtful field.
        let misread = fields(&[
            ("first_name", "باسل", 0.9),
            ("last_name", "اشرف محمد", 0.7),
            ("national_id", "", 0.2),
        ]);
        assert_eq!(verdict(None, NidFront, &misread), Ok(()));
        // What noise reads: a plate and an owner under the floor.
        let noise = fields(&[
            ("plate_number", "٢٠١٠/٠٤", 0.05),
            ("owner_name", "قسم ثروت", 0.017),
        ]);
        let err = verdict(None, CarLicenceFront, &noise).unwrap_err();
        assert_eq!(err.reason(), "NO_TEXT_FOUND");
        // Either identifying field of a car licence will do.
        let owner = fields(&[("owner_name", "محمد علي", 0.6)]);
        assert_eq!(verdict(None, CarLicenceFront, &owner), Ok(()));
    }

    #[test]
    fn a_card_on_which_nothing_was_read_is_refused_as_too_small_or_too_blurry_when_it_is() {
        use crate::domain::DocumentKind::*;
        let config = PipelineConfig::default();
        let unread = fields(&[("first_name", "باسل", 0.9), ("national_id", "", 0.2)]);
        let refusal = || verdict(None, NidFront, &unread).unwrap_err();
        let explained = |card_width, sharpness| {
            Capture {
                card_width,
                sharpness,
            }
            .explain(refusal(), &config)
        };
        let small = explained(320.0, 500.0);
        assert_eq!(small.reason(), "IMAGE_TOO_SMALL");
        assert!(small.to_string().contains("320 pixels wide"), "{small}");
        assert!(small.to_string().contains("Come closer"), "{small}");
        assert_eq!(explained(700.0, 40.0), ExtractError::TooBlurry);
        assert_eq!(explained(700.0, 500.0).reason(), "NO_TEXT_FOUND");
        // Other refusals stand as they are.
        let wrong = ExtractError::WrongKind { found: Passport };
        let capture = Capture {
            card_width: 320.0,
            sharpness: 40.0,
        };
        assert_eq!(capture.explain(wrong.clone(), &config), wrong);
    }

    #[test]
    fn only_a_document_read_is_refused_as_another_id_type() {
        use crate::domain::DocumentKind::*;
        let read = fields(&[("passport_number", "A12345678", 0.9)]);
        let err = verdict(Some(&[NidBack]), Passport, &read).unwrap_err();
        assert_eq!(err, ExtractError::WrongKind { found: Passport });
        let unread = fields(&[("passport_number", "", 0.3), ("name_en", "AHMED", 0.9)]);
        let err = verdict(Some(&[NidBack]), Passport, &unread).unwrap_err();
        assert_eq!(err.reason(), "NO_TEXT_FOUND");
        assert_eq!(
            verdict(Some(&[Passport, ResidencePermit]), Passport, &read),
            Ok(())
        );
    }
}
