//! Stage 5: from the recognizer's readings of every field line to validated printed
//! texts with confidences, then to both output records through the one shared
//! conversion, [`crate::record::build`].
//!
//! Each kind has its own rules (one module per kind); what they share sits in
//! [`text`] (normalising, snapping to closed vocabularies, dates) and [`nid`]
//! (choosing a national-ID number that passes every structural rule).

pub mod address;
pub mod car_licence;
pub mod driver_licence;
pub mod nid;
pub mod nid_back;
pub mod nid_front;
pub mod passport;
pub mod residence_permit;
pub mod text;
pub mod traffic_unit;

#[cfg(test)]
pub(crate) mod test_support;

use std::collections::BTreeMap;

use crate::domain::{DocumentKind, arabic};
use crate::recognizer::Rivals;
use crate::record::{FlowAFields, FlowBData};

/// One hypothesis of the recognizer for a line.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub text: String,
    /// Probability-like score in 0..=1.
    pub confidence: f32,
    /// Per character of `text`, the recognizer's runner-up characters there (empty
    /// when it gave none).
    pub rivals: Vec<Rivals>,
}

impl Candidate {
    /// A hypothesis without runner-up characters.
    pub fn new(text: impl Into<String>, confidence: f32) -> Candidate {
        Candidate {
            text: text.into(),
            confidence,
            rivals: Vec::new(),
        }
    }

    /// Whether the recognizer nearly read one of this hypothesis's letters with or
    /// without its small mark ([`marked_alike`]): its runner-up there is that
    /// letter marked otherwise, at least [`SMALL_MARK_RIVAL`] as likely.
    fn has_a_mark_in_doubt(&self) -> bool {
        self.letters_and_rivals().any(|((_, read), rivals)| {
            rivals
                .iter()
                .any(|&(rival, relative)| relative >= SMALL_MARK_RIVAL && marked_alike(read, rival))
        })
    }

    /// Each character of the text (with its byte offset) and its rivals; none when
    /// the rivals do not match the text character for character.
    fn letters_and_rivals(&self) -> impl Iterator<Item = ((usize, char), &Rivals)> + '_ {
        let aligned = self.rivals.len() == self.text.chars().count();
        self.text
            .char_indices()
            .zip(&self.rivals)
            .filter(move |_| aligned)
    }

    /// This hypothesis with one character replaced by one of its rivals, each worth
    /// the hypothesis's confidence times the rival's relative probability, at most
    /// the hypothesis's own (a beam hypothesis that kept a less likely character
    /// there did so for what followed, which the rival would change). A line
    /// misread on a photo is most often one character off, and the recognizer's
    /// second guess there is often right: a field's rules (a check digit, a date
    /// that must agree with another) tell which.
    pub fn one_rival_away(&self) -> impl Iterator<Item = Candidate> + '_ {
        self.letters_and_rivals()
            .flat_map(move |((at, read), rivals)| {
                let (before, after) = (&self.text[..at], &self.text[at + read.len_utf8()..]);
                rivals.iter().map(move |&(rival, relative)| {
                    Candidate::new(
                        format!("{before}{rival}{after}"),
                        self.confidence * relative.min(1.0),
                    )
                })
            })
    }
}

/// What `rule` makes of the hypotheses and of those one rival away from them
/// ([`Candidate::one_rival_away`]), each value once with the best worth that gave
/// it.
pub fn passing_with_rivals<T: PartialEq>(
    candidates: &[Candidate],
    rule: impl Fn(&str) -> Option<T>,
) -> Vec<(T, f32)> {
    let variants = candidates.iter().flat_map(Candidate::one_rival_away);
    let mut found: Vec<(T, f32)> = Vec::new();
    for candidate in candidates.iter().cloned().chain(variants) {
        let Some(value) = rule(&candidate.text) else {
            continue;
        };
        match found.iter_mut().find(|(other, _)| *other == value) {
            Some((_, best)) => *best = best.max(candidate.confidence),
            None => found.push((value, candidate.confidence)),
        }
    }
    found
}

/// How many times likelier than the next a value chosen among rival variants must
/// be. Tuned on tuning crops for the national ID (`hawiya eval lines --beam 3
/// --as-pipeline`, NID photos of seeds 4245 and 4248: numbers right at 2: 260 / 229,
/// at 1.2: 261 / 230, at 4: 260 / 227).
pub const RIVAL_MARGIN: f32 = 1.2;

