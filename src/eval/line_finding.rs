//! `hawiya eval docs --line-finding` and `--export-lines`: the line cutter alone,
//! on documents rectified with their true outline and kind, so that a line missed
//! is the cutter's, not the locator's or the classifier's. `--line-finding` counts,
//! per kind and field, the printed lines a crop of their key covers; `--export-lines`
//! writes the crops that cover one printed line, labelled with its text, as a
//! `synth --lines` folder to train on.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use super::docs::{DocsArgs, rate};
use crate::pipeline::cut::{LineCrop, cut_lines};
use crate::pipeline::decode::{self, DecodeLimits};
use crate::pipeline::rectify::rectify;
use crate::pipeline::warp::{Homography, Point, Quad};
use crate::pipeline::{CARD_WIDTH, regions};
use crate::synth::dataset::{TruthLine, TruthRecord};
use crate::synth::labels::{LabelsWriter, LineLabel, write_png};

/// Line finding for one field key.
#[derive(Debug, Default, Clone, Copy, Serialize)]
struct LineCounts {
    /// Lines printed.
    printed: usize,
    /// Printed lines a crop of their key covers.
    found: usize,
    /// Crops cut for the key on cards that print nothing there (an optional line
    /// left empty): pattern or a neighbour's ink taken for text.
    cut_blank: usize,
}

impl std::ops::AddAssign for LineCounts {
    fn add_assign(&mut self, other: LineCounts) {
        self.printed += other.printed;
        self.found += other.found;
        self.cut_blank += other.cut_blank;
    }
}

impl std::iter::Sum for LineCounts {
    fn sum<I: Iterator<Item = LineCounts>>(counts: I) -> LineCounts {
        counts.fold(LineCounts::default(), |mut total, c| {
            total += c;
            total
        })
    }
}

/// Per field key.
type LineTally = BTreeMap<String, LineCounts>;

/// A printed field line found in a crop of its key when the crop covers at least
/// this share of the line's true box.
const FOUND_COVER: f32 = 0.5;
/// A crop is exported as the line's image only when it covers nearly all of it:
/// a label must not name characters the crop cut off.
const EXPORT_COVER: f32 = 0.95;

/// One document rectified with its true outline and kind and cut into crops; each
/// printed field line paired with the crop of its key covering most of it.
struct TrueCut<'a> {
    crops: Vec<LineCrop>,
    /// (line, index of the best crop and the share of the line's box it covers)
    lines: Vec<(&'a TruthLine, Option<(usize, f32)>)>,
}

fn cut_with_true_outline<'a>(dir: &Path, record: &'a TruthRecord) -> anyhow::Result<TrueCut<'a>> {
    let bytes = std::fs::read(dir.join(&record.file))?;
    let image = decode::decode(&bytes, &DecodeLimits::default())
        .map_err(|e| anyhow::anyhow!("{}: {e}", record.file))?
        .image;
    let truth = Quad::from_xy(record.corners_in(image.width(), image.height()));
    let (sx, sy) = (
        image.width() as f32 / record.width as f32,
        image.height() as f32 / record.height as f32,
    );
    let aspect = crate::layout::builtin(record.kind).page.aspect();
    let (cw, ch) = (CARD_WIDTH, (CARD_WIDTH as f32 / aspect).round() as u32);
    let card = rectify(&image, &truth, cw, ch).card;
    let crops = cut_lines(&card, &regions(record.kind));
    let to_card = Homography::from_points(truth.corners, Quad::full(cw, ch).corners)
        .ok_or_else(|| anyhow::anyhow!("{}: degenerate outline", record.file))?;
    let lines = record
        .lines
        .iter()
        .filter(|line| line.key.is_some() && !line.text.trim().is_empty())
        .map(|line| {
            let [x0, y0, x1, y1] = Quad {
                corners: line
                    .quad
                    .map(|[x, y]| to_card.apply(Point::new(x * sx, y * sy))),
            }
            .bounds();
            let area = ((x1 - x0) * (y1 - y0)).max(1.0);
            let best = crops
                .iter()
                .enumerate()
                .filter(|(_, c)| line.key.as_ref() == Some(&c.key))
                .map(|(i, c)| {
                    let b = c.line;
                    let w = (x1.min(b.x1 as f32) - x0.max(b.x0 as f32)).max(0.0);
                    let h = (y1.min(b.y1 as f32) - y0.max(b.y0 as f32)).max(0.0);
                    (i, w * h / area)
                })
                .max_by(|a, b| a.1.total_cmp(&b.1));
            (line, best)
        })
        .collect();
    Ok(TrueCut { crops, lines })
}

