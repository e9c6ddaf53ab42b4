//! The layout file format (`layouts/<kind>.toml`) and its validation.

use serde::Deserialize;

use super::LineCategory;
use crate::domain::DocumentKind;

/// Why a layout file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum LayoutError {
    #[error("layout is not valid TOML for the schema: {0}")]
    Toml(#[from] toml::de::Error),
    #[error("layout of {kind}: {reason}")]
    Invalid { kind: DocumentKind, reason: String },
}

/// One document side: its page, fixed texts, graphics and variable fields.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layout {
    pub kind: DocumentKind,
    /// Free text saying where the layout comes from (measured, designed by us...).
    #[serde(default)]
    pub provenance: String,
    pub page: Page,
    #[serde(default)]
    pub style: Style,
    #[serde(default, rename = "fixed")]
    pub fixed_texts: Vec<FixedText>,
    #[serde(default, rename = "graphic")]
    pub graphics: Vec<Graphic>,
    #[serde(rename = "field")]
    pub fields: Vec<FieldSpec>,
}

/// Physical size of the document side.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Page {
    pub width_mm: f32,
    pub height_mm: f32,
    #[serde(default)]
    pub corner_radius_mm: f32,
}

impl Page {
    /// Width over height.
    pub fn aspect(&self) -> f32 {
        self.width_mm / self.height_mm
    }
}

/// A box as fractions of the card's width (x) and height (y), origin top-left.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UnitRect {
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
}

impl UnitRect {
    pub fn width(&self) -> f32 {
        self.x1 - self.x0
    }
    pub fn height(&self) -> f32 {
        self.y1 - self.y0
    }
    pub fn center_y(&self) -> f32 {
        (self.y0 + self.y1) / 2.0
    }
    fn is_valid(&self) -> bool {
        let in_unit = |v: f32| (0.0..=1.0).contains(&v);
        in_unit(self.x0)
            && in_unit(self.x1)
            && in_unit(self.y0)
            && in_unit(self.y1)
            && self.x0 < self.x1
            && self.y0 < self.y1
    }
}

impl<'de> Deserialize<'de> for UnitRect {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let [x0, y0, x1, y1] = <[f32; 4]>::deserialize(deserializer)?;
        Ok(UnitRect { x0, y0, x1, y1 })
    }
}

/// Horizontal alignment of a text inside its box. Arabic fields are right-aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Align {
    Left,
    Center,
    #[default]
    Right,
}

/// Which family of fonts prints a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Script {
    /// Arabic letters and Arabic-Indic digits (bold Arabic fonts).
    Arabic,
    /// Latin letters and ASCII digits (bold sans fonts).
    Latin,
    /// ICAO machine-readable zone (OCR-B).
    Mrz,
}

/// Em height of the font as a fraction of the card height: `[min, max]`; the renderer
/// draws a size in the range and shrinks further only when the text would not fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FontSize {
    pub min: f32,
    pub max: f32,
}

impl<'de> Deserialize<'de> for FontSize {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let [min, max] = <[f32; 2]>::deserialize(deserializer)?;
        Ok(FontSize { min, max })
    }
}

/// An sRGB colour written `"#rrggbb"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub [u8; 3]);

impl<'de> Deserialize<'de> for Rgb {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let hex = text
            .strip_prefix('#')
            .filter(|h| h.len() == 6 && h.is_ascii());
        let parse = |h: &str, i: usize| u8::from_str_radix(&h[i..i + 2], 16).ok();
        match hex.and_then(|h| Some([parse(h, 0)?, parse(h, 2)?, parse(h, 4)?])) {
            Some(rgb) => Ok(Rgb(rgb)),
            None => Err(serde::de::Error::custom(format!(
                "`{text}` is not a #rrggbb colour"
            ))),
        }
    }
}

/// Colours of the card; only the renderer uses them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Style {
    /// Background gradient, from the left edge to the right edge.
    pub paper: [Rgb; 2],
    /// Colour of the guilloche line pattern.
    pub pattern: Rgb,
    /// Headers, labels and graphics.
    pub accent: Rgb,
    /// Field text.
    pub ink: Rgb,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            paper: [Rgb([236, 236, 228]), Rgb([226, 232, 236])],
            pattern: Rgb([150, 160, 175]),
            accent: Rgb([40, 60, 110]),
            ink: Rgb([20, 20, 24]),
        }
    }
}

/// A text printed identically on every card of the kind (headers, labels).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedText {
    pub text: String,
    #[serde(rename = "box")]
    pub rect: UnitRect,
    #[serde(default)]
    pub align: Align,
    pub size: FontSize,
    pub script: Script,
    /// Printed in the accent colour rather than the ink colour.
    #[serde(default)]
    pub accent: bool,
    /// The card's title: the words that name its kind (`رخصة قيادة`), at most one
    /// per layout.
    #[serde(default)]
    pub title: bool,
}

impl FixedText {
    /// The line category of the text: Arabic labels and headers are `Other`, the
    /// rest `Latin`.
    pub fn category(&self) -> LineCategory {
        if self.script == Script::Arabic {
            LineCategory::Other
        } else {
            LineCategory::Latin
        }
    }
}

