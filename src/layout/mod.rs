//! Document layouts: where every printed field and fixed text sits on each kind of
//! card, as data (`layouts/<kind>.toml`, embedded in the binary).
//!
//! The synthetic renderer draws documents from these layouts and the reading pipeline
//! cuts field crops with them, so the schema is generic: the page size, fixed texts,
//! graphics (photo, barcode, emblem...), and for every field its box as fractions of
//! the card, alignment, font-size range, script and [`LineCategory`].

mod category;
mod schema;

use std::sync::OnceLock;

pub use category::LineCategory;
pub use schema::{
    Align, FieldSpec, FixedText, FontSize, Graphic, GraphicKind, Layout, LayoutError, Page, Rgb,
    Script, Style, UnitRect,
};

use crate::domain::DocumentKind;

/// The layout files, embedded so the binary is self-contained.
const SOURCES: [(DocumentKind, &str); 7] = [
    (
        DocumentKind::NidFront,
        include_str!("../../layouts/nid_front.toml"),
    ),
    (
        DocumentKind::NidBack,
        include_str!("../../layouts/nid_back.toml"),
    ),
    (
        DocumentKind::DriverLicence,
        include_str!("../../layouts/driver_licence.toml"),
    ),
    (
        DocumentKind::CarLicenceFront,
        include_str!("../../layouts/car_licence_front.toml"),
    ),
    (
        DocumentKind::CarLicenceBack,
        include_str!("../../layouts/car_licence_back.toml"),
    ),
    (
        DocumentKind::Passport,
        include_str!("../../layouts/passport.toml"),
    ),
    (
        DocumentKind::ResidencePermit,
        include_str!("../../layouts/residence_permit.toml"),
    ),
];

/// The embedded layout source of `kind` (TOML).
pub fn builtin_source(kind: DocumentKind) -> &'static str {
    SOURCES
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, source)| *source)
        .unwrap_or_default()
}

/// The built-in layout of `kind`, parsed once.
///
/// The embedded files are validated by this module's tests, so a parse failure here is
/// a build defect, not bad input: it panics with the reason.
pub fn builtin(kind: DocumentKind) -> &'static Layout {
    static PARSED: OnceLock<Vec<Layout>> = OnceLock::new();
    let all = PARSED.get_or_init(|| {
        DocumentKind::ALL
            .iter()
            .map(|&kind| {
                Layout::from_toml(builtin_source(kind))
                    .unwrap_or_else(|e| panic!("embedded layout of {kind} is invalid: {e}"))
            })
            .collect()
    });
    &all[kind.index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_layout_parses_and_matches_its_kind() {
        for kind in DocumentKind::ALL {
            let layout =
                Layout::from_toml(builtin_source(kind)).unwrap_or_else(|e| panic!("{kind}: {e}"));
            assert_eq!(layout.kind, kind);
            assert!(!layout.fields.is_empty());
            assert!(builtin(kind).field("no-such-field").is_none());
        }
    }

    #[test]
    fn nid_front_follows_the_domain_notes() {
        let layout = builtin(DocumentKind::NidFront);
        assert!((layout.page.aspect() - 85.60 / 53.98).abs() < 1e-3);
        let nid = layout.field("national_id").unwrap();
        assert_eq!(nid.script, Script::Arabic);
        assert_eq!(nid.category, LineCategory::NationalId);
        assert_eq!(nid.align, Align::Right);
        // Right edge and centre of the 14-digit number as measured on a real card.
        assert!((nid.rect.x1 - 0.958).abs() < 0.02);
        assert!((nid.rect.center_y() - 0.794).abs() < 0.02);
        assert!(layout.graphics.iter().any(|g| g.kind == GraphicKind::Photo));
    }

    #[test]
    fn rejects_invalid_layouts() {
        let bad_box = r#"
            kind = "nid-front"
            [page]
            width_mm = 85.6
            height_mm = 53.98
            [[field]]
            key = "first_name"
            box = [0.9, 0.3, 0.5, 0.4]
            size = [0.03, 0.04]
            script = "arabic"
            category = "name"
        "#;
        assert!(matches!(
            Layout::from_toml(bad_box),
            Err(LayoutError::Invalid { .. })
        ));
        assert!(matches!(
            Layout::from_toml("kind = 3"),
            Err(LayoutError::Toml(_))
        ));
        // A card has one title.
        let title = |text: &str| {
            format!(
                "[[fixed]]\ntext = \"{text}\"\nbox = [0.1, 0.0, 0.5, 0.1]\nsize = [0.04, 0.05]\nscript = \"arabic\"\ntitle = true\n"
            )
        };
        let source = builtin_source(DocumentKind::DriverLicence);
        let two_titles = format!("{source}\n{}", title("رخصة"));
        let err = Layout::from_toml(&two_titles).unwrap_err();
        assert!(err.to_string().contains("title"), "{err}");
    }
}
