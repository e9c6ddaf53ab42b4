//! Response bodies of the API, named and shaped as the reference service's.

#![allow(non_snake_case)] // Flow A field names are the reference's, misspellings included.

use base64::Engine;
use serde::Serialize;
use utoipa::ToSchema;

use super::error::ErrorBody;
use crate::domain::DocumentKind;
use crate::pipeline::Overlay;
use crate::record::{FlowAFields, FlowBData};

/// The answer to a Flow A upload (§2.1).
#[derive(Debug, Serialize, ToSchema)]
pub struct UploadAccepted {
    pub code: u16,
    /// `success`
    pub status: &'static str,
    pub message: &'static str,
    /// Digits only, sent back as `id` to ReadImage.
    pub id: String,
}

/// The `data` of a finished Flow A read (§2.2): the document's fields plus the
/// server's. Every value is a string except `urlImage`, always null since no image
/// is kept.
#[derive(Debug, Clone, Serialize)]
pub struct FlowAData {
    #[serde(flatten)]
    pub fields: FlowAFields,
    /// When the result was produced: `DD/MM/YYYY HH:MM:SS:mmm`, server local time.
    pub proccesstime: String,
    /// Server-assigned name of the upload (nothing is stored under it).
    pub imageName: String,
    /// Always empty: the image is not saved.
    pub savedImage: String,
    pub urlImage: Option<String>,
}

/// The answer to a Flow A read (§2.2). `data` is `{}` while the job is pending.
#[derive(Debug, Serialize)]
pub struct ReadAnswer<'a> {
    pub code: u16,
    pub status: &'static str,
    pub message: &'static str,
    pub data: ReadData<'a>,
    /// With the result, when the upload asked for it (an addition to §2.2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overlay: Option<OverlayBody<'a>>,
}

#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ReadData<'a> {
    Pending(serde_json::Map<String, serde_json::Value>),
    Done(&'a FlowAData),
}

/// The picture of what was read, as answered: the rectified card as a JPEG data
/// URL, its size, and the box of every line read.
#[derive(Debug, Serialize)]
pub struct OverlayBody<'a> {
    /// `data:image/jpeg;base64,...`
    pub image: String,
    #[serde(flatten)]
    pub picture: &'a Overlay,
}

impl OverlayBody<'_> {
    pub fn new(picture: &Overlay) -> OverlayBody<'_> {
        let mut image = String::from("data:image/jpeg;base64,");
        base64::engine::general_purpose::STANDARD.encode_string(&picture.jpeg, &mut image);
        OverlayBody { image, picture }
    }
}

/// The answer to a Flow B upload (§2.3).
#[derive(Debug, Serialize)]
pub struct FlowBAnswer<'a> {
    /// `success`
    pub status: &'static str,
    pub data: FlowBData,
    /// Overall confidence, 0 to 1.
    pub confidence: f32,
    /// 1 for a successful extraction.
    pub credits_used: u32,
    pub response_time_ms: u64,
    /// The kind and side found, e.g. `nid-front` (an addition to §2.3).
    pub document_type: DocumentKind,
    /// Fields read with low confidence, worth a human look (an addition to §2.3).
    pub low_confidence_fields: Vec<String>,
    /// When the upload asked for it (an addition to §2.3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overlay: Option<OverlayBody<'a>>,
}

/// A Flow B failure: the error body plus the Flow B bookkeeping fields.
#[derive(Debug, Serialize, ToSchema)]
pub struct FlowBError {
    #[serde(flatten)]
    pub error: ErrorBody,
    /// `error`
    pub status: &'static str,
    /// Always 0: §2.3 has `confidence` on every Flow B response.
    pub confidence: f32,
    /// Always 0: failed calls are not charged.
    pub credits_used: u32,
    pub response_time_ms: u64,
}

/// `DD/MM/YYYY HH:MM:SS:mmm`, the reference's `proccesstime` format.
pub fn process_time(now: chrono::DateTime<chrono::Local>) -> String {
    now.format("%d/%m/%Y %H:%M:%S:%3f").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn process_time_has_the_reference_format() {
        let when = chrono::Local
            .with_ymd_and_hms(2024, 3, 7, 9, 5, 2)
            .unwrap()
            .checked_add_signed(chrono::TimeDelta::milliseconds(42))
            .unwrap();
        assert_eq!(process_time(when), "07/03/2024 09:05:02:042");
    }

    #[test]
    fn a_finished_read_has_every_field_as_a_string_but_url_image() {
        let data = FlowAData {
            fields: FlowAFields::default(),
            proccesstime: "t".into(),
            imageName: "n.jpg".into(),
            savedImage: String::new(),
            urlImage: None,
        };
        let value = serde_json::to_value(&data).unwrap();
        let object = value.as_object().unwrap();
        assert_eq!(object.len(), 21);
        for (name, value) in object {
            if name == "urlImage" {
                assert!(value.is_null());
            } else {
                assert!(value.is_string(), "{name}");
            }
        }
    }
}
