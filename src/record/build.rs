//! From printed field texts to both output records: the one conversion shared by the
//! synthetic generator (expected outputs from the printed truth) and the pipeline
//! (outputs from what it read, after its own validation). Everything is derived from
//! the printed texts, keyed as in `layouts/<kind>.toml`.
//!
//! Flow A fields filled per kind (every other field stays `""`; `platenumber` is set
//! only for car licences and `passportType` only for passports and permits, because
//! clients infer the document kind from them, docs/domain.md §7):
//!
//! | kind | Flow A fields |
//! |---|---|
//! | nid-front | firstname, lastname, national_ID, birthday + gender (from the number), city, address1, address2 |
//! | nid-back | national_ID, birthday (from the number), gender, religion, status, job, issueDate (`MM/YYYY`), expiry |
//! | driver-licence | firstname, lastname (split of the name), national_ID, birthday + gender (from the number), city, address1, job, issueDate, expiry, releseCity (traffic unit) |
//! | car-licence-front | platenumber, firstname, lastname (owner), national_ID, birthday + gender (from the number), city, address1, issueDate, expiry, releseCity (traffic unit) |
//! | car-licence-back | none: the back prints only the vehicle, which Flow A has no fields for |
//! | passport | firstname, lastname, national_ID, birthday, gender, passportType, issueDate, expiry, releseCity (issuing office), job (profession) |
//! | residence-permit | firstname, lastname, national_ID (the permit number, the holder's identity number in Egypt), birthday, gender, passportType (residence type), issueDate, expiry |
//!
//! `city` is the governorate named in the address (canonical Arabic name);
//! `releseCity` is the traffic unit or office without its `وحدة مرور` label.

use std::collections::BTreeMap;

use crate::domain::arabic::fold;
use crate::domain::date::PrintedDate;
use crate::domain::digits::to_ascii_digits;
use crate::domain::mrz::TD3_LINE_LEN;
use crate::domain::transliterate::transliterate;
use crate::domain::{DocumentKind, Gender, NationalId, governorate_in_address};

use super::{
    FlowAFields, FlowBCarLicence, FlowBData, FlowBDriverLicence, FlowBNationalId, FlowBPassport,
    FlowBResidencePermit,
};

/// The label printed before the husband's name on the National ID back.
pub const HUSBAND_LABEL: &str = "الزوج :";
/// The label opening a traffic unit's name.
pub use crate::domain::traffic_units::LABEL as TRAFFIC_UNIT_LABEL;

/// Both output records of one document from its printed field texts: one side's,
/// or both sides' of a car licence read together.
pub fn build(kind: DocumentKind, fields: &BTreeMap<String, String>) -> (FlowAFields, FlowBData) {
    let printed = Printed(fields);
    match kind {
        DocumentKind::NidFront => nid_front(&printed),
        DocumentKind::NidBack => nid_back(&printed),
        DocumentKind::DriverLicence => driver_licence(&printed),
        DocumentKind::CarLicenceFront | DocumentKind::CarLicenceBack => car_licence(&printed),
        DocumentKind::Passport => passport(&printed),
        DocumentKind::ResidencePermit => residence_permit(&printed),
    }
}

/// The fields of both records whose value rests on one printed field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resting {
    /// Flow A names, sorted.
    pub flow_a: Vec<String>,
    /// Flow B names, sorted.
    pub flow_b: Vec<String>,
}

/// The fields of both records whose value rests on the printed field `key`: those
/// that change when the records are built without that text. A derived value
/// counts (the birth date rests on the national ID), so a client reviewing them
/// reviews everything the line fed. A key not printed feeds nothing. `built` is
/// what [`build`] gave for all of `fields`.
pub fn resting_on(
    kind: DocumentKind,
    fields: &BTreeMap<String, String>,
    (flow_a_built, flow_b_built): (&FlowAFields, &FlowBData),
    key: &str,
) -> Resting {
    let mut without = fields.clone();
    if without.remove(key).is_none() {
        return Resting::default();
    }
    let (flow_a, flow_b) = build(kind, &without);
    Resting {
        flow_a: changed(flow_a_built, &flow_a),
        flow_b: changed(flow_b_built, &flow_b),
    }
}