/// The value worth clearly the most among `found` (each value once, with its
/// worth): at least `margin` times the next one's.
pub fn clearly_likeliest<T>(mut found: Vec<(T, f32)>, margin: f32) -> Option<(T, f32)> {
    found.sort_by(|a, b| b.1.total_cmp(&a.1));
    let clear = match found.as_slice() {
        [] => false,
        [_] => true,
        [best, next, ..] => best.1 >= margin * next.1,
    };
    clear.then(|| found.swap_remove(0))
}

/// The recognizer's hypotheses for one line.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LineReading {
    /// Of the crop as cut, best first (never empty).
    pub candidates: Vec<Candidate>,
    /// Of variants of the crop read on a second look (`pipeline::second_look`),
    /// each variant's best first; empty when the line had none.
    pub second_look: Vec<Candidate>,
}

impl LineReading {
    /// A reading of the crop as cut.
    pub fn new(candidates: Vec<Candidate>) -> LineReading {
        LineReading {
            candidates,
            second_look: Vec::new(),
        }
    }

    /// A reading with a single hypothesis.
    pub fn single(text: impl Into<String>, confidence: f32) -> LineReading {
        LineReading::new(vec![Candidate::new(text, confidence)])
    }

    pub fn best(&self) -> Option<&Candidate> {
        self.candidates.first()
    }

    /// Every hypothesis: the crop's own, then the second look's.
    pub fn all_candidates(&self) -> impl Iterator<Item = &Candidate> {
        self.candidates.iter().chain(&self.second_look)
    }

    /// The confidence a field may report for `text` (cleaned or not) chosen at
    /// `confidence`: after a second look, at most what the crop's own reading gave
    /// that text, or its best reading when it did not propose it (the likeliest of
    /// four readings is likelier than its calibration says, so a second look never
    /// makes a doubtful line confident); and at most [`SMALL_MARK_DOUBT`] when the
    /// hypothesis that read it has a mark in doubt
    /// ([`Candidate::has_a_mark_in_doubt`]).
    pub fn reported(&self, text: &str, confidence: f32) -> f32 {
        let text = text::clean(text);
        let read_as = |c: &&Candidate| text::clean(&c.text) == text;
        let mut confidence = confidence;
        if !self.second_look.is_empty() {
            let own = self.candidates.iter().find(read_as).or(self.best());
            confidence = confidence.min(own.map_or(0.0, |c| c.confidence));
        }
        if self
            .all_candidates()
            .find(read_as)
            .is_some_and(Candidate::has_a_mark_in_doubt)
        {
            confidence = confidence.min(SMALL_MARK_DOUBT);
        }
        confidence
    }
}

/// The most confidence a line keeps with a mark in doubt
/// ([`Candidate::has_a_mark_in_doubt`]). A hamza over or under an alef and the
/// dots under a final ya are a few pixels on a scanned page, and names and places
/// are printed both ways (`أبو` and `ابو`, `الشناوي` and `الشناوى`), so no list
/// tells which: on the tuning NID front pages (seed 4261), half the fields read
/// wrong at 0.8 or more were such a mark (16 of 32).
pub const SMALL_MARK_DOUBT: f32 = 0.6;

/// How likely, relative to the letter read, the same letter marked otherwise must
/// be to put its mark in doubt. On the tuning NID front pages (seed 4261), at 0.1
/// it doubts 15 of the 32 fields read wrong at 0.8 or more and 26 of the 1,614
/// read right; at 0.05, 18 and 44; at 0.3, 8 and 8. On the tuning front photos
/// (seed 4247), none of 7 wrong and 9 of 590 right.
pub const SMALL_MARK_RIVAL: f32 = 0.1;

/// Whether `a` and `b` are two letters told apart only by a small mark
/// ([`arabic::unmarked`]): an alef bare, with a hamza, a madda or a wasla; a ya
/// with its dots, without them (alef maqsura) or with a hamza; a waw bare or with
/// a hamza.
fn marked_alike(a: char, b: char) -> bool {
    a != b && arabic::unmarked(a) == arabic::unmarked(b)
}

/// The most confidence a free-text field (an address line, whose house number no
/// rule checks) keeps when another hypothesis of its line nearly as likely reads its
/// digits otherwise ([`LineReading::keeping_every_digit`]).
pub const DIGIT_DOUBT: f32 = 0.5;

