//! Draws one document side from its layout and content: background, graphics, fixed
//! texts, fields and the SPECIMEN mark, recording where every text line landed.

use image::RgbImage;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::face::{Emblem, Face, HeaderArt};
use super::fonts::FontId;
use super::graphics::{self, PxRect};
use super::inventory::FontSet;
use super::paint;
use super::print::PrintStyle;
use super::text::{ShapedLine, TextEngine, TextMask};
use super::{FontError, background, with_engine};
use crate::domain::digits::to_persian;
use crate::layout::LineCategory;
use crate::layout::{self, Align, GraphicKind, Layout, Script, Style, UnitRect};
use crate::synth::SynthDocument;
use crate::synth::degrade::uniform;

/// A text line as printed on the card, with its ink box in card pixels.
#[derive(Debug, Clone, Serialize)]
pub struct PrintedLine {
    /// The field key, or `None` for a fixed text (header, label).
    pub key: Option<String>,
    pub text: String,
    pub category: LineCategory,
    pub script: Script,
    /// The font family it is printed in (`fonts/families.toml`).
    pub font: &'static str,
    /// `[x0, y0, x1, y1]` around the inked pixels, padded by a pixel.
    pub rect: [f32; 4],
}

/// A rendered document side.
#[derive(Debug, Clone)]
pub struct RenderedCard {
    pub image: RgbImage,
    /// Corner radius in pixels (the card outside it is not part of the document).
    pub corner_radius: f32,
    pub fields: Vec<PrintedLine>,
    pub fixed: Vec<PrintedLine>,
    /// The Arabic font family its fields are printed in.
    pub font: &'static str,
    /// The design it is printed on.
    pub face: Face,
}

/// Fonts chosen for one document: one face per role, as a printer would.
struct Faces {
    body: FontId,
    header: FontId,
    latin: FontId,
    mrz: FontId,
}

impl Faces {
    fn for_script(&self, script: Script, header: bool) -> FontId {
        match script {
            Script::Arabic if header => self.header,
            Script::Arabic => self.body,
            Script::Latin => self.latin,
            Script::Mrz => self.mrz,
        }
    }
}

/// Renders `doc` with the card `width` pixels wide, in fonts of the families of
/// `fonts`, on `face`.
pub fn render_card(
    doc: &SynthDocument,
    width: u32,
    fonts: FontSet,
    face: &Face,
    rng: &mut ChaCha8Rng,
) -> Result<RenderedCard, FontError> {
    let layout = layout::builtin(doc.kind);
    let height = (width as f32 / layout.page.aspect()).round() as u32;
    let style = face.style(&layout.style);
    let mut image = background::printed(&style, face.pattern(), width, height, rng);
    with_engine(|engine| {
        let library = engine.library();
        let body = library.pick(Script::Arabic, fonts, rng);
        let faces = Faces {
            body,
            header: if rng.random_bool(0.6) {
                body
            } else {
                library.pick(Script::Arabic, fonts, rng)
            },
            latin: library.pick(Script::Latin, fonts, rng),
            mrz: library.pick(Script::Mrz, fonts, rng),
        };
        let printer = Printer::draw(style.ink.0, rng);
        // A face that draws `٤ ٥ ٦` in their Persian forms, now and then.
        let persian_digits = library.font(faces.body).covers('۴')
            && rng.random_bool(crate::synth::texts::PERSIAN_DIGITS_SHARE);
        let corner_radius = layout.page.corner_radius_mm / layout.page.width_mm * width as f32;
        let mut card = Card {
            image: &mut image,
            layout,
            style,
            face,
            width: width as f32,
            height: height as f32,
            persian_digits,
        };
        card.draw_face_art(corner_radius, rng);
        card.draw_graphics(engine, doc, &faces, rng);
        let fixed = card.draw_fixed_texts(engine, &faces, rng);
        let fields = card.draw_fields(engine, doc, &faces, &printer, rng);
        card.draw_specimen_mark(engine, &faces);
        if face.wear != super::face::Wear::Fresh {
            for p in image.pixels_mut() {
                p.0 = face.wear_pixel(p.0);
            }
        }
        RenderedCard {
            corner_radius,
            image,
            fields,
            fixed,
            font: &library.font(faces.body).family.name,
            face: face.clone(),
        }
    })
}

