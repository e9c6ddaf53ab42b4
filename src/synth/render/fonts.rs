//! The fonts documents are printed in: loaded once from the Debian font packages,
//! with per-character coverage so every character is drawn by a font that has it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use cosmic_text::skrifa::{FontRef, MetadataProvider};

use crate::layout::Script;

/// Where fonts are looked up unless `HAWIYA_FONT_DIR` says otherwise.
const DEFAULT_FONT_DIR: &str = "/usr/share/fonts";

/// Why the font library cannot be loaded.
#[derive(Debug, Clone, thiserror::Error)]
pub enum FontError {
    #[error("font file {file} not found under {dir} (install the Debian package {package})")]
    Missing {
        file: &'static str,
        package: &'static str,
        dir: String,
    },
    #[error("font file {path} cannot be read: {reason}")]
    Unreadable { path: String, reason: String },
}

/// One font file we print with.
struct FontFile {
    file: &'static str,
    package: &'static str,
    script: Script,
    /// Relative chance of being picked for a document.
    weight: u32,
}

/// Bold Arabic fonts close to what the cards use (Amiri-Bold, Simplified-Arabic-like
/// naskh, and a few heavier kufi/sans faces), then Latin faces and OCR-B.
/// The first font of each script is that script's fallback: it covers every
/// character the generator prints.
const FILES: [FontFile; 12] = [
    f("Amiri-Bold.ttf", "fonts-hosny-amiri", Script::Arabic, 4),
    f(
        "NotoNaskhArabic-Bold.ttf",
        "fonts-noto-core",
        Script::Arabic,
        4,
    ),
    f(
        "NotoSansArabic-Bold.ttf",
        "fonts-noto-core",
        Script::Arabic,
        3,
    ),
    f(
        "NotoKufiArabic-Bold.ttf",
        "fonts-noto-core",
        Script::Arabic,
        1,
    ),
    f("KacstOne-Bold.ttf", "fonts-kacst-one", Script::Arabic, 2),
    f(
        "Harmattan-Bold.ttf",
        "fonts-sil-harmattan",
        Script::Arabic,
        2,
    ),
    f("ae_AlArabiya.ttf", "fonts-arabeyes", Script::Arabic, 2),
    f("ae_Salem.ttf", "fonts-arabeyes", Script::Arabic, 1),
    f("DejaVuSans-Bold.ttf", "fonts-dejavu-core", Script::Latin, 2),
    f("NotoSans-Bold.ttf", "fonts-noto-core", Script::Latin, 3),
    f(
        "DejaVuSansCondensed-Bold.ttf",
        "fonts-dejavu-core",
        Script::Latin,
        1,
    ),
    f("OCRB.otf", "fonts-ocr-b", Script::Mrz, 1),
];

const fn f(file: &'static str, package: &'static str, script: Script, weight: u32) -> FontFile {
    FontFile {
        file,
        package,
        script,
        weight,
    }
}

/// Index of a font in the [`FontLibrary`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FontId(pub(crate) u8);

/// A loaded font file and the characters it maps.
pub struct LoadedFont {
    pub file: &'static str,
    pub script: Script,
    pub weight: u32,
    pub(crate) data: Arc<Vec<u8>>,
    coverage: BTreeSet<char>,
}

impl LoadedFont {
    /// Whether the font has a glyph for `c`.
    pub fn covers(&self, c: char) -> bool {
        self.coverage.contains(&c)
    }
}

/// Every font we print with, loaded once per process and shared by all threads.
pub struct FontLibrary {
    fonts: Vec<LoadedFont>,
}

