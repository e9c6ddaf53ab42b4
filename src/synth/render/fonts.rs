//! The fonts documents are printed in: every file of the inventory
//! (`fonts/families.toml`), loaded once from the font cache `scripts/fonts.sh` fills,
//! with per-character coverage so every character is drawn by a font that has it.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use cosmic_text::skrifa::{FontRef, MetadataProvider};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::inventory::{Family, FontSet, Inventory};
use crate::layout::Script;

/// Why the font library cannot be loaded.
#[derive(Debug, Clone, thiserror::Error)]
pub enum FontError {
    #[error(
        "font file {file} of {family} not found under {dir}: run scripts/fonts.sh \
         (it installs every font of fonts/families.toml there), or point --font-dir \
         (HAWIYA_FONT_DIR) at the folder it installed into"
    )]
    Missing {
        file: String,
        family: String,
        dir: String,
    },
    #[error("font file {path} cannot be read: {reason}")]
    Unreadable { path: String, reason: String },
}

/// The font cache `scripts/fonts.sh` installs into by default:
/// `$XDG_CACHE_HOME/hawiya/fonts`, or `~/.cache/hawiya/fonts`.
pub fn default_font_dir() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    cache.join("hawiya").join("fonts")
}

/// The folder the process-wide library loads from (set once, by [`FontDirArgs`]).
static FONT_DIR: OnceLock<PathBuf> = OnceLock::new();

/// Where the commands that render (`synth`, `train`) find their fonts.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct FontDirArgs {
    /// Folder holding the fonts of fonts/families.toml, as scripts/fonts.sh installs
    /// them [default: ~/.cache/hawiya/fonts].
    #[arg(long, env = "HAWIYA_FONT_DIR", value_name = "DIR")]
    pub font_dir: Option<PathBuf>,
}

impl FontDirArgs {
    /// Makes the chosen folder the one [`FontLibrary::global`] loads from. Call it
    /// before anything is rendered: the library is loaded once per process.
    pub fn apply(&self) -> anyhow::Result<()> {
        let Some(dir) = &self.font_dir else {
            return Ok(());
        };
        let set = FONT_DIR.get_or_init(|| dir.clone());
        anyhow::ensure!(
            set == dir,
            "the fonts were already loaded from {}",
            set.display()
        );
        Ok(())
    }
}

/// Index of a font file in the [`FontLibrary`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FontId(pub(crate) u16);

/// A loaded font file, the family it belongs to and the characters it maps.
pub struct LoadedFont {
    pub file: String,
    pub family: &'static Family,
    pub bold: bool,
    pub(crate) data: Arc<Vec<u8>>,
    coverage: BTreeSet<char>,
}

impl LoadedFont {
    /// Whether the font has a glyph for `c`.
    pub fn covers(&self, c: char) -> bool {
        self.coverage.contains(&c)
    }

    pub fn script(&self) -> Script {
        self.family.script()
    }
}

/// Every font of the inventory, loaded once per process and shared by all threads.
/// A file two families share (DejaVu Sans Bold prints Arabic and Latin) is loaded
/// for each, so every font belongs to one family.
pub struct FontLibrary {
    fonts: Vec<LoadedFont>,
}

