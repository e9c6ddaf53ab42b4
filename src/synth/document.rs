use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::domain::DocumentKind;
use crate::record::{FlowAFields, FlowBData};

/// The content of one synthetic document before rendering: the text printed in every
/// variable field and the output a perfect reader would return for it.
///
/// Field keys are the layout's field names (`layouts/<kind>.toml`). A key that is
/// absent means the field is not printed on this card (for example `workplace` for a
/// student, `husband` for an unmarried woman).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SynthDocument {
    pub kind: DocumentKind,
    pub fields: BTreeMap<String, String>,
    pub flow_a: FlowAFields,
    pub flow_b: FlowBData,
}

/// The categories the recognizer's accuracy is reported in.
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
