//! Shared by the HTTP tests: a test double of the document pipeline, a server
//! started in-process on an ephemeral port, and a client that insists every answer
//! is JSON.
//!
//! The double is driven by the uploaded bytes: after a PNG signature the file holds
//! `key=value;` directives, e.g. `delay=300;fail=NO_DOCUMENT_FOUND;`.

#![allow(dead_code)] // each test binary uses a different part of this module

pub mod redis_server;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use hawiya::domain::DocumentKind;
use hawiya::http::{Server, Settings};
use hawiya::pipeline::{ExtractError, Extraction, Extractor, Overlay, OverlayField};
use hawiya::record::{FlowAFields, FlowBCarLicence, FlowBData, FlowBNationalId};
use reqwest::multipart::{Form, Part};
use serde_json::Value;

pub const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";

/// A PNG-signed file carrying directives for the double.
pub fn image(directives: &str) -> Vec<u8> {
    let mut bytes = PNG.to_vec();
    bytes.extend_from_slice(directives.as_bytes());
    bytes
}

#[derive(Default)]
pub struct FakePipeline {
    pub calls: AtomicUsize,
    pub finished: AtomicUsize,
    pub not_ready: AtomicBool,
    /// The kinds each call accepted.
    pub accepted: parking_lot::Mutex<Vec<Vec<DocumentKind>>>,
    /// Extractions asked for their overlay.
    pub overlays_asked: AtomicUsize,
    /// Times each file was answered `Overloaded`.
    pub overloads: parking_lot::Mutex<std::collections::HashMap<Vec<u8>, usize>>,
}

impl Extractor for FakePipeline {
    fn extract(
        &self,
        bytes: &[u8],
        accepted: &[DocumentKind],
        overlay: bool,
    ) -> Result<Extraction, ExtractError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.accepted.lock().push(accepted.to_vec());
        if overlay {
            self.overlays_asked.fetch_add(1, Ordering::SeqCst);
        }
        let text = String::from_utf8_lossy(&bytes[PNG.len().min(bytes.len())..]).into_owned();
        let mut result = Ok(());
        for directive in text.split(';') {
            match directive.split_once('=') {
                Some(("delay", ms)) => {
                    std::thread::sleep(Duration::from_millis(ms.parse().unwrap()))
                }
                Some(("fail", reason)) => {
                    result = Err(match reason {
                        "NO_DOCUMENT_FOUND" => ExtractError::NoDocumentFound,
                        "IMAGE_TOO_BLURRY" => ExtractError::TooBlurry,
                        "IMAGE_TOO_SMALL" => ExtractError::ImageTooSmall(
                            "the card is 150 pixels wide in it; at least 200 are needed".into(),
                        ),
                        "WRONG_ID_TYPE" => ExtractError::WrongKind {
                            found: DocumentKind::Passport,
                        },
                        "INTERNAL_ERROR" => ExtractError::Internal("model fault".into()),
                        other => panic!("unknown failure {other}"),
                    })
                }
                Some(("panic", _)) => panic!("the double was told to panic"),
                Some(("overloaded", times)) => {
                    let mut overloads = self.overloads.lock();
                    let count = overloads.entry(bytes.to_vec()).or_default();
                    if *count < times.parse().unwrap() {
                        *count += 1;
                        return Err(ExtractError::Overloaded);
                    }
                }
                _ => {}
            }
        }
        self.finished.fetch_add(1, Ordering::SeqCst);
        result.map(|()| Extraction {
            overlay: overlay.then(picture),
            ..extraction(accepted)
        })
    }

    fn is_ready(&self) -> bool {
        !self.not_ready.load(Ordering::SeqCst)
    }
}