/// How likely, relative to the reading, a hypothesis with one more of a repeated
/// digit must be to cast doubt on it. With the shipped model, beam 3, on 1,444
/// generated lines whose numbers repeat a digit (seed 4301), 28 lines read at 0.8 or
/// more with a doubled digit merged (`٢٢٧` as `٢٧`) had such a hypothesis; at 0.3,
/// 27 of them are doubted and 14 lines read right; at 0, all 28 and 93 right ones
/// (on 3,000 lines of documents' texts, seed 4302: 3 right lines at 0.3, 45 at 0).
pub const MERGED_DIGIT_RIVAL: f32 = 0.3;

/// How likely, relative to the reading, a hypothesis reading other characters no
/// rule checks must be to cast doubt on it: another digit at the same place of a
/// house number, another serial. On the tuning NID front pages (seed 4261), a
/// quarter of the address lines read wrong at 0.8 or more were one digit of a house
/// number (`٢٥` for `٣٥`, `٩٩٩` for `٩٩٣`) with the printed one in such a
/// hypothesis; at 0.4, 5 of those 20 lines are doubted and 20 of 413 read right (at
/// 0.3: 5 and 30; 0.5: 4 and 11); on the tuning front photos (seed 4247), none of 2
/// wrong and 7 of 91 right. Of the serials, it doubts the one of 290 read wrong at
/// 0.8 or more on the pages (`H` for `M`) and none read right; on the photos, the
/// one wrong (`6` for `0`) and 5 of 150 right (at 0.3: 13; at 0.5, the wrong one
/// kept). Not applied to chassis and engine numbers, plates or names in Latin: their
/// look-alikes (`S` and `5`, `B` and `8`) put a rival beside most right readings.
pub const OTHER_READING_RIVAL: f32 = 0.4;

impl LineReading {
    /// `confidence` of `text`, chosen among this line's hypotheses, at most
    /// [`DIGIT_DOUBT`] when another hypothesis nearly as likely is the same text
    /// with one more of a repeated digit ([`MERGED_DIGIT_RIVAL`]: the recognizer
    /// merges a doubled digit far more often than it invents one) or with other
    /// digits in the same places ([`OTHER_READING_RIVAL`]): a number must keep every
    /// digit printed, and no rule checks a house number's.
    pub fn keeping_every_digit(&self, text: &str, confidence: f32) -> f32 {
        let text = text::clean(text);
        let doubted = self.all_candidates().any(|c| {
            let other = text::clean(&c.text);
            (c.confidence >= MERGED_DIGIT_RIVAL * confidence
                && merges_a_doubled_digit(&other, &text))
                || (c.confidence >= OTHER_READING_RIVAL * confidence
                    && reads_other_digits(&other, &text))
        });
        if doubted {
            confidence.min(DIGIT_DOUBT)
        } else {
            confidence
        }
    }

    /// `confidence` of `value`, which the field's rule (`as_value`) made of
    /// hypothesis `chosen`, at most [`DIGIT_DOUBT`] when another hypothesis at least
    /// [`OTHER_READING_RIVAL`] as likely passes the rule as another value: no rule
    /// tells which of the two the card prints (a serial).
    pub fn unrivalled(
        &self,
        value: &str,
        chosen: &Candidate,
        confidence: f32,
        as_value: impl Fn(&str) -> Option<String>,
    ) -> f32 {
        let rivalled = self.all_candidates().any(|other| {
            other.confidence >= OTHER_READING_RIVAL * chosen.confidence
                && as_value(&other.text).is_some_and(|read| read != value)
        });
        if rivalled {
            confidence.min(DIGIT_DOUBT)
        } else {
            confidence
        }
    }
}

/// Whether `a` and `b` differ, and only in digits read in the same places. A lone
/// hamza counts as a digit: a faint `٤` or `٧` is read as `ء`.
fn reads_other_digits(a: &str, b: &str) -> bool {
    let digit_like = |c: char| c.is_numeric() || c == 'ء';
    a.chars().count() == b.chars().count()
        && a != b
        && a.chars()
            .zip(b.chars())
            .all(|(x, y)| x == y || (digit_like(x) && digit_like(y)))
}

/// Whether `short` is `long` with one digit of a doubled run left out.
fn merges_a_doubled_digit(long: &str, short: &str) -> bool {
    let long: Vec<char> = long.chars().collect();
    if long.len() != short.chars().count() + 1 {
        return false;
    }
    (1..long.len()).any(|i| {
        long[i] == long[i - 1]
            && long[i].is_numeric()
            && long[..i]
                .iter()
                .chain(&long[i + 1..])
                .copied()
                .eq(short.chars())
    })
}

