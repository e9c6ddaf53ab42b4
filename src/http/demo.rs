//! The demo page at `/` and `/demo`: drop a document, see what was read, where and
//! how sure. Plain HTML, CSS and one script, embedded in the binary; the page loads
//! nothing from elsewhere (its Content-Security-Policy forbids it) and calls the API
//! as any client does: Flow A with `overlay=true`, then Flow B. Off with `--no-demo`.

use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderName, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::pipeline::overlay::UNSURE_BELOW;
use crate::pipeline::post::LOW_CONFIDENCE;

const PAGE: &str = include_str!("demo/index.html");
const SCRIPT: &str = include_str!("demo/demo.js");
const STYLE: &str = include_str!("demo/demo.css");

/// Scripts and styles from this server only; pictures also from the overlay's data
/// URL and the preview's object URL; calls to this server only.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
    style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'none'";

/// The page's routes, with the API under `prefix`.
pub fn routes<S: Clone + Send + Sync + 'static>(prefix: &str) -> Router<S> {
    let page: Arc<str> = page(prefix).into();
    let index = move || {
        let page = page.clone();
        async move { asset("text/html; charset=utf-8", page.to_string()) }
    };
    Router::new()
        .route("/", get(index.clone()))
        .route("/demo", get(index))
        .route(
            "/demo/demo.js",
            get(|| async { asset("text/javascript; charset=utf-8", SCRIPT) }),
        )
        .route(
            "/demo/demo.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE) }),
        )
}

/// The page, calling the API under `prefix`, with the confidence bands the
/// overlay is drawn in.
fn page(prefix: &str) -> String {
    PAGE.replace("{{prefix}}", &escape(prefix))
        .replace("{{review_below}}", &LOW_CONFIDENCE.to_string())
        .replace("{{unsure_below}}", &UNSURE_BELOW.to_string())
}

fn asset(content_type: &'static str, body: impl Into<axum::body::Body>) -> Response {
    let headers = [
        (header::CONTENT_TYPE, content_type),
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        // The assets change with the binary: always revalidate.
        (header::CACHE_CONTROL, "no-cache"),
    ];
    let mut response = (headers, body.into()).into_response();
    response.headers_mut().insert(
        HeaderName::from_static("x-frame-options"),
        HeaderValue::from_static("DENY"),
    );
    response
}

/// `text` safe inside an HTML attribute value.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_names_every_control_the_issue_fixes_and_loads_only_its_own_assets() {
        for id in ["api-key", "id-type", "file", "submit", "result", "error"] {
            assert!(PAGE.contains(&format!("id=\"{id}\"")), "#{id}");
        }
        for code in 0..4 {
            assert!(PAGE.contains(&format!("<option value=\"{code}\">{code}: ")));
        }
        // Every control has a label.
        for id in ["api-key", "id-type", "file"] {
            assert!(PAGE.contains(&format!("<label for=\"{id}\">")), "#{id}");
        }
        for text in [PAGE, SCRIPT, STYLE] {
            assert!(!text.contains("http://") && !text.contains("https://"));
            assert!(!text.contains("@import") && !text.contains("url("));
        }
    }

    #[test]
    fn the_page_is_filled_in_with_the_prefix_escaped_and_the_confidence_bands() {
        assert_eq!(escape("/a\"b<c>&"), "/a&quot;b&lt;c&gt;&amp;");
        let page = page("/ocr");
        assert!(page.contains(r#"<meta name="hawiya-prefix" content="/ocr">"#));
        assert!(page.contains(r#"<meta name="hawiya-review-below" content="0.8">"#));
        assert!(page.contains("0.5 to 0.8: worth a look"));
        assert!(!page.contains("{{"));
    }
}
