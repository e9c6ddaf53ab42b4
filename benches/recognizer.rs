//! Recognizer speed with the shipped model (models/recognizer):
//! one crop, a batch of 64, and the dynamic batcher under 8 concurrent submitters.
//!
//!     cargo bench --bench recognizer

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group};
use hawiya::recognizer::{
    Batcher, BatcherConfig, DecodeOptions, ModelSource, Recognizer, RecognizerWithOptions,
};
use image::GrayImage;

fn fixture_crops() -> Vec<GrayImage> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lines");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/lines")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "png"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| image::open(p).expect("fixture crop").to_luma8())
        .collect()
}

fn load() -> Recognizer {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/recognizer");
    Recognizer::load(&ModelSource::Dir(dir)).expect("the shipped model in models/recognizer")
}

fn bench(c: &mut Criterion) {
    let recognizer = load();
    let crops = fixture_crops();
    let batch: Vec<GrayImage> = crops.iter().cycle().take(64).cloned().collect();
    // A typical field: a national-ID number.
    let one = vec![crops[crops.len() / 2].clone()];

    let mut group = c.benchmark_group("recognizer");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("one crop, greedy", |b| {
        b.iter(|| black_box(recognizer.recognize(&one, DecodeOptions::greedy()).unwrap()))
    });
    group.bench_function("one crop, beam 4", |b| {
        b.iter(|| black_box(recognizer.recognize(&one, DecodeOptions::beam(4)).unwrap()))
    });
    group.bench_function("batch of 64, greedy", |b| {
        b.iter(|| {
            black_box(
                recognizer
                    .recognize(&batch, DecodeOptions::greedy())
                    .unwrap(),
            )
        })
    });

    for (max_batch, wait_ms) in [(1, 0), (16, 4), (32, 4)] {
        let handle = Batcher::start(
            RecognizerWithOptions {
                recognizer: recognizer.clone(),
                options: DecodeOptions::greedy(),
            },
            BatcherConfig {
                max_batch_size: max_batch,
                max_wait: Duration::from_millis(wait_ms),
                ..BatcherConfig::default()
            },
        );
        // 8 submitters, 8 crops each (one document's fields): 64 crops per iteration.
        group.bench_function(
            format!("batcher, 8 submitters x 8 crops, max batch {max_batch}, wait {wait_ms} ms"),
            |b| {
                b.iter(|| {
                    std::thread::scope(|s| {
                        for t in 0..8 {
                            let handle = handle.clone();
                            let mine: Vec<GrayImage> = batch[t * 8..t * 8 + 8].to_vec();
                            s.spawn(move || black_box(handle.recognize(mine).unwrap()));
                        }
                    })
                })
            },
        );
    }
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