/// A car licence when the caller accepts car licences and no National ID (Flow B's
/// `ID_type=3`), else a National ID front.
fn extraction(accepted: &[DocumentKind]) -> Extraction {
    if accepted.contains(&DocumentKind::CarLicenceFront)
        && !accepted.contains(&DocumentKind::NidFront)
    {
        return Extraction {
            kind: DocumentKind::CarLicenceFront,
            flow_a: FlowAFields {
                platenumber: "ق ن ط 123".into(),
                ..Default::default()
            },
            flow_b: FlowBData::CarLicence(FlowBCarLicence {
                plate_number: "ق ن ط 123".into(),
                vehicle_year: "2019".into(),
                ..Default::default()
            }),
            confidence: 0.93,
            field_confidence: BTreeMap::new(),
            low_confidence_fields: vec!["engine_number".into()],
            timings: Vec::new(),
            overlay: None,
        };
    }
    Extraction {
        kind: DocumentKind::NidFront,
        flow_a: FlowAFields {
            firstname: "أحمد".into(),
            lastname: "محمد علي".into(),
            national_ID: "29001011234567".into(),
            birthday: "01/01/1990".into(),
            gender: "ذكر".into(),
            city: "القاهرة".into(),
            address1: "10 شارع النيل".into(),
            ..Default::default()
        },
        flow_b: FlowBData::NationalId(FlowBNationalId {
            national_id: "29001011234567".into(),
            full_name: "أحمد محمد علي".into(),
            full_name_en: "Ahmed Mohamed Aly".into(),
            birth_date: "1990-01-01".into(),
            gender: "Male".into(),
            ..Default::default()
        }),
        confidence: 0.97,
        field_confidence: BTreeMap::new(),
        low_confidence_fields: Vec::new(),
        timings: Vec::new(),
        overlay: None,
    }
}

/// Size of the double's overlay picture.
pub const PICTURE_SIZE: (u32, u32) = (100, 63);

/// The double's overlay: a plain grey card with one box, drawn by the real code.
fn picture() -> Overlay {
    let (width, height) = PICTURE_SIZE;
    let card = image::GrayImage::from_pixel(width, height, image::Luma([200]));
    Overlay::draw(
        &card,
        vec![OverlayField {
            key: "national_id".into(),
            flow_a: vec!["birthday".into(), "gender".into(), "national_ID".into()],
            flow_b: vec!["birth_date".into(), "gender".into(), "national_id".into()],
            confidence: 0.97,
            bounds: [10, 40, 90, 52],
        }],
    )
}

pub const KEY: &str = "test-key-one";
pub const OTHER_KEY: &str = "test-key-two";
pub const PREFIX: &str = "/api/v2/SignMeAPI";

/// Settings for a test server: ephemeral port, two keys, fast timings.
pub fn settings(dir: &std::path::Path) -> Settings {
    let mut settings = Settings::new(dir);
    settings.addr = "127.0.0.1:0".parse().unwrap();
    settings.api_keys = vec![KEY.into(), OTHER_KEY.into()];
    settings.free_credits = 1000;
    settings.workers = 8;
    settings
}

pub struct TestServer {
    pub server: Option<Server>,
    pub base: String,
    pub client: reqwest::Client,
    pub pipeline: Arc<FakePipeline>,
    pub dir: tempfile::TempDir,
}

