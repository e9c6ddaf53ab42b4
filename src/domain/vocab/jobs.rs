//! Professions as printed on the National ID back and other documents, in male and
//! female form, with the kind of workplace line (`جهة العمل`) each may carry.

/// Which second line (workplace) a job may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workplace {
    /// Never a workplace line: students, housewives, the retired, the unemployed.
    Never,
    /// Self-employed trades: rarely a line.
    Own,
    /// Employees: a company, ministry, hospital, school or bank.
    Employer(Sector),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sector {
    Government,
    Company,
    Health,
    Education,
    Bank,
    Security,
}

pub struct Job {
    pub male: &'static str,
    pub female: &'static str,
    /// Relative frequency per gender: `(male, female)`.
    pub weight: (u32, u32),
    pub workplace: Workplace,
    /// Minimum age at which the job makes sense.
    pub min_age: u32,
    /// Maximum age (students, conscripts).
    pub max_age: u32,
}

const fn j(
    male: &'static str,
    female: &'static str,
    weight: (u32, u32),
    workplace: Workplace,
    min_age: u32,
    max_age: u32,
) -> Job {
    Job {
        male,
        female,
        weight,
        workplace,
        min_age,
        max_age,
    }
}

use Sector::*;
use Workplace::*;

pub const JOBS: &[Job] = &[
    j("طالب", "طالبة", (30, 30), Never, 16, 26),
    j("موظف", "موظفة", (40, 25), Employer(Government), 20, 60),
    j("ربة منزل", "ربة منزل", (0, 70), Never, 18, 80),
    j("بدون عمل", "بدون عمل", (6, 8), Never, 18, 60),
    j("لا يعمل", "لا تعمل", (4, 4), Never, 18, 60),
    j("بالمعاش", "بالمعاش", (12, 6), Never, 60, 80),
    j("مهندس", "مهندسة", (12, 4), Employer(Company), 22, 65),
    j("طبيب", "طبيبة", (6, 5), Employer(Health), 24, 70),
    j("محاسب", "محاسبة", (10, 5), Employer(Company), 22, 65),
    j("محامي", "محامية", (5, 2), Own, 22, 75),
    j("مدرس", "مدرسة", (10, 12), Employer(Education), 22, 60),
    j("معلم", "معلمة", (4, 5), Employer(Education), 22, 60),
    j("صيدلي", "صيدلانية", (3, 4), Employer(Health), 23, 70),
    j("تاجر", "تاجرة", (12, 1), Own, 20, 80),
    j("سائق", "سائقة", (14, 0), Own, 21, 65),
    j("عامل", "عاملة", (18, 3), Employer(Company), 18, 60),
    j("فني", "فنية", (8, 1), Employer(Company), 19, 60),
    j("فني كهرباء", "فنية كهرباء", (3, 0), Own, 19, 60),
    j("ضابط", "ضابطة", (3, 0), Employer(Security), 21, 60),
    j(
        "أمين شرطة",
        "أمينة شرطة",
        (2, 0),
        Employer(Security),
        21,
        60,
    ),
    j("مجند", "مجندة", (3, 0), Employer(Security), 18, 24),
    j("ممرض", "ممرضة", (1, 6), Employer(Health), 19, 60),
    j("مزارع", "مزارعة", (10, 1), Own, 18, 80),
    j("نجار", "نجارة", (3, 0), Own, 18, 70),
    j("سباك", "سباكة", (2, 0), Own, 18, 70),
    j("ميكانيكي", "ميكانيكية", (3, 0), Own, 18, 70),
    j("حلاق", "كوافيرة", (2, 1), Own, 18, 70),
    j("أعمال حرة", "أعمال حرة", (8, 2), Own, 20, 80),
    j("مدير", "مديرة", (3, 1), Employer(Company), 30, 65),
    j(
        "أخصائي اجتماعي",
        "أخصائية اجتماعية",
        (1, 3),
        Employer(Government),
        22,
        60,
    ),
    j("مبرمج", "مبرمجة", (2, 1), Employer(Company), 21, 55),
    j("صحفي", "صحفية", (1, 1), Employer(Company), 22, 70),
    j(
        "مهندس زراعي",
        "مهندسة زراعية",
        (2, 1),
        Employer(Government),
        22,
        65,
    ),
    j("طبيب أسنان", "طبيبة أسنان", (1, 2), Own, 24, 70),
    j(
        "مندوب مبيعات",
        "مندوبة مبيعات",
        (3, 1),
        Employer(Company),
        20,
        55,
    ),
    j("موظف بنك", "موظفة بنك", (2, 2), Employer(Bank), 22, 60),
    j(
        "أستاذ جامعي",
        "أستاذة جامعية",
        (1, 1),
        Employer(Education),
        30,
        75,
    ),
    j("بكالوريوس تجارة", "بكالوريوس تجارة", (5, 5), Never, 21, 50),
    j("بكالوريوس هندسة", "بكالوريوس هندسة", (2, 1), Never, 22, 50),
    j("ليسانس حقوق", "ليسانس حقوق", (2, 2), Never, 21, 50),
    j("ليسانس آداب", "ليسانس آداب", (2, 3), Never, 21, 50),
    j(
        "بكالوريوس فى علوم الحاسب",
        "بكالوريوس فى علوم الحاسب",
        (1, 1),
        Never,
        21,
        45,
    ),
    j("دبلوم فني صناعي", "دبلوم فني تجاري", (4, 3), Never, 18, 50),
    j("دبلوم صنايع", "دبلوم تجارة", (3, 3), Never, 18, 50),
];

