//! Stage 4: cut one crop per printed field line of the rectified card.
//!
//! Each field has a box in its layout; the line is searched for in that box grown
//! by a margin (cards are printed a few percent off, rectification adds more), by
//! projection profiles of ink: the band of rows with the most ink near the box's
//! centre, then the run of columns holding it that ends at the box's aligned edge
//! (right for Arabic), so a pale emblem further in does not win over a short name.
//! A box with no ink yields no crop, which is how optional fields (workplace,
//! husband) are found absent. Ink is what lies a stroke's depth under the paper
//! around it ([`depth`]), so a tinted panel is none; a printed rule crossing the
//! box (a card face's header curve) is not ink of any line, and is painted out of
//! the crop ([`rules`]). Fields are found together: when two boxes take the same
//! line, the box it sits nearer keeps it and the other looks again without it.

use image::{GrayImage, imageops};

use crate::recognizer::preprocess::Histogram;

mod depth;
mod rules;

pub use crate::layout::Align;

/// Where a field's line should be, on the canonical card.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldRegion {
    pub key: String,
    /// `[x0, y0, x1, y1]` as fractions of the card's width and height.
    pub rect: [f32; 4],
    /// Font em height as a fraction of the card height.
    pub em: f32,
    /// Which edge of the box the line is printed against.
    pub align: Align,
    /// Rectangles (same units) whose ink is not this field's: labels, barcodes,
    /// bands and photos next to the box, which the search margin may reach.
    pub masks: Vec<[f32; 4]>,
    /// Printed on some cards only (a workplace, a husband, another kind's title):
    /// a blank box is a valid reading, so only clear ink makes a line there.
    pub optional: bool,
}

impl FieldRegion {
    /// The least difference, in grey levels, between the ink and paper levels of
    /// this box's window for it to hold a line ([`PRINTED_INK_CONTRAST`],
    /// [`OPTIONAL_INK_CONTRAST`]).
    fn min_contrast(&self) -> f32 {
        if self.optional {
            OPTIONAL_INK_CONTRAST
        } else {
            PRINTED_INK_CONTRAST
        }
    }
}

/// A found text line, in card pixels (`x1`, `y1` exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineBox {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
}

/// One crop for the recognizer.
#[derive(Debug, Clone)]
pub struct LineCrop {
    pub key: String,
    pub line: LineBox,
    pub image: GrayImage,
}

/// How far outside its box a line is looked for, in card widths and heights.
const MARGIN_X: f32 = 0.02;
const MARGIN_Y: f32 = 0.03;
/// Share of one digit's least ink and width that a cluster at its box's aligned
/// edge needs when no cluster there has them all: a lone digit printed small (a
/// car licence's `٤`, cylinders, in a narrow typeface) otherwise lost to a
/// neighbour's label spilling into the far end of the window. On the tuning car
/// licence backs (page scans, seed 8302, 51) cylinders read 58.8 -> 68.6 % exact.
const SMALL_AT_EDGE: f32 = 0.5;

/// How far from its box's aligned edge a line may end, in card widths.
const ALIGN_REACH: f32 = 0.05;
/// How far above and below its densest band a line's marks may reach, in ems.
const GROW_REACH: f32 = 0.45;
/// Ink a row needs to count as part of the line, as a share of the densest row's.
const GROW_FLOOR: f32 = 0.015;
/// Paper kept around a line's ink, in ems: above and below it (the recognizer,
/// trained on generated lines with full glyph extents, reads a line better with
/// some), and at its ends, where a blurred final `٠` is too faint for the ink mask.
const PAD_Y: f32 = 0.3;
const PAD_X: f32 = 0.6;
/// Widest gap inside one line, in ems (word gaps are joined up to 1.4 first).
const LINE_GAP: f32 = 2.5;
/// Share of the smaller line's height and width two fields' lines must have in
/// common to be taken for one line.
const SHARED_LINE: f32 = 0.3;

/// The text line of `region` on `card` (grey, rectified), if the box holds one.
pub fn find_line(card: &GrayImage, region: &FieldRegion) -> Option<LineBox> {
    find_ink(card, region, &[]).map(|found| pad(found.line, region, card))
}

/// A field's line as found, unpadded: its band of rows and its columns, and within
/// that band the rows that hold ink.
#[derive(Debug, Clone, Copy)]
struct FoundInk {
    line: LineBox,
    /// `line` without the blank rows a band over the gap between two lines holds
    /// at an end: what is compared with the other fields' lines, so such a band is
    /// seen to half cover the line whose last rows it holds.
    inked: LineBox,
}

