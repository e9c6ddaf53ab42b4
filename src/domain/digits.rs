//! Conversions between ASCII digits and the Arabic-Indic digits (U+0660..U+0669)
//! printed on Egyptian documents.

const ARABIC_INDIC_ZERO: u32 = 0x0660;
const EXTENDED_ARABIC_INDIC_ZERO: u32 = 0x06F0;

/// The digit value of an ASCII, Arabic-Indic or Persian (extended Arabic-Indic) digit.
pub fn digit_value(c: char) -> Option<u32> {
    let code = c as u32;
    match c {
        '0'..='9' => Some(code - '0' as u32),
        '\u{0660}'..='\u{0669}' => Some(code - ARABIC_INDIC_ZERO),
        '\u{06F0}'..='\u{06F9}' => Some(code - EXTENDED_ARABIC_INDIC_ZERO),
        _ => None,
    }
}

/// Replaces every ASCII digit with its Arabic-Indic form; other characters pass through.
pub fn to_arabic_indic(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '0'..='9' => char::from_u32(ARABIC_INDIC_ZERO + (c as u32 - '0' as u32)).unwrap_or(c),
            _ => c,
        })
        .collect()
}

/// Replaces every Arabic-Indic digit with its Persian (extended Arabic-Indic) form,
/// which some faces draw for `٤ ٥ ٦` (`۴ ۵ ۶`); other characters pass through.
pub fn to_persian(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\u{0660}'..='\u{0669}' => {
                char::from_u32(c as u32 - ARABIC_INDIC_ZERO + EXTENDED_ARABIC_INDIC_ZERO)
                    .unwrap_or(c)
            }
            c => c,
        })
        .collect()
}

/// Replaces every Arabic-Indic or Persian digit with its ASCII form; other characters pass through.
pub fn to_ascii_digits(text: &str) -> String {
    text.chars()
        .map(|c| match digit_value(c) {
            Some(d) => char::from_digit(d, 10).unwrap_or(c),
            None => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_between_scripts() {
        assert_eq!(to_arabic_indic("2024/08/12"), "٢٠٢٤/٠٨/١٢");
        assert_eq!(to_ascii_digits("٢٠٢٤/٠٨/١٢"), "2024/08/12");
        assert_eq!(to_ascii_digits("۳۰۱"), "301");
        assert_eq!(to_persian("٢٢٧ ش ٤٥٦ - ٢٠٢٤/٠٨"), "۲۲۷ ش ۴۵۶ - ۲۰۲۴/۰۸");
        assert_eq!(to_ascii_digits(&to_persian("٤٥٦")), "456");
        assert_eq!(digit_value('x'), None);
    }
}
