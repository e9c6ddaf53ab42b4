//! Stage 2: find the document's outline in a photo or a scan.
//!
//! Classical geometry on a small grey copy of the image ([`gradient`]). The sides of
//! a card are long straight edges, so they are found as peaks of a gradient-oriented
//! Hough transform ([`lines`]); pairs of roughly parallel lines are combined into
//! quadrilaterals and every candidate is scored by how much of its outline is backed
//! by edges of one polarity, by its aspect ratio and by its size ([`quads`]); a best
//! outline with a side lost ([`three_sided`]) or lying on a printed block
//! ([`printed_block`]) gives way to one enclosing it. A second search ([`region`])
//! takes the document as the region that stands out from a plain surface, which
//! finds a pale card whose outline is too faint for the edges; on a scanner's
//! surface it comes first, unless it stops short of edges outlining the same card
//! around it. Where no region stands out whole, or the one that
//! does is not backed by edges, a pale card on a page is the outline around its
//! print ([`printed_block::around_print`]). Where nothing qualifies, a faint
//! card is searched for again with less edge support, and on a page once more
//! with less still, for an outline of an ID card's shape and size. The winner's sides are
//! refined against the gradient, moved onto the card's edge from print where the
//! card's tint lies beyond them, and from another card's edge where the surface
//! lies inside them ([`card_beyond`]), and fitted to the full-resolution edges
//! ([`sides`], [`shadow`]), then scaled back to source pixels.
//!
//! Orientation is not decided here: the quad's long side is horizontal, and
//! whether it is upside down is left to the classifier, which reads content.

use std::cell::OnceCell;

use image::RgbImage;

use super::shrink::area_average;
use super::warp::{Point, Quad, elongation};

mod card_beyond;
mod gradient;
mod lines;
mod printed_block;
mod quads;
mod region;
mod shadow;
mod sides;
mod three_sided;

use gradient::GradientField;
use quads::{best_quads, landscape, score_quad};
pub(crate) use region::surface_colour;
use region::surface_region;
use sides::{agreed_polarity, fit_sides, onto_faint_side, refine};

/// Tuning of the locator; the defaults were chosen on generator output.
#[derive(Debug, Clone)]
pub struct LocateConfig {
    /// Longer side of the working copy, in pixels.
    pub work_side: u32,
    /// Smallest document, as a fraction of the image area.
    pub min_area_fraction: f32,
    /// Accepted long/short side ratios of the document, after perspective.
    pub min_aspect: f32,
    pub max_aspect: f32,
    /// Lowest candidate score accepted as a document outline.
    pub min_score: f32,
    /// Lowest score, as found, of the outlines searched for again where none
    /// reaches `min_score`: a faint card's (see [`candidates`]).
    pub min_faint_score: f32,
    /// Width over height of the documents read (ID-1 cards, passport pages).
    pub document_aspects: Vec<f32>,
    /// In an image of a document's own shape, an outline smaller than this share
    /// of it is taken for a rectangle printed on the document.
    pub inner_area_fraction: f32,
    /// Most outlines handed to the classifier to choose from.
    pub max_candidates: usize,
}

impl Default for LocateConfig {
    fn default() -> Self {
        LocateConfig {
            work_side: 480,
            min_area_fraction: 0.04,
            min_aspect: 1.2,
            max_aspect: 2.0,
            min_score: 0.5,
            // A grey card blurred on a 600 dpi page scores 0.4 as found.
            min_faint_score: 0.35,
            document_aspects: vec![ID1_ASPECT, 125.0 / 88.0],
            inner_area_fraction: 0.3,
            max_candidates: 3,
        }
    }
}

impl LocateConfig {
    /// Whether a shape of this `aspect` (either way round) is a document's, within
    /// `tolerance` (a share of the document's aspect).
    pub fn is_document_aspect(&self, aspect: f32, tolerance: f32) -> bool {
        is_aspect_among(aspect, &self.document_aspects, tolerance)
    }

    /// Whether `quad` has a document's shape, as a card lying flat on a page or a
    /// scanner shows it ([`CARD_SHAPE_TOLERANCE`]).
    pub fn is_card_shaped(&self, quad: &Quad) -> bool {
        self.is_document_aspect(quad.aspect(), CARD_SHAPE_TOLERANCE)
    }
}

/// How far (a share of its aspect) an outline's shape may be from a document's
/// for it to be taken as a card lying flat: on a page or a scanner there is no
/// perspective, only the outline's error.
pub const CARD_SHAPE_TOLERANCE: f32 = 0.06;

/// Width over height of an ID-1 card (85.60 × 53.98 mm): every card read.
const ID1_ASPECT: f32 = 85.60 / 53.98;

/// Elongations of an outline around two ID-1 cards lying one above the other
/// (`(2 + gap) / 1.59`, the gap in cards' heights: 1.26 touching), up to a card's
/// own shape ([`CARD_SHAPE_TOLERANCE`]; a gap of about a third of a card).
const STACKED_PAIR: std::ops::RangeInclusive<f32> =
    (2.0 / ID1_ASPECT) * (1.0 - CARD_SHAPE_TOLERANCE)..=ID1_ASPECT * (1.0 - CARD_SHAPE_TOLERANCE);

/// Share of the larger of a card at one end of two outlined together and another
/// outline in an ID-1 card's shape that the two must share for the other to be
/// that card's own outline.
const OUTLINED_ALREADY: f32 = 0.7;

/// An ID-1 card's width over the short side of the pages it is scanned on (A4's
/// 210 mm, Letter's 215.9 mm: 0.41 and 0.40), give or take a tenth.
const CARD_ACROSS_PAGE: std::ops::RangeInclusive<f32> = 0.36..=0.45;

/// Lowest score of an outline taken for an ID card on a page where nothing else
/// is found, in the card's shape and width across the page: a grey card faded on
/// a grey page scores 0.27 on its own edges.
const FAINTEST_CARD_ON_PAGE: f32 = 0.25;

/// Largest share of a page-shaped image an outline taken for a document lying on
/// the page covers: an ID card covers 7.4 % of an A4 page and 7.7 % of a Letter
/// page, a passport's data page 17.6 and 18.2 %.
const CARD_ON_PAGE_AREA: f32 = 0.2;

/// How far (a share of its aspect) an image's shape may be from a document's or a
/// page's to be taken for one cropped to it: photos' 4:3 and 3:2 frames fall
/// outside it for a document.
const FRAME_SHAPE_TOLERANCE: f32 = 0.045;

