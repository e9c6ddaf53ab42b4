//! The OpenAPI 3 document, generated from the handlers' annotations and from the
//! record types themselves (their serialized field names), so it cannot drift from
//! what the server answers.

use serde::Serialize;
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{RefOr, Server};
use utoipa::{Modify, OpenApi, PartialSchema, ToSchema};

use super::bodies::{FlowAData, FlowBAnswer, FlowBError, ReadAnswer, UploadAccepted};
use super::error::{ErrorBody, REASONS};
use super::ops::Health;
use crate::record::{
    FlowAFields, FlowBCarLicence, FlowBDriverLicence, FlowBNationalId, FlowBPassport,
    FlowBResidencePermit,
};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "hawiya",
        description = "Reads Egyptian identity and vehicle documents and returns the printed fields as JSON. Drop-in compatible with the SignMeAPI v2 contract (Flow A) and its single-call variant (Flow B).",
    ),
    paths(
        super::upload::upload_image,
        super::read::read_image,
        super::ops::healthz,
        super::ops::readyz,
        super::ops::metrics,
        super::ops::openapi,
    ),
    components(schemas(ErrorBody, UploadAnswer, UploadAccepted, ReadAnswer, FlowAData, FlowBAnswer, FlowBError, Health)),
    modifiers(&Security),
    tags(
        (name = "documents", description = "upload a document image and read its fields"),
        (name = "operations", description = "health, readiness, metrics"),
    ),
)]
struct ApiDoc;

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "APIKEY",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("APIKEY"))),
        );
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// The document as JSON, with the API paths placed under `prefix`.
pub fn document(prefix: &str) -> String {
    let mut doc = ApiDoc::openapi();
    let api_paths = ["/uploadImage", "/ReadImage"];
    doc.paths.paths = std::mem::take(&mut doc.paths.paths)
        .into_iter()
        .map(|(path, item)| {
            if api_paths.contains(&path.as_str()) {
                (format!("{prefix}{path}"), item)
            } else {
                (path, item)
            }
        })
        .collect();
    doc.servers = Some(vec![Server::new("/")]);
    let reasons: Vec<String> = REASONS
        .iter()
        .map(|(reason, status)| format!("`{reason}` ({status})"))
        .collect();
    let description = doc.info.description.get_or_insert_with(String::new);
    description.push_str("\n\nError reasons: ");
    description.push_str(&reasons.join(", "));
    description.push('.');
    serde_json::to_string_pretty(&doc).expect("the OpenAPI document serializes")
}

fn string_schema() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

/// An object whose properties are the fields `T` serializes, all strings.
fn all_strings<T: Serialize + Default>(description: &str) -> ObjectBuilder {
    let value = serde_json::to_value(T::default()).expect("records serialize");
    let mut object = ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some(description));
    for name in value.as_object().expect("records are objects").keys() {
        object = object.property(name, string_schema()).required(name);
    }
    object
}

impl PartialSchema for FlowAData {
    fn schema() -> RefOr<Schema> {
        all_strings::<FlowAFields>(
            "The fields of §2.2: every value a string (\"\" when empty), except urlImage (null).",
        )
        .property(
            "proccesstime",
            string_schema().description(Some("DD/MM/YYYY HH:MM:SS:mmm")),
        )
        .required("proccesstime")
        .property("imageName", string_schema())
        .required("imageName")
        .property(
            "savedImage",
            string_schema().description(Some("always empty: nothing is saved")),
        )
        .required("savedImage")
        .property(
            "urlImage",
            ObjectBuilder::new().schema_type(SchemaType::from_iter([Type::String, Type::Null])),
        )
        .required("urlImage")
        .into()
    }
}

impl ToSchema for FlowAData {}

impl PartialSchema for ReadAnswer<'_> {
    fn schema() -> RefOr<Schema> {
        let pending = ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some("{} while the image is processed"));
        ObjectBuilder::new()
            .property("code", ObjectBuilder::new().schema_type(Type::Integer))
            .required("code")
            .property("status", string_schema())
            .required("status")
            .property("message", string_schema())
            .required("message")
            .property(
                "data",
                OneOfBuilder::new().item(pending).item(FlowAData::schema()),
            )
            .required("data")
            .into()
    }
}

impl ToSchema for ReadAnswer<'_> {
    fn name() -> std::borrow::Cow<'static, str> {
        "ReadAnswer".into()
    }
}

/// What a successful upload answers: an id in Flow A, the result in Flow B.
pub struct UploadAnswer;

impl PartialSchema for UploadAnswer {
    fn schema() -> RefOr<Schema> {
        OneOfBuilder::new()
            .item(utoipa::openapi::Ref::from_schema_name("UploadAccepted"))
            .item(utoipa::openapi::Ref::from_schema_name("FlowBAnswer"))
            .description(Some(
                "Flow A (header APIKEY): UploadAccepted. Flow B (Authorization: Bearer): FlowBAnswer.",
            ))
            .into()
    }
}

impl ToSchema for UploadAnswer {}

impl PartialSchema for FlowBAnswer {
    fn schema() -> RefOr<Schema> {
        let data = OneOfBuilder::new()
            .item(all_strings::<FlowBNationalId>("National ID (either side)"))
            .item(all_strings::<FlowBDriverLicence>("driver licence"))
            .item(all_strings::<FlowBCarLicence>("car licence (either side)"))
            .item(all_strings::<FlowBPassport>("passport"))
            .item(all_strings::<FlowBResidencePermit>("residence permit"));
        ObjectBuilder::new()
            .property("status", string_schema())
            .required("status")
            .property("data", data)
            .required("data")
            .property("confidence", ObjectBuilder::new().schema_type(Type::Number))
            .required("confidence")
            .property(
                "credits_used",
                ObjectBuilder::new().schema_type(Type::Integer),
            )
            .required("credits_used")
            .property(
                "response_time_ms",
                ObjectBuilder::new().schema_type(Type::Integer),
            )
            .required("response_time_ms")
            .property("document_type", string_schema())
            .required("document_type")
            .property(
                "low_confidence_fields",
                utoipa::openapi::schema::ArrayBuilder::new().items(string_schema()),
            )
            .required("low_confidence_fields")
            .into()
    }
}

impl ToSchema for FlowBAnswer {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_lists_every_route_under_its_prefix() {
        let doc: serde_json::Value = serde_json::from_str(&document("/api/v2/SignMeAPI")).unwrap();
        assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
        let paths = doc["paths"].as_object().unwrap();
        for path in [
            "/api/v2/SignMeAPI/uploadImage",
            "/api/v2/SignMeAPI/ReadImage",
            "/healthz",
            "/readyz",
            "/metrics",
            "/openapi.json",
        ] {
            assert!(paths.contains_key(path), "{path}");
        }
        let data = &doc["components"]["schemas"]["FlowAData"]["properties"];
        assert!(data.get("national_ID").is_some());
        assert!(data.get("releseCity").is_some());
    }
}
