//! Arabic letters by the form they take where they stand (isolated, initial, medial,
//! final), and a tally of how many lines print each form and each digit: what the
//! recognizer must see often enough to learn.

use std::collections::BTreeMap;
use std::fmt;

use crate::domain::digits::digit_value;

/// The shape a letter takes from its neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Form {
    Isolated,
    Initial,
    Medial,
    Final,
}

impl Form {
    pub const ALL: [Form; 4] = [Form::Isolated, Form::Initial, Form::Medial, Form::Final];
}

/// How a character joins its neighbours (Unicode's joining types, as far as the
/// documents' characters need them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Joining {
    /// Joins on both sides: `ب`, `ع`, tatweel.
    Dual,
    /// Joins only the letter before it: `ا`, `د`, `ر`, `و`, `ة`, `ى` and the hamza seats
    /// `أ إ آ ؤ`.
    Right,
    /// A letter that joins nothing: `ء`.
    Alone,
    /// Harakat and shadda: invisible to joining.
    Transparent,
    /// Digits, spaces, Latin, punctuation: break the joining.
    Breaking,
}

fn joining(c: char) -> Joining {
    match c {
        'ء' => Joining::Alone,
        'آ' | 'أ' | 'ؤ' | 'إ' | 'ا' | 'ة' | 'د' | 'ذ' | 'ر' | 'ز' | 'و' | 'ى' | 'ٱ' => {
            Joining::Right
        }
        '\u{064B}'..='\u{065F}' | '\u{0670}' => Joining::Transparent,
        '\u{0621}'..='\u{064A}' | 'ی' | 'ک' => Joining::Dual,
        _ => Joining::Breaking,
    }
}

/// The letters whose forms are counted: the Arabic letters the documents print
/// (`ء` to `ي`, without tatweel, which is no letter).
pub fn letters() -> impl Iterator<Item = char> {
    ('\u{0621}'..='\u{063A}').chain('\u{0641}'..='\u{064A}')
}

/// Whether `letter` joins the letter after it (a dual-joining letter).
pub fn joins_forwards(letter: char) -> bool {
    joining(letter) == Joining::Dual
}

/// The forms `letter` can take: four for a dual-joining letter, isolated and final
/// for one that joins only backwards, isolated alone for `ء`.
pub fn forms_of(letter: char) -> &'static [Form] {
    match joining(letter) {
        Joining::Dual => &Form::ALL,
        Joining::Right => &[Form::Isolated, Form::Final],
        _ => &[Form::Isolated],
    }
}

/// Every letter of `text` with the form it takes there.
pub fn letter_forms(text: &str) -> Vec<(char, Form)> {
    let shaped: Vec<(char, Joining)> = text
        .chars()
        .map(|c| (c, joining(c)))
        .filter(|&(_, j)| j != Joining::Transparent)
        .collect();
    let mut out = Vec::new();
    for (i, &(c, j)) in shaped.iter().enumerate() {
        if matches!(j, Joining::Breaking) || c == 'ـ' {
            continue;
        }
        let after_joiner = i > 0 && shaped[i - 1].1 == Joining::Dual;
        let before_joinee = j == Joining::Dual
            && shaped
                .get(i + 1)
                .is_some_and(|&(_, next)| matches!(next, Joining::Dual | Joining::Right));
        let form = match (j != Joining::Alone && after_joiner, before_joinee) {
            (false, false) => Form::Isolated,
            (false, true) => Form::Initial,
            (true, true) => Form::Medial,
            (true, false) => Form::Final,
        };
        out.push((c, form));
    }
    out
}

/// How many lines print each letter form and each Arabic-Indic digit.
#[derive(Debug, Clone, Default)]
pub struct FormTally {
    pub lines: usize,
    /// Lines printing each (letter, form) at least once.
    pub forms: BTreeMap<(char, Form), usize>,
    /// Lines printing each Arabic-Indic digit at least once.
    pub digits: [usize; 10],
}

impl FormTally {
    pub fn add(&mut self, text: &str) {
        self.lines += 1;
        let mut seen = letter_forms(text);
        seen.sort();
        seen.dedup();
        for key in seen {
            *self.forms.entry(key).or_default() += 1;
        }
        let mut digits = [false; 10];
        for c in text.chars().filter(|c| ('٠'..='٩').contains(c)) {
            if let Some(d) = digit_value(c) {
                digits[d as usize] = true;
            }
        }
        for (count, seen) in self.digits.iter_mut().zip(digits) {
            *count += usize::from(seen);
        }
    }