/// How far (a share of its aspect) a whole page scanned is from its paper's shape:
/// a 4:3 photo is 3 % from a Letter page's.
const SCANNED_PAGE_TOLERANCE: f32 = 0.01;

/// Width over height of the pages cards are scanned on: A4 and Letter.
const PAGE_ASPECTS: [f32; 2] = [297.0 / 210.0, 11.0 / 8.5];

/// Whether a shape of this `aspect` (either way round) is within `tolerance` (a
/// share) of one of `aspects`.
fn is_aspect_among(aspect: f32, aspects: &[f32], tolerance: f32) -> bool {
    let aspect = elongation(aspect);
    aspects
        .iter()
        .any(|&a| (aspect / a - 1.0).abs() <= tolerance)
}

/// Most area an edge outline around a surface region may add for the region to be
/// taken as stopped short of the card's edge: a side a tenth of the card's
/// height in.
const REGION_SHORT_OF_EDGES: f32 = 1.2;
/// Score of a surface region's outline at which its sides lie on the card's edges.
const REGION_BACKED: f32 = 0.8;

/// Edge threshold (see [`surface_edge_threshold`]) above which the image is taken as
/// noisy and its gradient computed on the averaged working copy.
const NOISY_THRESHOLD: f32 = 12.0;
/// Best outline score under which a noisy image is searched again, smoothed.
const NOISY_FALLBACK_SCORE: f32 = 0.6;

/// How the outline was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LocateMethod {
    /// Four edges found in the image.
    Edges,
    /// The region that stands out from a plain surface ([`region`]), or the
    /// card around the print that does.
    SurfaceRegion,
    /// No outline stood out, and the image itself has a document's shape: a
    /// scan or photo cropped to the card.
    WholeImage,
}

/// A located document: its outline (long side horizontal) in source pixels.
#[derive(Debug, Clone, Copy)]
pub struct Located {
    pub quad: Quad,
    pub method: LocateMethod,
    /// Candidate score in 0..1 (edge support, aspect, size).
    pub score: f32,
}

/// Finds the document in `image`; `None` when nothing document-shaped is there.
pub fn locate(image: &RgbImage, config: &LocateConfig) -> Option<Located> {
    candidates(image, config).into_iter().next()
}

/// Outlines that may be the document, most likely first (at most
/// `config.max_candidates`). The classifier, which knows what documents look
/// like, picks among them.
pub fn candidates(image: &RgbImage, config: &LocateConfig) -> Vec<Located> {
    let (w, h) = image.dimensions();
    let scale = config.work_side as f32 / w.max(h) as f32;
    let (sw, sh) = (
        ((w as f32 * scale).round() as u32).max(8),
        ((h as f32 * scale).round() as u32).max(8),
    );
    let colour = area_average(image, sw, sh);
    // The thumbnail is not exactly `scale` on both axes; map back per axis.
    let (fx, fy) = (w as f32 / sw as f32, h as f32 / sh as f32);
    let fields = EdgeFields::new(image, &colour);
    let (mut field, mut found) = edge_search(&fields, config);
    // A document on a plain surface (every scan, many photos) stands out from the
    // surface's colour even where its outline is too faint for the edge search.
    let rank = |q: &Quad, s: f32| s * (q.area() / (sw * sh) as f32).sqrt();
    // On a page where no region stands out whole as a document, a pale card is
    // the outline around its print; first unless the edge search found a better
    // one.
    let around_print = |field: &GradientField| {
        region::print_block(&colour, config)
            .and_then(|block| printed_block::around_print(field, &block, config))
            .map(|(quad, score)| {
                let first = found
                    .first()
                    .is_none_or(|best| rank(&quad, score) >= rank(&best.0, best.1));
                (quad, score, first)
            })
    };
    let on_surface = if let Some(region) = surface_region(&colour, config) {
        let refined = refine(field, region.quad);
        let refined = onto_faint_side(field, refined, config).unwrap_or(refined);
        let score = score_quad(field, &refined, config).unwrap_or(0.0);
        // First on a scanner (where a faint card loses the edge search to the
        // holder's photo or the page), unless it is a block printed inside an
        // outline the edge search accepts on its own (a white card or a pale
        // page on white paper differs from it only by its print); or when its
        // edges are partly backed and it is not much smaller than the edge
        // search's best outline.
        let printed_block = found.first().is_some_and(|(best, score, _)| {
            *score >= config.min_score
                && best.area() >= 2.0 * refined.area()
                && best.encloses(&refined, 1.0)
        });
        // Nor where, on a scanner (no perspective to bend an edge outline), its
        // outline is partly unbacked and the edge search outlines the same card
        // a little larger, in an ID-1 card's shape, around it: the region stopped
        // short of a side where the card's face is as pale as the paper, and the
        // card's edge still shows. (Not in a passport page's shape: a card with
        // the gap to another card below it has that shape.)
        let short_of_edges = found.first().is_some_and(|(best, best_score, _)| {
            region.on_scanner_surface()
                && score < REGION_BACKED
                && *best_score >= config.min_score
                && is_aspect_among(best.aspect(), &[ID1_ASPECT], CARD_SHAPE_TOLERANCE)
                && best.area() <= REGION_SHORT_OF_EDGES * refined.area()
                && best.encloses(&refined, 0.03 * best.width())
        });
        let first = !short_of_edges
            && ((region.on_scanner_surface() && !printed_block)
                || found.first().is_none_or(|best| {
                    score >= 0.3 && rank(&refined, score) >= 0.8 * rank(&best.0, best.1)
                }));
        // A region whose outline its edges do not back (a pale card joined to a
        // shade of the page at one corner) gives way to the outline around its
        // print where that is backed better.
        if score < config.min_score
            && let Some(around) = around_print(field).filter(|around| around.1 > score)
        {
            Some(around)
        } else {
            Some((refined, score, first))
        }
    } else {
        around_print(field)
    };
    if let Some((quad, score, first)) = on_surface {
        let outline = (quad, score, LocateMethod::SurfaceRegion);
        found.insert(if first { 0 } else { found.len().min(1) }, outline);
    }
    // An image cropped to the card shows no outline, only the card's inner
    // rectangles; it is recognised by its own shape.
    let card_shaped = config.is_document_aspect(w as f32 / h as f32, FRAME_SHAPE_TOLERANCE);
    let inner = |quad: &Quad| quad.area() / (sw * sh) as f32 <= config.inner_area_fraction;
    // But an A4 page has a passport page's shape too: on a whole page scanned, the
    // document is a small, well backed outline of a document's own shape, smaller
    // than a passport page's share of a page.
    let card_on_page = |quad: &Quad, score: f32, min_score: f32| {
        score >= min_score
            && quad.area() / (sw * sh) as f32 <= CARD_ON_PAGE_AREA
            && config.is_card_shaped(quad)
    };
    found.retain(|(quad, score, _)| {
        !(card_shaped && inner(quad)) || card_on_page(quad, *score, config.min_score)
    });
    // A faint card (grey, blurred, pale on white paper) is outlined by lines that
    // score under `min_score` as found and well once refined onto its edges. Where
    // nothing else stands out, such an outline is taken when refined it reaches
    // `min_score`, and on a page when it has a card's shape and share of the page,
    // which make up for weaker backing (not on an image of an ID card's own shape:
    // its printed photo has that shape and share).
    let page_shaped = is_aspect_among(w as f32 / h as f32, &PAGE_ASPECTS, FRAME_SHAPE_TOLERANCE);
    if found.is_empty() && config.min_faint_score < config.min_score {
        let faint = LocateConfig {
            min_score: config.min_faint_score,
            ..config.clone()
        };
        let faint_found;
        (field, faint_found) = edge_search(&fields, &faint);
        found = faint_found
            .into_iter()
            .filter(|(quad, score, _)| {
                (*score >= config.min_score && !(card_shaped && inner(quad)))
                    || (page_shaped && card_on_page(quad, *score, faint.min_score))
            })
            .collect();
    }
    // Faintest of all, a grey card faded on a grey page: on a page where nothing
    // else is found, an outline with an ID card's shape and an ID card's width
    // across the page.
    if found.is_empty() && page_shaped && config.min_faint_score < config.min_score {
        let faintest = LocateConfig {
            min_score: FAINTEST_CARD_ON_PAGE,
            ..config.clone()
        };
        let faintest_found;
        (field, faintest_found) = edge_search(&fields, &faintest);
        let page_width = sw.min(sh) as f32;
        found = faintest_found
            .into_iter()
            .filter(|(quad, _, _)| {
                config.is_card_shaped(quad)
                    && CARD_ACROSS_PAGE.contains(&(landscape(*quad).width() / page_width))
            })
            .collect();
    }
    let surface = surface_colour(&colour).map(f32::from);
    let mut located: Vec<Located> = found
        .into_iter()
        .map(|(quad, score, method)| {
            let quad = card_beyond::onto_card_edges(&colour, surface, field, quad, config);
            let outward = agreed_polarity(field, &colour, surface, &quad);
            // A working-grid cell spans `fx`×`fy` source pixels; outlines are in
            // continuous coordinates (pixel centres at +0.5), as the warp reads them.
            let quad = Quad {
                corners: quad
                    .corners
                    .map(|p| Point::new((p.x + 0.5) * fx, (p.y + 0.5) * fy)),
            };
            let quad =
                shadow::off_shadows(image, fit_sides(image, quad, 4.0 * fx.max(fy), outward));
            Located {
                quad: landscape(quad),
                method,
                score,
            }
        })
        .collect();
    located.truncate(config.max_candidates);
    if card_shaped && located.is_empty() {
        located.push(Located {
            quad: landscape(Quad::full(w, h)),
            method: LocateMethod::WholeImage,
            score: 0.0,
        });
    }
    located
}

