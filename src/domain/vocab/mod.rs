//! The vocabularies printed on the documents: names, places, jobs, vehicles and
//! foreign nationalities. The generator draws identities from them and the field
//! rules check readings against them, so both take them from here. Our own tables,
//! kept small (docs/domain.md §5 lists the sources used only as inspiration).

pub mod foreign;
pub mod jobs;
pub mod names;
pub mod places;
pub mod vehicles;
