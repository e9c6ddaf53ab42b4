//! Shaping and rasterising one line of text with cosmic-text (HarfRust shaping, bidi
//! reordering, swash rasterisation), one engine per thread.
//!
//! cosmic-text's `FontSystem` is not `Sync`, so each thread owns a [`TextEngine`]
//! built over the shared, already-loaded font bytes; its glyph cache keeps rasterised
//! glyphs per font, size and sub-pixel offset, which is what makes crops cheap.

use std::cell::RefCell;

use cosmic_text::fontdb::{self, Family};
use cosmic_text::{
    Attrs, AttrsList, CacheKey, CacheKeyFlags, FontSystem, Hinting, ShapeLine, Shaping, SwashCache,
    SwashContent, Wrap,
};
use image::GrayImage;

use super::fonts::{FontError, FontId, FontLibrary};
use super::print::joins;

/// Rasterised glyphs kept per thread before the cache is flushed (bounds memory).
const GLYPH_CACHE_LIMIT: usize = 150_000;

/// A glyph ready to draw: its cache key and integer pen position relative to the
/// line origin (left end of the line, on the baseline).
#[derive(Debug, Clone, Copy)]
pub struct PlacedGlyph {
    pub key: CacheKey,
    pub x: i32,
    pub y: i32,
    /// Byte range of the cluster in the source text.
    pub start: usize,
    pub end: usize,
}

/// One shaped line at a pixel size.
#[derive(Debug, Clone)]
pub struct ShapedLine {
    pub glyphs: Vec<PlacedGlyph>,
    /// Advance width in pixels.
    pub width: f32,
    /// The font size (em) in pixels.
    pub px: f32,
    pub rtl: bool,
}

/// Coverage of a rasterised line: `alpha` (0..255) with the line origin at
/// (`origin_x`, `baseline`), and the ink bounds within `alpha`.
#[derive(Debug, Clone)]
pub struct TextMask {
    pub alpha: GrayImage,
    pub origin_x: i32,
    pub baseline: i32,
    pub width: f32,
    pub px: f32,
    /// Tight box around the inked pixels: `[x0, y0, x1, y1)`; empty text gives a
    /// zero-size box at the origin.
    pub ink: [i32; 4],
}

/// The invisible mark (RLM or LRM) of the direction of the first strong letter of
/// `text`, when weak characters come before it; `None` when the text starts strong.
fn direction_mark(text: &str) -> Option<char> {
    let first_letter = text.chars().position(char::is_alphabetic)?;
    if first_letter == 0 {
        return None;
    }
    let letter = text.chars().nth(first_letter)?;
    let rtl = matches!(letter, '\u{0590}'..='\u{08FF}' | '\u{FB1D}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFF}');
    Some(if rtl { '\u{200F}' } else { '\u{200E}' })
}

/// Per-thread shaping and rasterising state.
pub struct TextEngine {
    library: &'static FontLibrary,
    system: FontSystem,
    cache: SwashCache,
    /// Our font ids mapped to the font system's faces.
    faces: Vec<FaceKey>,
}

struct FaceKey {
    family: String,
    weight: fontdb::Weight,
    stretch: fontdb::Stretch,
    style: fontdb::Style,
}

impl TextEngine {
    pub fn new(library: &'static FontLibrary) -> TextEngine {
        let mut db = fontdb::Database::new();
        let mut faces = Vec::new();
        for id in library.ids() {
            let font = library.font(id);
            let ids = db.load_font_source(fontdb::Source::Binary(font.data.clone()));
            let info = ids.first().and_then(|&fid| db.face(fid));
            faces.push(match info {
                Some(info) => FaceKey {
                    family: info
                        .families
                        .first()
                        .map(|(name, _)| name.clone())
                        .unwrap_or_default(),
                    weight: info.weight,
                    stretch: info.stretch,
                    style: info.style,
                },
                None => FaceKey {
                    family: String::new(),
                    weight: fontdb::Weight::NORMAL,
                    stretch: fontdb::Stretch::Normal,
                    style: fontdb::Style::Normal,
                },
            });
        }
        TextEngine {
            library,
            system: FontSystem::new_with_locale_and_db("ar-EG".to_owned(), db),
            cache: SwashCache::new(),
            faces,
        }
    }

