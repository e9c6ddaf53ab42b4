//! The OpenAPI 3 document, generated from the handlers' annotations and from the
//! record types themselves (their serialized field names), so it cannot drift from
//! what the server answers.

use serde::Serialize;
use utoipa::openapi::path::{HttpMethod, OperationBuilder, PathItem};
use utoipa::openapi::schema::{
    ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type,
};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::tag::TagBuilder;
use utoipa::openapi::{ContentBuilder, RefOr, ResponseBuilder, Server};
use utoipa::{Modify, OpenApi, PartialSchema, ToSchema};

use super::bodies::{FlowAData, FlowBAnswer, FlowBError, OverlayBody, ReadAnswer, UploadAccepted};
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
        super::read_image::read_image,
        super::ops::healthz,
        super::ops::readyz,
        super::ops::metrics,
        super::ops::openapi,
    ),
    components(schemas(ErrorBody, UploadForm, UploadAnswer, UploadAccepted, ReadAnswer, FlowAData, FlowBAnswer, FlowBError, OverlayBody, Health)),
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

/// The document as JSON, with the API paths placed under `prefix`, and the demo
/// page's routes when it is served.
pub fn document(prefix: &str, demo: bool) -> String {
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
    if demo {
        add_demo_routes(&mut doc);
    }
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

/// The demo page's routes: each answers GET with its HTML, script or style sheet.
fn add_demo_routes(doc: &mut utoipa::openapi::OpenApi) {
    for route in &super::demo::ROUTES {
        let answer = ResponseBuilder::new()
            .description(route.description)
            .content(
                route.content_type,
                ContentBuilder::new().schema(Some(string_schema())).build(),
            );
        let operation = OperationBuilder::new()
            .tag("demo")
            .summary(Some(route.description))
            .response("200", answer);
        doc.paths.paths.insert(
            route.path.to_owned(),
            PathItem::new(HttpMethod::Get, operation),
        );
    }
    doc.tags.get_or_insert_with(Vec::new).push(
        TagBuilder::new()
            .name("demo")
            .description(Some("the demo page (off with --no-demo)"))
            .build(),
    );
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
            .property("overlay", overlay_ref())
            .into()
    }
}

impl ToSchema for ReadAnswer<'_> {
    fn name() -> std::borrow::Cow<'static, str> {
        "ReadAnswer".into()
    }
}

/// The upload's multipart form: one part, `file`, required.
#[derive(ToSchema)]
#[allow(dead_code)] // only its schema is used
pub struct UploadForm {
    /// The image: JPEG, PNG or PDF, at most 10,485,760 bytes.
    #[schema(format = Binary, content_media_type = "application/octet-stream")]
    file: String,
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

impl PartialSchema for FlowBAnswer<'_> {
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
                ArrayBuilder::new().items(string_schema()),
            )
            .required("low_confidence_fields")
            .property("overlay", overlay_ref())
            .into()
    }
}

impl ToSchema for FlowBAnswer<'_> {
    fn name() -> std::borrow::Cow<'static, str> {
        "FlowBAnswer".into()
    }
}

/// The `overlay` of an answer: present only when the upload asked for it.
fn overlay_ref() -> RefOr<Schema> {
    OneOfBuilder::new()
        .item(utoipa::openapi::Ref::from_schema_name("Overlay"))
        .description(Some(
            "Only when the upload sent `overlay=true`: the rectified card and the box of every line read.",
        ))
        .into()
}

