//! TEMPORARY sample identities so rendering can be built before the identity generator
//! lands: this whole module is replaced by the real `synth::identity` at merge.

use std::collections::BTreeMap;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::domain::DocumentKind;
use crate::record::{
    FlowAFields, FlowBCarLicence, FlowBData, FlowBDriverLicence, FlowBNationalId, FlowBPassport,
    FlowBResidencePermit,
};
use crate::synth::SynthDocument;

type Sample = &'static [(&'static str, &'static str)];

const NID_FRONT: [Sample; 3] = [
    &[
        ("first_name", "عبد الرحمن"),
        ("last_name", "اشرف عبدالعزيز محمد حسنين"),
        ("address_line1", "٧ ش منصور عطفة رامز لاظوغلى"),
        ("address_line2", "السيدة زينب - القاهرة"),
        ("national_id", "٢٩٠٠٣٠٧٠١٠١٢٣٥"),
        ("birth_date", "١٩٩٠/٠٣/٠٧"),
        ("serial", "AB1234567"),
    ],
    &[
        ("first_name", "فاطمة"),
        ("last_name", "محمود السيد الشربيني"),
        ("address_line1", "٤٢٩ البنفسج عمارات"),
        ("address_line2", "قسم أول المنصورة - الدقهلية"),
        ("national_id", "٣٠١١٠٢١١٢٠٤٧٢٢"),
        ("birth_date", "٢٠٠١/١٠/٢١"),
        ("serial", "KM7702314"),
    ],
    &[
        ("first_name", "مصطفى"),
        ("last_name", "حسن علي أبو زيد"),
        ("address_line1", "١٥ ش الجمهورية"),
        ("address_line2", "مركز ملوي - المنيا"),
        ("national_id", "٢٨٥٠٥١٢٢٤٠٠٥٥٣"),
        ("birth_date", "١٩٨٥/٠٥/١٢"),
        ("serial", "IT0052871"),
    ],
];

const NID_BACK: [Sample; 2] = [
    &[
        ("national_id", "٢٩٠٠٣٠٧٠١٠١٢٣٥"),
        ("issue_date", "٢٠٢٤/٠٨"),
        ("job", "مهندس"),
        ("workplace", "شركة مصر للبترول"),
        ("gender", "ذكر"),
        ("religion", "مسلم"),
        ("marital_status", "متزوج"),
        ("expiry_date", "٢٠٣١/٠٨/١٢"),
    ],
    &[
        ("national_id", "٣٠١١٠٢١١٢٠٤٧٢٢"),
        ("issue_date", "٢٠٢٢/٠١"),
        ("job", "بكالوريوس تجارة"),
        ("gender", "أنثى"),
        ("religion", "مسيحية"),
        ("marital_status", "متزوجة"),
        ("husband", "الزوج : مينا جرجس عبد المسيح"),
        ("expiry_date", "٢٠٢٩/٠١/٠٤"),
    ],
];

const DRIVER: [Sample; 1] = [&[
    ("name", "محمد أحمد عبد الله السيد"),
    ("nationality", "مصري"),
    ("address", "١٢ ش التحرير الدقي - الجيزة"),
    ("job", "محاسب"),
    ("national_id", "٢٩٠٠٣٠٧٠١٠١٢٣٥"),
    ("licence_category", "خاصة"),
    ("traffic_unit", "وحدة مرور المقطم"),
    ("issue_date", "٢٠٢٣/٠٤/١٨"),
    ("expiry_date", "٢٠٣٣/٠٤/١٧"),
    ("blood_group", "O+"),
]];

const CAR_FRONT: [Sample; 1] = [&[
    ("usage_type", "ملاكي"),
    ("plate_number", "ن ص ر ١٢٣"),
    ("owner_name", "كريم سامي فؤاد عبد الحميد"),
    ("nationality", "مصري"),
    ("address", "٣ ش الثورة مصر الجديدة - القاهرة"),
    ("owner_national_id", "٢٨٨١١٢٠٠١٠٣٤٥١"),
    ("traffic_unit", "وحدة مرور عين الصيرة"),
    ("issue_date", "٢٠٢٤/٠٢/٠١"),
    ("expiry_date", "٢٠٢٧/٠١/٣١"),
]];