/// The ink of `region`'s line on `card`, unpadded, ignoring the ink inside
/// `blanked` (card pixels): lines another field has claimed.
fn find_ink(card: &GrayImage, region: &FieldRegion, blanked: &[LineBox]) -> Option<FoundInk> {
    let (w, h) = (card.width() as f32, card.height() as f32);
    let [rx0, ry0, rx1, ry1] = region.rect;
    let em = em_pixels(region, card);
    let x0 = ((rx0 - MARGIN_X) * w).max(0.0) as u32;
    let x1 = (((rx1 + MARGIN_X) * w).min(w)) as u32;
    let y0 = ((ry0 - MARGIN_Y) * h).max(0.0) as u32;
    let y1 = (((ry1 + MARGIN_Y) * h).min(h)) as u32;
    if x1 <= x0 + 4 || y1 <= y0 + 4 {
        return None;
    }
    let (ww, wh) = ((x1 - x0) as usize, (y1 - y0) as usize);
    let window = imageops::crop_imm(card, x0, y0, x1 - x0, y1 - y0).to_image();
    // The window's pixels that are not this field's: masks and lines another
    // field has claimed.
    let mut others = vec![false; ww * wh];
    let mut exclude = |ax: f32, ay: f32, bx: f32, by: f32| {
        let to_x = |v: f32| ((v - x0 as f32).round().max(0.0) as usize).min(ww);
        let to_y = |v: f32| ((v - y0 as f32).round().max(0.0) as usize).min(wh);
        let (ax, bx, ay, by) = (to_x(ax), to_x(bx), to_y(ay), to_y(by));
        for y in ay..by {
            others[y * ww + ax..y * ww + bx.max(ax)].fill(true);
        }
    };
    for [mx0, my0, mx1, my1] in &region.masks {
        exclude(mx0 * w, my0 * h, mx1 * w, my1 * h);
    }
    for line in blanked {
        exclude(
            line.x0 as f32,
            line.y0 as f32,
            line.x1 as f32,
            line.y1 as f32,
        );
    }
    // A header curve or table rule crossing the box outweighs a short name, and
    // darker than pale print it would set the window's ink level.
    let rules = rules::across(card, (x0, y0, x1, y1), em);
    for (other, &rule) in others.iter_mut().zip(&rules) {
        *other |= rule;
    }
    let ink = ink_mask(&window, &others, region.min_contrast(), em)?;
    let window = InkWindow {
        ink: &ink,
        width: ww,
        height: wh,
        em,
        centre: ((ry0 + ry1) / 2.0 * h) - y0 as f32,
        // Tight enough that a bolder label or header caught by the margin loses.
        sigma: 0.5 * ((ry1 - ry0) * h).max(em),
    };
    let (top, bottom) = window.line_rows(0..ww)?;
    // A right-aligned line ends near the box's right edge (left-aligned: left).
    let reach = ALIGN_REACH * w;
    let at_aligned_edge = |left: usize, right: usize| match region.align {
        Align::Right => (x0 as usize + right) as f32 >= rx1 * w - reach,
        Align::Left => (x0 as usize + left) as f32 <= rx0 * w + reach,
        Align::Center => true,
    };
    let (left, right) = window.line_columns(top..bottom, region.align, &at_aligned_edge)?;
    // The rows again, over the line's own columns: a bolder line beside or below
    // it in the window (a passport's Latin name under its Arabic one) must not
    // pull the band half off it. Then its columns over those rows.
    let (top, bottom) = window.line_rows(left..right + 1).unwrap_or((top, bottom));
    let (left, right) = window
        .line_columns(top..bottom, region.align, &at_aligned_edge)
        .unwrap_or((left, right));
    let has_ink = |y: usize| window.ink[y * ww + left..=y * ww + right].contains(&true);
    let inked_top = (top..bottom).find(|&y| has_ink(y)).unwrap_or(top);
    let inked_bottom = (top..bottom)
        .rev()
        .find(|&y| has_ink(y))
        .map_or(bottom, |y| y + 1);
    let line = LineBox {
        x0: x0 + left as u32,
        y0: y0 + top as u32,
        x1: x0 + right as u32 + 1,
        y1: y0 + bottom as u32,
    };
    Some(FoundInk {
        line,
        inked: LineBox {
            y0: y0 + inked_top as u32,
            y1: y0 + inked_bottom as u32,
            ..line
        },
    })
}

/// The ink of a field's search window and where its line should sit.
struct InkWindow<'a> {
    /// Row-major, `width` x `height`.
    ink: &'a [bool],
    width: usize,
    height: usize,
    /// Font em height, in pixels.
    em: f32,
    /// The box's centre row, and how far from it a line's band is still likely.
    centre: f32,
    sigma: f32,
}