/// How a text is printed: face, script, ink and the printer's variation.
struct Pen {
    font: FontId,
    script: Script,
    color: [u8; 3],
    opacity: f32,
    print: PrintStyle,
}

/// The printer that fills in a card's fields: its style and its ink, which may be
/// tinted (blue-black, brown-black) and faded rather than the layout's.
struct Printer {
    style: PrintStyle,
    ink: [u8; 3],
}

impl Printer {
    fn draw(layout_ink: [u8; 3], rng: &mut ChaCha8Rng) -> Printer {
        const TINTS: [[u8; 3]; 3] = [[25, 35, 95], [70, 45, 30], [45, 45, 45]];
        let style = PrintStyle::draw(rng);
        let mut ink = layout_ink;
        if rng.random_bool(0.3) {
            let tint = TINTS[rng.random_range(0..TINTS.len())];
            let t = uniform(rng, 0.4, 1.0);
            ink = std::array::from_fn(|i| (ink[i] as f32 * (1.0 - t) + tint[i] as f32 * t) as u8);
        }
        if rng.random_bool(0.25) {
            let fade = rng.random_range(10..50u8);
            ink = ink.map(|v| v.saturating_add(fade));
        }
        Printer { style, ink }
    }
}

struct Card<'a> {
    image: &'a mut RgbImage,
    layout: &'static Layout,
    /// The layout's colours on this face.
    style: Style,
    face: &'a Face,
    width: f32,
    height: f32,
    /// Arabic fields print their digits in the Persian forms (the truth keeps the
    /// Arabic-Indic ones).
    persian_digits: bool,
}

/// Where the baseline sits below the box centre, in ems: Arabic ink is centred a little
/// above its baseline, Latin capitals further above.
fn baseline_offset(script: Script) -> f32 {
    match script {
        Script::Arabic => 0.22,
        Script::Latin | Script::Mrz => 0.36,
    }
}