/// The names of the fields whose serialized values differ between two records,
/// sorted (a JSON object's keys are).
fn changed<T: serde::Serialize>(full: &T, reduced: &T) -> Vec<String> {
    let as_object = |record: &T| match serde_json::to_value(record) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    let reduced = as_object(reduced);
    as_object(full)
        .into_iter()
        .filter(|(name, value)| reduced.get(name) != Some(value))
        .map(|(name, _)| name)
        .collect()
}

/// The Flow B fields whose value rests on any of the printed fields `keys`
/// ([`resting_on`]), sorted, each once.
pub fn flow_b_fields_from(
    kind: DocumentKind,
    fields: &BTreeMap<String, String>,
    built: (&FlowAFields, &FlowBData),
    keys: &[String],
) -> Vec<String> {
    let mut resting: Vec<String> = keys
        .iter()
        .flat_map(|key| resting_on(kind, fields, built, key).flow_b)
        .collect();
    resting.sort();
    resting.dedup();
    resting
}

/// Field access: a missing field reads as `""`, whitespace is trimmed.
struct Printed<'a>(&'a BTreeMap<String, String>);

impl Printed<'_> {
    fn get(&self, key: &str) -> String {
        self.0
            .get(key)
            .map(|v| v.trim().to_owned())
            .unwrap_or_default()
    }

    /// The field exactly as printed, untrimmed.
    fn exact(&self, key: &str) -> String {
        self.0.get(key).cloned().unwrap_or_default()
    }

    /// `key`, or `fallback` where `key` is empty (a field printed in Arabic and English).
    fn get_or(&self, key: &str, fallback: &str) -> String {
        match self.get(key) {
            text if text.is_empty() => self.get(fallback),
            text => text,
        }
    }

    fn digits(&self, key: &str) -> String {
        to_ascii_digits(&self.get(key))
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect()
    }

    fn date(&self, key: &str) -> Option<PrintedDate> {
        PrintedDate::parse(&self.get(key))
    }

    fn date_a(&self, key: &str) -> String {
        self.date(key).map(PrintedDate::flow_a).unwrap_or_default()
    }

    fn date_b(&self, key: &str) -> String {
        self.date(key).map(PrintedDate::iso).unwrap_or_default()
    }

    /// `a` with the Flow A issue and expiry dates of a side that prints them.
    fn dated_a(&self, a: FlowAFields) -> FlowAFields {
        FlowAFields {
            issueDate: self.date_a("issue_date"),
            expiry: self.date_a("expiry_date"),
            ..a
        }
    }
}

/// The person a side names, as both outputs report them.
struct Holder {
    first: String,
    last: String,
    national_id: String,
    birthday_a: String,
    birthday_b: String,
    gender: Option<Gender>,
}

impl Holder {
    /// A holder identified by a national-ID number: birth date and gender come from a
    /// valid number and stay empty for an invalid one.
    fn by_national_id((first, last): (String, String), national_id: String) -> Self {
        let (birthday_a, birthday_b, gender) = match NationalId::parse(&national_id) {
            Ok(id) => {
                let birth = PrintedDate::Day(id.birth_date());
                (birth.flow_a(), birth.iso(), Some(id.gender()))
            }
            Err(_) => (String::new(), String::new(), None),
        };
        Holder {
            first,
            last,
            national_id,
            birthday_a,
            birthday_b,
            gender,
        }
    }

    /// A holder whose side prints the birth date (`birth_date`) and gender (`gender_key`).
    fn printed(p: &Printed, name_ar: &str, national_id: String, gender_key: &str) -> Self {
        let (first, last) = split_full_name(name_ar);
        Holder {
            first,
            last,
            national_id,
            birthday_a: p.date_a("birth_date"),
            birthday_b: p.date_b("birth_date"),
            gender: parse_gender(&p.get(gender_key)),
        }
    }