impl InkWindow<'_> {
    /// The rows `[top, bottom)` of the line, from the ink in `columns`: the band of
    /// about one line height with the most ink, weighted towards the box's centre
    /// so a neighbouring line caught by the margin loses, grown over ascenders and
    /// descenders.
    fn line_rows(&self, columns: std::ops::Range<usize>) -> Option<(usize, usize)> {
        let (ww, wh, em) = (self.width, self.height, self.em);
        let rows: Vec<f32> = (0..wh)
            .map(|y| {
                self.ink[y * ww + columns.start..y * ww + columns.end]
                    .iter()
                    .filter(|&&i| i)
                    .count() as f32
            })
            .collect();
        let band = (1.1 * em).round().max(3.0) as usize;
        let mut best = (0f32, 0usize);
        for top in 0..wh.saturating_sub(band).max(1) {
            let mass: f32 = rows[top..(top + band).min(wh)].iter().sum();
            let mid = top as f32 + band as f32 / 2.0;
            let score = mass * (-((mid - self.centre) / self.sigma).powi(2) / 2.0).exp();
            if score > best.0 {
                best = (score, top);
            }
        }
        if best.0 <= 0.0 {
            return None;
        }
        let (mut top, mut bottom) = (best.1, (best.1 + band).min(wh));
        // Grow over ascenders and descenders: the farthest row within reach that
        // still holds some ink, across blank rows, since dots and hamzas stand
        // apart from their letters (a final yaa's dots lost make it an alef maqsura).
        let peak = rows[top..bottom].iter().copied().fold(0.0, f32::max);
        let reach = (GROW_REACH * em) as usize;
        let floor = (GROW_FLOOR * peak).max(1.0);
        if let Some(above) = (top.saturating_sub(reach)..top).find(|&y| rows[y] > floor) {
            top = above;
        }
        if let Some(below) = (bottom..(bottom + reach).min(wh))
            .rev()
            .find(|&y| rows[y] > floor)
        {
            bottom = below + 1;
        }
        Some((top, bottom))
    }

    /// The columns `[left, right]` of the line within `rows`: clusters of inked
    /// columns, joined across gaps narrower than the space between words; the
    /// heaviest cluster at the box's aligned edge anchors the line, and clusters
    /// continuing it away from that edge join it.
    fn line_columns(
        &self,
        rows: std::ops::Range<usize>,
        align: Align,
        at_aligned_edge: &dyn Fn(usize, usize) -> bool,
    ) -> Option<(usize, usize)> {
        let (ww, em) = (self.width, self.em);
        let columns: Vec<f32> = (0..ww)
            .map(|x| rows.clone().filter(|&y| self.ink[y * ww + x]).count() as f32)
            .collect();
        let max_gap = (1.4 * em) as usize;
        let mut clusters: Vec<(usize, usize, f32)> = Vec::new();
        for (x, &count) in columns.iter().enumerate() {
            if count < 1.0 {
                continue;
            }
            match clusters.last_mut() {
                Some((_, end, mass)) if x - *end <= max_gap => {
                    *end = x;
                    *mass += count;
                }
                _ => clusters.push((x, x, count)),
            }
        }
        // Too little ink for even one digit: an empty field with some pattern
        // noise. The narrowest digit printed alone, a car licence's `٤`
        // (cylinders), measures 0.26 em and 0.10 em² on scans.
        let min_mass = 0.09 * em * em;
        let is_text = |share: f32| {
            move |(left, right, mass): &(usize, usize, f32)| {
                *mass >= share * min_mass && ((right - left) as f32) >= share * 0.22 * em
            }
        };
        // A line ends at its box's aligned edge, give or take the print's shift: a
        // short name must not lose to a pale emblem heavier than it further in.
        let text = |share| {
            clusters
                .iter()
                .enumerate()
                .filter(move |(_, c)| is_text(share)(c))
        };
        let at_edge = |share| text(share).filter(|(_, c)| at_aligned_edge(c.0, c.1));
        let heaviest = |a: &(usize, &(usize, usize, f32)), b: &(usize, &(usize, usize, f32))| {
            a.1.2.total_cmp(&b.1.2)
        };
        let (anchor, _) = at_edge(1.0)
            .max_by(heaviest)
            .or_else(|| at_edge(SMALL_AT_EDGE).max_by(heaviest))
            .or_else(|| text(1.0).max_by(heaviest))?;
        // Words a wider gap apart (a dash lost to glare) still belong to the line
        // when they continue it away from its aligned edge.
        let continues = |a: &(usize, usize, f32), b: &(usize, usize, f32)| {
            b.0.saturating_sub(a.1) as f32 <= LINE_GAP * em
        };
        let (mut first, mut last) = (anchor, anchor);
        if align != Align::Left {
            while first > 0 && continues(&clusters[first - 1], &clusters[first]) {
                first -= 1;
            }
        }
        if align != Align::Right {
            while last + 1 < clusters.len() && continues(&clusters[last], &clusters[last + 1]) {
                last += 1;
            }
        }
        Some((clusters[first].0, clusters[last].1))
    }
}

/// `region`'s font em height on `card`, in pixels.
fn em_pixels(region: &FieldRegion, card: &GrayImage) -> f32 {
    (region.em * card.height() as f32).max(4.0)
}

/// The crop of a line's ink: with paper around it, as the recognizer reads best.
fn pad(ink: LineBox, region: &FieldRegion, card: &GrayImage) -> LineBox {
    let em = em_pixels(region, card);
    let pad_x = (PAD_X * em) as u32;
    let pad_y = (PAD_Y * em) as u32;
    LineBox {
        x0: ink.x0.saturating_sub(pad_x),
        y0: ink.y0.saturating_sub(pad_y),
        x1: (ink.x1 + pad_x).min(card.width()),
        y1: (ink.y1 + pad_y).min(card.height()),
    }
}

/// Dark-enough pixels of a window, but for those `excluded`: below the midpoint
/// between the paper level (a high percentile) and the ink level (a very low one:
/// a short word in a wide box is under 1 % of it, and a pale emblem behind it
/// must not set the ink level) of the pixels left, that midpoint moved with the
/// paper's own level around each column ([`column_paper`]): under a photo's glare
/// a line's far words are paler than the window's midpoint, though as dark as
/// ever against the paper beside them (they were cut off the line, and the
/// part read was taken for all of it). Excluded pixels set neither level, so a
/// black barcode beside a thin date does not lift the threshold above the date's
/// grey. Only pixels a stroke's depth under the paper around them count
/// ([`depth::stroke_depth`]): a header panel tinted as dark as ink, or lit into
/// the raised threshold by glare beside it, is wider than a stroke. `None` when
/// the ink is not `min_contrast` darker than the paper.
fn ink_mask(
    window: &GrayImage,
    excluded: &[bool],
    min_contrast: f32,
    em: f32,
) -> Option<Vec<bool>> {
    let values = window.pixels().zip(excluded).filter(|(_, out)| !**out);
    let histogram = Histogram::of(values.map(|(p, _)| p.0[0]));
    let (ink, paper) = (histogram.percentile(0.002), histogram.percentile(PAPER));
    if paper - ink < min_contrast {
        return None;
    }
    let threshold = ink + 0.45 * (paper - ink);
    let local = column_paper(window, excluded, paper);
    let depth = depth::stroke_depth(window, ((STROKE_REACH * em) as usize).max(2));
    let least_depth = STROKE_DEPTH * (paper - ink);
    let width = window.width() as usize;
    Some(
        window
            .pixels()
            .zip(excluded)
            .enumerate()
            .map(|(i, (p, &out))| {
                !out && f32::from(p.0[0]) < threshold + (local[i % width] - paper).max(0.0)
                    && f32::from(depth[i]) >= least_depth
            })
            .collect(),
    )
}

/// The percentile of a window's pixels taken for its paper (text covers far less).
const PAPER: f64 = 0.85;

/// Half the side, in ems, of the square that fills strokes with the paper around
/// them ([`depth::stroke_depth`]): wider than the boldest stroke, narrower than a
/// tinted header panel, which the column threshold takes for ink where a photo's
/// glare lifts the paper beside it.
const STROKE_REACH: f32 = 0.3;