/// Workplace lines per sector.
pub fn workplaces(sector: Sector) -> &'static [&'static str] {
    match sector {
        Government => &[
            "وزارة التربية والتعليم",
            "وزارة الصحة والسكان",
            "مديرية الزراعة",
            "الوحدة المحلية",
            "وزارة الأوقاف",
            "هيئة السكة الحديد",
            "مصلحة الضرائب",
            "الشركة المصرية للاتصالات",
            "هيئة البريد",
            "وزارة المالية",
            "الهيئة العامة للتأمين الصحي",
            "مجلس المدينة",
            "وزارة الري",
            "الجهاز المركزي للتعبئة العامة والإحصاء",
        ],
        Company => &[
            "شركة المقاولون العرب",
            "شركة مصر للطيران",
            "شركة النصر للسيارات",
            "شركة غزل المحلة",
            "شركة حديد عز",
            "شركة السويدي إليكتريك",
            "شركة بترول خليج السويس",
            "شركة أوراسكوم للإنشاءات",
            "قطاع خاص",
            "شركة مصر للبترول",
            "شركة الحديد والصلب",
            "شركة النصر للأسمدة",
            "شركة فودافون مصر",
        ],
        Health => &[
            "مستشفى الدمرداش",
            "مستشفى قصر العيني",
            "مستشفى المنصورة الجامعي",
            "وزارة الصحة",
            "مستشفى أسيوط الجامعي",
            "مستشفى الجلاء",
            "التأمين الصحي",
            "مستشفى الحسين الجامعي",
        ],
        Education => &[
            "وزارة التربية والتعليم",
            "مدرسة السلام الإعدادية",
            "جامعة القاهرة",
            "جامعة عين شمس",
            "جامعة الأزهر",
            "جامعة الإسكندرية",
            "الإدارة التعليمية",
            "مدرسة النصر الابتدائية",
        ],
        Bank => &[
            "البنك الأهلي المصري",
            "بنك مصر",
            "بنك القاهرة",
            "البنك الزراعي المصري",
            "بنك الإسكندرية",
        ],
        Security => &["وزارة الداخلية", "القوات المسلحة", "وزارة الدفاع"],
    }
}