    pub fn library(&self) -> &'static FontLibrary {
        self.library
    }

    fn attrs(&self, id: FontId) -> Attrs<'_> {
        let face = &self.faces[id.0 as usize];
        Attrs::new()
            .family(Family::Name(&face.family))
            .weight(face.weight)
            .stretch(face.stretch)
            .style(face.style)
            .metadata(id.0 as usize)
            // Print is not hinted, and TrueType hinting dominates rasterising time.
            .cache_key_flags(CacheKeyFlags::DISABLE_HINTING)
    }

    /// Shapes `text` in `font` at `px` pixels per em, drawing each character the font
    /// lacks with a fallback font (see [`FontLibrary::resolve`]).
    pub fn shape(&mut self, text: &str, font: FontId, px: f32) -> ShapedLine {
        self.shape_tracked(text, font, px, 0.0)
    }

    /// [`TextEngine::shape`] with `tracking` pixels of extra advance wherever two
    /// neighbouring letters do not join ([`joins`]): letter-spaced print that keeps
    /// Arabic words connected.
    pub fn shape_tracked(
        &mut self,
        text: &str,
        font: FontId,
        px: f32,
        tracking: f32,
    ) -> ShapedLine {
        let mut line = self.shape_plain(text, font, px);
        if tracking > 0.0 {
            line.width += track(&mut line.glyphs, text, tracking);
        }
        line
    }

    fn shape_plain(&mut self, text: &str, font: FontId, px: f32) -> ShapedLine {
        // cosmic-text drops a line's leading run of weak characters (digits, punctuation)
        // when they precede the first strong letter, e.g. the house number of
        // `٢٩ ش شبرا`. Opening the line with an invisible mark of the paragraph's
        // direction keeps that run; the mark's glyph is dropped below.
        let mark = direction_mark(text);
        let anchored;
        let (text, offset) = match mark {
            Some(mark) => {
                anchored = format!("{mark}{text}");
                (anchored.as_str(), mark.len_utf8())
            }
            None => (text, 0),
        };
        let mut attrs = AttrsList::new(&self.attrs(font));
        let resolved = self.library.resolve(text, font);
        let mut i = 0;
        while i < resolved.len() {
            let (start, id) = resolved[i];
            let mut j = i + 1;
            while j < resolved.len() && resolved[j].1 == id {
                j += 1;
            }
            if id != font {
                let end = resolved.get(j).map_or(text.len(), |&(b, _)| b);
                attrs.add_span(start..end, &self.attrs(id));
            }
            i = j;
        }
        let shape = ShapeLine::new(&mut self.system, text, &attrs, Shaping::Advanced, 4);
        let lines = shape.layout(px, None, Wrap::None, None, None, Hinting::Disabled);
        let mut glyphs = Vec::new();
        let mut width = 0.0;
        for line in &lines {
            width = line.w;
            for g in line.glyphs.iter().filter(|g| g.start >= offset) {
                let physical = g.physical((0.0, 0.0), 1.0);
                glyphs.push(PlacedGlyph {
                    key: physical.cache_key,
                    x: physical.x,
                    y: physical.y,
                    start: g.start - offset,
                    end: g.end - offset,
                });
            }
        }
        ShapedLine {
            glyphs,
            width,
            px,
            rtl: shape.rtl,
        }
    }

    /// The fontdb face of `id` in this engine (to compare with shaped glyphs).
    pub fn face_id(&mut self, id: FontId) -> Option<fontdb::ID> {
        let face = &self.faces[id.0 as usize];
        self.system.db().query(&fontdb::Query {
            families: &[Family::Name(&face.family)],
            weight: face.weight,
            stretch: face.stretch,
            style: face.style,
        })
    }

    /// Rasterises a shaped line into a coverage mask with `pad` pixels of room on
    /// every side of the nominal line box (glyphs may overhang it).
    pub fn rasterize(&mut self, line: &ShapedLine) -> TextMask {
        if self.cache.image_cache.len() > GLYPH_CACHE_LIMIT {
            self.cache.image_cache.clear();
        }
        // First pass: bounds of all glyph images relative to the origin.
        let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
        for g in &line.glyphs {
            if let Some(img) = self.cache.get_image(&mut self.system, g.key) {
                let p = img.placement;
                if p.width == 0 || p.height == 0 {
                    continue;
                }
                x0 = x0.min(g.x + p.left);
                y0 = y0.min(g.y - p.top);
                x1 = x1.max(g.x + p.left + p.width as i32);
                y1 = y1.max(g.y - p.top + p.height as i32);
            }
        }
        if x0 > x1 {
            let h = line.px.ceil().max(1.0) as u32;
            return TextMask {
                alpha: GrayImage::new(line.width.ceil().max(1.0) as u32, h),
                origin_x: 0,
                baseline: h as i32,
                width: line.width,
                px: line.px,
                ink: [0, h as i32, 0, h as i32],
            };
        }
        let width = (x1 - x0) as u32;
        let height = (y1 - y0) as u32;
        let mut alpha = GrayImage::new(width, height);
        let stride = width as usize;
        let buf: &mut [u8] = &mut alpha;
        for g in &line.glyphs {
            let Some(img) = self.cache.get_image(&mut self.system, g.key) else {
                continue;
            };
            let p = img.placement;
            let gx = g.x + p.left - x0;
            let gy = g.y - p.top - y0;
            match img.content {
                SwashContent::Mask => {
                    for row in 0..p.height as i32 {
                        let dst = (gy + row) as usize * stride + gx as usize;
                        let src = (row as usize) * p.width as usize;
                        for col in 0..p.width as usize {
                            let a = img.data[src + col];
                            if a != 0 {
                                let d = &mut buf[dst + col];
                                // Union of overlapping glyphs (joined Arabic letters overlap).
                                *d = (*d).max(a);
                            }
                        }
                    }
                }
                SwashContent::Color | SwashContent::SubpixelMask => {
                    let channels = 4;
                    for row in 0..p.height as i32 {
                        let dst = (gy + row) as usize * stride + gx as usize;
                        for col in 0..p.width as usize {
                            let a =
                                img.data[(row as usize * p.width as usize + col) * channels + 3];
                            let d = &mut buf[dst + col];
                            *d = (*d).max(a);
                        }
                    }
                }
            }
        }
        TextMask {
            alpha,
            origin_x: -x0,
            baseline: -y0,
            width: line.width,
            px: line.px,
            ink: [0, 0, width as i32, height as i32],
        }
    }

    /// Shapes and rasterises in one call.
    pub fn render(&mut self, text: &str, font: FontId, px: f32) -> TextMask {
        let shaped = self.shape(text, font, px);
        self.rasterize(&shaped)
    }
}

