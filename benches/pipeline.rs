//! Document pipeline stages on the committed NID-front phone photo (1280x960 JPEG,
//! tests/fixtures/docs), and the whole document with the shipped models; the same
//! photo enlarged to a phone camera's 12 MP (4032x3024) for the stages that see the
//! whole upload.
//!
//!     cargo bench --bench pipeline

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group};
use hawiya::pipeline::cut::{cut_lines, sharpness};
use hawiya::pipeline::decode::{DecodeLimits, decode};
use hawiya::pipeline::locate::{LocateConfig, candidates};
use hawiya::pipeline::overview::Overview;
use hawiya::pipeline::rectify::rectify;
use hawiya::pipeline::{CARD_WIDTH, regions};
use image::imageops;

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(root.join("tests/fixtures/docs/nid-front-photo.jpg"))
        .expect("the NID-front photo fixture");
    let image = decode(&bytes, &DecodeLimits::default()).unwrap().image;
    let config = LocateConfig::default();
    let quad = candidates(&image, &config)[0].quad;
    let kind = hawiya::domain::DocumentKind::NidFront;
    let card_height = (CARD_WIDTH as f32 / hawiya::layout::builtin(kind).page.aspect()) as u32;
    let card = rectify(&image, &quad, CARD_WIDTH, card_height).card;
    let pipeline = hawiya::pipeline::PipelineOptions::with_models(root.join("models"))
        .load()
        .expect("the shipped models in models/");
    let large = imageops::resize(&image, 4032, 3024, imageops::FilterType::CatmullRom);
    let large_quad = quad.scaled(4032.0 / image.width() as f32);
    let mut large_bytes = std::io::Cursor::new(Vec::new());
    large
        .write_to(&mut large_bytes, image::ImageFormat::Jpeg)
        .unwrap();
    let large_bytes = large_bytes.into_inner();

    let mut group = c.benchmark_group("pipeline");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(8));
    group.bench_function("decode", |b| {
        b.iter(|| decode(black_box(&bytes), &DecodeLimits::default()).unwrap())
    });
    group.bench_function("locate", |b| {
        b.iter(|| candidates(black_box(&image), &config))
    });
    group.bench_function("rectify (grey + warp + sharpness)", |b| {
        b.iter(|| {
            let rectified = rectify(black_box(&image), &quad, CARD_WIDTH, card_height);
            sharpness(&rectified.card, 2)
        })
    });
    group.bench_function("cut lines", |b| {
        b.iter(|| cut_lines(black_box(&card), &regions(kind)))
    });
    group.bench_function("whole document, shipped models", |b| {
        b.iter(|| pipeline.run(black_box(&bytes), None).0.unwrap())
    });
    group.bench_function("12 MP: decode", |b| {
        b.iter(|| decode(black_box(&large_bytes), &DecodeLimits::default()).unwrap())
    });
    group.bench_function("12 MP: overview + locate", |b| {
        b.iter(|| candidates(Overview::of(black_box(&large)).image(), &config))
    });
    group.bench_function("12 MP: rectify", |b| {
        b.iter(|| rectify(black_box(&large), &large_quad, CARD_WIDTH, card_height))
    });
    group.bench_function("12 MP: whole document, shipped models", |b| {
        b.iter(|| pipeline.run(black_box(&large_bytes), None).0.unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
// `criterion_main!`, with the service's start-up fix of candle's CPU thread count
// first, so the figures are those of `hawiya serve`.
fn main() {
    // SAFETY: first thing in `main`, before any other thread exists.
    unsafe { hawiya::recognizer::device::fix_cpu_thread_count() };
    benches();
    Criterion::default().configure_from_args().final_summary();
}
