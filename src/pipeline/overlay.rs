//! The picture of a read: the rectified card as the recognizer saw it (grey, at the
//! canonical size; a car licence's two sides read together, one above the other),
//! with the box of every line read drawn on it in the colour of its confidence, and
//! the boxes themselves with what each line fed.
//!
//! Made only on request (`uploadImage?overlay=true`, `hawiya extract --overlay`):
//! it is the one output that carries the image, so nothing else keeps one.

use std::io::Cursor;

use image::codecs::jpeg::JpegEncoder;
use image::{GrayImage, Rgb, RgbImage};
use imageproc::drawing::draw_hollow_rect_mut;
use imageproc::rect::Rect;
use serde::{Deserialize, Serialize};

use super::engine::Trace;
use super::extraction::Extraction;
use super::post::LOW_CONFIDENCE;
use crate::record::build::resting_on;

/// Below this confidence a box is drawn as unsure (red); from it up to
/// [`LOW_CONFIDENCE`], as doubtful (amber); above, as sure (green).
pub const UNSURE_BELOW: f32 = 0.5;

/// JPEG quality of the picture: the print stays legible at about 100 kB.
const QUALITY: u8 = 85;

/// Line width of a box, in card pixels (the card is [`super::CARD_WIDTH`] wide).
const STROKE: i32 = 3;

/// The rectified card with every line read boxed, and the boxes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Overlay {
    /// The picture, JPEG-encoded (not serialized: answers carry it as a data URL,
    /// `hawiya extract` writes it to a file, [`kept`] as base64).
    #[serde(skip)]
    pub jpeg: Vec<u8>,
    /// Size of the picture in pixels: the space of every box.
    pub width: u32,
    pub height: u32,
    /// Every line found on the card, in the layout's order.
    pub fields: Vec<OverlayField>,
}

/// One line found on the card, where it was found and what it fed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverlayField {
    /// The layout's field key (`layouts/<kind>.toml`), e.g. `first_name`.
    pub key: String,
    /// The Flow A fields whose value rests on this line (none when Flow A has no
    /// field for it, e.g. the card's serial).
    pub flow_a: Vec<String>,
    /// The Flow B fields whose value rests on this line.
    pub flow_b: Vec<String>,
    /// The confidence of the field read from this line (0 to 1), 0 when what was
    /// read was not kept.
    pub confidence: f32,
    /// `[x0, y0, x1, y1]` in the picture's pixels (`x1`, `y1` exclusive): the crop
    /// the recognizer read, where the line was found rather than the layout's box.
    #[serde(rename = "box")]
    pub bounds: [u32; 4],
}

/// How sure a box is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Certainty {
    /// At least [`LOW_CONFIDENCE`]: not listed in `low_confidence_fields`.
    Sure,
    /// From [`UNSURE_BELOW`] up to [`LOW_CONFIDENCE`].
    Doubtful,
    /// Under [`UNSURE_BELOW`].
    Unsure,
}

impl Certainty {
    pub fn of(confidence: f32) -> Certainty {
        if confidence >= LOW_CONFIDENCE {
            Certainty::Sure
        } else if confidence >= UNSURE_BELOW {
            Certainty::Doubtful
        } else {
            Certainty::Unsure
        }
    }

    /// Green, amber, red.
    pub fn colour(self) -> Rgb<u8> {
        match self {
            Certainty::Sure => Rgb([26, 152, 80]),
            Certainty::Doubtful => Rgb([235, 140, 0]),
            Certainty::Unsure => Rgb([215, 48, 39]),
        }
    }
}

impl Overlay {
    /// `card` with `fields`' boxes drawn on it, encoded.
    pub fn draw(card: &GrayImage, fields: Vec<OverlayField>) -> Overlay {
        let mut picture = RgbImage::from_fn(card.width(), card.height(), |x, y| {
            let [v] = card.get_pixel(x, y).0;
            Rgb([v, v, v])
        });
        for field in &fields {
            let [x0, y0, x1, y1] = field.bounds.map(|v| v as i32);
            let colour = Certainty::of(field.confidence).colour();
            // Inward from the box's edge, so the stroke never covers the crop's
            // neighbour and a box at the card's edge keeps its full width.
            for inset in 0..STROKE {
                let (width, height) = (x1 - x0 - 2 * inset, y1 - y0 - 2 * inset);
                if width <= 0 || height <= 0 {
                    break;
                }
                let rect = Rect::at(x0 + inset, y0 + inset).of_size(width as u32, height as u32);
                draw_hollow_rect_mut(&mut picture, rect, colour);
            }
        }
        let mut jpeg = Vec::with_capacity(picture.len() / 8);
        picture
            .write_with_encoder(JpegEncoder::new_with_quality(
                Cursor::new(&mut jpeg),
                QUALITY,
            ))
            .expect("encoding an in-memory image of valid size cannot fail");
        Overlay {
            jpeg,
            width: card.width(),
            height: card.height(),
            fields,
        }
    }

