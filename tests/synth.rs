//! The synthetic generator through its library API: truth geometry, determinism,
//! shaping, font fallback and the validity of the printed identifiers.

use hawiya::domain::mrz::td3_line2_is_valid;
use hawiya::domain::{DocumentKind, NationalId};
use hawiya::synth::LineGenerator;
use hawiya::synth::SynthDocument;
use hawiya::synth::capture::{CaptureMode, embedded_jpeg, inside_convex};
use hawiya::synth::cli::KindChoice;
use hawiya::synth::dataset::{Dataset, Synthesized, TruthRecord};
use hawiya::synth::render::{
    FaceSet, FontError, FontId, FontLibrary, FontSet, Inventory, with_engine,
};

const CAPTURES: [CaptureMode; 3] = [CaptureMode::Scan, CaptureMode::Photo, CaptureMode::Pdf];

/// Document `index` of a dataset on the training faces.
fn synthesize(
    kinds: KindChoice,
    capture: CaptureMode,
    fonts: FontSet,
    seed: u64,
    index: u64,
) -> Result<Synthesized, FontError> {
    let dataset = Dataset {
        kinds,
        capture,
        fonts,
        faces: FaceSet::Training,
        seed,
    };
    dataset.document(index)
}

fn documents(per_kind: u64) -> impl Iterator<Item = (DocumentKind, CaptureMode, Synthesized)> {
    DocumentKind::ALL.into_iter().flat_map(move |kind| {
        CAPTURES.into_iter().flat_map(move |capture| {
            (0..per_kind).map(move |i| {
                (
                    kind,
                    capture,
                    synthesize(KindChoice::One(kind), capture, FontSet::Training, 11, i).unwrap(),
                )
            })
        })
    })
}

/// The generator's document of `kind` for `seed`.
fn generated(kind: DocumentKind, seed: u64) -> SynthDocument {
    use rand::SeedableRng;
    hawiya::synth::identity::generate(kind, &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed))
}

/// Calls `check(kind, key, text, font)` for every field the generator prints, for each
/// of `seeds` of every kind, in every font its layout may print the field in.
fn for_each_field_in_each_font(
    seeds: std::ops::Range<u64>,
    mut check: impl FnMut(DocumentKind, &str, &str, FontId),
) {
    let library = FontLibrary::global().unwrap();
    for kind in DocumentKind::ALL {
        let layout = hawiya::layout::builtin(kind);
        for seed in seeds.clone() {
            for (key, text) in &generated(kind, seed).fields {
                let Some(spec) = layout.field(key) else {
                    continue;
                };
                for font in library.fonts_for(spec.script) {
                    check(kind, key, text, font);
                }
            }
        }
    }
}

