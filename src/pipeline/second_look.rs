//! A second look at doubtful lines whose field rules choose among hypotheses.
//!
//! Some fields are chosen among the recognizer's hypotheses by a rule of their own:
//! a national ID by its structure and check digit, a name by the name list, an
//! address ending in a governorate by the district list, a passport's second MRZ
//! line by its check digits; `layouts/*.toml` marks them `second_look = true`. When
//! such a line is read with little confidence, its crop is read again as three
//! slightly different images (narrower, wider, and smaller inside a taller margin
//! of paper). The decoder's slips on a dot, a hamza or a blurred digit depend on
//! exactly where the pixels fall, so each image errs differently, and their
//! hypotheses join the first reading's ([`LineReading::second_look`]) for the
//! field's rule to weigh.
//!
//! Only these fields, and only when doubtful: reading every line again about doubles
//! the recognition time (a 1600x1200 NID photo: 198 -> 315 ms p50), while these are
//! the lines whose rules can tell a better candidate when they see one. Dates were
//! tried as well (the NID back's issue and expiry agree seven years apart) and gained
//! nothing.

use image::{GrayImage, Luma, imageops};

use super::cut::LineCrop;
use super::post::{LineReading, Readings};
use super::{ExtractError, LineRecognizer};
use crate::layout::Layout;
use crate::recognizer::preprocess::paper_level;

/// Horizontal scales of the first two variants.
const SCALES: [f32; 2] = [0.9, 1.1];
/// Margin of paper added above and below the third variant, as a share of the crop
/// height.
const MARGIN: f32 = 0.15;

/// The lines of one side of a document, as [`second_look`] reads them again.
pub struct SideLines<'a> {
    pub layout: &'a Layout,
    pub crops: &'a [LineCrop],
    /// By field key, as the first look read them.
    pub readings: &'a mut Readings,
}