/// The recognizer's reading and its alternatives, best first.
impl From<&crate::recognizer::Reading> for LineReading {
    fn from(reading: &crate::recognizer::Reading) -> LineReading {
        let hypotheses = std::iter::once(&reading.best).chain(&reading.alternatives);
        LineReading::new(
            hypotheses
                .map(|h| Candidate {
                    text: h.text.clone(),
                    confidence: h.confidence,
                    rivals: h.rivals.clone(),
                })
                .collect(),
        )
    }
}

/// Readings keyed by the layout's field key (`layouts/<kind>.toml`); a field whose line was not
/// found is absent.
pub type Readings = BTreeMap<String, LineReading>;

/// A field's final printed text and how sure we are of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// Empty when the line was read but held nothing of the field's format.
    pub text: String,
    pub confidence: f32,
    /// For a line read that held nothing of its field's format (a national ID that
    /// is not 14 digits, a date that is no date): a text of that format. It only
    /// stands in for the field when telling which output fields the field feeds,
    /// so that they are listed for review while answered empty.
    pub stand_in: Option<&'static str>,
}

impl Checked {
    pub fn new(text: impl Into<String>, confidence: f32) -> Checked {
        Checked {
            text: text.into(),
            confidence: confidence.clamp(0.0, 1.0),
            stand_in: None,
        }
    }

    /// A field whose line was read at `confidence` but held nothing of its format,
    /// of which `stand_in` is an example: answered empty, never as the garbage read.
    pub fn unreadable(confidence: f32, stand_in: &'static str) -> Checked {
        Checked {
            stand_in: Some(stand_in),
            ..Checked::new("", confidence)
        }
    }

    /// Whether the field was read: its text has the field's format and was read with
    /// a confidence of at least [`READ_FLOOR`].
    pub fn is_read(&self) -> bool {
        !self.text.is_empty() && self.confidence >= READ_FLOOR
    }
}

/// Below this confidence a field's text counts as noise rather than as read: what
/// the recognizer makes of random pixels scored at most 0.06 on every field of six
/// noise images (each classified as some kind).
pub const READ_FLOOR: f32 = 0.1;

/// Validated printed fields of one document, keyed like [`Readings`].
pub type CheckedFields = BTreeMap<String, Checked>;

/// A field below this confidence is listed for review.
pub const LOW_CONFIDENCE: f32 = 0.8;

/// Output of post-processing: both records and the confidence report.
#[derive(Debug, Clone)]
pub struct PostProcessed {
    pub fields: CheckedFields,
    pub flow_a: FlowAFields,
    pub flow_b: FlowBData,
    pub confidence: f32,
    /// Confidence per field, keyed by the layout's field key.
    pub field_confidence: BTreeMap<String, f32>,
    /// The Flow B fields resting on a line read with less than [`LOW_CONFIDENCE`]
    /// (named as in Flow B's `data`, where clients look for them).
    pub low_confidence_fields: Vec<String>,
}

/// Validates and normalises the readings of a `kind` document and builds its records.
pub fn post_process(kind: DocumentKind, readings: &Readings) -> PostProcessed {
    finish(kind, check(kind, readings))
}

/// The printed fields of one side of a `kind` document, validated and normalised
/// by its kind's rules.
pub fn check(kind: DocumentKind, readings: &Readings) -> CheckedFields {
    match kind {
        DocumentKind::NidFront => nid_front::check(readings),
        DocumentKind::NidBack => nid_back::check(readings),
        DocumentKind::DriverLicence => driver_licence::check(readings),
        DocumentKind::CarLicenceFront => car_licence::check_front(readings),
        DocumentKind::CarLicenceBack => car_licence::check_back(readings),
        DocumentKind::Passport => passport::check(readings),
        DocumentKind::ResidencePermit => residence_permit::check(readings),
    }
}