/// What a graphic element is; the renderer draws each procedurally.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GraphicKind {
    /// The holder's portrait (a procedural placeholder, never a real face).
    Photo,
    /// A small faint second portrait (ghost image).
    GhostPhoto,
    /// A seal or eagle-like emblem drawn in the accent colour.
    Emblem,
    /// A large, very faint emblem behind the text.
    Watermark,
    /// A stacked 2-D barcode (PDF417-like).
    Barcode,
    /// A coloured band across the box.
    Band,
    /// A contact chip.
    Chip,
    /// An iridescent hologram patch.
    Hologram,
    /// A licence-plate frame with a coloured top band.
    Plate,
    /// A signature scribble.
    Signature,
    /// Faint pyramids on a horizon (National ID front background).
    Pyramids,
    /// Where the SPECIMEN / عينة mark is printed (every synthetic document has one).
    Specimen,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Graphic {
    pub kind: GraphicKind,
    #[serde(rename = "box")]
    pub rect: UnitRect,
}

/// One variable field: `key` is the field name of `SynthDocument::fields` (`layouts/<kind>.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldSpec {
    pub key: String,
    #[serde(rename = "box")]
    pub rect: UnitRect,
    #[serde(default)]
    pub align: Align,
    pub size: FontSize,
    pub script: Script,
    pub category: LineCategory,
    /// An Egyptian plate: the letters go in the right half of the box and the digits
    /// in the left half, as on the metal plate.
    #[serde(default)]
    pub plate: bool,
    /// The field identifies the document (a National ID's number, a car licence's
    /// plate or owner, a passport's number or machine-readable zone): a document is
    /// answered as read only when at least one such field was.
    #[serde(default)]
    pub identifies: bool,
    /// Printed on some cards only (a workplace, a husband): a blank box is a valid
    /// reading, not a line lost.
    #[serde(default)]
    pub optional: bool,
    /// The field's rule chooses among the recognizer's hypotheses (a check digit, a
    /// name list, a district list, MRZ check digits), so a doubtful line is read again
    /// from variants of its crop for the rule to weigh (`pipeline::second_look`).
    #[serde(default)]
    pub second_look: bool,
}

impl Layout {
    /// Parses and validates a layout file.
    pub fn from_toml(source: &str) -> Result<Layout, LayoutError> {
        let layout: Layout = toml::from_str(source)?;
        layout.validate()?;
        Ok(layout)
    }

    /// The field spec named `key`, if the layout prints it.
    pub fn field(&self, key: &str) -> Option<&FieldSpec> {
        self.fields.iter().find(|f| f.key == key)
    }

    /// The keys of the fields that identify the document ([`FieldSpec::identifies`]).
    pub fn identifying_fields(&self) -> impl Iterator<Item = &str> {
        self.fields
            .iter()
            .filter(|f| f.identifies)
            .map(|f| f.key.as_str())
    }

    /// The fixed text that names the kind ([`FixedText::title`]), if it prints one.
    pub fn title(&self) -> Option<&FixedText> {
        self.fixed_texts.iter().find(|t| t.title)
    }

    fn validate(&self) -> Result<(), LayoutError> {
        let invalid = |reason: String| LayoutError::Invalid {
            kind: self.kind,
            reason,
        };
        if !(self.page.width_mm > 0.0 && self.page.height_mm > 0.0) {
            return Err(invalid("page size must be positive".into()));
        }
        // A printed text (`what` names it) needs a box on the card and a sane size range.
        let check_text = |what: &str, name: &str, rect: &UnitRect, size: &FontSize| {
            if !rect.is_valid() {
                return Err(invalid(format!(
                    "{what} `{name}`: box {rect:?} is not inside the card"
                )));
            }
            if size.min > 0.0 && size.min <= size.max && size.max < 0.5 {
                Ok(())
            } else {
                Err(invalid(format!(
                    "{name}: font size range {size:?} is not 0 < min <= max < 0.5"
                )))
            }
        };
        for (i, field) in self.fields.iter().enumerate() {
            check_text("field", &field.key, &field.rect, &field.size)?;
            if self.fields[..i].iter().any(|f| f.key == field.key) {
                return Err(invalid(format!("field `{}` appears twice", field.key)));
            }
        }
        if self.identifying_fields().next().is_none() {
            return Err(invalid(
                "no field identifies the document (`identifies = true`)".into(),
            ));
        }
        for text in &self.fixed_texts {
            check_text("fixed text", &text.text, &text.rect, &text.size)?;
        }
        if self.fixed_texts.iter().filter(|t| t.title).count() > 1 {
            return Err(invalid("more than one fixed text is the title".into()));
        }
        if let Some(g) = self.graphics.iter().find(|g| !g.rect.is_valid()) {
            return Err(invalid(format!(
                "graphic {:?}: box {:?} is not inside the card",
                g.kind, g.rect
            )));
        }
        Ok(())
    }
}