impl Card<'_> {
    /// Where the face prints the layout's box `r`, in card pixels.
    fn px(&self, r: UnitRect) -> PxRect {
        let face = self.face;
        [
            face.place(r.x0, 0) * self.width,
            face.place(r.y0, 1) * self.height,
            face.place(r.x1, 0) * self.width,
            face.place(r.y1, 1) * self.height,
        ]
    }

    /// [`px`](Self::px), the box moved on its own by up to the face's jitter.
    fn jittered(&self, r: UnitRect, rng: &mut ChaCha8Rng) -> PxRect {
        let j = self.face.jitter;
        let (dx, dy) = (
            uniform(rng, -j, j) * self.width,
            uniform(rng, -j, j) * self.height,
        );
        let [x0, y0, x1, y1] = self.px(r);
        [x0 + dx, y0 + dy, x1 + dx, y1 + dy]
    }

    /// The face's own art under everything the layout prints: a band, stripes or a
    /// panel behind the header rows, and a frame.
    fn draw_face_art(&mut self, corner_radius: f32, rng: &mut ChaCha8Rng) {
        let accent = self.style.accent.0;
        // The header rows: the accent texts in the card's top third.
        let headers = self
            .layout
            .fixed_texts
            .iter()
            .filter(|t| t.accent && t.rect.y1 <= 0.33)
            .map(|t| self.px(t.rect))
            .reduce(|a, b| [a[0], a[1].min(b[1]), a[2], a[3].max(b[3])]);
        if let Some([_, top, _, bottom]) = headers {
            let (w, h) = (self.width, self.height);
            match self.face.header {
                HeaderArt::Layout => {}
                HeaderArt::FlatBand => graphics::flat_band(
                    self.image,
                    [0.0, top - 0.015 * h, w, bottom + 0.015 * h],
                    accent,
                    rng,
                ),
                HeaderArt::Stripes => graphics::flag_stripes(self.image, [0.0, 0.0, w, 0.03 * h]),
                HeaderArt::WavyPanel => {
                    graphics::wavy_panel(self.image, [0.0, 0.0, w, bottom + 0.05 * h], accent, rng)
                }
            }
        }
        if self.face.frame {
            let inset = 0.025 * self.height;
            let width = (0.004 * self.width).max(1.0);
            graphics::frame(self.image, inset, corner_radius * 0.6, accent, width);
        }
    }

    fn draw_graphics(
        &mut self,
        engine: &mut TextEngine,
        doc: &SynthDocument,
        faces: &Faces,
        rng: &mut ChaCha8Rng,
    ) {
        let accent = self.style.accent.0;
        let emblem = self.face.emblem;
        // Background elements first, the portrait and barcode on top.
        let order = [
            GraphicKind::Watermark,
            GraphicKind::Pyramids,
            GraphicKind::Band,
            GraphicKind::Hologram,
            GraphicKind::Emblem,
            GraphicKind::Plate,
            GraphicKind::Chip,
            GraphicKind::Barcode,
            GraphicKind::Photo,
            GraphicKind::GhostPhoto,
            GraphicKind::Signature,
        ];
        for kind in order {
            for g in self.layout.graphics.iter().filter(|g| g.kind == kind) {
                let rect = self.jittered(g.rect, rng);
                match kind {
                    GraphicKind::Watermark => {
                        let seal = emblem == Emblem::Seal;
                        graphics::watermark(self.image, rect, accent, seal, rng)
                    }
                    GraphicKind::Band => graphics::band(self.image, rect, accent, rng),
                    GraphicKind::Hologram => graphics::hologram(self.image, rect, rng),
                    GraphicKind::Emblem => match emblem {
                        Emblem::Eagle => graphics::emblem(self.image, rect, accent, 0.85),
                        Emblem::Seal => graphics::seal(self.image, rect, accent, 0.85),
                        Emblem::Omitted => {}
                    },
                    GraphicKind::Chip => graphics::chip(self.image, rect),
                    GraphicKind::Barcode => graphics::barcode(self.image, rect, rng),
                    GraphicKind::Photo => graphics::portrait(self.image, rect, rng, 1.0),
                    GraphicKind::GhostPhoto => graphics::portrait(self.image, rect, rng, 0.25),
                    GraphicKind::Signature => graphics::signature(self.image, rect, rng),
                    GraphicKind::Plate => {
                        let usage = doc
                            .fields
                            .get("usage_type")
                            .map(String::as_str)
                            .unwrap_or("");
                        graphics::plate(self.image, rect, plate_band_color(usage));
                        self.draw_plate_band_text(engine, rect, faces);
                    }
                    GraphicKind::Pyramids => {
                        graphics::pyramids(self.image, rect, self.style.pattern.0, rng)
                    }
                    GraphicKind::Specimen => {}
                }
            }
        }
    }

    /// `مصر` and `EGYPT` in the plate's top band.
    fn draw_plate_band_text(&mut self, engine: &mut TextEngine, rect: PxRect, faces: &Faces) {
        let [x0, y0, x1, y1] = rect;
        let band_h = (y1 - y0) * 0.3;
        let px = (band_h * 0.55).round();
        let baseline = (y0 + band_h * 0.5 + px * 0.3).round() as i32;
        let ar = engine.render("مصر", faces.header, px);
        let en = engine.render("EGYPT", faces.latin, (px * 0.8).round());
        let pad = (x1 - x0) * 0.08;
        paint::draw_text(
            self.image,
            &ar,
            (x1 - pad - ar.width) as i32,
            baseline,
            [20, 20, 20],
            1.0,
        );
        paint::draw_text(
            self.image,
            &en,
            (x0 + pad) as i32,
            baseline,
            [20, 20, 20],
            1.0,
        );
    }

    fn draw_fixed_texts(
        &mut self,
        engine: &mut TextEngine,
        faces: &Faces,
        rng: &mut ChaCha8Rng,
    ) -> Vec<PrintedLine> {
        let layout = self.layout;
        let accent = self.style.accent.0;
        let mut lines = Vec::new();
        for fixed in &layout.fixed_texts {
            // Headers and labels (accent colour) may use a second face; plain fixed
            // texts are printed with the fields.
            let font = faces.for_script(fixed.script, fixed.accent);
            let color = if fixed.accent {
                accent
            } else {
                self.style.ink.0
            };
            let size = uniform(rng, fixed.size.min, fixed.size.max);
            // Pre-printed on the blank card: no printer's variation.
            let pen = Pen {
                font,
                script: fixed.script,
                color,
                opacity: 0.95,
                print: PrintStyle::PLAIN,
            };
            let rect = self.draw_text_in_box(
                engine,
                &fixed.text,
                &pen,
                (fixed.rect, fixed.align, size),
                rng,
            );
            lines.push(PrintedLine {
                key: None,
                text: fixed.text.clone(),
                category: fixed.category(),
                script: fixed.script,
                font: &engine.library().font(font).family.name,
                rect,
            });
        }
        lines
    }

    fn draw_fields(
        &mut self,
        engine: &mut TextEngine,
        doc: &SynthDocument,
        faces: &Faces,
        printer: &Printer,
        rng: &mut ChaCha8Rng,
    ) -> Vec<PrintedLine> {
        let layout = self.layout;
        let ink = printer.ink;
        let mut lines = Vec::new();
        for spec in &layout.fields {
            let Some(truth) = doc.fields.get(&spec.key).filter(|t| !t.trim().is_empty()) else {
                continue;
            };
            let printed = match spec.script {
                Script::Arabic if self.persian_digits => to_persian(truth),
                _ => truth.clone(),
            };
            let text = &printed;
            let font = faces.for_script(spec.script, false);
            let size = uniform(rng, spec.size.min, spec.size.max);
            let jitter = rng.random_range(0..18u8);
            let color = ink.map(|v| v.saturating_add(jitter));
            let opacity = uniform(rng, 0.88, 1.0);
            let pen = Pen {
                font,
                script: spec.script,
                color,
                opacity,
                print: printer.style,
            };
            let rect = match plate_halves(text).filter(|_| spec.plate) {
                Some((letters, digits)) => {
                    let mid = (spec.rect.x0 + spec.rect.x1) / 2.0;
                    let right = UnitRect {
                        x0: mid,
                        ..spec.rect
                    };
                    let left = UnitRect {
                        x1: mid,
                        ..spec.rect
                    };
                    let a = self.draw_text_in_box(
                        engine,
                        letters,
                        &pen,
                        (right, Align::Center, size),
                        rng,
                    );
                    let b = self.draw_text_in_box(
                        engine,
                        digits,
                        &pen,
                        (left, Align::Center, size),
                        rng,
                    );
                    [
                        a[0].min(b[0]),
                        a[1].min(b[1]),
                        a[2].max(b[2]),
                        a[3].max(b[3]),
                    ]
                }
                None => {
                    self.draw_text_in_box(engine, text, &pen, (spec.rect, spec.align, size), rng)
                }
            };
            lines.push(PrintedLine {
                key: Some(spec.key.clone()),
                text: truth.clone(),
                category: spec.category,
                script: spec.script,
                font: &engine.library().font(font).family.name,
                rect,
            });
        }
        lines
    }

    /// Draws `text` in `rect`, aligned, at `size` (em as a fraction of the card
    /// height), shrunk to fit the box width; returns the ink box.
    fn draw_text_in_box(
        &mut self,
        engine: &mut TextEngine,
        text: &str,
        pen: &Pen,
        (rect, align, size): (UnitRect, Align, f32),
        rng: &mut ChaCha8Rng,
    ) -> [f32; 4] {
        let [bx0, by0, bx1, by1] = self.jittered(rect, rng);
        let mut px = (size * self.height).max(6.0);
        let (font, script, print) = (pen.font, pen.script, &pen.print);
        let mut shape = |px: f32| engine.shape_tracked(text, font, px, print.tracking * px);
        let printed_width = |line: &ShapedLine| line.width * print.scale_x;
        let mut shaped = shape(px);
        let box_w = bx1 - bx0;
        if printed_width(&shaped) > box_w {
            px = (px * box_w / printed_width(&shaped) * 0.98).max(4.0);
            shaped = shape(px);
        }
        let mask: TextMask = print.apply(engine.rasterize(&shaped), px, rng);
        let x = match align {
            Align::Left => bx0,
            Align::Center => (bx0 + bx1 - mask.width) / 2.0,
            Align::Right => bx1 - mask.width,
        }
        .round() as i32;
        let baseline = ((by0 + by1) / 2.0 + baseline_offset(script) * px).round() as i32;
        paint::draw_text(self.image, &mask, x, baseline, pen.color, pen.opacity);
        let left = (x - mask.origin_x) as f32;
        let top = (baseline - mask.baseline) as f32;
        let [ix0, iy0, ix1, iy1] = mask.ink.map(|v| v as f32);
        [
            (left + ix0 - 1.0).max(0.0),
            (top + iy0 - 1.0).max(0.0),
            (left + ix1 + 1.0).min(self.width),
            (top + iy1 + 1.0).min(self.height),
        ]
    }

    /// The SPECIMEN / عينة mark: semi-transparent red, tilted, over the layout's
    /// specimen box (the portrait on cards that have one).
    fn draw_specimen_mark(&mut self, engine: &mut TextEngine, faces: &Faces) {
        let rects: Vec<PxRect> = self
            .layout
            .graphics
            .iter()
            .filter(|g| g.kind == GraphicKind::Specimen)
            .map(|g| self.px(g.rect))
            .collect();
        for [x0, y0, x1, y1] in rects {
            let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
            let diag = ((x1 - x0).powi(2) + (y1 - y0).powi(2)).sqrt();
            let px = (diag * 0.11).round().max(8.0);
            let latin = engine.render("SPECIMEN", faces.latin, px);
            let arabic = engine.render("عينة", faces.header, (px * 1.1).round());
            let angle = -((y1 - y0) / (x1 - x0)).atan() * 0.8;
            let red = [200, 30, 30];
            draw_rotated(self.image, &latin, (cx, cy - px * 0.45), angle, red, 0.4);
            draw_rotated(self.image, &arabic, (cx, cy + px * 0.75), angle, red, 0.4);
        }
    }
}