/// The least depth of an ink pixel below that filled level, as a share of the
/// window's paper-to-ink contrast.
const STROKE_DEPTH: f32 = 0.25;

/// The least ink-to-paper contrast of a line every card prints. A faded card
/// scanned at 150 or 200 dpi prints its lines 25 to 40 grey levels under its paper
/// once resampled: at 40, the held-out back pages of seed 9039 refused two such
/// cards as showing no text.
const PRINTED_INK_CONTRAST: f32 = 25.0;

/// The least ink-to-paper contrast of an optional line ([`FieldRegion::optional`]):
/// at 25, the guilloche and noise of blank workplace boxes were read as five
/// workplaces on the same 300 pages.
const OPTIONAL_INK_CONTRAST: f32 = 40.0;

/// The paper's level around each column of `window`: [`PAPER`]'s percentile of
/// the pixels not `excluded` in the columns within half the window's height of
/// it (`fallback` where none is left).
fn column_paper(window: &GrayImage, excluded: &[bool], fallback: f32) -> Vec<f32> {
    let (w, h) = (window.width() as usize, window.height() as usize);
    let raw = window.as_raw();
    let reach = h / 2;
    // Column histograms, summed over a sliding run of columns.
    let column = |x: usize| (0..h).map(move |y| y * w + x).filter(|&i| !excluded[i]);
    let mut run = Histogram::default();
    for x in 0..reach.min(w) {
        column(x).for_each(|i| run.add(raw[i], 1));
    }
    (0..w)
        .map(|x| {
            if x + reach < w {
                column(x + reach).for_each(|i| run.add(raw[i], 1));
            }
            if x > reach {
                column(x - reach - 1).for_each(|i| run.add(raw[i], -1));
            }
            if !run.is_empty() {
                run.percentile(PAPER)
            } else {
                fallback
            }
        })
        .collect()
}

/// Finds and cuts every field line of `regions` on `card`.
pub fn cut_lines(card: &GrayImage, regions: &[FieldRegion]) -> Vec<LineCrop> {
    find_lines(card, regions)
        .into_iter()
        .zip(regions)
        .filter_map(|(ink, region)| {
            let line = pad(ink?, region, card);
            let mut image =
                imageops::crop_imm(card, line.x0, line.y0, line.x1 - line.x0, line.y1 - line.y0)
                    .to_image();
            rules::paint_out(&mut image, card, line, em_pixels(region, card));
            Some(LineCrop {
                key: region.key.clone(),
                line,
                image,
            })
        })
        .collect()
}

/// The ink of every region's line. A box's margin can reach its neighbour's line,
/// and a long bold line there outweighs a short name in its own box; when two
/// regions take the same line, the one whose box it sits nearer keeps it and the
/// other looks again without it (and may find nothing: an empty optional field).
fn find_lines(card: &GrayImage, regions: &[FieldRegion]) -> Vec<Option<LineBox>> {
    let mut lines: Vec<Option<FoundInk>> = regions.iter().map(|r| find_ink(card, r, &[])).collect();
    let mut blanked: Vec<Vec<LineBox>> = vec![Vec::new(); regions.len()];
    let size = (card.width() as f32, card.height() as f32);
    // Each round blanks one more line for one region, so this ends; the bound
    // only guards against a pathological layout.
    for _ in 0..2 * regions.len() {
        let Some((loser, taken)) = first_shared_line(&lines, regions, size) else {
            break;
        };
        blanked[loser].push(taken);
        lines[loser] = find_ink(card, &regions[loser], &blanked[loser]);
    }
    lines
        .into_iter()
        .map(|found| found.map(|f| f.line))
        .collect()
}

/// Of two regions that took the same line ([`LineBox::shares_ink_with`]), the one
/// whose box it sits farther from, and the line the other keeps.
fn first_shared_line(
    lines: &[Option<FoundInk>],
    regions: &[FieldRegion],
    (w, h): (f32, f32),
) -> Option<(usize, LineBox)> {
    // How far a line's centre lies from a region's centre, in the region's sizes.
    let distance = |line: &LineBox, region: &FieldRegion| {
        let [x0, y0, x1, y1] = region.rect;
        let cx = (line.x0 + line.x1) as f32 / 2.0 / w;
        let cy = (line.y0 + line.y1) as f32 / 2.0 / h;
        (cx - (x0 + x1) / 2.0).abs() / (x1 - x0).max(1e-3)
            + (cy - (y0 + y1) / 2.0).abs() / (y1 - y0).max(1e-3)
    };
    for i in 0..lines.len() {
        for j in i + 1..lines.len() {
            let (Some(a), Some(b)) = (&lines[i], &lines[j]) else {
                continue;
            };
            if !a.inked.shares_ink_with(&b.inked) {
                continue;
            }
            let (a, b) = (a.line, b.line);
            let loser = if distance(&a, &regions[i]) <= distance(&b, &regions[j]) {
                (j, a)
            } else {
                (i, b)
            };
            return Some(loser);
        }
    }
    None
}

impl LineBox {
    /// The same box `dy` pixels lower.
    pub fn moved_down(self, dy: u32) -> LineBox {
        LineBox {
            y0: self.y0 + dy,
            y1: self.y1 + dy,
            ..self
        }
    }

    /// Whether the two boxes share a good part of the smaller one's height and
    /// width: the same printed line, or a band straddling one line and the next.
    /// Lines of neighbouring fields touch at most by a grown dot or descender.
    fn shares_ink_with(&self, other: &LineBox) -> bool {
        let shared = |a0: u32, a1: u32, b0: u32, b1: u32| {
            let overlap = a1.min(b1).saturating_sub(a0.max(b0));
            let smaller = (a1 - a0).min(b1 - b0);
            smaller > 0 && overlap as f32 >= SHARED_LINE * smaller as f32
        };
        shared(self.y0, self.y1, other.y0, other.y1) && shared(self.x0, self.x1, other.x0, other.x1)
    }
}

