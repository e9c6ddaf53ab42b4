//! Vocabulary the identity generator draws from: names, places, jobs, vehicles and
//! foreign nationalities. Our own tables, kept small (shared/domain.md §5 lists the
//! sources used only as inspiration).

pub mod foreign;
pub mod jobs;
pub mod names;
pub mod places;
pub mod vehicles;
