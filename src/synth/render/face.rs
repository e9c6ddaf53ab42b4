//! Card faces: the design a document side is printed on, apart from what its layout
//! fixes (the boxes, the fixed texts, which graphics it carries). A real card's
//! colours, background print, header art, print quality and wear differ from ours,
//! so the generator draws them from families of designs, and holds one family out:
//! the classifier and the locator are measured on a design they never saw.
//!
//! What identifies a kind (its aspect, the arrangement of its text lines, its
//! portrait, barcode or machine-readable zone) is left as the layout says, moved
//! at most a few percent.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::background::Pattern;
use super::inventory::{FontSet, Split};
use crate::layout::{Rgb, Style};
use crate::synth::degrade::uniform;

/// Which face families a run draws from or measures (`--faces`): the same
/// training / held-out / all choice as the fonts'.
pub type FaceSet = FontSet;

/// A family of card-face designs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaceFamily {
    /// The layout's own colours on a guilloche of waves and a rosette, with the
    /// eagle: the look every document had before faces varied.
    Issued,
    /// The guilloche in any hue and saturation, the eagle or none, sometimes
    /// the flag's stripes along the top.
    Recoloured,
    /// Pale paper with no line pattern, sometimes a printed frame.
    Plain,
    /// Dots and rows of dashes in any colour, under a flat header band or the
    /// flag's stripes.
    Stippled,
    /// Held out: a diamond mesh and concentric rings, a header panel with a wavy
    /// edge and a seal with a star for an emblem.
    Mesh,
}

impl FaceFamily {
    pub const ALL: [FaceFamily; 5] = [
        FaceFamily::Issued,
        FaceFamily::Recoloured,
        FaceFamily::Plain,
        FaceFamily::Stippled,
        FaceFamily::Mesh,
    ];

    pub fn split(self) -> Split {
        match self {
            FaceFamily::Mesh => Split::HeldOut,
            _ => Split::Training,
        }
    }

    /// The name `truth.jsonl` and the tables use.
    pub fn name(self) -> &'static str {
        match self {
            FaceFamily::Issued => "issued",
            FaceFamily::Recoloured => "recoloured",
            FaceFamily::Plain => "plain",
            FaceFamily::Stippled => "stippled",
            FaceFamily::Mesh => "mesh",
        }
    }

    /// The families of `set`.
    pub fn of(set: FaceSet) -> impl Iterator<Item = FaceFamily> {
        FaceFamily::ALL
            .into_iter()
            .filter(move |f| set.contains(f.split()))
    }
}

/// How the card has aged or how dark it was printed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "wear", content = "amount")]
pub enum Wear {
    Fresh,
    /// Washed towards a yellowed white by this share: print and background lose
    /// contrast alike.
    Faded(f32),
    /// Darkened by this share: a heavy print or a card grown grimy.
    Dark(f32),
}

/// The emblem printed where the layout puts one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Emblem {
    Eagle,
    /// A ringed seal with a star (held-out family only).
    Seal,
    /// Left out: the box stays plain.
    Omitted,
}

/// What is drawn behind the header texts besides the layout's own graphics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeaderArt {
    /// Only the layout's bands.
    Layout,
    /// A flat pale band across the card behind the header rows.
    FlatBand,
    /// The flag's red, white and black in thin stripes along the top edge.
    Stripes,
    /// A tinted panel from the top edge down past the headers, its lower edge
    /// wavy (held-out family only).
    WavyPanel,
}

/// One card's face, as recorded in `truth.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Face {
    pub family: FaceFamily,
    /// Rotation of the layout's hues, degrees.
    pub hue_deg: f32,
    /// Factor on the layout's colours' saturation.
    pub saturation: f32,
    #[serde(flatten)]
    pub wear: Wear,
    pub emblem: Emblem,
    pub header: HeaderArt,
    /// A thin border printed just inside the card's edge.
    pub frame: bool,
    /// Everything printed moved by this share of the card's width and height...
    pub shift: [f32; 2],
    /// ...and scaled about the card's centre by these factors...
    pub scale: [f32; 2],
    /// ...and each box moved by up to this share on its own.
    pub jitter: f32,
}