impl FontLibrary {
    /// The process-wide library, loaded on first use from the folder
    /// [`FontDirArgs::apply`] chose, or [`default_font_dir`].
    pub fn global() -> Result<&'static FontLibrary, FontError> {
        static LIBRARY: OnceLock<Result<FontLibrary, FontError>> = OnceLock::new();
        LIBRARY
            .get_or_init(|| {
                let dir = FONT_DIR.get_or_init(default_font_dir);
                FontLibrary::load(dir, Inventory::builtin())
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Loads every file of `inventory` from `dir` (searched recursively by file name).
    pub fn load(dir: &Path, inventory: &'static Inventory) -> Result<FontLibrary, FontError> {
        let mut found = Vec::new();
        collect_files(dir, &mut found);
        found.sort();
        let mut by_name: HashMap<&str, &Path> = HashMap::new();
        for path in &found {
            if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
                by_name.entry(name).or_insert(path);
            }
        }
        let mut read: HashMap<&str, (Arc<Vec<u8>>, BTreeSet<char>)> = HashMap::new();
        let mut fonts = Vec::new();
        for family in &inventory.families {
            for (bold, file) in family.files() {
                let path = by_name.get(file).ok_or_else(|| FontError::Missing {
                    file: file.to_string(),
                    family: family.name.clone(),
                    dir: dir.display().to_string(),
                })?;
                let (data, coverage) = match read.get(file) {
                    Some(loaded) => loaded.clone(),
                    None => {
                        let loaded = read_font(path)?;
                        read.insert(file, loaded.clone());
                        loaded
                    }
                };
                fonts.push(LoadedFont {
                    file: file.to_string(),
                    family,
                    bold,
                    data,
                    coverage,
                });
            }
        }
        Ok(FontLibrary { fonts })
    }

    pub fn font(&self, id: FontId) -> &LoadedFont {
        &self.fonts[id.0 as usize]
    }

    pub fn ids(&self) -> impl Iterator<Item = FontId> + '_ {
        (0..self.fonts.len()).map(|i| FontId(i as u16))
    }

    /// The first font loaded from `file` (e.g. `OCRB.otf`).
    pub fn by_file(&self, file: &str) -> Option<FontId> {
        self.ids().find(|&id| self.font(id).file == file)
    }

