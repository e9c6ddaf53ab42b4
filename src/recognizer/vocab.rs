//! The recognizer's character set: every character printed on the supported documents,
//! plus the special tokens the decoder and the CTC head need.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// Padding, and the CTC blank: the two never meet, so one id serves both.
pub const PAD: u32 = 0;
/// Start of a transcript (decoder input only).
pub const BOS: u32 = 1;
/// End of a transcript.
pub const EOS: u32 = 2;
/// A character outside the vocabulary.
pub const UNK: u32 = 3;
const SPECIALS: usize = 4;

/// The characters the shipped model reads, in token order after the specials.
///
/// Arabic letters including every hamza form, ta marbuta and alef maksura, tatweel
/// (plates print `هـ`), the harakat (rarely printed but cheap to keep), Arabic-Indic
/// digits, ASCII digits, Latin letters, space and the punctuation found on the
/// documents (dates `/`, addresses `-` `,` `،`, labels `:`, MRZ `<`, blood group `+`).
pub fn default_characters() -> Vec<char> {
    let mut chars: Vec<char> = Vec::new();
    // U+0621..U+063A: ء آ أ ؤ إ ئ ا ب ة ت ث ج ح خ د ذ ر ز س ش ص ض ط ظ ع غ
    chars.extend((0x0621..=0x063A).filter_map(char::from_u32));
    // U+0640..U+0652: tatweel, ف ق ك ل م ن ه و ى ي, harakat.
    chars.extend((0x0640..=0x0652).filter_map(char::from_u32));
    // Alef wasla and the Persian forms some fonts or sources emit for ى/ي/ك.
    chars.extend(['\u{0671}', '\u{06CC}', '\u{06A9}']);
    chars.extend((0x0660..=0x0669).filter_map(char::from_u32)); // ٠..٩
    chars.extend('0'..='9');
    chars.extend('A'..='Z');
    chars.extend('a'..='z');
    chars.extend([
        ' ', '/', '-', ':', '.', '<', '+', ',', '(', ')', '\'', '"', '#', '&', '*', '_', '،', '؛',
        '؟', '٫', '٬',
    ]);
    chars
}

/// Maps characters to token ids and back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "VocabFile", into = "VocabFile")]
pub struct Vocab {
    chars: Vec<char>,
    index: HashMap<char, u32>,
}

/// On-disk form (`vocab.json`): the characters in token order after the specials.
#[derive(Serialize, Deserialize)]
struct VocabFile {
    specials: Vec<String>,
    characters: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum VocabError {
    #[error("vocabulary entry {0:?} is not exactly one character")]
    NotOneChar(String),
    #[error("vocabulary character {0:?} appears twice")]
    Duplicate(char),
    #[error("vocabulary specials must be [pad, bos, eos, unk], found {0:?}")]
    Specials(Vec<String>),
}

impl Vocab {
    pub fn new(chars: Vec<char>) -> Result<Vocab, VocabError> {
        let mut index = HashMap::with_capacity(chars.len());
        for (i, &c) in chars.iter().enumerate() {
            if index.insert(c, (i + SPECIALS) as u32).is_some() {
                return Err(VocabError::Duplicate(c));
            }
        }
        Ok(Vocab { chars, index })
    }

    /// The vocabulary the shipped model was trained with.
    pub fn default_arabic_latin() -> Vocab {
        Vocab::new(default_characters()).expect("the built-in character list has no duplicates")
    }

    /// Number of token ids, specials included.
    pub fn len(&self) -> usize {
        self.chars.len() + SPECIALS
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn contains(&self, c: char) -> bool {
        self.index.contains_key(&c)
    }

    /// Token ids of `text`, without BOS/EOS; unknown characters become [`UNK`].
    pub fn encode(&self, text: &str) -> Vec<u32> {
        text.chars()
            .map(|c| self.index.get(&c).copied().unwrap_or(UNK))
            .collect()
    }

    /// The character of a token id, `None` for specials and ids out of range.
    pub fn char_of(&self, id: u32) -> Option<char> {
        (id as usize)
            .checked_sub(SPECIALS)
            .and_then(|i| self.chars.get(i).copied())
    }

    /// Text of a token sequence; specials are skipped, decoding stops at EOS.
    pub fn decode(&self, ids: &[u32]) -> String {
        ids.iter()
            .take_while(|&&id| id != EOS)
            .filter_map(|&id| self.char_of(id))
            .collect()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a vocabulary always serialises")
    }
}

impl From<Vocab> for VocabFile {
    fn from(v: Vocab) -> VocabFile {
        VocabFile {
            specials: ["<pad>", "<bos>", "<eos>", "<unk>"]
                .map(String::from)
                .to_vec(),
            characters: v.chars.iter().map(|c| c.to_string()).collect(),
        }
    }
}

impl TryFrom<VocabFile> for Vocab {
    type Error = VocabError;
    fn try_from(f: VocabFile) -> Result<Vocab, VocabError> {
        if f.specials != ["<pad>", "<bos>", "<eos>", "<unk>"] {
            return Err(VocabError::Specials(f.specials));
        }
        let chars = f
            .characters
            .into_iter()
            .map(|s| {
                let mut it = s.chars();
                match (it.next(), it.next()) {
                    (Some(c), None) => Ok(c),
                    _ => Err(VocabError::NotOneChar(s)),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        Vocab::new(chars)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_document_text_round_trips() {
        let vocab = Vocab::default_arabic_latin();
        for text in [
            "عبد الرحمن أحمد إبراهيم",
            "٧ ش منصور عطفة رامز لاظوغلى",
            "السيدة زينب - القاهرة",
            "٣٠١١٠٢١٠١٠٤٧٢٩",
            "١٩٧٣/١٠/١٦",
            "AB1234567",
            "P<EGYELSAYED<<MOHAMED<AHMED<<<<<<<<<<<<<<<<<",
            "فصيلة الدم: O+",
            "مسئول شؤون آنسة مؤسسة ئ ء ة ى",
            "ن ص ر هـ ١٢٣",
        ] {
            let ids = vocab.encode(text);
            assert!(
                !ids.contains(&UNK),
                "{text} has a character outside the vocabulary"
            );
            assert_eq!(vocab.decode(&ids), text);
        }
    }

    #[test]
    fn unknown_characters_and_specials() {
        let vocab = Vocab::default_arabic_latin();
        assert_eq!(vocab.encode("€"), vec![UNK]);
        assert_eq!(
            vocab.decode(&[BOS, vocab.encode("A")[0], EOS, vocab.encode("B")[0]]),
            "A"
        );
        assert_eq!(vocab.char_of(PAD), None);
        assert_eq!(vocab.char_of(vocab.len() as u32), None);
    }

    #[test]
    fn json_round_trip_and_malformed_files() {
        let vocab = Vocab::default_arabic_latin();
        let back: Vocab = serde_json::from_str(&vocab.to_json()).unwrap();
        assert_eq!(back, vocab);
        let bad = r#"{"specials":["<pad>","<bos>","<eos>","<unk>"],"characters":["ab"]}"#;
        assert!(serde_json::from_str::<Vocab>(bad).is_err());
        let dup = r#"{"specials":["<pad>","<bos>","<eos>","<unk>"],"characters":["a","a"]}"#;
        assert!(serde_json::from_str::<Vocab>(dup).is_err());
    }
}
