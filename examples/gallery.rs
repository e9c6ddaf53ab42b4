//! Regenerates the gallery under `docs/gallery/`: every kind through every capture,
//! a National ID front on every face family, a truth overlay and a sheet of
//! text-line crops.
//!
//! `cargo run --release --example gallery -- docs/gallery`

use std::path::{Path, PathBuf};

use hawiya::domain::DocumentKind;
use hawiya::synth::LineGenerator;
use hawiya::synth::capture::{CaptureMode, embedded_jpeg};
use hawiya::synth::cli::KindChoice;
use hawiya::synth::dataset::{Dataset, Synthesized};
use hawiya::synth::render::{Face, FaceFamily, FaceSet, FontSet, render_card};
use image::imageops::FilterType;
use image::{DynamicImage, GrayImage, Rgb, RgbImage};

const SEED: u64 = 2026;
const MAX_SIDE: u32 = 760;

fn main() -> anyhow::Result<()> {
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "docs/gallery".into()),
    );
    std::fs::create_dir_all(&out)?;
    for kind in DocumentKind::ALL {
        for (capture, name) in [
            (CaptureMode::Scan, "scan"),
            (CaptureMode::Photo, "photo"),
            (CaptureMode::Pdf, "pdf"),
            (CaptureMode::Page, "page"),
        ] {
            let doc = dataset(KindChoice::One(kind), capture, FaceSet::Training).document(0)?;
            let image = raster(&doc)?;
            save_small(&image.to_rgb8(), &out.join(format!("{kind}-{name}.jpg")))?;
        }
    }
    save_small(&face_sheet()?, &out.join("faces.jpg"))?;
    // One capture with its truth drawn on: document corners (green, first corner
    // marked), field boxes (red) and fixed texts (blue).
    let doc = dataset(
        KindChoice::One(DocumentKind::NidFront),
        CaptureMode::Photo,
        FaceSet::Training,
    )
    .document(1)?;
    let mut overlay = raster(&doc)?.to_rgb8();
    let corners: Vec<[f32; 2]> = doc.truth.corners.to_vec();
    draw_polygon(&mut overlay, &corners, Rgb([0, 220, 0]));
    for line in &doc.truth.lines {
        draw_polygon(&mut overlay, &line.quad, Rgb([230, 0, 0]));
    }
    for line in &doc.truth.fixed {
        draw_polygon(&mut overlay, &line.quad, Rgb([0, 0, 230]));
    }
    save_small(&overlay, &out.join("truth-overlay.jpg"))?;
    save_small(&line_sheet()?, &out.join("line-crops.jpg"))?;
    Ok(())
}

fn dataset(kinds: KindChoice, capture: CaptureMode, faces: FaceSet) -> Dataset {
    Dataset {
        kinds,
        capture,
        fonts: FontSet::Training,
        faces,
        seed: SEED,
    }
}

/// National ID fronts on each face family, two per family in a row, the held-out
/// family last.
fn face_sheet() -> anyhow::Result<RgbImage> {
    use rand::SeedableRng;
    let (cell_w, cell_h, per_family) = (360u32, 227u32, 2u32);
    let families = FaceFamily::ALL;
    let mut sheet = RgbImage::from_pixel(
        cell_w * per_family,
        cell_h * families.len() as u32,
        Rgb([255, 255, 255]),
    );
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(SEED);
    for (row, family) in families.into_iter().enumerate() {
        for column in 0..per_family {
            let face = std::iter::repeat_with(|| Face::draw(FaceSet::All, &mut rng))
                .find(|f| f.family == family)
                .expect("every family is drawn");
            let doc = hawiya::synth::generate(DocumentKind::NidFront, &mut rng);
            let card = render_card(&doc, 2 * cell_w, FontSet::Training, &face, &mut rng)?;
            let small =
                image::imageops::resize(&card.image, cell_w - 8, cell_h - 8, FilterType::Triangle);
            image::imageops::replace(
                &mut sheet,
                &small,
                (column * cell_w + 4).into(),
                (row as u32 * cell_h + 4).into(),
            );
        }
    }
    Ok(sheet)
}

/// The raster of a capture (for a PDF, its embedded scan).
fn raster(doc: &Synthesized) -> anyhow::Result<DynamicImage> {
    if doc.truth.file.ends_with(".pdf") {
        let pdf = lopdf::Document::load_mem(&doc.bytes)?;
        let jpeg = embedded_jpeg(&pdf).ok_or_else(|| anyhow::anyhow!("no image in the PDF"))?;
        Ok(image::load_from_memory(&jpeg)?)
    } else {
        Ok(image::load_from_memory(&doc.bytes)?)
    }
}

fn save_small(image: &RgbImage, path: &Path) -> anyhow::Result<()> {
    let scale = (MAX_SIDE as f32 / image.width().max(image.height()) as f32).min(1.0);
    let (w, h) = (
        (image.width() as f32 * scale) as u32,
        (image.height() as f32 * scale) as u32,
    );
    let small = image::imageops::resize(image, w.max(1), h.max(1), FilterType::Triangle);
    let file = std::fs::File::create(path)?;
    let encoder =
        image::codecs::jpeg::JpegEncoder::new_with_quality(std::io::BufWriter::new(file), 78);
    small.write_with_encoder(encoder)?;
    Ok(())
}

fn draw_polygon(image: &mut RgbImage, points: &[[f32; 2]], color: Rgb<u8>) {
    for i in 0..points.len() {
        let (a, b) = (points[i], points[(i + 1) % points.len()]);
        for t in 0..=200 {
            let t = t as f32 / 200.0;
            let (x, y) = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t);
            for (dx, dy) in [(0, 0), (1, 0), (0, 1)] {
                let (px, py) = (x as i64 + dx, y as i64 + dy);
                if px >= 0 && py >= 0 && (px as u32) < image.width() && (py as u32) < image.height()
                {
                    image.put_pixel(px as u32, py as u32, color);
                }
            }
        }
    }
}

/// The first 36 crops of a line dataset in two columns.
fn line_sheet() -> anyhow::Result<RgbImage> {
    let generator = LineGenerator::new(SEED, FontSet::Training)?;
    let crops: Vec<GrayImage> = (0..36).map(|i| generator.sample(i).image).collect();
    let column_width = 380;
    let rows = crops.len().div_ceil(2);
    let row_height = 64;
    let mut sheet = RgbImage::from_pixel(
        column_width * 2 + 12,
        rows as u32 * row_height,
        Rgb([120, 120, 120]),
    );
    for (i, crop) in crops.iter().enumerate() {
        let scale = (56.0 / crop.height() as f32).min(column_width as f32 / crop.width() as f32);
        let (w, h) = (
            (crop.width() as f32 * scale) as u32,
            (crop.height() as f32 * scale) as u32,
        );
        let crop = image::imageops::resize(crop, w.max(1), h.max(1), FilterType::Triangle);
        let (x0, y0) = (
            (i % 2) as u32 * (column_width + 12),
            (i / 2) as u32 * row_height + 4,
        );
        for (x, y, p) in crop.enumerate_pixels() {
            sheet.put_pixel(x0 + x, y0 + y, Rgb([p.0[0]; 3]));
        }
    }
    Ok(sheet)
}