    /// The fonts that print `script`, the fallback family's first.
    pub fn fonts_for(&self, script: Script) -> impl Iterator<Item = FontId> + '_ {
        self.ids()
            .filter(move |&id| self.font(id).script() == script)
    }

    /// The fonts of the families of `script` that runs on `set` draw.
    pub fn fonts_in(&self, script: Script, set: FontSet) -> impl Iterator<Item = FontId> + '_ {
        self.fonts_for(script)
            .filter(move |&id| self.font(id).family.in_set(set))
    }

    /// A font for `script` from the families of `set`: a family by the families'
    /// relative weights, then one of its weights (regular or bold) at even odds.
    pub fn pick(&self, script: Script, set: FontSet, rng: &mut ChaCha8Rng) -> FontId {
        // Families in inventory order with their fonts (loaded family by family).
        let mut families: Vec<(&Family, Vec<FontId>)> = Vec::new();
        for id in self.fonts_in(script, set) {
            let family = self.font(id).family;
            match families.last_mut() {
                Some((last, fonts)) if std::ptr::eq(*last, family) => fonts.push(id),
                _ => families.push((family, vec![id])),
            }
        }
        let total: u32 = families.iter().map(|(f, _)| f.weight).sum();
        let mut pick = rng.random_range(0..total.max(1));
        let (_, fonts) = families
            .iter()
            .find(|(f, _)| {
                let hit = pick < f.weight;
                pick = pick.saturating_sub(f.weight);
                hit
            })
            .or(families.first())
            .expect("the inventory holds families of every script in every set");
        fonts[rng.random_range(0..fonts.len())]
    }

    /// The font `text` falls back to for a character `primary` lacks: the script's
    /// fallback family (its face of the same weight first), then any other font that
    /// has it.
    pub fn fallback_for(&self, primary: FontId, c: char) -> Option<FontId> {
        let script = self.font(primary).script();
        let bold = self.font(primary).bold;
        let fallback = self.fonts_for(script).next().map(|id| self.font(id).family);
        let family_faces = self
            .fonts_for(script)
            .filter(|&id| fallback.is_some_and(|f| std::ptr::eq(self.font(id).family, f)));
        let (same_weight, other_weight): (Vec<FontId>, Vec<FontId>) =
            family_faces.partition(|&id| self.font(id).bold == bold);
        same_weight
            .into_iter()
            .chain(other_weight)
            .chain(self.ids())
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

/// The bytes of a font file and the characters its character map covers.
fn read_font(path: &Path) -> Result<(Arc<Vec<u8>>, BTreeSet<char>), FontError> {
    let unreadable = |reason: String| FontError::Unreadable {
        path: path.display().to_string(),
        reason,
    };
    let data = std::fs::read(path).map_err(|e| unreadable(e.to_string()))?;
    let coverage = FontRef::new(&data)
        .map_err(|e| unreadable(e.to_string()))?
        .charmap()
        .mappings()
        .filter_map(|(code, _)| char::from_u32(code))
        .collect();
    Ok((Arc::new(data), coverage))
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

    /// Every character the generator prints in Arabic-script lines.
    const ARABIC_PRINTED: &str =
        "ءآأؤإئابةتثجحخدذرزسشصضطظعغـفقكلمنهوىي٠١٢٣٤٥٦٧٨٩0123456789 ()+-./:";

    #[test]
    fn every_printed_character_resolves_to_a_font_that_has_it() {
        let library = FontLibrary::global().unwrap();
        for script in [Script::Arabic, Script::Latin, Script::Mrz] {
            let alphabet: &str = match script {
                Script::Arabic => ARABIC_PRINTED,
                Script::Latin => "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-/.' ",
                Script::Mrz => "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<",
            };
            // The first family of a script is its fallback and covers everything.
            let fallback = library
                .font(library.fonts_for(script).next().unwrap())
                .family;
            for primary in library.fonts_for(script) {
                for (i, font) in library.resolve(alphabet, primary) {
                    let c = alphabet[i..].chars().next().unwrap();
                    let file = &library.font(primary).file;
                    assert!(c == ' ' || library.font(font).covers(c), "{c:?} in {file}");
                    assert!(font == primary || std::ptr::eq(library.font(font).family, fallback));
                    // The fallback keeps the weight where its family has it.
                    assert_eq!(library.font(font).bold, library.font(primary).bold);
                }
            }
        }
    }

    #[test]
    fn the_inventory_says_what_each_family_lacks() {
        let library = FontLibrary::global().unwrap();
        for family in &Inventory::builtin().families {
            if family.script() != Script::Arabic {
                continue;
            }
            let lacks: BTreeSet<char> = ARABIC_PRINTED
                .chars()
                .filter(|&c| {
                    !library
                        .ids()
                        .filter(|&id| std::ptr::eq(library.font(id).family, family))
                        .all(|id| library.font(id).covers(c))
                })
                .collect();
            assert_eq!(
                lacks,
                family.lacks.chars().collect::<BTreeSet<char>>(),
                "{}",
                family.name
            );
        }
    }

    #[test]
    fn a_character_missing_from_the_chosen_font_falls_back() {
        let library = FontLibrary::global().unwrap();
        let naskh = library.by_file("NotoNaskhArabic-Bold.ttf").unwrap();
        // Noto Naskh Arabic has no '/' or '-': dates and addresses need the fallback.
        assert!(!library.font(naskh).covers('/'));
        let resolved = library.resolve("١٩٩٠/٠٣", naskh);
        assert_eq!(resolved[0].1, naskh);
        assert_ne!(resolved[4].1, naskh);
        assert!(library.font(resolved[4].1).covers('/'));
        assert_eq!(library.font(resolved[4].1).file, "Amiri-Bold.ttf");
    }

    #[test]
    fn picks_stay_in_the_set_and_reach_every_family_and_weight() {
        use rand::SeedableRng;
        let library = FontLibrary::global().unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for set in [FontSet::Training, FontSet::HeldOut] {
            let mut seen = BTreeSet::new();
            for _ in 0..4000 {
                let font = library.font(library.pick(Script::Arabic, set, &mut rng));
                let split = font.family.split().unwrap();
                assert!(set.contains(split), "{} drawn for {set}", font.family.name);
                seen.insert(font.file.clone());
            }
            assert_eq!(seen.len(), library.fonts_in(Script::Arabic, set).count());
        }
        // Latin faces are in every set.
        let latin = library.pick(Script::Latin, FontSet::HeldOut, &mut rng);
        assert_eq!(library.font(latin).family.split(), None);
    }

    #[test]
    fn a_missing_file_names_the_family_and_the_install_script() {
        let empty = tempfile::tempdir().unwrap();
        let err = FontLibrary::load(empty.path(), Inventory::builtin())
            .unwrap_err()
            .to_string();
        assert!(err.contains("Amiri-Regular.ttf of Amiri"), "{err}");
        assert!(err.contains("scripts/fonts.sh"), "{err}");
    }
}
