//! The demo page at `/` and `/demo`: drop a document, see what was read, where and
//! how sure. Plain HTML, CSS and one script, embedded in the binary; the page loads
//! nothing from elsewhere (its Content-Security-Policy forbids it) and calls the API
//! as any client does: Flow A with `overlay=true`, then Flow B. Off with `--no-demo`.

use axum::Router;
use axum::body::Bytes;
use axum::http::header;
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

/// One route of the page.
pub struct Route {
    pub path: &'static str,
    pub content_type: &'static str,
    /// What it answers, for the OpenAPI document.
    pub description: &'static str,
    asset: Asset,
}

enum Asset {
    Page,
    Script,
    Style,
}

const HTML: &str = "text/html; charset=utf-8";

/// Every route the page adds to the server.
pub const ROUTES: [Route; 4] = [
    Route {
        path: "/",
        content_type: HTML,
        description: "The demo page: read a document and see what was read, where and how sure.",
        asset: Asset::Page,
    },
    Route {
        path: "/demo",
        content_type: HTML,
        description: "The demo page (as at /).",
        asset: Asset::Page,
    },
    Route {
        path: "/demo/demo.js",
        content_type: "text/javascript; charset=utf-8",
        description: "The demo page's script.",
        asset: Asset::Script,
    },
    Route {
        path: "/demo/demo.css",
        content_type: "text/css; charset=utf-8",
        description: "The demo page's style sheet.",
        asset: Asset::Style,
    },
];

/// The page's routes, with the API under `prefix`.
pub fn routes<S: Clone + Send + Sync + 'static>(prefix: &str) -> Router<S> {
    let page = Bytes::from(page(prefix));
    ROUTES.iter().fold(Router::new(), |router, route| {
        let body = match route.asset {
            Asset::Page => page.clone(),
            Asset::Script => Bytes::from_static(SCRIPT.as_bytes()),
            Asset::Style => Bytes::from_static(STYLE.as_bytes()),
        };
        let content_type = route.content_type;
        router.route(
            route.path,
            get(move || {
                let body = body.clone();
                async move { asset(content_type, body) }
            }),
        )
    })
}

/// The page, calling the API under `prefix`, with the confidence bands the
/// overlay is drawn in.
fn page(prefix: &str) -> String {
    PAGE.replace("{{prefix}}", &escape(prefix))
        .replace("{{review_below}}", &LOW_CONFIDENCE.to_string())
        .replace("{{unsure_below}}", &UNSURE_BELOW.to_string())
}

fn asset(content_type: &'static str, body: Bytes) -> Response {
    let headers = [
        (header::CONTENT_TYPE, content_type),
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "no-referrer"),
        // The assets change with the binary: always revalidate.
        (header::CACHE_CONTROL, "no-cache"),
    ];
    (headers, body).into_response()
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