/// The index of each of `located` (on an image `w`×`h`) that may be two ID-1 cards scanned
/// close together, one above the other, with the two cards at its ends: on a
/// whole page (its paper's shape within [`SCANNED_PAGE_TOLERANCE`]), such a pair
/// can stand out only together. Not where one of the two is outlined on its own
/// in an ID-1 card's shape: the other is then found beside it once it is masked
/// (`find::elsewhere`), more closely.
pub fn stacked_pairs(located: &[Located], (w, h): (u32, u32)) -> Vec<(usize, [Located; 2])> {
    if !is_aspect_among(w as f32 / h as f32, &PAGE_ASPECTS, SCANNED_PAGE_TOLERANCE) {
        return Vec::new();
    }
    let outlined = |end: &Quad| {
        located.iter().any(|l| {
            is_aspect_among(l.quad.aspect(), &[ID1_ASPECT], CARD_SHAPE_TOLERANCE)
                && l.quad.overlap(end) > OUTLINED_ALREADY * l.quad.area().max(end.area())
        })
    };
    located
        .iter()
        .enumerate()
        .filter_map(|(i, pair)| Some((i, pair, stacked_cards(&pair.quad, w.min(h) as f32)?)))
        .filter(|(_, _, cards)| !cards.iter().any(outlined))
        .map(|(i, pair, cards)| (i, cards.map(|quad| Located { quad, ..*pair })))
        .collect()
}

/// The two cards at the ends of `pair` (long side first) when it has the shape
/// of two ID-1 cards lying one above the other ([`STACKED_PAIR`]) and their size
/// on a page whose short side is `page_width` ([`CARD_ACROSS_PAGE`]): its short
/// sides are the cards' long sides, and each card's height is its width over the
/// card's aspect, whatever the gap between them.
fn stacked_cards(pair: &Quad, page_width: f32) -> Option<[Quad; 2]> {
    let [a, b, c, d] = pair.corners;
    let card_width = (a.distance(d) + b.distance(c)) / 2.0;
    if !STACKED_PAIR.contains(&pair.elongation())
        || !CARD_ACROSS_PAGE.contains(&(card_width / page_width))
    {
        return None;
    }
    let share = card_width / ID1_ASPECT / pair.width();
    let along = |from: Point, to: Point, t: f32| {
        Point::new(from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t)
    };
    let end = |t0: f32, t1: f32| {
        landscape(Quad {
            corners: [
                along(a, b, t0),
                along(a, b, t1),
                along(d, c, t1),
                along(d, c, t0),
            ],
        })
    };
    Some([end(0.0, share), end(1.0 - share, 1.0)])
}

/// The two gradient fields the edge search looks on, each computed once however
/// often it searches: the full-resolution gradient max-pooled onto the working
/// grid, and the same from the image averaged down (`colour`), only when needed.
struct EdgeFields<'a> {
    colour: &'a RgbImage,
    /// Thin printed outlines survive max-pooling of full-resolution gradients,
    /// where averaging the image down first would wash them out.
    sharp: GradientField,
    smooth: OnceCell<GradientField>,
}