#[test]
fn truth_boxes_lie_inside_the_image_and_the_document() {
    for (kind, capture, doc) in documents(2) {
        let t = &doc.truth;
        assert_eq!(t.kind, kind);
        let (w, h) = (t.width as f64, t.height as f64);
        let corners = t.corners.map(|[x, y]| [x as f64, y as f64]);
        for [x, y] in corners {
            assert!(
                (0.0..=w).contains(&x) && (0.0..=h).contains(&y),
                "{kind} {capture:?}: corner outside the image"
            );
        }
        assert!(!t.lines.is_empty(), "{kind}: no printed field");
        for line in t.lines.iter().chain(&t.fixed) {
            for [x, y] in line.quad {
                let p = [x as f64, y as f64];
                assert!(
                    (-0.5..=w + 0.5).contains(&p[0]) && (-0.5..=h + 0.5).contains(&p[1]),
                    "{kind} {capture:?} {:?} leaves the image",
                    line.key
                );
                assert!(
                    inside_convex(&corners, p, 1.0),
                    "{kind} {capture:?} {:?} leaves the document",
                    line.key
                );
            }
            let [x0, y0, x1, y1] = line.bbox;
            assert!(x0 < x1 && y0 < y1 && x1 as f64 <= w && y1 as f64 <= h);
        }
        // Every printed field is in the truth with its text.
        for line in &t.lines {
            let key = line.key.as_deref().unwrap();
            assert_eq!(t.fields.get(key), Some(&line.text));
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_bytes() {
    for capture in [CaptureMode::Mixed, CaptureMode::Photo, CaptureMode::Pdf] {
        let a = synthesize(KindChoice::All, capture, FontSet::Training, 5, 3).unwrap();
        let b = synthesize(KindChoice::All, capture, FontSet::Training, 5, 3).unwrap();
        assert_eq!(a.bytes, b.bytes);
        assert_eq!(
            serde_json::to_string(&a.truth).unwrap(),
            serde_json::to_string(&b.truth).unwrap()
        );
        let c = synthesize(KindChoice::All, capture, FontSet::Training, 6, 3).unwrap();
        assert_ne!(a.bytes, c.bytes);
    }
    let lines = LineGenerator::new(9, FontSet::Training).unwrap();
    let again = LineGenerator::new(9, FontSet::Training).unwrap();
    for index in [0, 1, 77, 1_000_003] {
        let (x, y) = (lines.sample(index), again.sample(index));
        assert_eq!(x.image.as_raw(), y.image.as_raw());
        assert_eq!(x.text, y.text);
    }
}

#[test]
fn every_kinds_truth_reads_back_as_it_was_written() {
    for (kind, capture, doc) in documents(1) {
        let written = serde_json::to_string(&doc.truth).unwrap();
        let read: TruthRecord = serde_json::from_str(&written).unwrap();
        assert_eq!(
            serde_json::to_string(&read).unwrap(),
            written,
            "{kind} {capture:?}"
        );
        assert_eq!(read.flow_b, doc.truth.flow_b, "{kind}: the Flow B shape");
    }
}

#[test]
fn files_decode_to_the_size_in_the_truth() {
    for capture in CAPTURES {
        let doc = synthesize(
            KindChoice::One(DocumentKind::Passport),
            capture,
            FontSet::Training,
            2,
            0,
        )
        .unwrap();
        let jpeg_or_png = if capture == CaptureMode::Pdf {
            let pdf = lopdf::Document::load_mem(&doc.bytes).unwrap();
            assert_eq!(pdf.get_pages().len(), 1);
            embedded_jpeg(&pdf).unwrap()
        } else {
            doc.bytes.clone()
        };
        let image = image::load_from_memory(&jpeg_or_png).unwrap();
        assert_eq!(
            (image.width(), image.height()),
            (doc.truth.width, doc.truth.height)
        );
    }
}

#[test]
fn printed_national_ids_and_mrz_lines_validate() {
    let nid_keys = ["national_id", "owner_national_id"];
    for seed in 0..6 {
        for kind in DocumentKind::ALL {
            let doc = synthesize(
                KindChoice::One(kind),
                CaptureMode::Scan,
                FontSet::Training,
                seed,
                0,
            )
            .unwrap();
            for key in nid_keys {
                if let Some(text) = doc.truth.fields.get(key) {
                    NationalId::parse(text).unwrap_or_else(|e| panic!("{kind} {key} {text}: {e}"));
                }
            }
            if let Some(line) = doc.truth.fields.get("mrz_line2") {
                assert!(td3_line2_is_valid(line), "{line}");
                assert_eq!(doc.truth.fields["mrz_line1"].len(), 44);
            }
        }
    }
}

/// Glyph positions of `text` in the Amiri face with their cluster starts.
fn shaped(text: &str, file: &str) -> (Vec<(i32, usize, u16)>, bool) {
    let library = FontLibrary::global().unwrap();
    let font = library.by_file(file).unwrap();
    with_engine(|engine| {
        let line = engine.shape(text, font, 40.0);
        (
            line.glyphs
                .iter()
                .map(|g| (g.x, g.start, g.key.glyph_id))
                .collect(),
            line.rtl,
        )
    })
    .unwrap()
}

#[test]
fn arabic_is_shaped_joined_and_right_to_left() {
    for file in [
        "Amiri-Bold.ttf",
        "NotoNaskhArabic-Bold.ttf",
        "KacstOne-Bold.ttf",
    ] {
        let (word, rtl) = shaped("محمد", file);
        assert!(rtl);
        // Visual order runs right to left: glyphs further right come earlier in the text.
        let mut by_x = word.clone();
        by_x.sort_by_key(|g| std::cmp::Reverse(g.0));
        let starts: Vec<usize> = by_x.iter().map(|g| g.1).collect();
        assert!(
            starts.windows(2).all(|w| w[0] <= w[1]),
            "{file}: {starts:?}"
        );
        assert_eq!(starts[0], 0, "{file}: the first letter is not rightmost");
        // Joined forms: the glyphs differ from the letters' isolated forms.
        let isolated: Vec<u16> = ["م", "ح", "د"]
            .iter()
            .map(|c| shaped(c, file).0[0].2)
            .collect();
        let (m_initial, m_medial) = (
            word.iter().find(|g| g.1 == 0).unwrap().2,
            word.iter().find(|g| g.1 == 4).map(|g| g.2),
        );
        assert_ne!(m_initial, isolated[0], "{file}: initial meem is not joined");
        if let Some(medial) = m_medial {
            assert_ne!(medial, isolated[0], "{file}: medial meem is not joined");
        }
    }
}

#[test]
fn numbers_read_left_to_right_inside_arabic_lines() {
    // A house number leading an address: the number stays (a cosmic-text quirk drops
    // it without care), its digits run left to right, and it sits at the right end.
    let text = "٤٢٩ البنفسج";
    let (glyphs, _) = shaped(text, "Amiri-Bold.ttf");
    let digits: Vec<_> = glyphs.iter().filter(|g| g.1 < "٤٢٩".len()).collect();
    assert_eq!(digits.len(), 3);
    let mut by_x = digits.clone();
    by_x.sort_by_key(|g| g.0);
    assert_eq!(by_x.iter().map(|g| g.1).collect::<Vec<_>>(), vec![0, 2, 4]);
    let letters_max_x = glyphs
        .iter()
        .filter(|g| g.1 > 6)
        .map(|g| g.0)
        .max()
        .unwrap();
    assert!(by_x[0].0 > letters_max_x);
}

#[test]
fn characters_missing_from_a_font_come_from_a_fallback() {
    let library = FontLibrary::global().unwrap();
    let naskh = library.by_file("NotoNaskhArabic-Bold.ttf").unwrap();
    assert!(!library.font(naskh).covers('/') && !library.font(naskh).covers('-'));
    let text = "١٩٩٠/٠٣ - القاهرة";
    with_engine(|engine| {
        let primary = engine.face_id(naskh).unwrap();
        let line = engine.shape(text, naskh, 32.0);
        assert!(
            line.glyphs.iter().all(|g| g.key.glyph_id != 0),
            "a .notdef glyph was drawn"
        );
        for g in &line.glyphs {
            let c = text[g.start..].chars().next().unwrap();
            if c == '/' || c == '-' {
                assert_ne!(
                    g.key.font_id, primary,
                    "{c:?} drawn with the font that lacks it"
                );
            } else if !c.is_whitespace() {
                assert_eq!(g.key.font_id, primary, "{c:?} left the chosen font");
            }
        }
        let mask = engine.rasterize(&line);
        assert!(mask.alpha.pixels().filter(|p| p.0[0] > 128).count() > 100);
    })
    .unwrap();
}

#[test]
fn line_crops_cover_every_category_and_script() {
    let generator = LineGenerator::new(3, FontSet::Training).unwrap();
    let samples: Vec<_> = (0..400).map(|i| generator.sample(i)).collect();
    for category in hawiya::layout::LineCategory::ALL {
        assert!(
            samples.iter().any(|s| s.category == category),
            "no {category:?} crop"
        );
    }
    assert!(samples.iter().any(|s| s.text.contains('<')), "no MRZ crop");
    assert!(samples.iter().any(|s| {
        s.text
            .chars()
            .any(|c| ('\u{0660}'..='\u{0669}').contains(&c))
    }));
    for s in &samples {
        assert!(
            (20..=110).contains(&s.image.height()),
            "{} px high",
            s.image.height()
        );
    }
}

#[test]
fn every_generated_character_has_a_glyph_in_every_font_choice() {
    let library = FontLibrary::global().unwrap();
    for_each_field_in_each_font(0..150, |kind, key, text, font| {
        for (i, used) in library.resolve(text, font) {
            let c = text[i..].chars().next().unwrap();
            assert!(
                c.is_whitespace() || library.font(used).covers(c),
                "{kind} {key}: {c:?} ({:04X}) of {text:?} has no glyph",
                c as u32
            );
        }
    });
}

#[test]
fn every_card_prints_its_layout_fields_and_leaves_off_only_optional_ones() {
    for kind in DocumentKind::ALL {
        let layout = hawiya::layout::builtin(kind);
        let mut printed = std::collections::BTreeSet::new();
        for seed in 0..300 {
            let document = generated(kind, seed);
            // Only a field its layout marks optional is ever left off a card.
            for field in layout.fields.iter().filter(|f| !f.optional) {
                assert!(
                    document
                        .fields
                        .get(&field.key)
                        .is_some_and(|text| !text.trim().is_empty()),
                    "{kind} {seed}: `{}` is not printed and not optional",
                    field.key
                );
            }
            printed.extend(document.fields.into_keys());
        }
        for field in &layout.fields {
            assert!(
                printed.contains(&field.key),
                "{kind}: layout field `{}` is never generated",
                field.key
            );
        }
        for key in &printed {
            assert!(
                layout.field(key).is_some(),
                "{kind}: generated field `{key}` has no place in the layout"
            );
        }
    }
}

#[test]
fn crops_do_not_depend_on_the_thread_or_the_order_they_are_made_in() {
    use rayon::prelude::*;
    let generator = LineGenerator::new(21, FontSet::Training).unwrap();
    let forward: Vec<Vec<u8>> = (0..64)
        .map(|i| generator.sample(i).image.into_raw())
        .collect();
    // Reverse order on the pool: other threads, other glyph-cache states.
    let reversed: Vec<u64> = (0..64).rev().collect();
    let mut parallel: Vec<Vec<u8>> = reversed
        .par_iter()
        .map(|&i| generator.sample(i).image.into_raw())
        .collect();
    parallel.reverse();
    assert_eq!(forward, parallel);
}

#[test]
fn shaping_drops_no_character_of_any_generated_field() {
    let library = FontLibrary::global().unwrap();
    with_engine(|engine| {
        for_each_field_in_each_font(0..40, |kind, key, text, font| {
            let line = engine.shape(text, font, 24.0);
            for (i, c) in text.char_indices().filter(|(_, c)| !c.is_whitespace()) {
                assert!(
                    line.glyphs
                        .iter()
                        .any(|g| g.start <= i && i < g.end.max(g.start + 1)),
                    "{kind} {key}: {c:?} at {i} of {text:?} has no glyph in {}",
                    library.font(font).file
                );
            }
        })
    })
    .unwrap();
}

#[test]
fn held_out_runs_print_only_held_out_arabic_families_and_record_them() {
    let inventory = Inventory::builtin();
    let arabic_family = |name: &str| {
        let family = inventory.family(name).unwrap_or_else(|| panic!("{name}"));
        assert!(family.in_set(FontSet::HeldOut), "{name} drawn for held-out");
        family.split().is_some()
    };
    let lines = LineGenerator::new(12, FontSet::HeldOut).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for i in 0..300 {
        let sample = lines.sample(i);
        if arabic_family(sample.font) {
            seen.insert(sample.font);
        }
    }
    assert!(seen.len() >= 8, "{seen:?}");
    for i in 0..4 {
        let doc = synthesize(
            KindChoice::One(DocumentKind::NidFront),
            CaptureMode::Scan,
            FontSet::HeldOut,
            4,
            i,
        )
        .unwrap();
        let font = doc
            .truth
            .font
            .as_deref()
            .expect("the truth names the family");
        assert!(arabic_family(font));
        for line in doc.truth.lines.iter().filter(|l| l.key.is_some()) {
            let printed = line.font.as_deref().expect("the truth names the family");
            assert!(arabic_family(printed) == (printed == font));
        }
    }
    // The same index in the training set prints another family.
    let training = synthesize(
        KindChoice::One(DocumentKind::NidFront),
        CaptureMode::Scan,
        FontSet::Training,
        4,
        0,
    )
    .unwrap();
    assert_eq!(
        inventory
            .family(training.truth.font.as_deref().unwrap())
            .unwrap()
            .split(),
        Some(hawiya::synth::render::Split::Training)
    );
}

#[test]
fn a_page_is_the_sheet_at_its_resolution_with_the_card_and_sometimes_its_other_side() {
    use hawiya::synth::capture::{Arrangement, CaptureParams};
    let mut beside = 0;
    for index in 0..8 {
        let doc = synthesize(
            KindChoice::One(DocumentKind::NidBack),
            CaptureMode::Page,
            FontSet::Training,
            12,
            index,
        )
        .unwrap();
        let t = &doc.truth;
        let CaptureParams::Page(page) = &t.capture else {
            panic!("{:?}", t.capture);
        };
        let [w, h] = page.paper.size_mm();
        let (w, h) = if page.landscape { (h, w) } else { (w, h) };
        let px = |mm: f64| (mm / 25.4 * page.dpi as f64).round() as u32;
        assert_eq!((t.width, t.height), (px(w), px(h)), "{index}");
        let jpeg = if page.pdf {
            embedded_jpeg(&lopdf::Document::load_mem(&doc.bytes).unwrap()).unwrap()
        } else {
            doc.bytes.clone()
        };
        let image = image::load_from_memory(&jpeg).unwrap();
        assert_eq!((image.width(), image.height()), (t.width, t.height));
        assert_eq!(image.color().channel_count() == 1, page.grey, "{index}");
        let inside = |corners: &[[f32; 2]; 4]| {
            corners
                .iter()
                .all(|&[x, y]| x >= 0.0 && y >= 0.0 && x <= t.width as f32 && y <= t.height as f32)
        };
        assert!(inside(&t.corners), "{index}: the card leaves the page");
        // The card is printed at the page's resolution: 85.6 mm wide.
        let card_width = ((t.corners[1][0] - t.corners[0][0]).powi(2)
            + (t.corners[1][1] - t.corners[0][1]).powi(2))
        .sqrt();
        assert!((card_width - px(85.6) as f32).abs() < 2.0, "{card_width}");
        match page.arrangement {
            Arrangement::Alone => assert!(t.others.is_empty()),
            Arrangement::SideBySide | Arrangement::Stacked => {
                beside += 1;
                let [other] = &t.others[..] else {
                    panic!("{index}: {:?}", t.others);
                };
                assert_eq!(other.kind, DocumentKind::NidFront);
                assert!(
                    inside(&other.corners),
                    "{index}: the other side leaves the page"
                );
                // Neither card lies on the other.
                let quad = |c: &[[f32; 2]; 4]| c.map(|[x, y]| [x as f64, y as f64]);
                let (card, other) = (quad(&t.corners), quad(&other.corners));
                for p in other {
                    assert!(!inside_convex(&card, p, 0.0), "{index}");
                }
                for p in card {
                    assert!(!inside_convex(&other, p, 0.0), "{index}");
                }
            }
        }
    }
    assert!(beside > 0, "no page of eight holds both sides");
}

#[test]
fn documents_record_their_face_and_the_held_out_family_is_drawn_only_when_asked() {
    use hawiya::synth::render::FaceFamily;
    let faces = |set: FaceSet| -> std::collections::BTreeSet<FaceFamily> {
        let dataset = Dataset {
            kinds: KindChoice::All,
            capture: CaptureMode::Scan,
            fonts: FontSet::Training,
            faces: set,
            seed: 21,
        };
        (0..24)
            .map(|i| dataset.document(i).unwrap().truth.face.unwrap().family)
            .collect()
    };
    let training = faces(FaceSet::Training);
    assert!(!training.contains(&FaceFamily::Mesh));
    assert!(training.len() >= 3, "{training:?}");
    assert_eq!(
        faces(FaceSet::HeldOut).into_iter().collect::<Vec<_>>(),
        [FaceFamily::Mesh]
    );
}