impl FontLibrary {
    /// The process-wide library (loaded on first use).
    pub fn global() -> Result<&'static FontLibrary, FontError> {
        static LIBRARY: OnceLock<Result<FontLibrary, FontError>> = OnceLock::new();
        LIBRARY
            .get_or_init(|| {
                let dir = std::env::var_os("HAWIYA_FONT_DIR").map(PathBuf::from);
                FontLibrary::load(dir.as_deref().unwrap_or(Path::new(DEFAULT_FONT_DIR)))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Loads every font file from `dir` (searched recursively by file name).
    pub fn load(dir: &Path) -> Result<FontLibrary, FontError> {
        let mut found = Vec::new();
        collect_files(dir, &mut found);
        found.sort();
        let mut fonts = Vec::with_capacity(FILES.len());
        for spec in &FILES {
            let path = found
                .iter()
                .find(|p| p.file_name().is_some_and(|n| n == spec.file))
                .ok_or_else(|| FontError::Missing {
                    file: spec.file,
                    package: spec.package,
                    dir: dir.display().to_string(),
                })?;
            let unreadable = |reason: String| FontError::Unreadable {
                path: path.display().to_string(),
                reason,
            };
            let data = std::fs::read(path).map_err(|e| unreadable(e.to_string()))?;
            let coverage = {
                let font = FontRef::new(&data).map_err(|e| unreadable(e.to_string()))?;
                font.charmap()
                    .mappings()
                    .filter_map(|(code, _)| char::from_u32(code))
                    .collect()
            };
            fonts.push(LoadedFont {
                file: spec.file,
                script: spec.script,
                weight: spec.weight,
                data: Arc::new(data),
                coverage,
            });
        }
        Ok(FontLibrary { fonts })
    }

    pub fn font(&self, id: FontId) -> &LoadedFont {
        &self.fonts[id.0 as usize]
    }

    pub fn ids(&self) -> impl Iterator<Item = FontId> + '_ {
        (0..self.fonts.len()).map(|i| FontId(i as u8))
    }

    /// The fonts that print `script`, the fallback first.
    pub fn fonts_for(&self, script: Script) -> impl Iterator<Item = FontId> + '_ {
        self.ids().filter(move |&id| self.font(id).script == script)
    }

    /// The font `text` falls back to for a character `primary` lacks: the script's
    /// fallback font, then any other font that has it.
    pub fn fallback_for(&self, primary: FontId, c: char) -> Option<FontId> {
        let script = self.font(primary).script;
        self.fonts_for(script)
            .chain(self.ids().filter(|&id| self.font(id).script != script))
            .find(|&id| self.font(id).covers(c))
    }

    /// The font each character of `text` is drawn with: `primary` where it has the
    /// glyph, a fallback otherwise (or `primary` when no font has it).
    pub fn resolve(&self, text: &str, primary: FontId) -> Vec<(usize, FontId)> {
        let font = self.font(primary);
        text.char_indices()
            .map(|(i, c)| {
                // Spaces and invisible bidi marks stay in the primary font's run so
                // shaping context (and joining) is not split around them.
                let id = if c.is_whitespace()
                    || matches!(c, '\u{200E}' | '\u{200F}')
                    || font.covers(c)
                {
                    primary
                } else {
                    self.fallback_for(primary, c).unwrap_or(primary)
                };
                (i, id)
            })
            .collect()
    }
}

impl std::fmt::Debug for FontLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FontLibrary")
            .field("fonts", &self.fonts.len())
            .finish()
    }
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_files(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_printed_character_resolves_to_a_font_that_has_it() {
        let library = FontLibrary::global().unwrap();
        for script in [Script::Arabic, Script::Latin, Script::Mrz] {
            let alphabet: &str = match script {
                Script::Arabic => "ابتثجحخدذرزسشصضطظعغفقكلمنهويءآأإؤئةى٠١٢٣٤٥٦٧٨٩/-:().+ ",
                Script::Latin => "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-/.' ",
                Script::Mrz => "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<",
            };
            // The first font of a script is its fallback and must cover everything.
            let fallback = library.fonts_for(script).next().unwrap();
            for primary in library.fonts_for(script) {
                for (i, font) in library.resolve(alphabet, primary) {
                    let c = alphabet[i..].chars().next().unwrap();
                    let file = library.font(primary).file;
                    assert!(c == ' ' || library.font(font).covers(c), "{c:?} in {file}");
                    assert!(font == primary || font == fallback);
                }
            }
        }
    }

    #[test]
    fn a_character_missing_from_the_chosen_font_falls_back() {
        let library = FontLibrary::global().unwrap();
        let naskh = library
            .ids()
            .find(|&id| library.font(id).file == "NotoNaskhArabic-Bold.ttf")
            .unwrap();
        // Noto Naskh Arabic has no '/' or '-': dates and addresses need the fallback.
        assert!(!library.font(naskh).covers('/'));
        let resolved = library.resolve("١٩٩٠/٠٣", naskh);
        assert_eq!(resolved[0].1, naskh);
        assert_ne!(resolved[4].1, naskh);
        assert!(library.font(resolved[4].1).covers('/'));
    }
}