impl Face {
    /// The face of the layouts as written: the one design every document had
    /// before faces varied.
    pub const ISSUED: Face = Face {
        family: FaceFamily::Issued,
        hue_deg: 0.0,
        saturation: 1.0,
        wear: Wear::Fresh,
        emblem: Emblem::Eagle,
        header: HeaderArt::Layout,
        frame: false,
        shift: [0.0, 0.0],
        scale: [1.0, 1.0],
        jitter: 0.0,
    };

    /// A face of a family of `set`, drawn with its colours, art, wear and shift.
    pub fn draw(set: FaceSet, rng: &mut ChaCha8Rng) -> Face {
        let families: Vec<FaceFamily> = FaceFamily::of(set).collect();
        let family = families[rng.random_range(0..families.len())];
        let any_hue = |rng: &mut ChaCha8Rng| uniform(rng, -180.0, 180.0);
        let (hue_deg, saturation) = match family {
            FaceFamily::Issued => (uniform(rng, -8.0, 8.0), uniform(rng, 0.85, 1.15)),
            FaceFamily::Recoloured => (any_hue(rng), uniform(rng, 0.2, 1.8)),
            FaceFamily::Plain => (any_hue(rng), uniform(rng, 0.1, 1.2)),
            FaceFamily::Stippled | FaceFamily::Mesh => (any_hue(rng), uniform(rng, 0.25, 1.6)),
        };
        let eagle_or_none = |rng: &mut ChaCha8Rng| {
            if rng.random_bool(0.7) {
                Emblem::Eagle
            } else {
                Emblem::Omitted
            }
        };
        let (emblem, header, frame) = match family {
            FaceFamily::Issued => (Emblem::Eagle, HeaderArt::Layout, false),
            FaceFamily::Recoloured => {
                let header = if rng.random_bool(0.3) {
                    HeaderArt::Stripes
                } else {
                    HeaderArt::Layout
                };
                (eagle_or_none(rng), header, false)
            }
            FaceFamily::Plain => {
                let header = if rng.random_bool(0.4) {
                    HeaderArt::FlatBand
                } else {
                    HeaderArt::Layout
                };
                (eagle_or_none(rng), header, rng.random_bool(0.5))
            }
            FaceFamily::Stippled => {
                let header = [HeaderArt::FlatBand, HeaderArt::Stripes, HeaderArt::Layout]
                    [rng.random_range(0..3)];
                (eagle_or_none(rng), header, false)
            }
            FaceFamily::Mesh => (Emblem::Seal, HeaderArt::WavyPanel, rng.random_bool(0.3)),
        };
        let wear = match rng.random_range(0..10) {
            0 | 1 => Wear::Faded(uniform(rng, 0.2, 0.5)),
            2 | 3 => Wear::Dark(uniform(rng, 0.15, 0.4)),
            _ => Wear::Fresh,
        };
        let (shift, scale, jitter) = if rng.random_bool(0.7) {
            (
                [uniform(rng, -0.015, 0.015), uniform(rng, -0.015, 0.015)],
                [uniform(rng, 0.98, 1.02), uniform(rng, 0.98, 1.02)],
                0.003,
            )
        } else {
            ([0.0, 0.0], [1.0, 1.0], 0.0)
        };
        Face {
            family,
            hue_deg,
            saturation,
            wear,
            emblem,
            header,
            frame,
            shift,
            scale,
            jitter,
        }
    }

    /// The layout's colours turned to this face's hue and saturation; the field
    /// ink is the printer's and stays.
    pub fn style(&self, layout: &Style) -> Style {
        let recolour = |c: Rgb| Rgb(recolour(c.0, self.hue_deg, self.saturation));
        Style {
            paper: layout.paper.map(recolour),
            pattern: recolour(layout.pattern),
            accent: recolour(layout.accent),
            ink: layout.ink,
        }
    }

    /// The background print of the family.
    pub fn pattern(&self) -> Pattern {
        match self.family {
            FaceFamily::Issued | FaceFamily::Recoloured => Pattern::Guilloche,
            FaceFamily::Plain => Pattern::Plain,
            FaceFamily::Stippled => Pattern::Stipple,
            FaceFamily::Mesh => Pattern::Mesh,
        }
    }