/// Cuts the lines of one document rectified with its true outline and tallies,
/// per field key, the printed lines, those a crop of their key covers, and crops
/// cut where nothing is printed.
/// With `verbose`, every line missed is listed on stderr.
fn line_finding(dir: &Path, record: &TruthRecord, verbose: bool) -> anyhow::Result<LineTally> {
    let cut = cut_with_true_outline(dir, record)?;
    let mut tally = LineTally::new();
    for (line, best) in &cut.lines {
        let key = line.key.clone().unwrap_or_default();
        let found = best.is_some_and(|(_, cover)| cover >= FOUND_COVER);
        if verbose && !found {
            let why = best.map_or("no crop".to_owned(), |(i, cover)| {
                let b = cut.crops[i].line;
                format!(
                    "crop {:?} covers {:.0} % of it",
                    [b.x0, b.y0, b.x1, b.y1],
                    cover * 100.0
                )
            });
            eprintln!("{} {}: {key} missed: {why}", record.file, record.kind);
        }
        let t = tally.entry(key).or_default();
        t.printed += 1;
        t.found += usize::from(found);
    }
    for crop in &cut.crops {
        if !cut
            .lines
            .iter()
            .any(|(line, _)| line.key.as_ref() == Some(&crop.key))
        {
            tally.entry(crop.key.clone()).or_default().cut_blank += 1;
        }
    }
    Ok(tally)
}

/// `--export-lines`: the crops of every document (true outline and kind) that
/// cover a printed line, labelled with its text, as a `synth --lines` folder.
pub fn export(args: &DocsArgs, out: &Path) -> anyhow::Result<()> {
    let records = args.records()?;
    std::fs::create_dir_all(out)?;
    let mut labels = LabelsWriter::create(out)?;
    let mut written = 0usize;
    for record in &records {
        let cut = cut_with_true_outline(&args.dir, record)?;
        let stem = record.file.rsplit_once('.').map_or(&*record.file, |s| s.0);
        // A crop covering two printed lines has no single label.
        let mut claims = vec![0usize; cut.crops.len()];
        for (_, best) in &cut.lines {
            if let Some((i, cover)) = best
                && *cover >= FOUND_COVER
            {
                claims[*i] += 1;
            }
        }
        for (line, best) in &cut.lines {
            let Some((i, cover)) = *best else { continue };
            if cover < EXPORT_COVER || claims[i] != 1 {
                continue;
            }
            let file = format!("{stem}-{i:02}.png");
            write_png(&out.join(&file), &cut.crops[i].image)?;
            labels.add(&LineLabel {
                file,
                text: line.text.clone(),
                category: line.category,
                font: line.font.clone(),
            })?;
            written += 1;
        }
    }
    labels.finish()?;
    println!(
        "wrote {written} crops of {} documents to {}",
        records.len(),
        out.display()
    );
    Ok(())
}

/// `--line-finding`: found/printed per kind and per field.
pub fn run(args: &DocsArgs) -> anyhow::Result<()> {
    let records = args.records()?;
    let mut by_kind: BTreeMap<String, LineTally> = BTreeMap::new();
    for record in &records {
        let tally = line_finding(&args.dir, record, args.verbose)?;
        let kind = by_kind.entry(record.kind.to_string()).or_default();
        for (key, counts) in tally {
            *kind.entry(key).or_default() += counts;
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&by_kind)?);
        return Ok(());
    }
    let found = |total: LineCounts| {
        format!(
            "{}/{} lines found ({:.1} %), {} crops where nothing is printed",
            total.found,
            total.printed,
            100.0 * rate(total.found, total.printed),
            total.cut_blank,
        )
    };
    for (kind, tally) in &by_kind {
        println!("{kind}: {}", found(tally.values().copied().sum()));
        for (key, c) in tally {
            if c.found < c.printed || c.cut_blank > 0 {
                println!(
                    "  {key:<22} {}/{}, {} where nothing is printed",
                    c.found, c.printed, c.cut_blank
                );
            }
        }
    }
    let total = by_kind.values().flat_map(|t| t.values().copied()).sum();
    println!("\n{} documents: {}", records.len(), found(total));
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::eval::docs::Request;
    use crate::pipeline::PipelineOptions;
    use crate::synth::render::{FaceSet, FontSet};

    #[test]
    fn exported_lines_are_the_printed_lines_they_cover() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/docs");
        let out = std::env::temp_dir().join(format!("hawiya-export-{}", std::process::id()));
        let args = DocsArgs {
            dir: dir.clone(),
            json: false,
            pipeline: PipelineOptions::with_models("models"),
            geometry_only: false,
            limit: None,
            fonts: FontSet::All,
            faces: FaceSet::All,
            request: Request::None,
            verbose: false,
            outline_tolerance: 0.02,
            line_finding: false,
            export_lines: Some(out.clone()),
            documents: None,
        };
        export(&args, &out).unwrap();
        let printed: Vec<(String, crate::layout::LineCategory)> = TruthRecord::read_all(&dir)
            .unwrap()
            .into_iter()
            .flat_map(|r| r.lines)
            .filter(|l| l.key.is_some() && !l.text.trim().is_empty())
            .map(|l| (l.text, l.category))
            .collect();
        let labels = LineLabel::read_all(&out).unwrap();
        assert!(
            labels.len() * 10 >= printed.len() * 8,
            "{} of {} printed lines exported",
            labels.len(),
            printed.len()
        );
        for label in &labels {
            assert!(
                printed.contains(&(label.text.clone(), label.category)),
                "{label:?} is no printed line"
            );
            let crop = image::open(out.join(&label.file)).unwrap();
            assert!(crop.height() >= 8 && crop.width() >= crop.height() / 2);
        }
        std::fs::remove_dir_all(&out).unwrap();
    }
}