    /// The Flow A fields naming the holder; the caller adds its kind's own fields.
    fn flow_a(&self) -> FlowAFields {
        FlowAFields {
            firstname: self.first.clone(),
            lastname: self.last.clone(),
            national_ID: self.national_id.clone(),
            birthday: self.birthday_a.clone(),
            gender: arabic_gender(self.gender),
            ..FlowAFields::default()
        }
    }
}

fn arabic_gender(gender: Option<Gender>) -> String {
    gender.map(|g| g.arabic().to_owned()).unwrap_or_default()
}

fn english_gender(gender: Option<Gender>) -> String {
    gender.map(|g| g.english().to_owned()).unwrap_or_default()
}

/// A printed gender word (`ذكر`/`أنثى`, or `M`/`F`), spelling-tolerant.
pub fn parse_gender(text: &str) -> Option<Gender> {
    let text = text.trim();
    match text {
        "M" | "m" => return Some(Gender::Male),
        "F" | "f" => return Some(Gender::Female),
        _ => {}
    }
    let folded = fold(text);
    if folded.contains("ذكر") {
        Some(Gender::Male)
    } else if folded.contains("انثي") {
        Some(Gender::Female)
    } else {
        None
    }
}

/// Splits a full name chain into the given name and the rest. Compound given names
/// stay whole: `عبد X`, `أبو X`, `أم X`, `X الدين`, `X الله`.
pub fn split_full_name(full: &str) -> (String, String) {
    let tokens: Vec<&str> = full.split_whitespace().collect();
    let Some(first) = tokens.first() else {
        return (String::new(), String::new());
    };
    let first_folded = fold(first);
    let second_folded = tokens.get(1).map(|t| fold(t)).unwrap_or_default();
    let compound = tokens.len() >= 2
        && (matches!(first_folded.as_str(), "عبد" | "ابو" | "ام")
            || matches!(second_folded.as_str(), "الدين" | "الله"));
    let used = if compound { 2 } else { 1 };
    (tokens[..used].join(" "), tokens[used..].join(" "))
}

/// The non-empty `parts` joined with `separator`.
fn join_present(parts: [&str; 2], separator: &str) -> String {
    parts
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(separator)
}

/// The text after a label such as `الزوج :` (the label and its colon may be missing or
/// misread; only an exact, fold-tolerant label is stripped).
fn strip_label(text: &str, label: &str) -> String {
    let label_word = label.trim_end_matches([':', ' ']).trim();
    let folded_label = fold(label_word);
    let trimmed = text.trim();
    let mut words = trimmed.splitn(2, char::is_whitespace);
    let head = words.next().unwrap_or("");
    let tail = words.next().unwrap_or("");
    let label_words = label_word.split_whitespace().count();
    if label_words == 1 && fold(head.trim_end_matches(':')) == folded_label {
        return tail.trim_start().trim_start_matches(':').trim().to_owned();
    }
    if label_words > 1 {
        let prefix: Vec<&str> = trimmed.split_whitespace().take(label_words).collect();
        if fold(&prefix.join(" ")) == folded_label {
            let rest: Vec<&str> = trimmed.split_whitespace().skip(label_words).collect();
            return rest.join(" ").trim_start_matches(':').trim().to_owned();
        }
    }
    trimmed.to_owned()
}

/// The place a traffic unit names: `وحدة مرور المقطم` -> `المقطم`.
pub fn traffic_unit_place(text: &str) -> String {
    strip_label(text, TRAFFIC_UNIT_LABEL)
}

fn governorate_names(address: &str) -> (String, String) {
    governorate_in_address(address)
        .map(|g| (g.arabic.to_owned(), g.english.to_owned()))
        .unwrap_or_default()
}

