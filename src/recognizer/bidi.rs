//! Reading order for the CTC head. CTC emits characters in the order its frames
//! sweep the crop, left to right, so its targets must be in visual order: Arabic
//! runs reversed, digit and Latin runs kept. Trained on logical order, the head
//! could never align a right-to-left line. The decoder keeps logical order.

use unicode_bidi::{BidiInfo, Level};

/// Left-to-right display order of `logical` text, with the paragraph direction taken
/// from its first strong letter, as the renderer and every browser do.
pub fn visual_order(logical: &str) -> String {
    reorder(logical, None)
}

/// The inverse of [`visual_order`] for the lines on the documents: a line with any
/// Arabic letter is a right-to-left paragraph (its first strong letter cannot be
/// recovered from the visual order when a Latin run ends it).
pub fn logical_order(visual: &str) -> String {
    let level = if visual.chars().any(is_arabic_letter) {
        Level::rtl()
    } else {
        Level::ltr()
    };
    reorder(visual, Some(level))
}

fn is_arabic_letter(c: char) -> bool {
    matches!(c, '\u{0621}'..='\u{064A}' | '\u{0671}'..='\u{06D3}')
}

fn reorder(text: &str, level: Option<Level>) -> String {
    if !text.chars().any(|c| c >= '\u{0590}') {
        return text.to_owned();
    }
    let info = BidiInfo::new(text, level);
    info.paragraphs
        .iter()
        .map(|para| info.reorder_line(para, para.range.clone()).into_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arabic_runs_reverse_and_numbers_keep_their_order() {
        assert_eq!(visual_order("٢٩ ش شبرا"), "اربش ش ٢٩");
        assert_eq!(visual_order("محمد 12/05"), "12/05 دمحم");
        assert_eq!(visual_order("P<EGYAHMED"), "P<EGYAHMED");
    }

    #[test]
    fn logical_order_undoes_visual_order_on_document_lines() {
        for line in [
            "٢٩ ش شبرا - القاهرة",
            "محمد احمد علي",
            "٢٩٨٠١٠١٠١٢٣٤٥٦",
            "ق ن ر ١٢٣",
            "ت. ١٢/٠٥/٢٠٢٠",
            "تويوتا COROLLA ٢٠١٩",
            "JTDBR32E720123456",
        ] {
            assert_eq!(logical_order(&visual_order(line)), line, "{line}");
        }
    }

    #[test]
    fn every_generated_line_round_trips() {
        let lines =
            crate::synth::lines::LineGenerator::new(5, crate::synth::render::FontSet::Training)
                .expect("fonts");
        for index in 0..500 {
            let text = lines.sample(index).text;
            assert_eq!(logical_order(&visual_order(&text)), text);
        }
    }
}
