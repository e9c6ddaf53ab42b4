//! Text-line crop throughput: `cargo bench --bench synth_lines`.
//! The figure to quote is "crops/s" of `lines_parallel` (all cores, as `hawiya synth
//! --lines` runs); `lines_single_thread` shows the per-core cost.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hawiya::synth::LineGenerator;
use hawiya::synth::render::FontSet;
use rayon::prelude::*;

const BATCH: u64 = 512;

fn bench_lines(c: &mut Criterion) {
    let generator = LineGenerator::new(1, FontSet::Training).expect("fonts installed");
    // Warm the per-thread engines, glyph caches and background textures.
    (0..BATCH).into_par_iter().for_each(|i| {
        generator.sample(i);
    });
    let mut group = c.benchmark_group("synth_lines");
    group.sample_size(10);
    group.throughput(Throughput::Elements(BATCH));
    let mut offset = 0u64;
    group.bench_function("lines_parallel", |b| {
        b.iter(|| {
            offset += BATCH;
            (offset..offset + BATCH)
                .into_par_iter()
                .map(|i| generator.sample(i).image.len())
                .sum::<usize>()
        })
    });
    group.bench_function("lines_single_thread", |b| {
        b.iter(|| {
            offset += BATCH;
            (offset..offset + BATCH)
                .map(|i| generator.sample(i).image.len())
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group!(benches, bench_lines);
criterion_main!(benches);
