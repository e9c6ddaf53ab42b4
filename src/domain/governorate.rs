//! Egyptian governorates and the two-digit codes the national-ID number uses for them.

/// A governorate (or "born abroad") as coded in positions 8 and 9 of the national ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Governorate {
    pub code: u8,
    pub arabic: &'static str,
    pub english: &'static str,
}

/// Every code the surveyed validators accept (docs/domain.md §2.1).
pub const GOVERNORATES: [Governorate; 28] = [
    g(1, "القاهرة", "Cairo"),
    g(2, "الإسكندرية", "Alexandria"),
    g(3, "بورسعيد", "Port Said"),
    g(4, "السويس", "Suez"),
    g(11, "دمياط", "Damietta"),
    g(12, "الدقهلية", "Dakahlia"),
    g(13, "الشرقية", "Sharqia"),
    g(14, "القليوبية", "Qalyubia"),
    g(15, "كفر الشيخ", "Kafr El Sheikh"),
    g(16, "الغربية", "Gharbia"),
    g(17, "المنوفية", "Monufia"),
    g(18, "البحيرة", "Beheira"),
    g(19, "الإسماعيلية", "Ismailia"),
    g(21, "الجيزة", "Giza"),
    g(22, "بني سويف", "Beni Suef"),
    g(23, "الفيوم", "Fayoum"),
    g(24, "المنيا", "Minya"),
    g(25, "أسيوط", "Assiut"),
    g(26, "سوهاج", "Sohag"),
    g(27, "قنا", "Qena"),
    g(28, "أسوان", "Aswan"),
    g(29, "الأقصر", "Luxor"),
    g(31, "البحر الأحمر", "Red Sea"),
    g(32, "الوادي الجديد", "New Valley"),
    g(33, "مطروح", "Matrouh"),
    g(34, "شمال سيناء", "North Sinai"),
    g(35, "جنوب سيناء", "South Sinai"),
    g(88, "خارج الجمهورية", "Born abroad"),
];

const fn g(code: u8, arabic: &'static str, english: &'static str) -> Governorate {
    Governorate {
        code,
        arabic,
        english,
    }
}

impl Governorate {
    pub fn from_code(code: u8) -> Option<Governorate> {
        GOVERNORATES.iter().copied().find(|gov| gov.code == code)
    }

    pub fn from_arabic(name: &str) -> Option<Governorate> {
        GOVERNORATES.iter().copied().find(|gov| gov.arabic == name)
    }

    /// The governorates a person can live in (every code but "born abroad").
    pub fn residential() -> impl Iterator<Item = Governorate> {
        GOVERNORATES.iter().copied().filter(|gov| gov.code != 88)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_up_by_code_and_name() {
        assert_eq!(Governorate::from_code(21).unwrap().english, "Giza");
        assert_eq!(Governorate::from_arabic("القاهرة").unwrap().code, 1);
        assert!(Governorate::from_code(5).is_none());
        assert_eq!(Governorate::residential().count(), 27);
    }
}

/// The governorate named in an address line: the last one mentioned, since the
/// governorate ends an Egyptian address and a street may carry a governorate's name
/// (`ش بورسعيد`). Tolerates the spelling variants of [`crate::domain::arabic::fold`],
/// a missing article (`جيزة`) and a split or joined two-word name (`بور سعيد`).
/// Heavier OCR damage is the pipeline's fuzzy matching's job.
pub fn governorate_in_address(text: &str) -> Option<Governorate> {
    use super::arabic::{fold, strip_article, words};

    let folded = fold(text);
    let tokens: Vec<&str> = words(&folded).collect();
    let mut best: Option<(usize, Governorate)> = None;
    for gov in Governorate::residential() {
        let name = fold(gov.arabic);
        let target: String = words(&name).collect();
        let target = strip_article(&target);
        for start in 0..tokens.len() {
            for width in 1..=2.min(tokens.len() - start) {
                let joined: String = tokens[start..start + width].concat();
                let end = start + width;
                if strip_article(&joined) == target && best.is_none_or(|(e, _)| end > e) {
                    best = Some((end, gov));
                }
            }
        }
    }
    best.map(|(_, gov)| gov)
}

#[cfg(test)]
mod address_tests {
    use super::*;

    fn code(text: &str) -> Option<u8> {
        governorate_in_address(text).map(|g| g.code)
    }

    #[test]
    fn finds_the_governorate_ending_an_address() {
        assert_eq!(code("السيدة زينب - القاهرة"), Some(1));
        assert_eq!(code("٥ ش بورسعيد - سيدي جابر - الاسكندرية"), Some(2));
        assert_eq!(code("مركز طلخا - الدقهليه"), Some(12));
        assert_eq!(code("الدقي - جيزة"), Some(21));
        assert_eq!(code("قسم ثان - بور سعيد"), Some(3));
        assert_eq!(code("مركز دسوق - كفر الشيخ"), Some(15));
        assert_eq!(code("الغردقة - البحر الاحمر"), Some(31));
        assert_eq!(code("ش التحرير"), None);
    }
}