impl<'a> EdgeFields<'a> {
    fn new(image: &RgbImage, colour: &'a RgbImage) -> Self {
        let (sw, sh) = colour.dimensions();
        EdgeFields {
            colour,
            sharp: GradientField::pooled(image, sw, sh),
            smooth: OnceCell::new(),
        }
    }

    fn smooth(&self) -> &GradientField {
        let (sw, sh) = self.colour.dimensions();
        self.smooth
            .get_or_init(|| GradientField::pooled(self.colour, sw, sh))
    }
}

/// Outlines found by their edges (most likely first), and the gradient field they
/// were found on.
fn edge_search<'f>(
    fields: &'f EdgeFields,
    config: &LocateConfig,
) -> (&'f GradientField, Vec<(Quad, f32, LocateMethod)>) {
    let edge_outlines = |field: &GradientField| {
        best_quads(field, config, config.max_candidates)
            .into_iter()
            .map(|(quad, score)| (quad, score, LocateMethod::Edges))
            .collect::<Vec<_>>()
    };
    let field = &fields.sharp;
    let found = edge_outlines(field);
    // In a noisy photo the maxima of full-resolution noise drown a soft outline;
    // averaging the image down first removes most of that noise, at some cost in
    // precision, so it is the fallback when no outline is clearly backed. A quiet
    // photo with no backed outline at all (a pale card blurred on pale paper) gets
    // the same second look.
    let second_look = match found.first() {
        None => true,
        Some((_, score, _)) => field.threshold > NOISY_THRESHOLD && *score < NOISY_FALLBACK_SCORE,
    };
    if second_look {
        let smooth = fields.smooth();
        let smooth_found = edge_outlines(smooth);
        if !smooth_found.is_empty() {
            return (smooth, smooth_found);
        }
    }
    (field, found)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::sides::{agreed_polarity, fit_sides, grow, onto_faint_side, outward_polarity};
    use super::*;
    use crate::pipeline::warp::Homography;
    use image::Rgb;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn two_cards_outlined_together_one_above_the_other_are_outlined_at_its_ends() {
        // A card's two sides, 856 x 540 each, 40 apart, outlined together on a
        // page 2100 wide: each card's height follows from the pair's width.
        let outline = |x0: f32, y0: f32, x1: f32, y1: f32| {
            landscape(Quad::from_xy([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
        };
        let pair = outline(100.0, 100.0, 956.0, 1220.0);
        let cards = stacked_cards(&pair, 2100.0).expect("two cards");
        let mut spans: Vec<[f32; 4]> = cards.iter().map(Quad::bounds).collect();
        spans.sort_by(|a, b| a[1].total_cmp(&b[1]));
        let card_height = 856.0 / ID1_ASPECT;
        let expected = [
            [100.0, 100.0, 956.0, 100.0 + card_height],
            [100.0, 1220.0 - card_height, 956.0, 1220.0],
        ];
        for (span, expected) in spans.iter().zip(expected) {
            for (got, want) in span.iter().zip(expected) {
                assert!((got - want).abs() < 0.5, "{span:?} vs {expected:?}");
            }
        }
        assert!(cards.iter().all(|card| card.aspect() > 1.0));
        // A card alone is not two, nor is a pair far smaller than a card on the page.
        assert!(stacked_cards(&outline(100.0, 100.0, 956.0, 640.0), 2100.0).is_none());
        assert!(stacked_cards(&pair, 6000.0).is_none());
    }

    /// A card-like picture: pale background, dark text bars, a photo block.
    pub(crate) fn card(width: u32, height: u32) -> RgbImage {
        RgbImage::from_fn(width, height, |x, y| {
            let (u, v) = (x as f32 / width as f32, y as f32 / height as f32);
            let photo = (0.04..0.28).contains(&u) && (0.1..0.6).contains(&v);
            let text = (0.4..0.95).contains(&u)
                && [0.3, 0.4, 0.5, 0.6, 0.8]
                    .iter()
                    .any(|&row| (v - row).abs() < 0.02)
                && !((u * 60.0) as u32).is_multiple_of(3);
            if photo {
                Rgb([120, 100, 90])
            } else if text {
                Rgb([30, 30, 40])
            } else {
                Rgb([205, 215, 225])
            }
        })
    }

    /// Pastes `card` onto a textured `width`×`height` background with its corners
    /// at `corners` (TL, TR, BR, BL of the card).
    pub(crate) fn photo(
        card: &RgbImage,
        width: u32,
        height: u32,
        corners: [Point; 4],
        seed: u64,
    ) -> RgbImage {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let base: [f32; 3] = [
            rng.random_range(60.0..140.0),
            rng.random_range(50.0..120.0),
            rng.random_range(30.0..90.0),
        ];
        let stripes = rng.random_range(6.0..20.0f32);
        paste(card, width, height, corners, |x, y, _| {
            // Wood-like grain plus per-pixel noise.
            let grain = ((x as f32 + 0.3 * y as f32) / stripes).sin() * 18.0;
            let noise = ((x.wrapping_mul(7919) ^ y.wrapping_mul(104_729)) % 23) as f32 - 11.0;
            Rgb(base.map(|b| (b + grain + noise).clamp(0.0, 255.0) as u8))
        })
    }

    /// A pale card whose lower part is a barcode of dense vertical bars, pasted
    /// into a 1600×1200 photo on `background` (as [`paste`] colours it), and
    /// the card's corners.
    pub(crate) fn barcode_card_photo(
        background: impl Fn(u32, u32, Point) -> Rgb<u8>,
    ) -> (RgbImage, [Point; 4]) {
        let (width, height) = (856, 540);
        let unit = width / 170;
        let card = RgbImage::from_fn(width, height, |x, y| {
            let (u, v) = (x as f32 / width as f32, y as f32 / height as f32);
            // Bars one to three units wide, in a fixed irregular pattern.
            let bar = [1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0][((x / unit) % 13) as usize] == 1;
            if (0.04..0.96).contains(&u) && (0.55..0.92).contains(&v) && bar {
                Rgb([25, 25, 30])
            } else {
                Rgb([205, 215, 225])
            }
        });
        let corners = [
            Point::new(380.0, 300.0),
            Point::new(1236.0, 320.0),
            Point::new(1226.0, 860.0),
            Point::new(370.0, 840.0),
        ];
        (paste(&card, 1600, 1200, corners, background), corners)
    }

    /// Pastes `card` into a `width`×`height` image with its corners at `corners`
    /// (TL, TR, BR, BL of the card); `background(x, y, p)` colours the rest, `p`
    /// being the pixel's position in the card's own coordinates.
    pub(crate) fn paste(
        card: &RgbImage,
        width: u32,
        height: u32,
        corners: [Point; 4],
        background: impl Fn(u32, u32, Point) -> Rgb<u8>,
    ) -> RgbImage {
        let (cw, ch) = (card.width() as f32, card.height() as f32);
        let to_card = Homography::from_points(
            corners,
            [
                Point::new(0.0, 0.0),
                Point::new(cw, 0.0),
                Point::new(cw, ch),
                Point::new(0.0, ch),
            ],
        )
        .unwrap();
        RgbImage::from_fn(width, height, |x, y| {
            let p = to_card.apply(Point::new(x as f32 + 0.5, y as f32 + 0.5));
            if p.x >= 0.0 && p.y >= 0.0 && p.x < cw && p.y < ch {
                *card.get_pixel(p.x as u32, p.y as u32)
            } else {
                background(x, y, p)
            }
        })
    }

    /// The corner error up to a half turn, which the classifier decides.
    pub(crate) fn corner_error(found: &Quad, truth: &[Point; 4]) -> f32 {
        let truth = Quad { corners: *truth };
        found
            .corner_error(&truth)
            .min(found.turned(2).corner_error(&truth))
    }

    #[test]
    fn finds_a_card_on_a_textured_background_in_perspective() {
        let card = card(856, 540);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for case in 0..6 {
            let jitter = |rng: &mut ChaCha8Rng| rng.random_range(-60.0..60.0f32);
            let mut truth = [
                Point::new(300.0 + jitter(&mut rng), 250.0 + jitter(&mut rng)),
                Point::new(1300.0 + jitter(&mut rng), 260.0 + jitter(&mut rng)),
                Point::new(1310.0 + jitter(&mut rng), 900.0 + jitter(&mut rng)),
                Point::new(290.0 + jitter(&mut rng), 890.0 + jitter(&mut rng)),
            ];
            if case % 2 == 1 {
                // Upside down.
                truth.rotate_left(2);
            }
            let image = photo(&card, 1600, 1200, truth, case);
            let found = locate(&image, &LocateConfig::default()).expect("card found");
            // Its edges or its colour against the table, not the image's frame.
            assert_ne!(found.method, LocateMethod::WholeImage);
            let truth_upright = if case % 2 == 1 {
                let mut t = truth;
                t.rotate_left(2);
                t
            } else {
                truth
            };
            let err = corner_error(&found.quad, &truth_upright);
            assert!(err < 12.0, "case {case}: corner error {err} px, {found:?}");
        }
    }

    #[test]
    fn finds_a_sideways_card() {
        let card = card(856, 540);
        // Turned 90° clockwise: the card's top-left is at the image's top-right.
        let truth = [
            Point::new(900.0, 200.0),
            Point::new(920.0, 1150.0),
            Point::new(300.0, 1140.0),
            Point::new(310.0, 190.0),
        ];
        let image = photo(&card, 1200, 1400, truth, 3);
        let found = locate(&image, &LocateConfig::default()).expect("card found");
        let err = corner_error(&found.quad, &truth);
        assert!(err < 12.0, "corner error {err}: {found:?}");
        assert!(found.quad.aspect() > 1.4);
    }

    #[test]
    fn finds_a_pale_card_whose_soft_outline_only_the_averaged_copy_shows() {
        // A generator photo (tuning seed 4245, NID front 49, kept as a fixture since
        // the generator moved on): a white card on pale paper, focus blur, a glare
        // spot, a quiet image. At full resolution no outline is backed.
        let truth = [
            [278.58954, 206.76726],
            [673.96735, 100.473206],
            [715.5834, 370.43866],
            [328.2222, 448.70355],
        ];
        assert_fixture_outlined("photos/pale-card.jpg", truth, 0.04);
    }

    /// An image of `tests/fixtures`.
    fn fixture(path: &str) -> RgbImage {
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/");
        image::open(format!("{fixtures}{path}")).unwrap().to_rgb8()
    }

    /// The locator with no second search for a faint card.
    fn without_faint_search() -> LocateConfig {
        let config = LocateConfig::default();
        LocateConfig {
            min_faint_score: config.min_score,
            ..config
        }
    }

    /// Asserts that every corner of `found` lies within `tolerance` of the card's
    /// width of `truth`'s.
    fn assert_outlined(found: &Located, truth: [[f32; 2]; 4], tolerance: f32) {
        let truth = truth.map(|[x, y]| Point::new(x, y));
        let err = corner_error(&found.quad, &truth);
        let width = truth[0].distance(truth[1]);
        assert!(err < tolerance * width, "corner error {err} px: {found:?}");
    }

    /// Asserts that on the page of `tests/fixtures` at `path`, taken whole without
    /// the search for a faint card, the card is outlined by its edges with it.
    fn assert_faint_card_found_not_the_page(path: &str, truth: [[f32; 2]; 4], tolerance: f32) {
        let taken_whole =
            locate(&fixture(path), &without_faint_search()).expect("the page taken whole");
        assert_eq!(taken_whole.method, LocateMethod::WholeImage);
        let found = assert_fixture_outlined(path, truth, tolerance);
        assert_eq!(found.method, LocateMethod::Edges);
    }

    /// Asserts that the card in the image of `tests/fixtures` at `path` is outlined
    /// as [`assert_outlined`] asks, and gives its outline.
    fn assert_fixture_outlined(path: &str, truth: [[f32; 2]; 4], tolerance: f32) -> Located {
        let found = locate(&fixture(path), &LocateConfig::default()).expect("card found");
        assert_outlined(&found, truth, tolerance);
        found
    }

    #[test]
    fn a_white_card_on_a_scanner_is_not_taken_for_its_photo() {
        // The border is crisp: a thin grey line all round.
        assert_found_around_its_photo(|_| true);
    }

    #[test]
    fn a_page_on_a_scanner_whose_border_has_gaps_is_not_taken_for_its_photo() {
        // A pale passport page's edge shows along only part of each side: two
        // stretches in every five are lost against the glass.
        assert_found_around_its_photo(|t| (t * 25.0) as u32 % 5 >= 2);
    }

    /// A white card with a thin grey printed border (drawn where `border_at`
    /// holds, at the share of each side's length), its holder's photo and text,
    /// on a scanner's white glass, is found by its border: the photo is the
    /// region that stands out most from the glass. A 4:3 frame, so the photo is
    /// not dropped as a rectangle printed on a cropped card.
    fn assert_found_around_its_photo(border_at: impl Fn(f32) -> bool) {
        let (x0, y0, x1, y1) = (300u32, 200u32, 1156u32, 740u32);
        let image = RgbImage::from_fn(1600, 1200, |x, y| {
            let inside = (x0..x1).contains(&x) && (y0..y1).contains(&y);
            let (u, v) = (
                (x - x0.min(x)) as f32 / 856.0,
                (y - y0.min(y)) as f32 / 540.0,
            );
            let border = inside
                && ((x < x0 + 3 || x >= x1 - 3) && border_at(v)
                    || (y < y0 + 3 || y >= y1 - 3) && border_at(u));
            let photo = inside && (0.04..0.34).contains(&u) && (0.1..0.8).contains(&v);
            let text = inside
                && (0.4..0.9).contains(&u)
                && [0.3, 0.45, 0.6].iter().any(|&row| (v - row).abs() < 0.02)
                && !((u * 60.0) as u32).is_multiple_of(3);
            let noise = ((x.wrapping_mul(7919) ^ y.wrapping_mul(104_729)) % 4) as u8;
            if border {
                Rgb([150, 150, 155])
            } else if photo {
                Rgb([90, 80, 75])
            } else if text {
                Rgb([30, 30, 40])
            } else {
                Rgb([248 - noise, 248 - noise, 248 - noise])
            }
        });
        let found = locate(&image, &LocateConfig::default()).expect("card found");
        let truth =
            [(x0, y0), (x1, y0), (x1, y1), (x0, y1)].map(|(x, y)| Point::new(x as f32, y as f32));
        let err = corner_error(&found.quad, &truth);
        assert!(err < 12.0, "corner error {err} px, {found:?}");
    }

    #[test]
    fn takes_a_cropped_scan_as_a_whole() {
        let image = card(1000, 630);
        let found = locate(&image, &LocateConfig::default()).expect("card found");
        assert_eq!(found.method, LocateMethod::WholeImage);
        assert_eq!(found.quad, Quad::full(1000, 630));
    }

    #[test]
    fn a_faint_grey_card_on_a_whole_page_is_found_not_the_page_taken_whole() {
        // A generator page (tuning seed 8311, page 229, averaged down fivefold as
        // the overview does): a faded grey card, blurred, on an A4 page scanned
        // in greyscale. The page has a passport page's shape, and no outline
        // reaches `min_score` as found.
        let truth = [
            [837.6812, 2434.958],
            [2858.1145, 2514.5396],
            [2807.933, 3788.5518],
            [787.49994, 3708.97],
        ];
        assert_faint_card_found_not_the_page(
            "pages/faint-grey-card-overview.jpg",
            truth.map(|[x, y]| [x / 5.0, y / 5.0]),
            0.02,
        );
    }

    #[test]
    fn a_card_faded_grey_on_a_grey_page_is_outlined_where_no_outline_scores_as_faint() {
        // A generator page (diagnosis seed 9301, page 173, averaged down threefold
        // as the overview does): a faded card on a held-out face, on a blotchy A4
        // page scanned in greyscale. Its outline scores 0.28, under `min_faint_score`, and the
        // page was taken whole. Its faded lower edge is fitted loosely, but the
        // card is read.
        let truth = [
            [278.33, 706.0],
            [614.67, 689.67],
            [625.0, 902.0],
            [288.33, 918.33],
        ];
        assert_faint_card_found_not_the_page(
            "pages/faded-grey-card-grey-page-overview.jpg",
            truth,
            0.1,
        );
    }

    #[test]
    fn a_pale_card_whose_region_stops_short_of_a_side_is_outlined_by_its_edges() {
        // A generator page (diagnosis seed 9301, page 78, averaged down twofold):
        // a card on a held-out face whose lower part is as pale as the paper. The
        // region standing out from the page ends at the serial number, a tenth of
        // the card's height above its lower edge, which the edge search finds.
        let truth = [
            [423.0, 254.5],
            [759.5, 239.0],
            [769.5, 451.5],
            [432.5, 467.0],
        ];
        assert_fixture_outlined("pages/pale-card-pale-lower-edge-page.jpg", truth, 0.04);
    }

    #[test]
    fn a_card_whose_lines_score_low_as_found_is_taken_when_refined_they_score_well() {
        // A generator photo (tuning seed 8313, photo 140): a card on paper, JPEG
        // quality 55 with noise, glare; no outline reaches `min_score` as found,
        // and the image was refused as showing no document.
        let image = fixture("photos/noisy-card.jpg");
        assert!(locate(&image, &without_faint_search()).is_none());
        let found = locate(&image, &LocateConfig::default()).expect("card found");
        assert!(found.score >= 0.5, "{found:?}");
        let truth = [
            [366.95056, 153.50551],
            [1113.0394, 262.8729],
            [1070.8469, 749.24866],
            [299.90588, 640.29193],
        ];
        assert_outlined(&found, truth, 0.02);
    }

    #[test]
    fn finds_nothing_in_a_square_of_noise() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let image = RgbImage::from_fn(800, 800, |_, _| {
            Rgb([rng.random(), rng.random(), rng.random()])
        });
        assert!(locate(&image, &LocateConfig::default()).is_none());
    }

    /// The colour of what `image`'s card lies on, as the locator takes it.
    fn surface_of(image: &RgbImage) -> [f32; 3] {
        surface_colour(image).map(f32::from)
    }

    /// The upright rectangle between `left` and `right`, `top` and `bottom`.
    fn rect(left: f32, top: f32, right: f32, bottom: f32) -> Quad {
        Quad::from_xy([[left, top], [right, top], [right, bottom], [left, bottom]])
    }

    /// Asserts that of `from`'s corners only those of side `side` (0 the top, 1 the
    /// right) moved in `grown`, onto the card's edge at `edge` (a y for a top or
    /// bottom side, an x for a left or right one), give or take `tolerance`.
    fn assert_only_side_moved(grown: &Quad, from: &Quad, side: usize, edge: f32, tolerance: f32) {
        for corner in 0..4 {
            let p = grown.corners[corner];
            if corner == side || corner == (side + 1) % 4 {
                let at = if side.is_multiple_of(2) { p.y } else { p.x };
                assert!(
                    (at - edge).abs() <= tolerance,
                    "side {side} at {at}, card edge at {edge}"
                );
            } else {
                assert_eq!(p, from.corners[corner], "corner {corner} moved");
            }
        }
    }

    /// The central-difference gradient of a grey picture, with its edge threshold.
    fn field_of(
        width: usize,
        height: usize,
        threshold: f32,
        brightness: impl Fn(f32, f32) -> f32,
    ) -> GradientField {
        let (mut gx, mut gy, mut mag) = (vec![], vec![], vec![]);
        for y in 0..height {
            for x in 0..width {
                let (x, y) = (x as f32, y as f32);
                let dx = (brightness(x + 1.0, y) - brightness(x - 1.0, y)) / 2.0;
                let dy = (brightness(x, y + 1.0) - brightness(x, y - 1.0)) / 2.0;
                gx.push(dx);
                gy.push(dy);
                mag.push((dx * dx + dy * dy).sqrt());
            }
        }
        GradientField {
            width,
            height,
            gx,
            gy,
            mag,
            threshold,
        }
    }

    /// A pale card with a thin grey rim on paper of its colour, and a dark band
    /// of print ending 5 px inside its lower edge: the band's end steps the
    /// same way as the rim, three times as strongly.
    #[test]
    fn a_side_is_fitted_to_the_cards_rim_not_to_print_stepping_more_strongly_beside_it() {
        let image = RgbImage::from_fn(400, 300, |x, y| {
            let (x, y) = (x as i32, y as i32);
            let inside = (50..350).contains(&x) && (50..241).contains(&y);
            let rim = inside && !((52..348).contains(&x) && (52..239).contains(&y));
            if rim {
                Rgb([160, 160, 160])
            } else if inside && (70..330).contains(&x) && (200..234).contains(&y) {
                Rgb([40, 40, 40])
            } else {
                Rgb([226, 226, 226])
            }
        });
        // The side as found lies 2 px below the rim.
        let found = rect(50.0, 50.0, 350.0, 242.0);
        let fitted = fit_sides(&image, found, 8.0, [0; 4]);
        for corner in [2, 3] {
            let y = fitted.corners[corner].y;
            assert!(
                (y - 240.0).abs() < 1.5,
                "corner {corner} at y = {y}: {fitted:?}"
            );
        }
    }

    /// A pale card a shade darker than its paper, and a dark barcode starting
    /// 6 px inside its left edge along a third of it: there the bars
    /// step ten times as strongly as the card's edge, which runs on straight.
    #[test]
    fn a_side_is_fitted_to_the_cards_edge_where_print_runs_along_part_of_it() {
        let image = RgbImage::from_fn(400, 300, |x, y| {
            let (x, y) = (x as i32, y as i32);
            let inside = (50..350).contains(&x) && (50..241).contains(&y);
            if inside && (56..330).contains(&x) && (165..220).contains(&y) {
                Rgb([40, 40, 40])
            } else if inside {
                Rgb([214, 214, 214])
            } else {
                Rgb([230, 230, 230])
            }
        });
        // The left side as found lies 2 px inside the card.
        let found = rect(52.0, 50.0, 350.0, 241.0);
        let fitted = fit_sides(&image, found, 8.0, [0; 4]);
        for corner in [0, 3] {
            let x = fitted.corners[corner].x;
            assert!(
                (x - 50.0).abs() < 1.5,
                "corner {corner} at x = {x}: {fitted:?}"
            );
        }
    }

    /// A pale card a shade darker than its white paper, a darker card lying 6 px
    /// beyond its right edge: that card's edge steps five times as strongly, the
    /// other way.
    #[test]
    fn a_side_is_fitted_to_the_cards_edge_not_to_another_card_beside_it() {
        let image = RgbImage::from_fn(420, 300, |x, y| match (x, y) {
            (50..350, 50..241) => Rgb([214, 214, 214]),
            (356..420, 40..260) => Rgb([120, 120, 120]),
            _ => Rgb([235, 235, 235]),
        });
        let found = rect(50.0, 50.0, 352.0, 241.0);
        let at_right = |fitted: Quad| [1, 2].map(|corner| fitted.corners[corner].x);
        // Which way the card's edges step not known, the stronger edge wins.
        let unknown = at_right(fit_sides(&image, found, 8.0, [0; 4]));
        assert!(
            unknown.iter().all(|x| (x - 356.0).abs() < 1.5),
            "{unknown:?}"
        );
        // Known to step brighter outwards, the side is the card's own.
        let known = at_right(fit_sides(&image, found, 8.0, [1; 4]));
        assert!(known.iter().all(|x| (x - 350.0).abs() < 1.5), "{known:?}");
    }

    #[test]
    fn the_way_a_cards_edges_step_is_known_only_from_an_outline_on_them() {
        // A pale card (x 60 to 360) on a darker table, ringed by a drop shadow
        // 8 px wide darker still.
        let photo = RgbImage::from_fn(420, 300, |x, y| match (x, y) {
            (60..360, 50..241) => Rgb([232, 232, 228]),
            (52..368, 42..249) => Rgb([150, 150, 150]),
            _ => Rgb([200, 200, 200]),
        });
        let field = GradientField::pooled(&photo, 420, 300);
        let surface = surface_of(&photo);
        let on_card = rect(60.0, 50.0, 360.0, 241.0);
        assert_eq!(agreed_polarity(&field, &photo, surface, &on_card), [-1; 4]);
        // On the shadow's outer edge all round, the sides step brighter outwards,
        // against the card's colour onto the table's.
        let on_shadow = rect(52.0, 42.0, 368.0, 249.0);
        assert_eq!(agreed_polarity(&field, &photo, surface, &on_shadow), [0; 4]);
        // On it along two sides, they step against the other two.
        let in_part = rect(60.0, 50.0, 368.0, 249.0);
        assert_eq!(agreed_polarity(&field, &photo, surface, &in_part), [0; 4]);
    }

    #[test]
    fn a_side_on_the_barcode_moves_out_onto_the_cards_faint_edge() {
        // A pale card (x 90 to 390, aspect 1.59) on a darker surface; its right
        // edge is blurred over 8 px, below the edge threshold. Its barcode's last
        // bar ends 12 px short of that edge, so the outline's right side lies on
        // the bar: brighter outside, where the card's three edges are darker.
        let (left, right, top, bottom) = (90.0, 390.0, 55.0, 244.0);
        let field = field_of(480, 300, 10.0, |x, y| {
            if !(top..bottom).contains(&y) || x < left || x > right + 4.0 {
                return 150.0;
            }
            let bar = (150.0..230.0).contains(&y) && (110.0..378.0).contains(&x);
            if bar && (((x - 110.0) / 4.0) as u32).is_multiple_of(2) {
                40.0
            } else {
                // The card's soft right edge: 200 to 150 across x 386 to 394.
                200.0 - 50.0 * ((x - (right - 4.0)) / 8.0).clamp(0.0, 1.0)
            }
        });
        let on_barcode = rect(left, top, 378.0, bottom);
        assert_eq!(outward_polarity(&field, &on_barcode), [-1, 1, -1, -1]);
        let grown = grow(&field, on_barcode, &LocateConfig::default());
        // On the soft edge; the full-resolution fit ([`fit_sides`]) sharpens it.
        assert_only_side_moved(&grown, &on_barcode, 1, right, 5.0);
    }

    /// A 480×300 working copy: a card (x 90 to 390, y 55 to 244: aspect 1.59) of
    /// `body` colour, its header band (down to y 75) of `band`, ending in a dark
    /// rule across the card, on a grey table of 178 (noise ±3) darkened to 140 in
    /// a drop shadow 8 px deep below the card when `shadow`.
    fn card_with_header_rule(body: [u8; 3], band: [u8; 3], shadow: bool) -> RgbImage {
        RgbImage::from_fn(480, 300, |x, y| {
            let on_card = (90..390).contains(&x) && (55..244).contains(&y);
            if !on_card {
                let grey = if shadow && (244..252).contains(&y) && (94..394).contains(&x) {
                    140
                } else {
                    178
                };
                let noise = ((x.wrapping_mul(7919) ^ y.wrapping_mul(104_729)) % 7) as u8;
                return Rgb([grey + noise - 3; 3]);
            }
            Rgb(match y {
                75..77 => [70, 60, 80],
                ..75 => band,
                _ => body,
            })
        })
    }

    #[test]
    fn a_side_on_a_header_rule_moves_out_where_the_cards_tint_ends() {
        // A lavender card on a grey table, of about its brightness: the outline
        // found on the rule has the card's tint beyond its top.
        let image = card_with_header_rule([196, 180, 194], [185, 169, 185], false);
        let field = GradientField::pooled(&image, 480, 300);
        let on_rule = rect(90.0, 76.0, 390.0, 244.0);
        let moved = card_beyond::onto_card_edges(
            &image,
            surface_of(&image),
            &field,
            on_rule,
            &LocateConfig::default(),
        );
        assert_only_side_moved(&moved, &on_rule, 0, 55.0, 2.0);
    }

    #[test]
    fn a_side_stays_where_what_lies_beyond_has_the_surfaces_tint() {
        let config = LocateConfig::default();
        // A grey card on the grey table: its band can be told from the table
        // only by brightness, as a shadow could, so the side stays on the rule.
        let grey = card_with_header_rule([196, 196, 196], [186, 186, 186], false);
        let on_rule = rect(90.0, 76.0, 390.0, 244.0);
        let field = GradientField::pooled(&grey, 480, 300);
        assert_eq!(
            card_beyond::onto_card_edges(&grey, surface_of(&grey), &field, on_rule, &config),
            on_rule
        );
        // The lavender card's own outline stays off its drop shadow.
        let shadowed = card_with_header_rule([196, 180, 194], [185, 169, 185], true);
        let card = rect(90.0, 55.0, 390.0, 244.0);
        let field = GradientField::pooled(&shadowed, 480, 300);
        assert_eq!(
            card_beyond::onto_card_edges(&shadowed, surface_of(&shadowed), &field, card, &config),
            card
        );
        // An untinted card on white paper, a tinted one lying 10 px above it: the
        // paper beyond the first card's top is as untinted as the card, but it is
        // the surface, and the tinted card past it is not.
        let page = RgbImage::from_fn(480, 400, |x, y| match (x, y) {
            (90..390, 150..339) => Rgb([200, 200, 200]),
            (90..390, 40..140) => Rgb([196, 180, 194]),
            _ => Rgb([235, 235, 235]),
        });
        let card = rect(90.0, 150.0, 390.0, 339.0);
        let field = GradientField::pooled(&page, 480, 400);
        assert_eq!(
            card_beyond::onto_card_edges(&page, surface_of(&page), &field, card, &config),
            card
        );
    }

    #[test]
    fn a_side_on_the_edge_of_a_card_lying_beside_moves_in_onto_the_cards_own() {
        // A pale, barely tinted card (x 90 to 390) on white paper, a pink card
        // lying 8 px to its right, whose edge steps more strongly.
        let page = RgbImage::from_fn(480, 400, |x, y| match (x, y) {
            (90..390, 110..299) => Rgb([214, 222, 216]),
            (398..470, 100..300) => Rgb([226, 196, 206]),
            _ => Rgb([235, 235, 235]),
        });
        let field = GradientField::pooled(&page, 480, 400);
        let config = LocateConfig::default();
        let on_neighbour = rect(90.0, 110.0, 398.0, 299.0);
        let moved =
            card_beyond::onto_card_edges(&page, surface_of(&page), &field, on_neighbour, &config);
        assert_only_side_moved(&moved, &on_neighbour, 1, 390.0, 2.0);
        // On its own edge, the side stays: paper lies beyond it.
        let card = rect(90.0, 110.0, 390.0, 299.0);
        assert_eq!(
            card_beyond::onto_card_edges(&page, surface_of(&page), &field, card, &config),
            card
        );
    }

    #[test]
    fn a_side_on_a_header_bands_lower_edge_moves_out_onto_the_cards_faint_top() {
        // A pale card (x 90 to 390, y 55 to 244: aspect 1.59) on a surface of 150.
        // Its header band (y 55 to 95) is 164, a faint step from the surface
        // (gradient 7, under the threshold of 10); its lower edge, onto the
        // card's body of 200, is as crisp as the card's other edges.
        let (left, right, top, bottom, band) = (90.0, 390.0, 55.0, 244.0, 95.0);
        let field = field_of(480, 300, 10.0, |x, y| {
            if !(top..bottom).contains(&y) || !(left..right).contains(&x) {
                150.0
            } else if y < band {
                164.0
            } else {
                200.0
            }
        });
        let on_band = rect(left, band, right, bottom);
        let config = LocateConfig::default();
        // The faint top backs no side at the threshold: growing keeps the band.
        assert_eq!(grow(&field, on_band, &config), on_band);
        let grown = onto_faint_side(&field, on_band, &config).expect("the card's top");
        assert_only_side_moved(&grown, &on_band, 0, top, 3.0);
        // An outline of a document's shape does not move onto a faint line.
        let card = rect(left, top, right, bottom);
        assert_eq!(onto_faint_side(&field, card, &config), None);
    }
}
