//! What a read document turns into: the Flow A `data` object (Arabic, the reference
//! contract) and the Flow B `data` object (ISO dates, English `_en` fields), as
//! specified in docs/interface.md §2.2 and §2.3.
//!
//! The synthetic generator fills these from its ground truth (the expected output of
//! a document) and the pipeline fills them from what it reads, so both meet here.

pub mod build;
mod flow_a;
mod flow_b;

pub use build::build;
pub use flow_a::FlowAFields;
pub use flow_b::{
    FlowBCarLicence, FlowBData, FlowBDriverLicence, FlowBNationalId, FlowBPassport,
    FlowBResidencePermit,
};
