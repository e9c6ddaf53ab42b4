//! Where the cutter looks for each printed line of a kind: the layout's boxes,
//! each with the labels and graphics around it masked.

use super::cut::FieldRegion;
use crate::domain::DocumentKind;
use crate::layout::{self, Align, FontSize, GraphicKind, Layout, UnitRect};

/// The field boxes of a kind's layout, with the middle of each font-size range,
/// each masking the fixed texts and solid graphics that do not overlap it.
pub fn regions(kind: DocumentKind) -> Vec<FieldRegion> {
    let layout = layout::builtin(kind);
    let masks = Masks::of(layout);
    layout
        .fields
        .iter()
        .map(|f| FieldRegion {
            optional: f.optional,
            ..masks.region(&f.key, &f.rect, f.size, f.align)
        })
        .collect()
}

/// The box of the title a kind's card prints ([`Layout::title`]), keyed `title`,
/// masked as a field's box is; `None` for a kind that prints none.
pub fn title_region(kind: DocumentKind) -> Option<FieldRegion> {
    let layout = layout::builtin(kind);
    let title = layout.title()?;
    // Read on a card that may be another kind's, where the box is blank.
    Some(FieldRegion {
        optional: true,
        ..Masks::of(layout).region("title", &title.rect, title.size, title.align)
    })
}

/// A layout's fixed texts and solid graphics, as rectangles.
struct Masks {
    labels: Vec<[f32; 4]>,
    graphics: Vec<[f32; 4]>,
}

impl Masks {
    fn of(layout: &Layout) -> Masks {
        // Faint backgrounds lie under the text and are no one's ink.
        let solid = layout.graphics.iter().filter(|g| {
            !matches!(
                g.kind,
                GraphicKind::Watermark | GraphicKind::Pyramids | GraphicKind::Specimen
            )
        });
        Masks {
            labels: layout.fixed_texts.iter().map(|t| rect(&t.rect)).collect(),
            graphics: solid.map(|g| rect(&g.rect)).collect(),
        }
    }

    /// The region of a line printed in `own`, masking what does not overlap it.
    fn region(&self, key: &str, own: &UnitRect, size: FontSize, align: Align) -> FieldRegion {
        let own = rect(own);
        let masks = self
            .labels
            .iter()
            .filter(|o| !overlaps(o, &own))
            .copied()
            .chain(
                self.graphics
                    .iter()
                    .filter(|o| !overlaps(o, &own))
                    .map(|g| grown_clear_of(g, &own, GRAPHIC_MASK_GROWTH)),
            )
            .collect();
        FieldRegion {
            key: key.to_owned(),
            rect: own,
            em: (size.min + size.max) / 2.0,
            align,
            masks,
            optional: false,
        }
    }
}

fn rect(r: &UnitRect) -> [f32; 4] {
    [r.x0, r.y0, r.x1, r.y1]
}

/// How far a solid graphic's mask reaches past its box, as a fraction of the
/// card's width and height. An outline located a few pixels off moves a
/// barcode's edge or a band's rule out of an exact mask into the search window of
/// the field beside it, where its dense ink outweighs a short, thin line.
const GRAPHIC_MASK_GROWTH: f32 = 0.012;

fn overlaps(a: &[f32; 4], b: &[f32; 4]) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

/// `mask` grown by `growth` on every side, but never into `own` (which it does
/// not overlap): on the axes that separate the two, the grown edge stops at
/// `own`'s.
fn grown_clear_of(mask: &[f32; 4], own: &[f32; 4], growth: f32) -> [f32; 4] {
    let [x0, y0, x1, y1] = *mask;
    let mut grown = [x0 - growth, y0 - growth, x1 + growth, y1 + growth];
    if overlaps(&grown, own) {
        if x1 <= own[0] {
            grown[2] = grown[2].min(own[0]);
        }
        if own[2] <= x0 {
            grown[0] = grown[0].max(own[2]);
        }
        if y1 <= own[1] {
            grown[3] = grown[3].min(own[1]);
        }
        if own[3] <= y0 {
            grown[1] = grown[1].max(own[3]);
        }
    }
    grown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_graphics_mask_grows_but_never_into_the_fields_box() {
        let date = [0.62, 0.72, 0.795, 0.795];
        // A barcode below the date: grown on every side, up to the date's bottom.
        let barcode = grown_clear_of(&[0.30, 0.815, 0.97, 0.965], &date, 0.03);
        assert_eq!(barcode[1], 0.795);
        assert!(barcode[0] < 0.30 && barcode[2] > 0.97 && barcode[3] > 0.965);
        // Far enough away, it grows by the full amount.
        let band = grown_clear_of(&[0.0, 0.0, 1.0, 0.145], &date, 0.012);
        assert!((band[3] - 0.157).abs() < 1e-6, "{band:?}");
    }

    #[test]
    fn every_field_is_clear_of_its_grown_masks() {
        for kind in DocumentKind::ALL {
            for region in regions(kind) {
                for mask in &region.masks {
                    assert!(
                        !overlaps(mask, &region.rect),
                        "{kind:?} {}: {mask:?}",
                        region.key
                    );
                }
            }
        }
    }

    #[test]
    fn a_title_is_cut_where_its_layout_prints_it_and_a_kind_without_one_has_none() {
        let title = title_region(DocumentKind::DriverLicence).unwrap();
        assert_eq!(title.key, "title");
        assert_eq!(title.rect, [0.14, 0.015, 0.48, 0.140]);
        assert!(title.masks.iter().all(|m| !overlaps(m, &title.rect)));
        assert!(title_region(DocumentKind::NidBack).is_none());
    }
}
