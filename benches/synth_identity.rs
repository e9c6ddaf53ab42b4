//! How long one synthetic identity (fields plus expected outputs) takes, per kind.
//! Run: `cargo bench --bench synth_identity`.

use criterion::{Criterion, criterion_group, criterion_main};
use hawiya::domain::DocumentKind;
use hawiya::domain::transliterate::transliterate;
use hawiya::synth::generate;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn identities(c: &mut Criterion) {
    for kind in DocumentKind::ALL {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        c.bench_function(&format!("generate {kind}"), |b| {
            b.iter(|| generate(kind, &mut rng))
        });
    }
    c.bench_function("transliterate 4-part name", |b| {
        b.iter(|| transliterate(std::hint::black_box("عبد الرحمن اشرف عبدالعزيز الشربيني")))
    });
}

criterion_group!(benches, identities);
criterion_main!(benches);
