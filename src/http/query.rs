//! Query parameters as the reference's clients send them.

use std::collections::HashMap;

use axum::extract::Query;
use axum::http::Uri;

/// The query's parameters by name; `None` when the query cannot be parsed.
pub fn params(uri: &Uri) -> Option<HashMap<String, String>> {
    Query::<HashMap<String, String>>::try_from_uri(uri)
        .ok()
        .map(|Query(params)| params)
}

/// A boolean parameter: `true` or `false` in any case (.NET clients send `True`
/// and `False`), `false` when absent; `None` for anything else.
pub fn flag(params: &HashMap<String, String>, name: &str) -> Option<bool> {
    match params.get(name).map(|v| v.trim()) {
        None => Some(false),
        Some(v) if v.eq_ignore_ascii_case("true") => Some(true),
        Some(v) if v.eq_ignore_ascii_case("false") => Some(false),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_read_true_and_false_in_any_case_and_default_to_false() {
        let uri: Uri = "/x?a=True&b=FALSE&c=yes".parse().unwrap();
        let params = params(&uri).unwrap();
        assert_eq!(flag(&params, "a"), Some(true));
        assert_eq!(flag(&params, "b"), Some(false));
        assert_eq!(flag(&params, "c"), None);
        assert_eq!(flag(&params, "absent"), Some(false));
    }
}