/// A plate number split into its letters and its digits (`ن ص ر ١٢٣`).
fn plate_halves(text: &str) -> Option<(&str, &str)> {
    let split = text.find(|c: char| crate::domain::digits::digit_value(c).is_some())?;
    let (letters, digits) = (text[..split].trim(), text[split..].trim());
    (!letters.is_empty() && !digits.is_empty()).then_some((letters, digits))
}

/// Top band colour of an Egyptian plate by use (domain.md §3.3).
fn plate_band_color(usage: &str) -> [u8; 3] {
    if usage.contains("أجرة") {
        [235, 140, 40]
    } else if usage.contains("نقل") {
        [200, 50, 45]
    } else if usage.contains("ملاكي") || usage.is_empty() {
        [110, 170, 220]
    } else {
        [150, 150, 150]
    }
}

/// Draws a mask rotated by `angle` (radians) around its ink centre placed at `center`.
fn draw_rotated(
    img: &mut RgbImage,
    mask: &TextMask,
    center: (f32, f32),
    angle: f32,
    color: [u8; 3],
    opacity: f32,
) {
    let (mw, mh) = (mask.alpha.width() as f32, mask.alpha.height() as f32);
    let (s, c) = angle.sin_cos();
    let r = (mw * mw + mh * mh).sqrt() / 2.0 + 2.0;
    let (cx, cy) = center;
    for y in (cy - r) as i32..(cy + r) as i32 {
        for x in (cx - r) as i32..(cx + r) as i32 {
            let (dx, dy) = (x as f32 + 0.5 - cx, y as f32 + 0.5 - cy);
            // Inverse rotation into mask coordinates.
            let u = dx * c + dy * s + mw / 2.0;
            let v = -dx * s + dy * c + mh / 2.0;
            if u < 0.0 || v < 0.0 || u >= mw - 1.0 || v >= mh - 1.0 {
                continue;
            }
            let (iu, iv) = (u as u32, v as u32);
            let (fu, fv) = (u - iu as f32, v - iv as f32);
            let p = |a: u32, b: u32| mask.alpha.get_pixel(a, b).0[0] as f32;
            let a = (p(iu, iv) * (1.0 - fu) + p(iu + 1, iv) * fu) * (1.0 - fv)
                + (p(iu, iv + 1) * (1.0 - fu) + p(iu + 1, iv + 1) * fu) * fv;
            paint::blend(img, x, y, color, a / 255.0 * opacity);
        }
    }
}