    /// Lines printing `letter` in `form`.
    pub fn count(&self, letter: char, form: Form) -> usize {
        self.forms.get(&(letter, form)).copied().unwrap_or(0)
    }

    /// Every letter form and digit with its share of lines, rarest first.
    pub fn rarest(&self) -> Vec<(String, f64)> {
        let share = |n: usize| n as f64 / self.lines.max(1) as f64;
        let mut all: Vec<(String, f64)> = letters()
            .flat_map(|c| forms_of(c).iter().map(move |&f| (c, f)))
            .map(|(c, f)| (format!("{c} {f:?}"), share(self.count(c, f))))
            .chain(self.digits.iter().enumerate().map(|(d, &n)| {
                (
                    format!("{}", char::from_u32(0x0660 + d as u32).unwrap_or('?')),
                    share(n),
                )
            }))
            .collect();
        all.sort_by(|a, b| a.1.total_cmp(&b.1));
        all
    }
}

/// The table `hawiya synth --lines --tally` prints: per letter, the share of lines
/// printing each of its forms; then each digit's.
impl fmt::Display for FormTally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let percent = |n: usize| 100.0 * n as f64 / self.lines.max(1) as f64;
        writeln!(f, "% of {} lines printing each form", self.lines)?;
        writeln!(f, "letter\tisolated\tinitial\tmedial\tfinal")?;
        for letter in letters() {
            write!(f, "{letter}")?;
            for form in Form::ALL {
                if forms_of(letter).contains(&form) {
                    write!(f, "\t{:.2}", percent(self.count(letter, form)))?;
                } else {
                    write!(f, "\t-")?;
                }
            }
            writeln!(f)?;
        }
        writeln!(f, "digit\t% of lines")?;
        for (d, &n) in self.digits.iter().enumerate() {
            let digit = char::from_u32(0x0660 + d as u32).unwrap_or('?');
            writeln!(f, "{digit}\t{:.2}", percent(n))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_take_their_forms_from_their_neighbours() {
        use Form::*;
        assert_eq!(
            letter_forms("محمد"),
            [('م', Initial), ('ح', Medial), ('م', Medial), ('د', Final)]
        );
        // A letter after one that joins only backwards starts again.
        assert_eq!(
            letter_forms("دار"),
            [('د', Isolated), ('ا', Isolated), ('ر', Isolated)]
        );
        assert_eq!(
            letter_forms("عمارة"),
            [
                ('ع', Initial),
                ('م', Medial),
                ('ا', Final),
                ('ر', Isolated),
                ('ة', Isolated)
            ]
        );
        // Digits, spaces and punctuation break the joining; harakat do not.
        assert_eq!(letter_forms("ش١٢"), [('ش', Isolated)]);
        assert_eq!(
            letter_forms("محمّد"),
            [('م', Initial), ('ح', Medial), ('م', Medial), ('د', Final)]
        );
        assert_eq!(
            letter_forms("بئر ماء"),
            [
                ('ب', Initial),
                ('ئ', Medial),
                ('ر', Final),
                ('م', Initial),
                ('ا', Final),
                ('ء', Isolated)
            ]
        );
        // Tatweel joins but is no letter.
        assert_eq!(letter_forms("هـ"), [('ه', Initial)]);
    }

    #[test]
    fn the_tally_counts_lines_not_letters() {
        let mut tally = FormTally::default();
        tally.add("ببب ١١٢");
        tally.add("ب");
        assert_eq!(tally.lines, 2);
        assert_eq!(tally.count('ب', Form::Medial), 1);
        assert_eq!(tally.count('ب', Form::Isolated), 1);
        assert_eq!(tally.digits[1], 1);
        assert_eq!(tally.digits[2], 1);
        let rarest = tally.rarest();
        assert_eq!(rarest.last().unwrap().1, 0.5);
        assert!(rarest.iter().any(|(name, _)| name == "ء Isolated"));
        assert!(tally.to_string().contains("ب\t50.00\t50.00\t50.00\t50.00"));
    }
}
