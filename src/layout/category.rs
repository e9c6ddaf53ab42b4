//! The kind of text a printed line holds. Every field of a layout names one; the
//! generator labels its crops with it and the recognizer's accuracy is reported by it.

use serde::{Deserialize, Serialize};

/// The categories of printed text: what a field holds, and what the recognizer's accuracy
/// is reported in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineCategory {
    /// Personal names (Arabic).
    Name,
    /// Address lines (Arabic, with Arabic-Indic house numbers).
    Address,
    /// 14-digit national-ID numbers.
    NationalId,
    /// Dates in any printed form.
    Date,
    /// Latin text: MRZ lines, Latin names, chassis and engine numbers, serials.
    Latin,
    /// Everything else: jobs, statuses, makes, colours, plates, headers.
    Other,
}

impl LineCategory {
    pub const ALL: [LineCategory; 6] = [
        LineCategory::Name,
        LineCategory::Address,
        LineCategory::NationalId,
        LineCategory::Date,
        LineCategory::Latin,
        LineCategory::Other,
    ];
}
