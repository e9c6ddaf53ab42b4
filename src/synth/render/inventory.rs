//! The inventory of typefaces the generator prints with (`fonts/families.toml`): every
//! family's files, style class, source, licence and split. The fonts themselves live
//! in the font cache `scripts/fonts.sh` fills; this is only their list.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::layout::Script;

const SOURCE: &str = include_str!("../../../fonts/families.toml");

/// A family's side of the held-out line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Split {
    /// Drawn for training data.
    Training,
    /// Never rendered for training: only to measure reading a typeface not seen.
    HeldOut,
}

/// Which Arabic families a run draws from or measures (`--fonts`). Latin and MRZ
/// faces are in every set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FontSet {
    #[default]
    Training,
    HeldOut,
    All,
}

impl FontSet {
    pub fn contains(self, split: Split) -> bool {
        match self {
            FontSet::Training => split == Split::Training,
            FontSet::HeldOut => split == Split::HeldOut,
            FontSet::All => true,
        }
    }
}

impl std::fmt::Display for FontSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use clap::ValueEnum;
        let value = self.to_possible_value().expect("every set is a value");
        f.write_str(value.get_name())
    }
}

/// The style class of an Arabic family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StyleClass {
    Naskh,
    KufiSans,
    Geometric,
    Monospaced,
    /// Display faces that stay legible.
    Display,
}

/// What a family prints, and for Arabic families where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Arabic {
        class: StyleClass,
        split: Split,
    },
    /// Latin text; drawn in every split.
    Latin,
    /// Machine-readable zones; drawn in every split.
    Mrz,
}

/// One typeface family of the inventory.
#[derive(Debug, Clone)]
pub struct Family {
    pub name: String,
    pub role: Role,
    /// `debian:PACKAGE` or `npm:PACKAGE@VERSION`.
    pub source: String,
    pub licence: String,
    /// File names of the regular and bold weights (at least one).
    pub regular: Option<String>,
    pub bold: Option<String>,
    /// Characters the generator prints that no file of the family maps.
    pub lacks: String,
    /// The Arabic-Indic digits drawn in their Persian shapes.
    pub persian_digits: String,
    /// Relative chance of being drawn among the families of its script.
    pub weight: u32,
}

impl Family {
    pub fn script(&self) -> Script {
        match self.role {
            Role::Arabic { .. } => Script::Arabic,
            Role::Latin => Script::Latin,
            Role::Mrz => Script::Mrz,
        }
    }

    /// The split of an Arabic family; `None` for the faces every split shares.
    pub fn split(&self) -> Option<Split> {
        match self.role {
            Role::Arabic { split, .. } => Some(split),
            Role::Latin | Role::Mrz => None,
        }
    }

    /// Whether runs on `set` draw this family.
    pub fn in_set(&self, set: FontSet) -> bool {
        self.split().is_none_or(|split| set.contains(split))
    }

    /// The split's name in tables: `training`, `held-out`, or `every` for the faces
    /// every split shares.
    pub fn split_name(&self) -> &'static str {
        match self.split() {
            Some(Split::Training) => "training",
            Some(Split::HeldOut) => "held-out",
            None => "every",
        }
    }

    /// The style class's name in tables (`latin`, `mrz` for those faces).
    pub fn class_name(&self) -> &'static str {
        match self.role {
            Role::Arabic { class, .. } => match class {
                StyleClass::Naskh => "naskh",
                StyleClass::KufiSans => "kufi-sans",
                StyleClass::Geometric => "geometric",
                StyleClass::Monospaced => "monospaced",
                StyleClass::Display => "display",
            },
            Role::Latin => "latin",
            Role::Mrz => "mrz",
        }
    }

    /// `(bold, file)` of each weight, regular first.
    pub fn files(&self) -> impl Iterator<Item = (bool, &str)> {
        [(false, &self.regular), (true, &self.bold)]
            .into_iter()
            .filter_map(|(bold, file)| file.as_deref().map(|f| (bold, f)))
    }
}

/// Why a printed line cannot be placed in a [`FontSet`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FontSetError {
    #[error(
        "the folder does not record the font family of its lines (it was written before \
         `hawiya synth` recorded them): regenerate it, or measure it with --fonts all"
    )]
    Unrecorded,
    #[error("font family {0:?} is not in fonts/families.toml")]
    Unknown(String),
}

impl FontSet {
    /// Whether a line printed in the family named `font` (`None` when its folder does
    /// not say) belongs to this set. Every line belongs to `all`.
    pub fn admits(self, font: Option<&str>) -> Result<bool, FontSetError> {
        if self == FontSet::All {
            return Ok(true);
        }
        let name = font.ok_or(FontSetError::Unrecorded)?;
        let family = Inventory::builtin()
            .family(name)
            .ok_or_else(|| FontSetError::Unknown(name.to_string()))?;
        Ok(family.in_set(self))
    }
}