/// The share of the tracking that goes between two letters of an Arabic word that
/// do not join (after an alef, a dal, a waw...).
const WORD_INNER_TRACKING: f32 = 0.35;

fn is_arabic_letter(c: char) -> bool {
    matches!(c, '\u{0621}'..='\u{064A}')
}

/// Moves glyphs apart by `tracking` pixels at every boundary, left to right, between
/// two clusters that do not join (a part of it inside Arabic words); returns how much
/// wider the line became.
fn track(glyphs: &mut [PlacedGlyph], text: &str, tracking: f32) -> f32 {
    let mut order: Vec<usize> = (0..glyphs.len()).collect();
    order.sort_by_key(|&i| (glyphs[i].x, glyphs[i].start));
    let mut shift = 0.0f32;
    let mut previous: Option<(usize, usize)> = None;
    for &i in &order {
        let cluster = (glyphs[i].start, glyphs[i].end);
        if let Some(left) = previous.filter(|&p| p != cluster) {
            let (first, second) = if left.0 < cluster.0 {
                (left, cluster)
            } else {
                (cluster, left)
            };
            let adjacent = (first.1 == second.0)
                .then(|| {
                    let a = text[first.0..first.1].chars().last()?;
                    Some((a, text[second.0..].chars().next()?))
                })
                .flatten();
            shift += match adjacent {
                Some((a, b)) if joins(a, b) => 0.0,
                // Inside a word a full gap would read as a space.
                Some((a, b)) if is_arabic_letter(a) && is_arabic_letter(b) => {
                    tracking * WORD_INNER_TRACKING
                }
                _ => tracking,
            };
        }
        glyphs[i].x += shift.round() as i32;
        previous = Some(cluster);
    }
    shift
}

