use std::fmt;

use rand::TryRngCore;
use rand::rngs::OsRng;

/// The id a Flow A upload answers with: 19 decimal digits drawn from the operating
/// system's CSPRNG (about 63 bits), so ids can neither be guessed nor enumerated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct JobId(u64);

const LOW: u64 = 1_000_000_000_000_000_000; // 10^18: every id has exactly 19 digits
const SPAN: u64 = 9 * LOW;

impl JobId {
    pub fn random() -> JobId {
        // Rejection sampling keeps the distribution uniform over the span.
        let zone = u64::MAX - (u64::MAX % SPAN);
        loop {
            let draw = OsRng
                .try_next_u64()
                .expect("the operating system's random source failed");
            if draw < zone {
                return JobId(LOW + draw % SPAN);
            }
        }
    }

    /// Parses an id as sent back by a client; anything but 19 digits is no id.
    pub fn parse(text: &str) -> Option<JobId> {
        if text.len() != 19 || !text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        text.parse().ok().filter(|n| *n >= LOW).map(JobId)
    }
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_19_digits_and_round_trip() {
        for _ in 0..1000 {
            let id = JobId::random();
            let text = id.to_string();
            assert_eq!(text.len(), 19);
            assert_eq!(JobId::parse(&text), Some(id));
        }
    }

    #[test]
    fn malformed_ids_are_rejected() {
        for text in [
            "",
            "123",
            "0000000000000000001",
            "12345678901234567a9",
            "99999999999999999999",
        ] {
            assert_eq!(JobId::parse(text), None, "{text}");
        }
    }
}