    /// A unit coordinate along x (`axis` 0) or y (1) where this face prints what
    /// the layout puts at `v`.
    pub fn place(&self, v: f32, axis: usize) -> f32 {
        0.5 + (v - 0.5) * self.scale[axis] + self.shift[axis]
    }

    /// The card after its wear, pixel by pixel.
    pub fn wear_pixel(&self, p: [u8; 3]) -> [u8; 3] {
        const YELLOWED: [f32; 3] = [250.0, 244.0, 222.0];
        match self.wear {
            Wear::Fresh => p,
            Wear::Faded(t) => {
                std::array::from_fn(|i| (p[i] as f32 * (1.0 - t) + YELLOWED[i] * t).round() as u8)
            }
            Wear::Dark(t) => p.map(|v| {
                let v = v as f32 / 255.0;
                // Mid tones darken most; paper white greys, black stays black.
                (255.0 * v.powf(1.0 + 1.5 * t) * (1.0 - 0.35 * t)).round() as u8
            }),
        }
    }
}

/// `rgb` with its hue turned by `degrees` and its saturation scaled (HSL).
pub fn recolour(rgb: [u8; 3], degrees: f32, saturation: f32) -> [u8; 3] {
    let [r, g, b] = rgb.map(|v| v as f32 / 255.0);
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    let l = (max + min) / 2.0;
    let d = max - min;
    if d < 1e-6 {
        return rgb;
    }
    let s = d / (1.0 - (2.0 * l - 1.0).abs()).max(1e-6);
    let h = if max == r {
        ((g - b) / d).rem_euclid(6.0)
    } else if max == g {
        (b - r) / d + 2.0
    } else {
        (r - g) / d + 4.0
    } * 60.0;
    let h = (h + degrees).rem_euclid(360.0);
    let s = (s * saturation).clamp(0.0, 1.0);
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let x = c * (1.0 - ((h / 60.0).rem_euclid(2.0) - 1.0).abs());
    let m = l - c / 2.0;
    let (r, g, b) = match (h / 60.0) as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    [r, g, b].map(|v| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8)
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn one_family_is_held_out_and_each_set_draws_only_its_own() {
        let held: Vec<_> = FaceFamily::of(FaceSet::HeldOut).collect();
        assert_eq!(held, [FaceFamily::Mesh]);
        assert_eq!(FaceFamily::of(FaceSet::All).count(), FaceFamily::ALL.len());
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut drawn = std::collections::BTreeSet::new();
        for _ in 0..200 {
            let face = Face::draw(FaceSet::Training, &mut rng);
            assert_eq!(face.family.split(), Split::Training, "{face:?}");
            assert_ne!(face.emblem, Emblem::Seal);
            assert_ne!(face.header, HeaderArt::WavyPanel);
            drawn.insert(face.family);
        }
        assert_eq!(drawn.len(), 4, "{drawn:?}");
        assert_eq!(
            Face::draw(FaceSet::HeldOut, &mut rng).family,
            FaceFamily::Mesh
        );
    }

    #[test]
    fn recolouring_turns_hue_and_keeps_greys_and_lightness() {
        assert_eq!(recolour([128, 128, 128], 90.0, 1.5), [128, 128, 128]);
        assert_eq!(recolour([200, 40, 40], 0.0, 1.0), [200, 40, 40]);
        // Red turned a third of the way round is green, as light.
        assert_eq!(recolour([200, 40, 40], 120.0, 1.0), [40, 200, 40]);
        let grey = recolour([200, 40, 40], 0.0, 0.0);
        assert!(grey[0] == grey[1] && grey[1] == grey[2], "{grey:?}");
    }

    #[test]
    fn a_face_reads_back_from_its_truth_record() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        for _ in 0..20 {
            let face = Face::draw(FaceSet::All, &mut rng);
            let json = serde_json::to_string(&face).unwrap();
            assert_eq!(serde_json::from_str::<Face>(&json).unwrap(), face, "{json}");
        }
    }
}
