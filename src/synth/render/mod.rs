//! Drawing documents: fonts and text shaping, security backgrounds, graphic elements
//! and the card itself.

pub mod background;
pub mod document;
pub mod face;
pub mod fonts;
pub mod graphics;
pub mod inventory;
pub mod paint;
pub mod print;
pub mod text;

use std::sync::OnceLock;

use image::GrayImage;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::domain::DocumentKind;
use crate::layout::{self, GraphicKind};
pub use document::{PrintedLine, RenderedCard, render_card};
pub use face::{Face, FaceFamily, FaceSet};
pub use fonts::{FontDirArgs, FontError, FontId, FontLibrary, default_font_dir};
pub use inventory::{Family, FontSet, FontSetError, Inventory, Split, StyleClass};
pub use print::PrintStyle;
pub use text::{TextEngine, TextMask, with_engine};

/// Width of the grey background textures text-line crops are cut from.
const TEXTURE_WIDTH: u32 = 1000;
const TEXTURE_VARIANTS: u64 = 2;

/// Grey card backgrounds (paper, guilloche, watermark) per kind, made once per process
/// from fixed seeds so line crops sit on the same textures documents are printed on.
pub fn line_textures(kind: DocumentKind) -> &'static [GrayImage] {
    static TEXTURES: OnceLock<Vec<Vec<GrayImage>>> = OnceLock::new();
    let all = TEXTURES.get_or_init(|| {
        DocumentKind::ALL
            .par_iter()
            .map(|&kind| {
                (0..TEXTURE_VARIANTS)
                    .map(|variant| {
                        let layout = layout::builtin(kind);
                        let mut rng = ChaCha8Rng::seed_from_u64(0x7e47_0000 + variant);
                        rng.set_stream(kind as u64);
                        let h = (TEXTURE_WIDTH as f32 / layout.page.aspect()).round() as u32;
                        let mut img = background::paper(&layout.style, TEXTURE_WIDTH, h, &mut rng);
                        for g in layout
                            .graphics
                            .iter()
                            .filter(|g| g.kind == GraphicKind::Watermark)
                        {
                            let r = g.rect;
                            let rect = [
                                r.x0 * TEXTURE_WIDTH as f32,
                                r.y0 * h as f32,
                                r.x1 * TEXTURE_WIDTH as f32,
                                r.y1 * h as f32,
                            ];
                            graphics::watermark(
                                &mut img,
                                rect,
                                layout.style.accent.0,
                                false,
                                &mut rng,
                            );
                        }
                        paint::to_gray(&img)
                    })
                    .collect()
            })
            .collect()
    });
    &all[kind.index()]
}
