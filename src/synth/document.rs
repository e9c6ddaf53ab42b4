use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::domain::DocumentKind;
use crate::record::{FlowAFields, FlowBData};

/// The content of one synthetic document before rendering: the text printed in every
/// variable field and the output a perfect pipeline would return for it.
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