thread_local! {
    static ENGINE: RefCell<Option<TextEngine>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's text engine (built on first use).
pub fn with_engine<R>(f: impl FnOnce(&mut TextEngine) -> R) -> Result<R, FontError> {
    let library = FontLibrary::global()?;
    Ok(ENGINE.with(|cell| {
        let mut slot = cell.borrow_mut();
        let engine = slot.get_or_insert_with(|| TextEngine::new(library));
        f(engine)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Byte ranges of the source text that some glyph covers, in ascending order.
    fn covered(text: &str) -> Vec<(usize, usize)> {
        let library = FontLibrary::global().expect("fonts installed");
        let font = library.ids().next().expect("at least one font");
        let mut ranges: Vec<(usize, usize)> = with_engine(|engine| {
            let line = engine.shape(text, font, 32.0);
            line.glyphs.iter().map(|g| (g.start, g.end)).collect()
        })
        .expect("engine");
        ranges.sort_unstable();
        ranges.dedup();
        ranges
    }

    #[test]
    fn tracking_spaces_letters_that_do_not_join_and_keeps_joined_ones_together() {
        let library = FontLibrary::global().expect("fonts installed");
        let font = library.by_file("Amiri-Bold.ttf").expect("Amiri");
        let (plain, tracked) = with_engine(|engine| {
            (
                engine.shape("محمد ٢٢٧", font, 32.0),
                engine.shape_tracked("محمد ٢٢٧", font, 32.0, 10.0),
            )
        })
        .expect("engine");
        // Joined letters keep their places relative to each other...
        let x = |line: &ShapedLine, start: usize| {
            line.glyphs.iter().find(|g| g.start == start).map(|g| g.x)
        };
        let word = [0, "م".len(), "مح".len()];
        let offsets: Vec<i32> = word
            .iter()
            .map(|&i| x(&tracked, i).unwrap() - x(&plain, i).unwrap())
            .collect();
        assert!(offsets.windows(2).all(|w| w[0] == w[1]), "{offsets:?}");
        // ...the space and the digits (which never join) move apart, and the line
        // grows by a full step at each of those boundaries.
        assert!(
            tracked.width >= plain.width + 40.0,
            "{} {}",
            plain.width,
            tracked.width
        );
        let digits = ["محمد ".len(), "محمد ٢".len()];
        assert!(
            x(&tracked, digits[1]).unwrap() - x(&tracked, digits[0]).unwrap()
                > x(&plain, digits[1]).unwrap() - x(&plain, digits[0]).unwrap() + 5
        );
    }

    #[test]
    fn keeps_a_leading_number_before_arabic_words() {
        for text in ["٢٩ ش شبرا", "29 ش شبرا", "- القاهرة", "٢٠٢٤/٠٨/١٢ البطاقة"]
        {
            let ranges = covered(text);
            assert_eq!(ranges.first().map(|r| r.0), Some(0), "{text}: {ranges:?}");
            assert_eq!(
                ranges.last().map(|r| r.1),
                Some(text.len()),
                "{text}: {ranges:?}"
            );
        }
    }
}