/// Whether a card shows no ink: fewer than 0.5 % of its pixels are 40 grey levels
/// darker than its median, the paper. Text keeps darker than paper however blurred,
/// so this tells a blank card (or page) from a blurred one.
pub fn is_blank(card: &GrayImage) -> bool {
    let mut histogram = [0u64; 256];
    for p in card.as_raw() {
        histogram[usize::from(*p)] += 1;
    }
    let total: u64 = histogram.iter().sum();
    let mut seen = 0;
    let median = histogram
        .iter()
        .position(|&n| {
            seen += n;
            2 * seen >= total
        })
        .unwrap_or(255);
    let ink: u64 = histogram[..median.saturating_sub(40)].iter().sum();
    ink * 200 < total
}

/// Sharpness of a card: variance of the Laplacian over its grey image. Blurred
/// captures have little high-frequency energy left.
///
/// `step` is the card's upsampling from the upload (rounded): a card warped up
/// from a small capture is smooth at the warped scale even when its source is
/// sharp, so the Laplacian is taken between pixels `step` apart, on a grid of that
/// pitch: the upload's own resolution.
pub fn sharpness(card: &GrayImage, step: usize) -> f32 {
    let step = step.max(1);
    let (w, h) = (card.width() as usize, card.height() as usize);
    if w < 2 * step + 1 || h < 2 * step + 1 {
        return 0.0;
    }
    let px = card.as_raw();
    let (mut sum, mut sum_sq, mut n) = (0f64, 0f64, 0f64);
    for y in (step..h - step).step_by(step) {
        for x in (step..w - step).step_by(step) {
            let i = y * w + x;
            let lap = 4.0 * f64::from(px[i])
                - f64::from(px[i - step])
                - f64::from(px[i + step])
                - f64::from(px[i - step * w])
                - f64::from(px[i + step * w]);
            sum += lap;
            sum_sq += lap * lap;
            n += 1.0;
        }
    }
    let mean = sum / n;
    (sum_sq / n - mean * mean) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Luma;

    #[test]
    fn a_card_without_ink_is_blank_and_a_blurred_one_is_not() {
        let blank = GrayImage::from_fn(1000, 630, |x, _| Luma([230 - (x / 50) as u8]));
        assert!(is_blank(&blank));
        let text = card_with_lines(&[(0.3, 0.4, 0.95, 0.04), (0.5, 0.4, 0.95, 0.04)]);
        let blurred = imageproc::filter::gaussian_blur_f32(&text, 4.0);
        assert!(!is_blank(&blurred));
    }

    /// A 1000×630 card with a pale pattern and dark "words" on the given rows
    /// (y centre, x range, em) all as fractions: strokes as letters are, a
    /// baseline a fifth of an em thick with a 2 px stem rising every 6 px.
    fn card_with_lines(lines: &[(f32, f32, f32, f32)]) -> GrayImage {
        GrayImage::from_fn(1000, 630, |x, y| {
            let (u, v) = (x as f32 / 1000.0, y as f32 / 630.0);
            for &(cy, ux0, ux1, em) in lines {
                let in_word = ((u - ux0) * 1000.0 / (em * 630.0 * 2.5)).fract() < 0.8;
                let stroke = v - cy > 0.25 * em || x % 6 < 2;
                if (v - cy).abs() < em * 0.45 && u >= ux0 && u <= ux1 && in_word && stroke {
                    return Luma([25]);
                }
            }
            // Guilloche-like pattern, far lighter than ink.
            let wave = ((u * 80.0).sin() * (v * 60.0).cos() * 12.0) as i32;
            Luma([(215 + wave) as u8])
        })
    }

    fn region(key: &str, rect: [f32; 4], em: f32) -> FieldRegion {
        FieldRegion {
            key: key.into(),
            rect,
            em,
            align: Align::Right,
            masks: Vec::new(),
            optional: false,
        }
    }

    #[test]
    fn a_faded_line_is_found_in_a_box_every_card_prints_but_not_in_an_optional_one() {
        // Ink 30 grey levels under the paper, as a faded card scanned at 150 dpi.
        let mut faded = card_with_lines(&[(0.333, 0.55, 0.95, 0.04)]);
        for p in faded.pixels_mut() {
            p.0[0] = if p.0[0] < 100 { 185 } else { 215 };
        }
        let name = region("first_name", [0.40, 0.29, 0.95, 0.376], 0.04);
        let line = find_line(&faded, &name).expect("a line every card prints");
        let cy = (line.y0 + line.y1) as f32 / 2.0 / 630.0;
        assert!((cy - 0.333).abs() < 0.01, "{line:?}");
        let optional = FieldRegion {
            optional: true,
            ..name
        };
        assert_eq!(find_line(&faded, &optional), None);
    }

    #[test]
    fn finds_a_line_shifted_inside_its_box() {
        // Box centre 0.333; the line is printed 2 % lower and starts further left.
        let card = card_with_lines(&[(0.353, 0.55, 0.95, 0.04)]);
        let line = find_line(
            &card,
            &region("first_name", [0.40, 0.29, 0.95, 0.376], 0.04),
        )
        .unwrap();
        let cy = (line.y0 + line.y1) as f32 / 2.0 / 630.0;
        assert!((cy - 0.353).abs() < 0.01, "{line:?}");
        assert!((line.x0 as f32 / 1000.0 - 0.55).abs() < 0.03, "{line:?}");
        assert!(line.x1 as f32 / 1000.0 > 0.94, "{line:?}");
        let height = (line.y1 - line.y0) as f32 / 630.0;
        assert!(height > 0.035 && height < 0.08, "{height}");
    }

    #[test]
    fn prefers_its_own_line_over_a_neighbour_in_the_margin() {
        // Two lines 0.08 apart (first and last name); each box gets its own.
        let card = card_with_lines(&[(0.333, 0.5, 0.95, 0.04), (0.41, 0.45, 0.95, 0.04)]);
        let first = find_line(
            &card,
            &region("first_name", [0.40, 0.29, 0.95, 0.376], 0.04),
        )
        .unwrap();
        let last = find_line(
            &card,
            &region("last_name", [0.37, 0.368, 0.95, 0.452], 0.04),
        )
        .unwrap();
        let centre = |l: &LineBox| (l.y0 + l.y1) as f32 / 2.0 / 630.0;
        assert!((centre(&first) - 0.333).abs() < 0.012, "{first:?}");
        assert!((centre(&last) - 0.41).abs() < 0.012, "{last:?}");
    }

    #[test]
    fn a_short_name_keeps_its_line_when_the_long_one_below_reaches_its_box() {
        // A four-letter first name, and a long last name printed low enough that
        // the first name's margin holds more of its ink than of the name's.
        let card = card_with_lines(&[(0.333, 0.90, 0.95, 0.04), (0.405, 0.40, 0.95, 0.04)]);
        let regions = [
            region("first_name", [0.40, 0.29, 0.95, 0.376], 0.04),
            region("last_name", [0.37, 0.368, 0.95, 0.452], 0.04),
        ];
        let centre = |l: &LineBox| (l.y0 + l.y1) as f32 / 2.0 / 630.0;
        let alone = find_line(&card, &regions[0]).unwrap();
        assert!(
            centre(&alone) > 0.36,
            "the case under test: alone, the first name's box takes the line below ({alone:?})"
        );
        let crops = cut_lines(&card, &regions);
        assert_eq!(crops.len(), 2);
        assert!(
            (centre(&crops[0].line) - 0.333).abs() < 0.012,
            "{:?}",
            crops[0].line
        );
        assert!(crops[0].line.x0 > 850, "{:?}", crops[0].line);
        assert!(
            (centre(&crops[1].line) - 0.405).abs() < 0.012,
            "{:?}",
            crops[1].line
        );
    }

    #[test]
    fn a_field_whose_only_ink_is_its_neighbours_line_is_empty() {
        // An empty workplace row under the job: the job's line reaches into the
        // workplace box's margin, and it is the job's.
        let card = card_with_lines(&[(0.20, 0.35, 0.81, 0.035)]);
        let regions = [
            region("job", [0.30, 0.150, 0.81, 0.228], 0.035),
            region("workplace", [0.25, 0.225, 0.81, 0.300], 0.035),
        ];
        assert!(
            find_line(&card, &regions[1]).is_some(),
            "the case under test: alone, the workplace box takes the job's line"
        );
        let crops = cut_lines(&card, &regions);
        assert_eq!(crops.len(), 1, "{crops:?}");
        assert_eq!(crops[0].key, "job");
    }

    /// A wavy header curve 4 px thick, `grey` dark, across the right three
    /// quarters of a [`card_with_lines`] card, just above a first name's line.
    fn draw_header_curve(card: &mut GrayImage, grey: u8) {
        for x in 250..1000 {
            let u = x as f32 / 1000.0;
            let cy = 630.0 * (0.30 + 0.02 * (u * 9.0).sin());
            for y in (cy - 2.0) as u32..(cy + 2.0) as u32 {
                card.put_pixel(x, y, Luma([grey]));
            }
        }
    }

    #[test]
    fn a_header_curve_crossing_the_box_is_not_the_names_line() {
        // A short first name low in its box, under a dark curve 4 px thick that
        // crosses the whole box and outweighs it.
        let mut card = card_with_lines(&[(0.345, 0.85, 0.95, 0.04)]);
        draw_header_curve(&mut card, 70);
        let name = region("first_name", [0.40, 0.29, 0.95, 0.376], 0.04);
        let line = find_line(&card, &name).unwrap();
        let cy = (line.y0 + line.y1) as f32 / 2.0 / 630.0;
        assert!((cy - 0.345).abs() < 0.01, "{line:?}");
        assert!(line.x0 > 800, "{line:?}");
    }

    #[test]
    fn a_pale_name_under_a_darker_header_curve_keeps_its_line() {
        // A faded first name, 55 grey levels under the paper, low in its box; a
        // curve far darker than it crosses the box. Taken as the window's ink
        // level, the curve would leave the name's strokes above the threshold.
        let mut card = card_with_lines(&[(0.345, 0.85, 0.95, 0.04)]);
        for p in card.pixels_mut() {
            if p.0[0] < 100 {
                p.0[0] = 160;
            }
        }
        draw_header_curve(&mut card, 40);
        let name = region("first_name", [0.40, 0.29, 0.95, 0.376], 0.04);
        let line = find_line(&card, &name).expect("the pale name's line");
        let cy = (line.y0 + line.y1) as f32 / 2.0 / 630.0;
        assert!((cy - 0.345).abs() < 0.01, "{line:?}");
        assert!(line.x0 > 800, "{line:?}");
    }

    #[test]
    fn a_tinted_panel_reaching_into_the_box_is_not_the_names_line() {
        // A short first name low in its box; above it, across most of the box, a
        // header panel tinted as dark as ink, far wider and taller than a stroke.
        let mut card = card_with_lines(&[(0.345, 0.88, 0.95, 0.04)]);
        for y in 180..208 {
            for x in 300..860 {
                card.put_pixel(x, y, Luma([90]));
            }
        }
        let name = region("first_name", [0.40, 0.29, 0.95, 0.376], 0.04);
        let line = find_line(&card, &name).unwrap();
        let cy = (line.y0 + line.y1) as f32 / 2.0 / 630.0;
        assert!((cy - 0.345).abs() < 0.01, "{line:?}");
        assert!(line.x0 > 820, "{line:?}");
    }

    #[test]
    fn a_flat_word_with_loops_is_text_and_not_a_rule() {
        // Four ems of a monospaced word whose letters are all low: a 2 px
        // baseline with a small loop every 15 px, never an em thick.
        let mut card = card_with_lines(&[]);
        let y = 210;
        for x in 850..950 {
            for dy in 0..2 {
                card.put_pixel(x, y + dy, Luma([40]));
            }
            let in_loop = (x - 850) % 15;
            if in_loop < 8 {
                card.put_pixel(x, y - 4, Luma([40]));
            }
            if in_loop == 0 || in_loop == 7 {
                for dy in 1..4 {
                    card.put_pixel(x, y - dy, Luma([40]));
                }
            }
        }
        let name = region("first_name", [0.40, 0.29, 0.95, 0.376], 0.04);
        let line = find_line(&card, &name).expect("the word is a line");
        assert!(line.x0 < 850 && line.x1 > 945, "{line:?}");
    }

    #[test]
    fn a_short_name_at_its_aligned_edge_beats_a_heavier_emblem() {
        // A four-letter first name at the box's right edge; further in, a pale emblem
        // dark enough to pass the ink threshold and with more ink than the name:
        // a grid of engraved lines.
        let mut card = card_with_lines(&[(0.333, 0.90, 0.95, 0.04)]);
        for y in 190..235 {
            for x in (450..650).filter(|x| x % 5 < 2 || y % 5 < 2) {
                card.put_pixel(x, y, Luma([95]));
            }
        }
        let name = region("first_name", [0.40, 0.29, 0.95, 0.376], 0.04);
        let line = find_line(&card, &name).unwrap();
        assert!(line.x0 > 850 && line.x1 > 940, "{line:?}");
        // A left-aligned box takes the emblem, which is at its left.
        let left = FieldRegion {
            align: Align::Left,
            rect: [0.45, 0.29, 0.95, 0.376],
            ..name
        };
        let line = find_line(&card, &left).unwrap();
        assert!(line.x0 < 460 && line.x1 < 700, "{line:?}");
    }

    #[test]
    fn a_lone_small_digit_at_its_aligned_edge_beats_a_labels_end_spilling_into_the_window() {
        // A car licence's cylinders: `٤` alone at the box's right edge, under a
        // digit's least ink and width, and the end of the left column's label
        // printed past its own box into this one's margin.
        let mut card = card_with_lines(&[]);
        for y in 283..303 {
            for x in 500..530 {
                card.put_pixel(x, y, Luma([25]));
            }
        }
        for y in 287..298 {
            for x in 786..790 {
                card.put_pixel(x, y, Luma([25]));
            }
        }
        let cylinders = region("cylinders", [0.52, 0.425, 0.795, 0.505], 0.036);
        let line = find_line(&card, &cylinders).unwrap();
        assert!(line.x0 > 700 && line.x1 >= 789, "{line:?}");
    }

    #[test]
    fn a_line_keeps_the_dots_that_stand_apart_below_it() {
        // A short name whose last letter's two dots sit 0.4 em under the body,
        // blank rows between: a final yaa that loses them reads as alef maqsura.
        let mut card = card_with_lines(&[(0.333, 0.88, 0.95, 0.04)]);
        let em = 0.04 * 630.0;
        let body_bottom = (0.333 * 630.0 + 0.45 * em) as u32;
        let dots_top = body_bottom + (0.4 * em) as u32;
        let dots = dots_top..dots_top + 3;
        for y in dots.clone() {
            for x in (890..893).chain(897..900) {
                card.put_pixel(x, y, Luma([25]));
            }
        }
        let line = find_line(
            &card,
            &region("first_name", [0.40, 0.29, 0.95, 0.376], 0.04),
        )
        .unwrap();
        assert!(line.y1 >= dots.end, "{line:?} ends above the dots {dots:?}");
    }

    #[test]
    fn a_line_keeps_a_word_beyond_a_wide_gap() {
        // Two words 2 em apart (a dash lost to glare): both belong to the line.
        let card = card_with_lines(&[(0.41, 0.55, 0.70, 0.04), (0.41, 0.75, 0.95, 0.04)]);
        let line = find_line(
            &card,
            &region("last_name", [0.37, 0.368, 0.95, 0.452], 0.04),
        )
        .unwrap();
        assert!(line.x0 < 560 && line.x1 > 940, "{line:?}");
    }

    #[test]
    fn a_lines_far_words_under_glare_belong_to_it() {
        // Glare lifts the line's far end: its words paler than the window's ink
        // threshold, though as dark as ever against the white paper beside them.
        let mut card = card_with_lines(&[(0.41, 0.45, 0.95, 0.04)]);
        for (x, _, p) in card.enumerate_pixels_mut() {
            if (440..520).contains(&x) {
                p.0[0] = p.0[0].saturating_add(100);
            }
        }
        let line = find_line(
            &card,
            &region("last_name", [0.37, 0.368, 0.95, 0.452], 0.04),
        )
        .unwrap();
        assert!(line.x0 < 460 && line.x1 > 940, "{line:?}");
    }

    #[test]
    fn a_lone_narrow_digit_is_a_line() {
        // A car licence's cylinders, `٤`: about a quarter of an em wide.
        let em = 0.04;
        let width = 0.26 * em * 630.0 / 1000.0;
        let card = card_with_lines(&[(0.465, 0.78, 0.78 + width, em)]);
        let line = find_line(&card, &region("cylinders", [0.52, 0.425, 0.795, 0.505], em));
        assert!(line.is_some());
    }

    #[test]
    fn a_grey_date_beside_a_masked_barcode_is_ink() {
        // A thin grey date over a black barcode just below its box: the barcode is
        // masked, and its black must not set the ink level above the date's grey.
        let mut card = card_with_lines(&[(0.755, 0.62, 0.78, 0.03)]);
        for y in 0..630 {
            for x in 0..1000 {
                let p = card.get_pixel(x, y).0[0];
                if p == 25 {
                    card.put_pixel(x, y, Luma([130]));
                }
                if y >= 510 && (300..970).contains(&x) {
                    card.put_pixel(x, y, Luma([5]));
                }
            }
        }
        let date = FieldRegion {
            masks: vec![[0.30, 0.81, 0.97, 0.965]],
            ..region("issue_date", [0.62, 0.72, 0.795, 0.795], 0.03)
        };
        let line = find_line(&card, &date).expect("the date is found");
        let cy = (line.y0 + line.y1) as f32 / 2.0 / 630.0;
        assert!((cy - 0.755).abs() < 0.01, "{line:?}");
        assert!(
            line.y1 <= 510,
            "the crop reaches into the barcode: {line:?}"
        );
    }

    #[test]
    fn a_line_keeps_its_own_rows_when_a_bolder_line_below_fills_the_window() {
        // A passport's thin Arabic name at the right of its box, its bold Latin
        // name close below across the left: over the whole window the band with
        // the most ink straddles both, over the Arabic name's columns it is its own.
        let mut card = card_with_lines(&[(0.28, 0.76, 0.97, 0.036)]);
        let thin = |x: u32| !x.is_multiple_of(5);
        for y in 0..630 {
            for x in 0..1000 {
                if card.get_pixel(x, y).0[0] == 25 && thin(x) {
                    card.put_pixel(x, y, Luma([215]));
                }
                let (u, v) = (x as f32 / 1000.0, y as f32 / 630.0);
                if (0.31..0.70).contains(&u) && (v - 0.335).abs() < 0.016 {
                    card.put_pixel(x, y, Luma([20]));
                }
            }
        }
        let arabic = region("name_ar", [0.31, 0.263, 0.97, 0.312], 0.034);
        let line = find_line(&card, &arabic).unwrap();
        let cy = (line.y0 + line.y1) as f32 / 2.0 / 630.0;
        assert!((cy - 0.28).abs() < 0.01, "{line:?}");
        assert!(line.x0 > 700, "{line:?}");
    }

    #[test]
    fn a_thin_word_keeps_its_box_from_the_bold_line_whose_bottom_reaches_it() {
        // A residence permit's nationality, one thin grey word, under the bold
        // Latin name whose last rows fall in the nationality box's margin: a band
        // over the gap holds more ink than the word, and must be seen to be the
        // name's.
        let mut card = card_with_lines(&[(0.34, 0.27, 0.84, 0.035), (0.418, 0.76, 0.84, 0.033)]);
        for y in 250..280 {
            for x in 0..1000 {
                if card.get_pixel(x, y).0[0] == 25 {
                    let ink = if x % 4 == 0 { 90 } else { 215 };
                    card.put_pixel(x, y, Luma([ink]));
                }
            }
        }
        let regions = [
            FieldRegion {
                align: Align::Left,
                ..region("name_en", [0.27, 0.305, 0.975, 0.372], 0.035)
            },
            region("nationality_ar", [0.60, 0.378, 0.84, 0.448], 0.033),
        ];
        let alone = find_line(&card, &regions[1]).unwrap();
        assert!(
            alone.y1 < 250,
            "the case under test: alone, the box takes the gap under the name ({alone:?})"
        );
        let crops = cut_lines(&card, &regions);
        let nationality = crops.iter().find(|c| c.key == "nationality_ar").unwrap();
        let cy = (nationality.line.y0 + nationality.line.y1) as f32 / 2.0 / 630.0;
        assert!((cy - 0.418).abs() < 0.01, "{:?}", nationality.line);
    }

    #[test]
    fn an_empty_box_has_no_line() {
        let card = card_with_lines(&[(0.333, 0.5, 0.95, 0.04)]);
        assert!(find_line(&card, &region("workplace", [0.2, 0.6, 0.8, 0.7], 0.04)).is_none());
        let crops = cut_lines(
            &card,
            &[
                region("first_name", [0.40, 0.29, 0.95, 0.376], 0.04),
                region("workplace", [0.2, 0.6, 0.8, 0.7], 0.04),
            ],
        );
        assert_eq!(crops.len(), 1);
        assert_eq!(crops[0].key, "first_name");
        assert_eq!(crops[0].image.width(), crops[0].line.x1 - crops[0].line.x0);
    }

    #[test]
    fn blur_lowers_sharpness() {
        let card = card_with_lines(&[(0.333, 0.5, 0.95, 0.04), (0.5, 0.4, 0.9, 0.03)]);
        let blurred = imageproc::filter::gaussian_blur_f32(&card, 3.0);
        assert!(sharpness(&card, 1) > 5.0 * sharpness(&blurred, 1));
    }

    #[test]
    fn an_upsampled_card_is_judged_at_its_source_resolution() {
        let card = card_with_lines(&[(0.333, 0.5, 0.95, 0.04), (0.5, 0.4, 0.9, 0.03)]);
        let small = imageops::resize(&card, 500, 315, imageops::FilterType::Triangle);
        let up = imageops::resize(&small, 1000, 630, imageops::FilterType::Triangle);
        let source = sharpness(&small, 1);
        let (native, warped) = (sharpness(&up, 2), sharpness(&up, 1));
        assert!(
            native > 0.4 * source && native > 5.0 * warped,
            "{source} {native} {warped}"
        );
        // Blur at the source still shows.
        let blurred = imageproc::filter::gaussian_blur_f32(&small, 2.0);
        let up_blurred = imageops::resize(&blurred, 1000, 630, imageops::FilterType::Triangle);
        assert!(sharpness(&up_blurred, 2) < 0.3 * source);
    }
}