impl PartialSchema for OverlayBody<'_> {
    fn schema() -> RefOr<Schema> {
        let integer = || {
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(0))
        };
        let names = |description: &str| {
            ArrayBuilder::new()
                .items(string_schema())
                .description(Some(description))
        };
        let field = ObjectBuilder::new()
            .schema_type(Type::Object)
            .property(
                "key",
                string_schema().description(Some(
                    "the layout's field key (layouts/<kind>.toml), e.g. first_name",
                )),
            )
            .required("key")
            .property(
                "flow_a",
                names("the Flow A fields whose value rests on this line (may be empty)"),
            )
            .required("flow_a")
            .property(
                "flow_b",
                names("the Flow B fields whose value rests on this line"),
            )
            .required("flow_b")
            .property(
                "confidence",
                ObjectBuilder::new()
                    .schema_type(Type::Number)
                    .minimum(Some(0.0))
                    .maximum(Some(1.0))
                    .description(Some(
                        "confidence of the field read from this line; 0 when what was read was not kept",
                    )),
            )
            .required("confidence")
            .property(
                "box",
                ArrayBuilder::new()
                    .items(integer())
                    .min_items(Some(4))
                    .max_items(Some(4))
                    .description(Some(
                        "[x0, y0, x1, y1] in the image's pixels, x1 and y1 exclusive: where the line was found and read",
                    )),
            )
            .required("box");
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some(
                "The rectified card as the pipeline read it, with each line's box drawn in the colour of its confidence (green at least 0.8, amber 0.5 to 0.8, red under 0.5), and the boxes.",
            ))
            .property(
                "image",
                string_schema().description(Some("data:image/jpeg;base64,...")),
            )
            .required("image")
            .property("width", integer())
            .required("width")
            .property("height", integer())
            .required("height")
            .property("fields", ArrayBuilder::new().items(field))
            .required("fields")
            .into()
    }
}

impl ToSchema for OverlayBody<'_> {
    fn name() -> std::borrow::Cow<'static, str> {
        "Overlay".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_lists_every_route_under_its_prefix() {
        let doc: serde_json::Value =
            serde_json::from_str(&document("/api/v2/SignMeAPI", true)).unwrap();
        assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
        let paths = doc["paths"].as_object().unwrap();
        for path in [
            "/api/v2/SignMeAPI/uploadImage",
            "/api/v2/SignMeAPI/ReadImage",
            "/healthz",
            "/readyz",
            "/metrics",
            "/openapi.json",
            "/",
            "/demo",
            "/demo/demo.js",
            "/demo/demo.css",
        ] {
            assert!(paths.contains_key(path), "{path}");
        }
        let page = &paths["/"]["get"]["responses"]["200"]["content"];
        assert!(page.get("text/html; charset=utf-8").is_some(), "{page}");
        let without: serde_json::Value =
            serde_json::from_str(&document("/api/v2/SignMeAPI", false)).unwrap();
        assert!(without["paths"].get("/demo").is_none());
        let data = &doc["components"]["schemas"]["FlowAData"]["properties"];
        assert!(data.get("national_ID").is_some());
        assert!(data.get("releseCity").is_some());
    }

    #[test]
    fn the_overlay_is_documented_where_it_is_asked_for_and_answered() {
        let doc: serde_json::Value = serde_json::from_str(&document("/p", false)).unwrap();
        let upload = &doc["paths"]["/p/uploadImage"]["post"]["parameters"];
        let names: Vec<&str> = upload
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["ID_type", "overlay"]);
        let schemas = &doc["components"]["schemas"];
        for answer in ["ReadAnswer", "FlowBAnswer"] {
            let overlay = &schemas[answer]["properties"]["overlay"];
            assert_eq!(
                overlay["oneOf"][0]["$ref"], "#/components/schemas/Overlay",
                "{answer}"
            );
            let required = schemas[answer]["required"].as_array().unwrap();
            assert!(!required.contains(&"overlay".into()), "{answer}");
        }
        let overlay = &schemas["Overlay"];
        let box_ = &overlay["properties"]["fields"]["items"]["properties"]["box"];
        assert_eq!(
            (box_["minItems"].as_u64(), box_["maxItems"].as_u64()),
            (Some(4), Some(4))
        );
        // Every property an overlay serializes is documented.
        let picture = crate::pipeline::Overlay::draw(
            &image::GrayImage::new(4, 4),
            vec![crate::pipeline::OverlayField {
                key: "k".into(),
                flow_a: Vec::new(),
                flow_b: Vec::new(),
                confidence: 1.0,
                bounds: [0, 0, 2, 2],
            }],
        );
        let answered =
            serde_json::to_value(super::super::bodies::OverlayBody::new(&picture)).unwrap();
        for (name, value) in answered.as_object().unwrap() {
            assert!(overlay["properties"].get(name).is_some(), "{name}");
            if name == "fields" {
                for field in value[0].as_object().unwrap().keys() {
                    let fields = &overlay["properties"]["fields"]["items"]["properties"];
                    assert!(fields.get(field).is_some(), "{field}");
                }
            }
        }
    }
}
