//! Who is calling, and through which flow.
//!
//! Flow A sends `APIKEY: <key>`; Flow B sends `Authorization: Bearer <key>` on the
//! same paths. A request carrying `APIKEY` is Flow A even if it also has a bearer
//! token, since Flow A is the reference contract.

use axum::http::{HeaderMap, header};

use super::error::ApiError;
use crate::keys::{Accounts, KeyId};

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

/// The caller's key, if `accounts` knows it.
pub async fn authenticate(headers: &HeaderMap, accounts: &Accounts) -> Result<Caller, ApiError> {
    let (presented, flow) = credentials(headers)?;
    let key = accounts
        .authenticate(presented)
        .await
        .map_err(|_| ApiError::Unavailable)?
        .ok_or(ApiError::Unauthorized)?;
    Ok(Caller { key, flow })
}

/// The key presented, and the flow its header selects.
fn credentials(headers: &HeaderMap) -> Result<(&str, Flow), ApiError> {
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
    Ok((presented, flow))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(name: &'static str, value: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(name, HeaderValue::from_static(value));
        headers
    }

    #[test]
    fn picks_the_flow_from_the_header() {
        let flow_a = headers("APIKEY", " secret ");
        assert_eq!(credentials(&flow_a).unwrap(), ("secret", Flow::A));
        let flow_b = headers("authorization", "Bearer secret");
        assert_eq!(credentials(&flow_b).unwrap(), ("secret", Flow::B));
    }

    #[test]
    fn rejects_missing_and_malformed_keys() {
        for (name, value) in [
            ("apikey", ""),
            ("authorization", "Basic secret"),
            ("authorization", "Bearer"),
            ("authorization", "Bearer  "),
            ("x-other", "secret"),
        ] {
            assert!(
                credentials(&headers(name, value)).is_err(),
                "{name}: {value}"
            );
        }
    }
}