/// Why `fonts/families.toml` cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum InventoryError {
    #[error("fonts/families.toml: {0}")]
    Syntax(#[from] toml::de::Error),
    #[error("fonts/families.toml: {family} names no file (regular or bold)")]
    NoFile { family: String },
    #[error("fonts/families.toml: the family name {0:?} is used twice")]
    DuplicateName(String),
    #[error("fonts/families.toml: {family}: persian_digits holds {digit:?}, not one of ٤٥٦")]
    NotAPersianDigit { family: String, digit: char },
    #[error("fonts/families.toml: there is no {0:?} face (every script needs a fallback)")]
    NoFace(Script),
    #[error("fonts/families.toml: no Arabic family is in the {0:?} split")]
    EmptySplit(Split),
}

/// Every family, Arabic ones first, in the file's order: the first of each script is
/// that script's fallback for characters other faces lack.
#[derive(Debug, Clone)]
pub struct Inventory {
    pub families: Vec<Family>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileEntry {
    name: String,
    #[serde(default)]
    class: Option<StyleClass>,
    #[serde(default)]
    split: Option<Split>,
    source: String,
    licence: String,
    regular: Option<String>,
    bold: Option<String>,
    #[serde(default)]
    lacks: String,
    #[serde(default)]
    persian_digits: String,
    #[serde(default = "one")]
    weight: u32,
}

fn one() -> u32 {
    1
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    arabic: Vec<FileEntry>,
    latin: Vec<FileEntry>,
    mrz: Vec<FileEntry>,
}

impl Inventory {
    /// The inventory built into this binary, parsed once. The embedded file is
    /// validated by this module's tests, so a failure here is a build defect.
    pub fn builtin() -> &'static Inventory {
        static PARSED: OnceLock<Inventory> = OnceLock::new();
        PARSED.get_or_init(|| {
            Inventory::from_toml(SOURCE)
                .unwrap_or_else(|e| panic!("the embedded font inventory is invalid: {e}"))
        })
    }

    pub fn from_toml(text: &str) -> Result<Inventory, InventoryError> {
        let file: File = toml::from_str(text)?;
        let mut families = Vec::new();
        // Arabic entries need a class and a split; Latin and MRZ faces have neither.
        let arabic = file.arabic.into_iter().map(|e| {
            let role = match (e.class, e.split) {
                (Some(class), Some(split)) => Ok(Role::Arabic { class, split }),
                _ => Err(serde::de::Error::custom(format!(
                    "[[arabic]] {} needs a class and a split",
                    e.name
                ))),
            };
            (e, role)
        });
        let faces = |entries: Vec<FileEntry>, role: Role| {
            entries.into_iter().map(move |e| {
                let role = match (e.class, e.split) {
                    (None, None) => Ok(role),
                    _ => Err(serde::de::Error::custom(format!(
                        "{} is drawn in every split and has no class or split",
                        e.name
                    ))),
                };
                (e, role)
            })
        };
        for (e, role) in arabic
            .chain(faces(file.latin, Role::Latin))
            .chain(faces(file.mrz, Role::Mrz))
        {
            let role = role.map_err(InventoryError::Syntax)?;
            if e.regular.is_none() && e.bold.is_none() {
                return Err(InventoryError::NoFile { family: e.name });
            }
            if let Some(digit) = e.persian_digits.chars().find(|c| !"٤٥٦".contains(*c)) {
                return Err(InventoryError::NotAPersianDigit {
                    family: e.name,
                    digit,
                });
            }
            if families.iter().any(|f: &Family| f.name == e.name) {
                return Err(InventoryError::DuplicateName(e.name));
            }
            families.push(Family {
                name: e.name,
                role,
                source: e.source,
                licence: e.licence,
                regular: e.regular,
                bold: e.bold,
                lacks: e.lacks,
                persian_digits: e.persian_digits,
                weight: e.weight,
            });
        }
        for script in [Script::Arabic, Script::Latin, Script::Mrz] {
            if !families.iter().any(|f| f.script() == script) {
                return Err(InventoryError::NoFace(script));
            }
        }
        for split in [Split::Training, Split::HeldOut] {
            if !families.iter().any(|f| f.split() == Some(split)) {
                return Err(InventoryError::EmptySplit(split));
            }
        }
        Ok(Inventory { families })
    }

    pub fn family(&self, name: &str) -> Option<&Family> {
        self.families.iter().find(|f| f.name == name)
    }

    /// The Arabic families of `set`.
    pub fn arabic(&self, set: FontSet) -> impl Iterator<Item = &Family> {
        self.families
            .iter()
            .filter(move |f| f.script() == Script::Arabic && f.in_set(set))
    }