fn nid_front(p: &Printed) -> (FlowAFields, FlowBData) {
    let holder = Holder::by_national_id(
        (p.get("first_name"), p.get("last_name")),
        p.digits("national_id"),
    );
    let (line1, line2) = (p.get("address_line1"), p.get("address_line2"));
    let address = join_present([&line1, &line2], " - ");
    let (governorate, governorate_en) = governorate_names(&line2);
    let full_name = join_present([&holder.first, &holder.last], " ");
    let a = FlowAFields {
        city: governorate.clone(),
        address1: line1,
        address2: line2,
        ..holder.flow_a()
    };
    let b = FlowBNationalId {
        national_id: holder.national_id,
        full_name_en: transliterate(&full_name),
        full_name,
        birth_date: holder.birthday_b,
        gender: english_gender(holder.gender),
        governorate,
        governorate_en,
        address,
        card_serial: p.get("serial"),
        ..FlowBNationalId::default()
    };
    (a, FlowBData::NationalId(b))
}

fn nid_back(p: &Printed) -> (FlowAFields, FlowBData) {
    let mut holder = Holder::by_national_id(Default::default(), p.digits("national_id"));
    holder.gender = parse_gender(&p.get("gender")).or(holder.gender);
    let husband = p.get("husband");
    let a = FlowAFields {
        religion: p.get("religion"),
        status: p.get("marital_status"),
        job: p.get("job"),
        ..p.dated_a(holder.flow_a())
    };
    let b = FlowBNationalId {
        national_id: holder.national_id,
        birth_date: holder.birthday_b,
        gender: english_gender(holder.gender),
        religion: p.get("religion"),
        marital_status: p.get("marital_status"),
        job: p.get("job"),
        workplace: p.get("workplace"),
        husband_name: if husband.is_empty() {
            husband
        } else {
            strip_label(&husband, HUSBAND_LABEL)
        },
        issue_date: p.date_b("issue_date"),
        expiry_date: p.date_b("expiry_date"),
        ..FlowBNationalId::default()
    };
    (a, FlowBData::NationalId(b))
}

/// The Flow A fields a licence shares: its holder, their address and governorate, the
/// dates and the traffic unit that issued it.
fn licence_a(p: &Printed, holder: &Holder, address: &str, governorate: &str) -> FlowAFields {
    FlowAFields {
        city: governorate.to_owned(),
        address1: address.to_owned(),
        releseCity: traffic_unit_place(&p.get("traffic_unit")),
        ..p.dated_a(holder.flow_a())
    }
}

fn driver_licence(p: &Printed) -> (FlowAFields, FlowBData) {
    let name = p.get("name");
    let holder = Holder::by_national_id(split_full_name(&name), p.digits("national_id"));
    let address = p.get("address");
    let (governorate, _) = governorate_names(&address);
    let a = FlowAFields {
        job: p.get("job"),
        ..licence_a(p, &holder, &address, &governorate)
    };
    let b = FlowBDriverLicence {
        licence_number: holder.national_id,
        full_name_en: transliterate(&name),
        full_name: name,
        nationality: p.get("nationality"),
        address,
        governorate,
        job: p.get("job"),
        licence_category: p.get("licence_category"),
        traffic_unit: p.get("traffic_unit"),
        issue_date: p.date_b("issue_date"),
        expiry_date: p.date_b("expiry_date"),
        blood_group: p.get("blood_group"),
    };
    (a, FlowBData::DriverLicence(b))
}

/// A car licence from whichever of its sides were read: the front prints the owner,
/// the plate and the dates, the back the vehicle; a side not in hand leaves its
/// fields empty, and only the front feeds Flow A.
fn car_licence(p: &Printed) -> (FlowAFields, FlowBData) {
    let owner = p.get("owner_name");
    let holder = Holder::by_national_id(split_full_name(&owner), p.digits("owner_national_id"));
    let address = p.get("address");
    let (governorate, _) = governorate_names(&address);
    let plate = p.get("plate_number");
    let a = FlowAFields {
        platenumber: plate.clone(),
        ..licence_a(p, &holder, &address, &governorate)
    };
    let b = FlowBCarLicence {
        plate_number: plate,
        owner_name_en: transliterate(&owner),
        owner_name: owner,
        owner_national_id: holder.national_id,
        registration_date: p.date_b("issue_date"),
        expiry_date: p.date_b("expiry_date"),
        governorate,
        traffic_unit: p.get("traffic_unit"),
        usage_type: p.get("usage_type"),
        vehicle_make: p.get("make"),
        vehicle_model: p.get("model"),
        vehicle_year: p.digits("year"),
        vehicle_color: p.get("color"),
        // Exactly as printed (docs/interface.md §2.3).
        engine_number: p.exact("engine_number"),
        chassis_number: p.exact("chassis_number"),
        fuel_type: p.get("fuel_type"),
        body_type: p.get("body_type"),
        cylinders: p.digits("cylinders"),
        engine_cc: p.digits("engine_cc"),
        insurance_company: p.get("insurance_company"),
    };
    (a, FlowBData::CarLicence(b))
}