/// Reads again, as [`variants`], the crops of the fields each side's layout marks
/// for a second look ([`FieldSpec::second_look`](crate::layout::FieldSpec::second_look))
/// whose best reading is less confident than `below`, and adds what those readings
/// propose to the field's candidates, after its own. Every side's doubtful lines go
/// to the recognizer in one call, so a car licence's two sides are batched together.
pub fn second_look(
    recognizer: &dyn LineRecognizer,
    sides: &mut [SideLines<'_>],
    below: f32,
) -> Result<(), ExtractError> {
    let doubtful: Vec<(usize, &LineCrop)> = sides
        .iter()
        .enumerate()
        .flat_map(|(side, lines)| {
            lines
                .crops
                .iter()
                .filter(|crop| is_doubtful(lines, crop, below))
                .map(move |crop| (side, crop))
        })
        .collect();
    if doubtful.is_empty() {
        return Ok(());
    }
    let images: Vec<GrayImage> = doubtful
        .iter()
        .flat_map(|(_, c)| variants(&c.image))
        .collect();
    let second = recognizer.recognize_each(images)?;
    for (&(side, crop), others) in doubtful.iter().zip(second.chunks(SCALES.len() + 1)) {
        if let Some(reading) = sides[side].readings.get_mut(&crop.key) {
            let proposed = others.iter().flat_map(|o| o.candidates.iter().cloned());
            reading.second_look.extend(proposed);
        }
    }
    Ok(())
}

/// Whether `crop` is of a field its layout marks for a second look, read less
/// confidently than `below`.
fn is_doubtful(lines: &SideLines<'_>, crop: &LineCrop, below: f32) -> bool {
    lines.layout.field(&crop.key).is_some_and(|f| f.second_look)
        && lines
            .readings
            .get(&crop.key)
            .and_then(LineReading::best)
            .is_some_and(|best| best.confidence < below)
}

/// The three variants of a line crop: scaled to 0.9 and 1.1 of its width, and
/// shrunk inside a margin of its own paper so its ink sits smaller in the middle.
pub fn variants(crop: &GrayImage) -> [GrayImage; 3] {
    let (width, height) = crop.dimensions();
    let scaled = |factor: f32| ((width as f32 * factor).round() as u32).max(1);
    let [narrow, wide] =
        SCALES.map(|s| imageops::resize(crop, scaled(s), height, imageops::FilterType::Triangle));
    let margin = (height as f32 * MARGIN).round() as u32;
    let mut framed = GrayImage::from_pixel(width, height + 2 * margin, Luma([paper_level(crop)]));
    imageops::replace(&mut framed, crop, 0, margin.into());
    [narrow, wide, framed]
}

#[cfg(test)]
mod tests {
    use super::*;
    use parking_lot::Mutex;

    /// Reads every crop as its width in digits, and records how many it was given.
    struct WidthProbe {
        calls: Mutex<Vec<usize>>,
        confidence: f32,
    }

    impl LineRecognizer for WidthProbe {
        fn recognize(&self, crops: Vec<GrayImage>) -> Result<Vec<LineReading>, ExtractError> {
            self.calls.lock().push(crops.len());
            Ok(crops
                .iter()
                .map(|c| LineReading::single(c.width().to_string(), self.confidence))
                .collect())
        }

        fn is_ready(&self) -> bool {
            true
        }
    }

    fn crop(key: &str, width: u32) -> LineCrop {
        LineCrop {
            key: key.into(),
            line: crate::pipeline::cut::LineBox {
                x0: 0,
                y0: 0,
                x1: width,
                y1: 20,
            },
            image: GrayImage::from_pixel(width, 20, Luma([200])),
        }
    }

    fn texts(candidates: &[Candidate]) -> Vec<&str> {
        candidates.iter().map(|c| c.text.as_str()).collect()
    }

    use crate::pipeline::post::Candidate;

    fn nid_front() -> &'static Layout {
        crate::layout::builtin(crate::domain::DocumentKind::NidFront)
    }

    #[test]
    fn variants_are_narrower_wider_and_framed_in_paper() {
        let mut line = GrayImage::from_pixel(100, 20, Luma([220]));
        for x in 10..90 {
            for y in 8..12 {
                line.put_pixel(x, y, Luma([30]));
            }
        }
        let [narrow, wide, framed] = variants(&line);
        assert_eq!(narrow.dimensions(), (90, 20));
        assert_eq!(wide.dimensions(), (110, 20));
        assert_eq!(framed.dimensions(), (100, 26));
        assert_eq!(framed.get_pixel(50, 0).0, [220], "the margin is paper");
        assert_eq!(framed.get_pixel(50, 3 + 9).0, [30], "the ink moved down");
    }

    #[test]
    fn a_doubtful_rule_chosen_line_gains_its_variants_candidates_after_its_own() {
        let crops = [crop("national_id", 100), crop("address_line1", 60)];
        let mut readings = Readings::from([
            ("national_id".into(), LineReading::single("first", 0.3)),
            ("address_line1".into(), LineReading::single("address", 0.3)),
        ]);
        let probe = WidthProbe {
            calls: Mutex::new(Vec::new()),
            confidence: 0.9,
        };
        let mut sides = [SideLines {
            layout: nid_front(),
            crops: &crops,
            readings: &mut readings,
        }];
        second_look(&probe, &mut sides, 0.5).unwrap();
        assert_eq!(*probe.calls.lock(), [3], "one call with the three variants");
        let id = &readings["national_id"];
        assert_eq!(texts(&id.candidates), ["first"]);
        assert_eq!(texts(&id.second_look), ["90", "110", "100"]);
        assert_eq!(texts(&readings["address_line1"].candidates), ["address"]);
        assert!(readings["address_line1"].second_look.is_empty());
    }

    #[test]
    fn a_confident_line_is_not_read_again() {
        let crops = [crop("first_name", 100)];
        let mut readings =
            Readings::from([("first_name".into(), LineReading::single("محمد", 0.9))]);
        let probe = WidthProbe {
            calls: Mutex::new(Vec::new()),
            confidence: 0.2,
        };
        let mut sides = [SideLines {
            layout: nid_front(),
            crops: &crops,
            readings: &mut readings,
        }];
        second_look(&probe, &mut sides, 0.5).unwrap();
        assert!(probe.calls.lock().is_empty());
        assert_eq!(readings["first_name"], LineReading::single("محمد", 0.9));
    }

    #[test]
    fn two_sides_doubtful_lines_are_read_again_in_one_call() {
        let back = crate::layout::builtin(crate::domain::DocumentKind::NidBack);
        let front_crops = [crop("national_id", 100)];
        let back_crops = [crop("national_id", 80)];
        let doubtful = || Readings::from([("national_id".into(), LineReading::single("x", 0.3))]);
        let (mut front_readings, mut back_readings) = (doubtful(), doubtful());
        let probe = WidthProbe {
            calls: Mutex::new(Vec::new()),
            confidence: 0.9,
        };
        let mut sides = [
            SideLines {
                layout: nid_front(),
                crops: &front_crops,
                readings: &mut front_readings,
            },
            SideLines {
                layout: back,
                crops: &back_crops,
                readings: &mut back_readings,
            },
        ];
        second_look(&probe, &mut sides, 0.5).unwrap();
        assert_eq!(
            *probe.calls.lock(),
            [6],
            "one call with both sides' variants"
        );
        assert_eq!(
            texts(&front_readings["national_id"].second_look),
            ["90", "110", "100"]
        );
        assert_eq!(
            texts(&back_readings["national_id"].second_look),
            ["72", "88", "80"]
        );
    }
}