/// Both records of a `kind` document and the confidence report, from its checked
/// fields: one side's, or a car licence's two sides' together (their keys differ).
pub fn finish(kind: DocumentKind, fields: CheckedFields) -> PostProcessed {
    let printed: BTreeMap<String, String> = fields
        .iter()
        .filter(|(_, f)| !f.text.is_empty())
        .map(|(k, f)| (k.clone(), f.text.clone()))
        .collect();
    let (flow_a, flow_b) = crate::record::build(kind, &printed);
    // Unreadable fields stand in as texts of their format, so that the output
    // fields they would feed are found and listed.
    let mut with_stand_ins = printed.clone();
    with_stand_ins.extend(
        fields
            .iter()
            .filter_map(|(k, f)| Some((k.clone(), f.stand_in?.to_owned()))),
    );
    let field_confidence: BTreeMap<String, f32> = fields
        .iter()
        .map(|(k, f)| (k.clone(), f.confidence))
        .collect();
    let doubtful: Vec<String> = field_confidence
        .iter()
        .filter(|(_, c)| **c < LOW_CONFIDENCE)
        .map(|(k, _)| k.clone())
        .collect();
    let built = crate::record::build(kind, &with_stand_ins);
    let low_confidence_fields = crate::record::build::flow_b_fields_from(
        kind,
        &with_stand_ins,
        (&built.0, &built.1),
        &doubtful,
    );
    // The weakest field bounds the document; the mean keeps one shaky optional
    // line from dominating.
    let confidence = if field_confidence.is_empty() {
        0.0
    } else {
        let mean = field_confidence.values().sum::<f32>() / field_confidence.len() as f32;
        let min = field_confidence.values().copied().fold(1.0, f32::min);
        0.5 * mean + 0.5 * min
    };
    PostProcessed {
        fields,
        flow_a,
        flow_b,
        confidence,
        field_confidence,
        low_confidence_fields,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_only_the_second_look_read_reports_at_most_the_crops_own_confidence() {
        let mut reading = LineReading::new(vec![
            Candidate::new("محمد  علي", 0.6),
            Candidate::new("محمد على", 0.3),
        ]);
        assert_eq!(reading.reported("محمد عليّ", 0.9), 0.9, "no second look");
        reading.second_look = vec![Candidate::new("محمد عليّ", 0.9)];
        assert_eq!(reading.reported("محمد عليّ", 0.9), 0.6);
        assert_eq!(
            reading.reported("محمد على", 0.7),
            0.3,
            "as the crop read it"
        );
        assert_eq!(reading.reported("محمد علي", 0.5), 0.5, "cleaned alike");
    }

    #[test]
    fn a_letter_nearly_read_with_its_mark_otherwise_makes_the_line_doubtful() {
        let read = |rival: char, relative: f32| {
            let mut candidate = Candidate::new("كفر ابو علي", 0.95);
            candidate.rivals = vec![Vec::new(); candidate.text.chars().count()];
            candidate.rivals[4] = vec![(rival, relative)];
            LineReading::new(vec![candidate]).reported("كفر ابو علي", 0.95)
        };
        assert_eq!(read('أ', 0.5), SMALL_MARK_DOUBT, "a hamza");
        assert_eq!(read('إ', SMALL_MARK_RIVAL), SMALL_MARK_DOUBT);
        // A hamza far less likely, or another letter nearly read: as read.
        assert_eq!(read('أ', 0.05), 0.95);
        assert_eq!(read('ل', 0.5), 0.95);
        let mut final_ya = Candidate::new("هدي", 0.97);
        final_ya.rivals = vec![Vec::new(), Vec::new(), vec![('ى', 0.3)]];
        let reading = LineReading::new(vec![final_ya, Candidate::new("هدى", 0.2)]);
        assert_eq!(reading.reported("هدي", 0.97), SMALL_MARK_DOUBT);
        // The other hypothesis carries no runner-up letters of its own.
        assert_eq!(reading.reported("هدى", 0.2), 0.2);
    }

    #[test]
    fn a_number_read_with_a_doubled_digit_merged_beside_one_keeping_it_is_doubtful() {
        let line = |best: &str, other: &str| {
            let reading =
                LineReading::new(vec![Candidate::new(best, 0.97), Candidate::new(other, 0.4)]);
            reading.keeping_every_digit(best, 0.97)
        };
        assert_eq!(line("٢٧ ش النيل", "٢٢٧ ش النيل"), DIGIT_DOUBT);
        assert_eq!(line("٣٠ ش النيل", "٣٠٠  ش النيل"), DIGIT_DOUBT);
        assert_eq!(line("عمارة ١١١", "عمارة ١١١١"), DIGIT_DOUBT);
        // The longer reading itself, another digit more, a doubled letter: as read.
        assert_eq!(line("٢٢٧ ش النيل", "٢٧ ش النيل"), 0.97);
        assert_eq!(line("٢٧ ش النيل", "٢٨٧ ش النيل"), 0.97);
        assert_eq!(line("ش مدوح", "ش ممدوح"), 0.97);
        // A far less likely hypothesis keeping the digit casts no doubt.
        let reading = LineReading::new(vec![
            Candidate::new("٢٧ ش النيل", 0.97),
            Candidate::new("٢٢٧ ش النيل", 0.2),
        ]);
        assert_eq!(reading.keeping_every_digit("٢٧ ش النيل", 0.97), 0.97);
    }

    #[test]
    fn a_number_read_beside_a_nearly_as_likely_one_with_another_digit_is_doubtful() {
        let line = |best: &str, other: &str, confidence: f32| {
            let reading = LineReading::new(vec![
                Candidate::new(best, 0.95),
                Candidate::new(other, confidence),
            ]);
            reading.keeping_every_digit(best, 0.95)
        };
        assert_eq!(line("٢٥ شارع الحرية", "٣٥ شارع الحرية", 0.5), DIGIT_DOUBT);
        assert_eq!(line("٩٩٩ ش النيل", "٩٩٣ ش النيل", 0.4), DIGIT_DOUBT);
        assert_eq!(
            line("عمارة ء مساكن النصر", "عمارة ٤ مساكن النصر", 0.6),
            DIGIT_DOUBT
        );
        // A far less likely one, or one reading another letter: as read.
        assert_eq!(line("٢٥ شارع الحرية", "٣٥ شارع الحرية", 0.3), 0.95);
        assert_eq!(line("٢٥ شارع الحرية", "٢٥ شارع الخرية", 0.9), 0.95);
        assert_eq!(line("٢٥ شارع الحرية", "٢٥ شارع الحرية", 0.9), 0.95);
    }

    #[test]
    fn a_national_id_that_is_not_fourteen_digits_is_answered_empty_and_listed() {
        let mut readings = test_support::confident(&[
            ("first_name", "باسل"),
            ("last_name", "اشرف عبدالعزيز محمد"),
            ("birth_date", "٢٠٠٣/١٢/٢٤"),
        ]);
        readings.insert("national_id".into(), LineReading::single("الزوج:أمين", 0.9));
        let processed = post_process(DocumentKind::NidFront, &readings);
        assert_eq!(processed.fields["national_id"].text, "");
        assert!(!processed.fields["national_id"].is_read());
        assert_eq!(processed.flow_a.national_ID, "");
        assert!(
            processed
                .low_confidence_fields
                .contains(&"national_id".to_owned()),
            "{:?}",
            processed.low_confidence_fields
        );
        // Fourteen digits failing the check digit are kept, doubtful.
        readings.insert(
            "national_id".into(),
            LineReading::single("٣٠٣١٢٢٤٠٢٠١٨٥٨", 0.9),
        );
        let processed = post_process(DocumentKind::NidFront, &readings);
        assert_eq!(processed.flow_a.national_ID, "30312240201858");
        assert!(processed.fields["national_id"].is_read());
        assert!(
            processed
                .low_confidence_fields
                .contains(&"national_id".to_owned())
        );
    }

    #[test]
    fn a_date_that_is_no_date_is_answered_empty_and_listed() {
        let mut readings = test_support::confident(&[
            ("national_id", "٣٠٣١٢٢٤٠٢٠١٨٥٩"),
            ("issue_date", "٢٠٢١/٠٣/١٥"),
        ]);
        readings.insert("expiry_date".into(), LineReading::single("قسم ثان", 0.9));
        let processed = post_process(DocumentKind::DriverLicence, &readings);
        assert_eq!(processed.fields["expiry_date"].text, "");
        assert_eq!(processed.flow_a.expiry, "");
        assert_eq!(processed.flow_a.issueDate, "15/03/2021");
        assert!(
            processed
                .low_confidence_fields
                .contains(&"expiry_date".to_owned()),
            "{:?}",
            processed.low_confidence_fields
        );
    }

    #[test]
    fn doubtful_lines_are_listed_by_the_flow_b_fields_they_feed() {
        let mut readings = test_support::confident(&[
            ("last_name", "اشرف عبدالعزيز محمد"),
            ("address_line1", "٧ ش منصور"),
            ("address_line2", "السيدة زينب - القاهرة"),
            ("national_id", "٣٠٣١٢٢٤٠٢٠١٨٥٩"),
            ("serial", "AB1234567"),
        ]);
        readings.insert("first_name".into(), LineReading::single("باسل", 0.2));
        let processed = post_process(DocumentKind::NidFront, &readings);
        assert!(processed.field_confidence["first_name"] < LOW_CONFIDENCE);
        assert_eq!(
            processed.low_confidence_fields,
            ["full_name", "full_name_en"]
        );
    }
}