/// Surname and given names from a TD3 first line (`P<EGYSURNAME<<GIVEN<NAMES<<<`).
pub fn td3_names(line1: &str) -> Option<(String, String)> {
    if line1.len() != TD3_LINE_LEN || !line1.is_ascii() {
        return None;
    }
    let names = &line1[5..];
    let (surname, given) = names.split_once("<<").unwrap_or((names, ""));
    let words = |s: &str| {
        s.split('<')
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    Some((words(surname), words(given)))
}

fn passport(p: &Printed) -> (FlowAFields, FlowBData) {
    let name_ar = p.get("name_ar");
    let name_en = p.get("name_en");
    let holder = Holder::printed(p, &name_ar, p.digits("national_id"), "sex");
    let (surname_en, given_names_en) =
        td3_names(&p.get("mrz_line1")).unwrap_or_else(|| match name_en.rsplit_once(' ') {
            Some((given, surname)) => (surname.to_owned(), given.to_owned()),
            None => (name_en.clone(), String::new()),
        });
    let a = FlowAFields {
        releseCity: p.get("issuing_office"),
        job: p.get("profession"),
        passportType: p.get("passport_type"),
        ..p.dated_a(holder.flow_a())
    };
    let b = FlowBPassport {
        passport_number: p.get("passport_number"),
        passport_type: p.get("passport_type"),
        country_code: p.get("country_code"),
        full_name: name_ar,
        full_name_en: name_en,
        surname_en,
        given_names_en,
        nationality: p.get_or("nationality_ar", "nationality_en"),
        birth_date: holder.birthday_b,
        birth_place: p.get_or("birth_place_ar", "birth_place_en"),
        gender: english_gender(holder.gender),
        issue_date: p.date_b("issue_date"),
        expiry_date: p.date_b("expiry_date"),
        issuing_office: p.get("issuing_office"),
        profession: p.get("profession"),
        national_id: holder.national_id,
        mrz_line1: p.get("mrz_line1"),
        mrz_line2: p.get("mrz_line2"),
    };
    (a, FlowBData::Passport(b))
}

fn residence_permit(p: &Printed) -> (FlowAFields, FlowBData) {
    let name_ar = p.get("name_ar");
    let permit_number = p.get("permit_number");
    let holder = Holder::printed(p, &name_ar, to_ascii_digits(&permit_number), "gender");
    let a = FlowAFields {
        passportType: p.get("residence_type"),
        ..p.dated_a(holder.flow_a())
    };
    let b = FlowBResidencePermit {
        permit_number,
        full_name: name_ar,
        full_name_en: p.get("name_en"),
        nationality: p.get("nationality_ar"),
        nationality_en: p.get("nationality_en"),
        passport_number: p.get("passport_number"),
        residence_type: p.get("residence_type"),
        purpose: p.get("purpose"),
        gender: english_gender(holder.gender),
        birth_date: holder.birthday_b,
        issue_date: p.date_b("issue_date"),
        expiry_date: p.date_b("expiry_date"),
    };
    (a, FlowBData::ResidencePermit(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// A whole NID front as printed.
    fn nid_front_printed() -> BTreeMap<String, String> {
        fields(&[
            ("first_name", "عبد الرحمن"),
            ("last_name", "اشرف عبدالعزيز محمد"),
            ("address_line1", "٧ ش منصور عطفة رامز"),
            ("address_line2", "السيدة زينب - القاهره"),
            ("national_id", "٣٠٣١٢٢٤٠٢٠١٨٥٩"),
            ("birth_date", "٢٠٠٣/١٢/٢٤"),
            ("serial", "AB1234567"),
        ])
    }

    #[test]
    fn flow_b_fields_resting_on_printed_lines_follow_the_build() {
        let f = nid_front_printed();
        let of = |keys: &[&str]| {
            let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
            let (a, b) = build(DocumentKind::NidFront, &f);
            flow_b_fields_from(DocumentKind::NidFront, &f, (&a, &b), &keys)
        };
        assert_eq!(of(&["first_name"]), ["full_name", "full_name_en"]);
        assert_eq!(
            of(&["national_id"]),
            ["birth_date", "gender", "national_id"]
        );
        assert_eq!(
            of(&["address_line2", "serial"]),
            ["address", "card_serial", "governorate", "governorate_en"]
        );
        // The birth date comes from the valid number, not from the printed date.
        assert!(of(&["birth_date", "no_such_line"]).is_empty());
    }

    #[test]
    fn a_line_rests_under_its_flow_a_and_flow_b_names() {
        let f = nid_front_printed();
        let (a, b) = build(DocumentKind::NidFront, &f);
        let of = |key: &str| resting_on(DocumentKind::NidFront, &f, (&a, &b), key);
        assert_eq!(of("first_name").flow_a, ["firstname"]);
        assert_eq!(
            of("national_id"),
            Resting {
                flow_a: vec!["birthday".into(), "gender".into(), "national_ID".into()],
                flow_b: vec!["birth_date".into(), "gender".into(), "national_id".into()],
            }
        );
        assert_eq!(of("address_line2").flow_a, ["address2", "city"]);
        // Flow A has no field for the serial.
        assert!(of("serial").flow_a.is_empty() && !of("serial").flow_b.is_empty());
        assert_eq!(of("no_such_line"), Resting::default());
    }

    #[test]
    fn nid_front_derives_birthday_gender_and_city() {
        let f = nid_front_printed();
        let (a, b) = build(DocumentKind::NidFront, &f);
        assert_eq!(a.firstname, "عبد الرحمن");
        assert_eq!(a.lastname, "اشرف عبدالعزيز محمد");
        assert_eq!(a.national_ID, "30312240201859");
        assert_eq!(a.birthday, "24/12/2003");
        assert_eq!(a.gender, "ذكر");
        assert_eq!(a.city, "القاهرة");
        assert_eq!(a.address1, "٧ ش منصور عطفة رامز");
        assert_eq!(a.address2, "السيدة زينب - القاهره");
        assert!(a.platenumber.is_empty() && a.passportType.is_empty() && a.issueDate.is_empty());
        let FlowBData::NationalId(b) = b else {
            panic!("wrong family")
        };
        assert_eq!(b.full_name, "عبد الرحمن اشرف عبدالعزيز محمد");
        assert_eq!(b.full_name_en, "Abdelrahman Ashraf Abdelaziz Mohamed");
        assert_eq!(b.birth_date, "2003-12-24");
        assert_eq!(b.gender, "Male");
        assert_eq!(b.governorate_en, "Cairo");
        assert_eq!(b.card_serial, "AB1234567");
    }

    #[test]
    fn nid_front_with_a_broken_number_leaves_derived_fields_empty() {
        let f = fields(&[("first_name", "محمد"), ("national_id", "٣٠٣١٢٢٤٠٢٠١٨٥٨")]);
        let (a, _) = build(DocumentKind::NidFront, &f);
        assert_eq!(a.national_ID, "30312240201858");
        assert_eq!(a.birthday, "");
        assert_eq!(a.gender, "");
        assert_eq!(a.city, "");
    }

    #[test]
    fn nid_back_formats_month_only_issue_date_and_strips_husband_label() {
        let f = fields(&[
            ("national_id", "٢٧٣١٠١٦٠١٠٤٧٢٥"),
            ("issue_date", "٢٠٢٤/٠٨"),
            ("job", "مهندسة"),
            ("workplace", "شركة مصر للطيران"),
            ("gender", "أنثى"),
            ("religion", "مسلمة"),
            ("marital_status", "متزوجة"),
            ("husband", "الزوج : محمد علي حسن"),
            ("expiry_date", "٢٠٣١/٠٨/١٢"),
        ]);
        let (a, b) = build(DocumentKind::NidBack, &f);
        assert_eq!(a.issueDate, "08/2024");
        assert_eq!(a.expiry, "12/08/2031");
        assert_eq!(a.gender, "أنثى");
        assert_eq!(a.status, "متزوجة");
        assert_eq!(a.job, "مهندسة");
        assert_eq!(a.birthday, "16/10/1973");
        let FlowBData::NationalId(b) = b else {
            panic!("wrong family")
        };
        assert_eq!(b.issue_date, "2024-08");
        assert_eq!(b.expiry_date, "2031-08-12");
        assert_eq!(b.husband_name, "محمد علي حسن");
        assert_eq!(b.workplace, "شركة مصر للطيران");
        assert_eq!(b.gender, "Female");
    }

    #[test]
    fn car_licence_front_fills_plate_owner_and_traffic_unit() {
        let f = fields(&[
            ("usage_type", "ملاكي"),
            ("plate_number", "ن ص ر ١٢٣"),
            ("owner_name", "عبد الله محمد السيد"),
            ("nationality", "مصري"),
            ("address", "١٢ ش التحرير - الدقي - الجيزة"),
            ("owner_national_id", "٣٠٣١٢٢٤٠٢٠١٨٥٩"),
            ("traffic_unit", "وحدة مرور الدقي"),
            ("issue_date", "٢٠٢٣/٠٥/٠١"),
            ("expiry_date", "٢٠٢٦/٠٥/٠١"),
        ]);
        let (a, b) = build(DocumentKind::CarLicenceFront, &f);
        assert_eq!(a.platenumber, "ن ص ر ١٢٣");
        assert_eq!(a.firstname, "عبد الله");
        assert_eq!(a.lastname, "محمد السيد");
        assert_eq!(a.city, "الجيزة");
        assert_eq!(a.releseCity, "الدقي");
        assert_eq!(a.issueDate, "01/05/2023");
        assert!(a.passportType.is_empty());
        let FlowBData::CarLicence(b) = b else {
            panic!("wrong family")
        };
        assert_eq!(b.owner_name_en, "Abdullah Mohamed Elsayed");
        assert_eq!(b.registration_date, "2023-05-01");
        assert_eq!(b.governorate, "الجيزة");
    }

    #[test]
    fn car_licence_back_keeps_numbers_as_printed() {
        let f = fields(&[
            ("make", "تويوتا"),
            ("year", "٢٠١٨"),
            ("chassis_number", "JTDBR32E720012345"),
            ("engine_number", "1ZR-1234567"),
            ("engine_cc", "١٦٠٠"),
        ]);
        let (a, b) = build(DocumentKind::CarLicenceBack, &f);
        assert_eq!(a, FlowAFields::default());
        let FlowBData::CarLicence(b) = b else {
            panic!("wrong family")
        };
        assert_eq!(b.vehicle_year, "2018");
        assert_eq!(b.engine_cc, "1600");
        assert_eq!(b.engine_number, "1ZR-1234567");
        assert_eq!(b.chassis_number, "JTDBR32E720012345");
    }

    #[test]
    fn a_car_licences_two_sides_read_together_make_one_record() {
        let both = fields(&[
            ("plate_number", "ن ص ر ١٢٣"),
            ("owner_name", "عبد الله محمد السيد"),
            ("issue_date", "٢٠٢٣/٠٥/٠١"),
            ("make", "تويوتا"),
            ("year", "٢٠١٨"),
            ("chassis_number", "JTDBR32E720012345"),
        ]);
        let (a, b) = build(DocumentKind::CarLicenceFront, &both);
        assert_eq!(a.platenumber, "ن ص ر ١٢٣");
        assert_eq!(a.issueDate, "01/05/2023");
        let FlowBData::CarLicence(b) = b else {
            panic!("wrong family")
        };
        assert_eq!(b.owner_name, "عبد الله محمد السيد");
        assert_eq!(b.registration_date, "2023-05-01");
        assert_eq!(b.vehicle_make, "تويوتا");
        assert_eq!(b.vehicle_year, "2018");
        assert_eq!(b.chassis_number, "JTDBR32E720012345");
        // Either side names the same document.
        assert_eq!(
            build(DocumentKind::CarLicenceBack, &both),
            build(DocumentKind::CarLicenceFront, &both)
        );
    }

    #[test]
    fn passport_reads_names_from_the_mrz() {
        let f = fields(&[
            ("passport_type", "P"),
            ("country_code", "EGY"),
            ("passport_number", "A12345678"),
            ("name_ar", "محمد أحمد السيد"),
            ("name_en", "MOHAMED AHMED ELSAYED"),
            ("sex", "M"),
            ("birth_date", "07/03/1990"),
            ("issue_date", "02/01/2024"),
            ("expiry_date", "02/01/2031"),
            ("issuing_office", "العباسية"),
            ("profession", "مهندس"),
            ("national_id", "29003070101236"),
            ("mrz_line1", "P<EGYELSAYED<<MOHAMED<AHMED<<<<<<<<<<<<<<<<<<"),
        ]);
        let (a, b) = build(DocumentKind::Passport, &f);
        assert_eq!(a.passportType, "P");
        assert_eq!(a.birthday, "07/03/1990");
        assert_eq!(a.gender, "ذكر");
        assert_eq!(a.releseCity, "العباسية");
        assert_eq!(a.job, "مهندس");
        assert_eq!(
            (a.firstname.as_str(), a.lastname.as_str()),
            ("محمد", "أحمد السيد")
        );
        assert!(a.platenumber.is_empty());
        let FlowBData::Passport(b) = b else {
            panic!("wrong family")
        };
        assert_eq!(b.surname_en, "ELSAYED");
        assert_eq!(b.given_names_en, "MOHAMED AHMED");
        assert_eq!(b.expiry_date, "2031-01-02");
    }

    #[test]
    fn residence_permit_uses_the_permit_number_as_identity() {
        let f = fields(&[
            ("permit_number", "123456789"),
            ("name_ar", "آدم عثمان الطيب"),
            ("name_en", "ADAM OSMAN ELTAYEB"),
            ("gender", "ذكر"),
            ("residence_type", "مؤقتة"),
            ("birth_date", "١٩٩٥/٠١/٣١"),
            ("issue_date", "٢٠٢٤/٠٢/٠١"),
            ("expiry_date", "٢٠٢٥/٠٢/٠١"),
        ]);
        let (a, b) = build(DocumentKind::ResidencePermit, &f);
        assert_eq!(a.national_ID, "123456789");
        assert_eq!(a.passportType, "مؤقتة");
        assert_eq!(a.birthday, "31/01/1995");
        let FlowBData::ResidencePermit(b) = b else {
            panic!("wrong family")
        };
        assert_eq!(b.full_name_en, "ADAM OSMAN ELTAYEB");
        assert_eq!(b.gender, "Male");
        assert_eq!(b.issue_date, "2024-02-01");
    }

    #[test]
    fn splits_compound_given_names() {
        let s = |t: &str| split_full_name(t);
        assert_eq!(
            s("عبد الرحمن محمد علي"),
            ("عبد الرحمن".into(), "محمد علي".into())
        );
        assert_eq!(
            s("عبدالرحمن محمد علي"),
            ("عبدالرحمن".into(), "محمد علي".into())
        );
        assert_eq!(
            s("نور الدين أحمد علي"),
            ("نور الدين".into(), "أحمد علي".into())
        );
        assert_eq!(s("محمد عبد الله"), ("محمد".into(), "عبد الله".into()));
        assert_eq!(s(""), (String::new(), String::new()));
        assert_eq!(traffic_unit_place("وحدة مرور المقطم"), "المقطم");
        assert_eq!(traffic_unit_place("المقطم"), "المقطم");
        assert_eq!(parse_gender("انثى"), Some(Gender::Female));
        assert_eq!(parse_gender("؟"), None);
    }
}
