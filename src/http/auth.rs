//! Who is calling, and through which flow.
//!
//! Flow A sends `APIKEY: <key>`; Flow B sends `Authorization: Bearer <key>` on the
//! same paths. A request carrying `APIKEY` is Flow A even if it also has a bearer
//! token, since Flow A is the reference contract.

use axum::http::{HeaderMap, header};

use super::error::ApiError;
use crate::keys::{KeyId, KeyRing};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Upload answers an id; the result is read with ReadImage.
    A,
    /// Upload answers the result itself.
    B,
}

#[derive(Debug, Clone, Copy)]
pub struct Caller {
    pub key: KeyId,
    pub flow: Flow,
}

pub fn authenticate(headers: &HeaderMap, keys: &KeyRing) -> Result<Caller, ApiError> {
    let (presented, flow) = if let Some(value) = headers.get("apikey") {
        (
            value.to_str().map_err(|_| ApiError::Unauthorized)?.trim(),
            Flow::A,
        )
    } else if let Some(value) = headers.get(header::AUTHORIZATION) {
        let value = value.to_str().map_err(|_| ApiError::Unauthorized)?.trim();
        let (scheme, token) = value.split_once(' ').ok_or(ApiError::Unauthorized)?;
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(ApiError::Unauthorized);
        }
        (token.trim(), Flow::B)
    } else {
        return Err(ApiError::Unauthorized);
    };
    if presented.is_empty() {
        return Err(ApiError::Unauthorized);
    }
    let key = keys.authenticate(presented).ok_or(ApiError::Unauthorized)?;
    Ok(Caller { key, flow })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn ring() -> KeyRing {
        let mut ring = KeyRing::new();
        ring.add(KeyId::of_key("secret"), 1);
        ring
    }

    fn headers(name: &'static str, value: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(name, HeaderValue::from_static(value));
        headers
    }

    #[test]
    fn picks_the_flow_from_the_header() {
        let caller = authenticate(&headers("APIKEY", "secret"), &ring()).unwrap();
        assert_eq!(caller.flow, Flow::A);
        let caller = authenticate(&headers("authorization", "Bearer secret"), &ring()).unwrap();
        assert_eq!(caller.flow, Flow::B);
    }

    #[test]
    fn rejects_missing_wrong_and_malformed_keys() {
        for (name, value) in [
            ("apikey", "nope"),
            ("apikey", ""),
            ("authorization", "Basic secret"),
            ("authorization", "Bearer"),
            ("x-other", "secret"),
        ] {
            assert!(
                authenticate(&headers(name, value), &ring()).is_err(),
                "{name}: {value}"
            );
        }
    }
}
