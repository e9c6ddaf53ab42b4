use serde::{Deserialize, Serialize};

/// The document-derived fields of the Flow A `data` object, named exactly as the
/// reference service names them (misspellings included). Every value is a string,
/// `""` when the document does not carry the field. The server-side fields
/// (`proccesstime`, `imageName`, `savedImage`, `urlImage`) are added by the HTTP layer.
///
/// Dates are `DD/MM/YYYY`; an issue date printed without a day (`YYYY/MM`, National
/// ID back) is returned as `MM/YYYY`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[allow(non_snake_case)]
pub struct FlowAFields {
    pub firstname: String,
    pub lastname: String,
    pub national_ID: String,
    pub birthday: String,
    pub gender: String,
    pub city: String,
    pub address1: String,
    pub address2: String,
    pub religion: String,
    pub status: String,
    pub job: String,
    pub issueDate: String,
    pub expiry: String,
    pub releseCity: String,
    /// Non-empty only for car licences: clients infer the document kind from it.
    pub platenumber: String,
    /// Non-empty only for passports and residence permits: clients infer the kind from it.
    pub passportType: String,
    pub gender_2: String,
}