    /// Every distinct file name (a file two families share is named once).
    pub fn files(&self) -> BTreeSet<&str> {
        self.families
            .iter()
            .flat_map(|f| f.files().map(|(_, file)| file))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_inventory_parses_and_holds_forty_arabic_families() {
        let inventory = Inventory::builtin();
        let arabic: Vec<_> = inventory.arabic(FontSet::All).collect();
        assert!(arabic.len() >= 40, "{} Arabic families", arabic.len());
        // About a quarter held out, in every style class.
        let held_out = inventory.arabic(FontSet::HeldOut).count();
        let share = held_out as f64 / arabic.len() as f64;
        assert!((0.2..=0.3).contains(&share), "{held_out} held out");
        for class in [
            StyleClass::Naskh,
            StyleClass::KufiSans,
            StyleClass::Geometric,
            StyleClass::Monospaced,
            StyleClass::Display,
        ] {
            let of = |set| {
                inventory
                    .arabic(set)
                    .filter(|f| matches!(f.role, Role::Arabic { class: c, .. } if c == class))
                    .count()
            };
            assert!(of(FontSet::Training) > 0, "no {class:?} family in training");
            assert!(of(FontSet::HeldOut) > 0, "no {class:?} family held out");
        }
        assert_eq!(
            inventory.arabic(FontSet::Training).count() + held_out,
            arabic.len()
        );
    }

    #[test]
    fn the_faces_the_shipped_model_was_trained_on_stay_in_training() {
        let inventory = Inventory::builtin();
        for name in [
            "Amiri",
            "Noto Naskh Arabic",
            "Noto Sans Arabic",
            "Noto Kufi Arabic",
            "KacstOne",
            "Harmattan",
            "AlArabiya",
            "Salem",
        ] {
            let family = inventory.family(name).expect(name);
            assert_eq!(family.split(), Some(Split::Training), "{name}");
        }
        // Amiri, the Arabic fallback, is first.
        assert_eq!(inventory.families[0].name, "Amiri");
    }

    #[test]
    fn a_set_admits_the_lines_of_its_families_and_the_shared_faces() {
        assert_eq!(FontSet::HeldOut.admits(Some("Lateef")), Ok(true));
        assert_eq!(FontSet::Training.admits(Some("Lateef")), Ok(false));
        assert_eq!(FontSet::Training.admits(Some("Amiri")), Ok(true));
        assert_eq!(FontSet::HeldOut.admits(Some("OCR-B")), Ok(true));
        assert_eq!(FontSet::All.admits(None), Ok(true));
        assert_eq!(FontSet::HeldOut.admits(None), Err(FontSetError::Unrecorded));
        assert!(matches!(
            FontSet::Training.admits(Some("Comic Sans")),
            Err(FontSetError::Unknown(_))
        ));
    }

    #[test]
    fn malformed_entries_are_refused_with_the_family_named() {
        let base = r#"
[[latin]]
name = "L"
source = "debian:x"
licence = "OFL-1.1"
bold = "l.ttf"

[[mrz]]
name = "M"
source = "debian:x"
licence = "OFL-1.1"
regular = "m.ttf"
"#;
        let arabic = |extra: &str| {
            format!(
                "[[arabic]]\nname = \"A\"\nsource = \"debian:x\"\nlicence = \"OFL-1.1\"\n{extra}\n{base}"
            )
        };
        let ok = arabic("class = \"naskh\"\nsplit = \"held-out\"\nregular = \"a.ttf\"");
        assert!(matches!(
            Inventory::from_toml(&ok),
            Err(InventoryError::EmptySplit(Split::Training))
        ));
        let ok = format!(
            "{ok}\n[[arabic]]\nname = \"B\"\nclass = \"display\"\nsplit = \"training\"\n\
             source = \"npm:@fontsource/b@1.0.0\"\nlicence = \"OFL-1.1\"\nbold = \"b.ttf\"\n"
        );
        let inventory = Inventory::from_toml(&ok).unwrap();
        assert_eq!(inventory.arabic(FontSet::HeldOut).count(), 1);
        assert_eq!(inventory.arabic(FontSet::Training).count(), 1);
        assert_eq!(inventory.arabic(FontSet::All).count(), 2);
        assert!(inventory.family("L").unwrap().in_set(FontSet::HeldOut));

        let no_file = arabic("class = \"naskh\"\nsplit = \"training\"");
        assert!(matches!(
            Inventory::from_toml(&no_file),
            Err(InventoryError::NoFile { family }) if family == "A"
        ));
        let no_split = arabic("class = \"naskh\"\nregular = \"a.ttf\"");
        let err = Inventory::from_toml(&no_split).unwrap_err().to_string();
        assert!(err.contains("needs a class and a split"), "{err}");
        let digit = arabic(
            "class = \"naskh\"\nsplit = \"training\"\nregular = \"a.ttf\"\npersian_digits = \"٣\"",
        );
        assert!(matches!(
            Inventory::from_toml(&digit),
            Err(InventoryError::NotAPersianDigit { digit: '٣', .. })
        ));
        let bad_class = arabic("class = \"cursive\"\nsplit = \"training\"\nregular = \"a.ttf\"");
        assert!(Inventory::from_toml(&bad_class).is_err());
    }
}