impl TestServer {
    pub async fn start(configure: impl FnOnce(&mut Settings)) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let mut settings = settings(dir.path());
        configure(&mut settings);
        let pipeline = Arc::new(FakePipeline::default());
        TestServer::start_in(dir, settings, pipeline).await
    }

    /// A server reading with `extractor` instead of the double (`pipeline` is then
    /// an idle double).
    pub async fn start_with(
        configure: impl FnOnce(&mut Settings),
        extractor: Arc<dyn Extractor>,
    ) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let mut settings = settings(dir.path());
        configure(&mut settings);
        TestServer::serve(dir, settings, extractor, Arc::new(FakePipeline::default())).await
    }

    pub async fn start_in(
        dir: tempfile::TempDir,
        settings: Settings,
        pipeline: Arc<FakePipeline>,
    ) -> TestServer {
        TestServer::serve(dir, settings, pipeline.clone(), pipeline).await
    }

    async fn serve(
        dir: tempfile::TempDir,
        settings: Settings,
        extractor: Arc<dyn Extractor>,
        pipeline: Arc<FakePipeline>,
    ) -> TestServer {
        let server = Server::start(settings, Some(extractor)).await.unwrap();
        let base = format!("http://{}", server.local_addr());
        TestServer {
            server: Some(server),
            base,
            client: reqwest::Client::new(),
            pipeline,
            dir,
        }
    }

    pub async fn shutdown(&mut self) {
        self.server.take().unwrap().shutdown().await.unwrap();
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Flow A upload (header APIKEY) of `bytes` as part `file`.
    pub async fn upload(&self, key: &str, id_type: Option<&str>, bytes: Vec<u8>) -> Answer {
        self.upload_part(Some(("APIKEY", key.to_owned())), id_type, "file", bytes)
            .await
    }

    /// Flow B upload (Authorization: Bearer).
    pub async fn upload_b(&self, key: &str, id_type: Option<&str>, bytes: Vec<u8>) -> Answer {
        self.upload_part(
            Some(("Authorization", format!("Bearer {key}"))),
            id_type,
            "file",
            bytes,
        )
        .await
    }

    pub async fn upload_part(
        &self,
        auth: Option<(&str, String)>,
        id_type: Option<&str>,
        part: &str,
        bytes: Vec<u8>,
    ) -> Answer {
        let query = id_type.map(|id_type| format!("ID_type={id_type}"));
        self.post_file(auth, query.as_deref(), part, bytes).await
    }

    /// Flow A upload with a query string, e.g. `ID_type=0&overlay=true`.
    pub async fn upload_query(&self, key: &str, query: &str, bytes: Vec<u8>) -> Answer {
        self.post_file(Some(("APIKEY", key.to_owned())), Some(query), "file", bytes)
            .await
    }

    /// Flow B upload with a query string.
    pub async fn upload_b_query(&self, key: &str, query: &str, bytes: Vec<u8>) -> Answer {
        let auth = ("Authorization", format!("Bearer {key}"));
        self.post_file(Some(auth), Some(query), "file", bytes).await
    }

    async fn post_file(
        &self,
        auth: Option<(&str, String)>,
        query: Option<&str>,
        part: &str,
        bytes: Vec<u8>,
    ) -> Answer {
        let mut url = self.url(&format!("{PREFIX}/uploadImage"));
        if let Some(query) = query {
            url.push('?');
            url.push_str(query);
        }
        let form = Form::new().part(
            part.to_owned(),
            Part::bytes(bytes)
                .file_name("card.png")
                .mime_str("image/png")
                .unwrap(),
        );
        let mut request = self.client.post(url).multipart(form);
        if let Some((name, value)) = auth {
            request = request.header(name, value);
        }
        Answer::of(request.send().await.unwrap()).await
    }

    /// Flow A read.
    pub async fn read(&self, key: &str, id: &str, blocked: &str) -> Answer {
        let url = self.url(&format!("{PREFIX}/ReadImage?id={id}&isBlocked={blocked}"));
        let response = self
            .client
            .get(url)
            .header("APIKEY", key)
            .send()
            .await
            .unwrap();
        Answer::of(response).await
    }

    /// GET `path` without a key.
    pub async fn get(&self, path: &str) -> Answer {
        Answer::of(self.client.get(self.url(path)).send().await.unwrap()).await
    }

    /// The Prometheus text of `/metrics`.
    pub async fn metrics(&self) -> String {
        let answer = self.client.get(self.url("/metrics")).send().await.unwrap();
        assert_eq!(answer.status(), 200);
        answer.text().await.unwrap()
    }

    /// POST `path` without a key or a body.
    pub async fn post(&self, path: &str) -> Answer {
        Answer::of(self.client.post(self.url(path)).send().await.unwrap()).await
    }
}

/// An answer whose body was checked to be JSON.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Answer {
    pub async fn of(response: reqwest::Response) -> Answer {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let content_type = headers
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default();
        let text = response.text().await.unwrap();
        assert!(
            content_type.starts_with("application/json"),
            "status {status}: content-type {content_type:?}, body {text:?}"
        );
        let body: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("status {status}: body is not JSON ({e}): {text:?}"));
        Answer {
            status,
            headers,
            body,
        }
    }

    /// Asserts an error answer of the shape {code, message, reason}.
    pub fn assert_error(&self, status: u16, reason: &str) {
        assert_eq!(self.status, status, "{:?}", self.body);
        assert_eq!(self.body["code"], status, "{:?}", self.body);
        assert!(self.body["message"].as_str().is_some_and(|m| !m.is_empty()));
        assert_eq!(self.body["reason"], reason, "{:?}", self.body);
    }

    pub fn credits(&self) -> u64 {
        self.headers["x-credits-remaining"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap()
    }

    pub fn id(&self) -> String {
        assert_eq!(self.status, 200, "{:?}", self.body);
        self.body["id"].as_str().expect("id is a string").to_owned()
    }
}
