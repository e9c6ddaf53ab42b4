use serde::{Deserialize, Serialize};

/// The Flow B `data` object, one shape per document family. Dates are ISO 8601
/// (`YYYY-MM-DD`, or `YYYY-MM` when the card prints no day); every value is a string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FlowBData {
    NationalId(FlowBNationalId),
    DriverLicence(FlowBDriverLicence),
    CarLicence(FlowBCarLicence),
    Passport(FlowBPassport),
    ResidencePermit(FlowBResidencePermit),
}

/// National ID, either side: the fields of §2.3 plus what the back carries.
/// A field the side in hand does not print is `""`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowBNationalId {
    pub national_id: String,
    pub full_name: String,
    pub full_name_en: String,
    pub birth_date: String,
    /// `Male` or `Female`.
    pub gender: String,
    /// Governorate of residence, Arabic, from the address.
    pub governorate: String,
    pub governorate_en: String,
    pub address: String,
    pub religion: String,
    pub marital_status: String,
    pub job: String,
    /// The second job line (`جهة العمل`), when printed.
    pub workplace: String,
    pub husband_name: String,
    pub issue_date: String,
    pub expiry_date: String,
    pub card_serial: String,
}

/// Car licence (vehicle registration), either side; §2.3 fields plus the rest of the card.
/// `engine_number` and `chassis_number` are exactly as printed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowBCarLicence {
    pub plate_number: String,
    pub owner_name: String,
    pub owner_name_en: String,
    pub owner_national_id: String,
    pub vehicle_make: String,
    pub vehicle_model: String,
    pub vehicle_year: String,
    pub vehicle_color: String,
    pub engine_number: String,
    pub chassis_number: String,
    pub registration_date: String,
    pub expiry_date: String,
    pub governorate: String,
    pub traffic_unit: String,
    pub usage_type: String,
    pub fuel_type: String,
    pub body_type: String,
    pub cylinders: String,
    pub engine_cc: String,
    pub insurance_company: String,
}

/// Driving licence (not specified by the reference; our design).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowBDriverLicence {
    pub licence_number: String,
    pub full_name: String,
    pub full_name_en: String,
    pub nationality: String,
    pub address: String,
    pub governorate: String,
    pub job: String,
    pub licence_category: String,
    pub traffic_unit: String,
    pub issue_date: String,
    pub expiry_date: String,
    pub blood_group: String,
}

/// Passport data page (not specified by the reference; our design).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowBPassport {
    pub passport_number: String,
    pub passport_type: String,
    pub country_code: String,
    pub full_name: String,
    pub full_name_en: String,
    pub surname_en: String,
    pub given_names_en: String,
    pub nationality: String,
    pub birth_date: String,
    pub birth_place: String,
    pub gender: String,
    pub issue_date: String,
    pub expiry_date: String,
    pub issuing_office: String,
    pub profession: String,
    pub national_id: String,
    pub mrz_line1: String,
    pub mrz_line2: String,
}

/// Residence permit card for foreigners (layout unknown; our design).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowBResidencePermit {
    pub permit_number: String,
    pub full_name: String,
    pub full_name_en: String,
    pub nationality: String,
    pub nationality_en: String,
    pub passport_number: String,
    pub residence_type: String,
    pub purpose: String,
    pub gender: String,
    pub birth_date: String,
    pub issue_date: String,
    pub expiry_date: String,
}