const CAR_BACK: [Sample; 1] = [&[
    ("make", "تويوتا"),
    ("model", "كورولا"),
    ("year", "٢٠١٨"),
    ("color", "أبيض"),
    ("chassis_number", "JTDBR32E720123456"),
    ("engine_number", "1ZR4521873"),
    ("fuel_type", "بنزين"),
    ("cylinders", "٤"),
    ("engine_cc", "١٦٠٠"),
    ("body_type", "صالون"),
    ("insurance_company", "مصر للتأمين"),
]];

const PASSPORT: [Sample; 1] = [&[
    ("passport_type", "P"),
    ("country_code", "EGY"),
    ("passport_number", "A12345678"),
    ("name_ar", "محمد أحمد السيد"),
    ("name_en", "MOHAMED AHMED ELSAYED"),
    ("nationality_ar", "مصري"),
    ("nationality_en", "EGYPTIAN"),
    ("birth_date", "07/03/1990"),
    ("birth_place_ar", "القاهرة"),
    ("birth_place_en", "CAIRO"),
    ("sex", "M"),
    ("issue_date", "02/01/2024"),
    ("expiry_date", "01/01/2031"),
    ("issuing_office", "مصلحة الجوازات - العباسية"),
    ("profession", "مهندس"),
    ("national_id", "29003070101235"),
    ("mrz_line1", "P<EGYELSAYED<<MOHAMED<AHMED<<<<<<<<<<<<<<<<<"),
    ("mrz_line2", "A123456784EGY9003075M3101011290030701012358<"),
]];

const PERMIT: [Sample; 1] = [&[
    ("permit_number", "RP2024001873"),
    ("name_ar", "آدم عثمان إبراهيم"),
    ("name_en", "ADAM OSMAN IBRAHIM"),
    ("nationality_ar", "سوداني"),
    ("nationality_en", "SUDANESE"),
    ("passport_number", "P04418827"),
    ("residence_type", "مؤقتة"),
    ("purpose", "دراسة"),
    ("gender", "ذكر"),
    ("birth_date", "١٩٩٩/١١/٠٢"),
    ("issue_date", "٢٠٢٤/٠٩/٠١"),
    ("expiry_date", "٢٠٢٥/٠٨/٣١"),
]];

/// A document of `kind` picked among a few fixed samples.
pub fn generate(kind: DocumentKind, rng: &mut ChaCha8Rng) -> SynthDocument {
    let samples: &[Sample] = match kind {
        DocumentKind::NidFront => &NID_FRONT,
        DocumentKind::NidBack => &NID_BACK,
        DocumentKind::DriverLicence => &DRIVER,
        DocumentKind::CarLicenceFront => &CAR_FRONT,
        DocumentKind::CarLicenceBack => &CAR_BACK,
        DocumentKind::Passport => &PASSPORT,
        DocumentKind::ResidencePermit => &PERMIT,
    };
    let sample = samples[rng.random_range(0..samples.len())];
    let fields: BTreeMap<String, String> = sample
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let flow_b = match kind {
        DocumentKind::NidFront | DocumentKind::NidBack => {
            FlowBData::NationalId(FlowBNationalId::default())
        }
        DocumentKind::DriverLicence => FlowBData::DriverLicence(FlowBDriverLicence::default()),
        DocumentKind::CarLicenceFront | DocumentKind::CarLicenceBack => {
            FlowBData::CarLicence(FlowBCarLicence::default())
        }
        DocumentKind::Passport => FlowBData::Passport(FlowBPassport::default()),
        DocumentKind::ResidencePermit => {
            FlowBData::ResidencePermit(FlowBResidencePermit::default())
        }
    };
    SynthDocument {
        kind,
        fields,
        flow_a: FlowAFields::default(),
        flow_b,
    }
}