    /// The picture of a successful run: its card and the lines it found, with the
    /// confidence and record fields of each. `None` when the run kept no card.
    pub fn of_run(trace: &Trace, extraction: &Extraction) -> Option<Overlay> {
        let card = trace.card.as_ref()?;
        let built = (&extraction.flow_a, &extraction.flow_b);
        let fields = trace
            .lines
            .iter()
            .map(|(key, line)| {
                let resting = resting_on(extraction.kind, &trace.fields, built, key);
                OverlayField {
                    key: key.clone(),
                    flow_a: resting.flow_a,
                    flow_b: resting.flow_b,
                    confidence: extraction.field_confidence.get(key).copied().unwrap_or(0.0),
                    bounds: [line.x0, line.y0, line.x1, line.y1],
                }
            })
            .collect();
        Some(Overlay::draw(card, fields))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Luma;

    fn field(key: &str, confidence: f32, bounds: [u32; 4]) -> OverlayField {
        OverlayField {
            key: key.into(),
            flow_a: Vec::new(),
            flow_b: Vec::new(),
            confidence,
            bounds,
        }
    }

    /// The mean colour of a 1-pixel-wide run of the picture.
    fn colour_at(picture: &RgbImage, x: u32, ys: std::ops::Range<u32>) -> [f32; 3] {
        let n = ys.len() as f32;
        let mut sum = [0.0; 3];
        for y in ys {
            for (s, v) in sum.iter_mut().zip(picture.get_pixel(x, y).0) {
                *s += f32::from(v) / n;
            }
        }
        sum
    }

    fn close(a: [f32; 3], b: Rgb<u8>) -> bool {
        a.iter()
            .zip(b.0)
            .all(|(a, b)| (a - f32::from(b)).abs() < 40.0)
    }

    #[test]
    fn each_box_is_drawn_in_the_colour_of_its_confidence_on_the_grey_card() {
        let card = GrayImage::from_pixel(400, 252, Luma([200]));
        let overlay = Overlay::draw(
            &card,
            vec![
                field("first_name", 0.95, [20, 20, 180, 60]),
                field("last_name", 0.6, [20, 100, 180, 140]),
                field("national_id", 0.1, [200, 180, 400, 252]),
            ],
        );
        assert_eq!((overlay.width, overlay.height), (400, 252));
        let picture = image::load_from_memory_with_format(&overlay.jpeg, image::ImageFormat::Jpeg)
            .expect("the picture is a JPEG")
            .into_rgb8();
        assert_eq!(picture.dimensions(), (400, 252));
        // The left edges, away from the corners (JPEG blurs colour over 8 px).
        assert!(close(colour_at(&picture, 21, 30..50), Rgb([26, 152, 80])));
        assert!(close(colour_at(&picture, 21, 110..130), Rgb([235, 140, 0])));
        // A box reaching the card's edge keeps its stroke inside the picture.
        assert!(close(
            colour_at(&picture, 398, 200..240),
            Rgb([215, 48, 39])
        ));
        // Inside a box and between boxes, the card is its own grey.
        assert!(close(
            colour_at(&picture, 100, 30..50),
            Rgb([200, 200, 200])
        ));
        assert!(close(
            colour_at(&picture, 100, 70..90),
            Rgb([200, 200, 200])
        ));
    }

    #[test]
    fn certainty_follows_the_review_threshold() {
        assert_eq!(Certainty::of(LOW_CONFIDENCE), Certainty::Sure);
        assert_eq!(Certainty::of(0.79), Certainty::Doubtful);
        assert_eq!(Certainty::of(UNSURE_BELOW), Certainty::Doubtful);
        assert_eq!(Certainty::of(0.2), Certainty::Unsure);
    }

    #[test]
    fn boxes_serialize_with_their_names_and_the_picture_does_not() {
        let overlay = Overlay::draw(
            &GrayImage::new(10, 6),
            vec![OverlayField {
                flow_a: vec!["firstname".into()],
                ..field("first_name", 0.9, [1, 1, 5, 4])
            }],
        );
        let json = serde_json::to_value(&overlay).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"width": 10, "height": 6, "fields": [{
                "key": "first_name", "flow_a": ["firstname"], "flow_b": [],
                "confidence": 0.9f32, "box": [1, 1, 5, 4]}]})
        );
    }
}

/// How an [`Extraction`] keeps its overlay while it waits for its reader: the
/// boxes, and the picture as base64 beside them.
pub mod kept {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Overlay;

    #[derive(Serialize)]
    struct KeptRef<'a> {
        jpeg: String,
        #[serde(flatten)]
        overlay: &'a Overlay,
    }

    #[derive(Deserialize)]
    struct Kept {
        jpeg: String,
        #[serde(flatten)]
        overlay: Overlay,
    }

    pub fn serialize<S: Serializer>(
        overlay: &Option<Overlay>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        overlay
            .as_ref()
            .map(|overlay| KeptRef {
                jpeg: STANDARD.encode(&overlay.jpeg),
                overlay,
            })
            .serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Overlay>, D::Error> {
        Option::<Kept>::deserialize(deserializer)?
            .map(|kept| {
                let jpeg = STANDARD
                    .decode(kept.jpeg)
                    .map_err(serde::de::Error::custom)?;
                Ok(Overlay {
                    jpeg,
                    ..kept.overlay
                })
            })
            .transpose()
    }
}
