//! Who is calling: bearer tokens (optionally limited to projects) and short-lived HMAC-signed
//! stream tokens for `EventSource` and WebSocket clients, which cannot send headers.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::config::TokenConfig;
use crate::error::ApiError;

type HmacSha256 = Hmac<Sha256>;

/// What a caller may see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Every project.
    All,
    /// Only these projects.
    Projects(Vec<String>),
    /// Only this session's event stream (a stream token).
    Stream {
        /// The session.
        session_id: String,
    },
}

impl Scope {
    /// Whether sessions of `project_id` are visible.
    pub fn sees_project(&self, project_id: &str) -> bool {
        match self {
            Scope::All => true,
            Scope::Projects(projects) => projects.iter().any(|p| p == project_id),
            Scope::Stream { .. } => false,
        }
    }
}

/// The configured bearer tokens.
#[derive(Debug, Clone)]
pub struct Tokens {
    tokens: Vec<TokenConfig>,
}

impl Tokens {
    /// Accepts these tokens.
    pub fn new(tokens: Vec<TokenConfig>) -> Self {
        Self { tokens }
    }

    /// The scope of a bearer token, or 401.
    pub fn check(&self, presented: &str) -> Result<Scope, ApiError> {
        for token in &self.tokens {
            if bool::from(token.token.as_bytes().ct_eq(presented.as_bytes())) {
                return Ok(match &token.projects {
                    None => Scope::All,
                    Some(projects) => Scope::Projects(projects.clone()),
                });
            }
        }
        Err(ApiError::unauthorized("invalid bearer token"))
    }
}

/// `len` random bytes from the operating system (a UUID v7's random part when it has none).
fn random_bytes(len: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; len];
    if getrandom::fill(&mut bytes).is_err() {
        bytes = std::iter::repeat_with(|| *uuid::Uuid::now_v7().as_bytes())
            .take(len / 16 + 1)
            .flatten()
            .take(len)
            .collect();
    }
    bytes
}

/// A random bearer token (32 bytes, base64url).
pub fn random_token() -> String {
    URL_SAFE_NO_PAD.encode(random_bytes(32))
}

/// Issues and checks stream tokens: `base64url(session_id "\n" expiry) "." base64url(hmac)`.
#[derive(Clone)]
pub struct StreamTokens {
    key: Vec<u8>,
    ttl_secs: u64,
}

impl std::fmt::Debug for StreamTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamTokens")
            .field("ttl_secs", &self.ttl_secs)
            .finish_non_exhaustive()
    }
}

/// A freshly issued stream token.
#[derive(Debug, Clone)]
pub struct IssuedToken {
    /// The token.
    pub token: String,
    /// When it stops being accepted.
    pub expires_at: DateTime<Utc>,
}

impl StreamTokens {
    /// Signs with `key`; tokens live `ttl_secs`.
    pub fn new(key: Vec<u8>, ttl_secs: u64) -> Self {
        Self { key, ttl_secs }
    }

    /// A random 32-byte key.
    pub fn random_key() -> Vec<u8> {
        random_bytes(32)
    }

    /// A token for `session_id`, valid from now for the configured lifetime.
    pub fn issue(&self, session_id: &str) -> IssuedToken {
        let ttl = i64::try_from(self.ttl_secs).unwrap_or(i64::MAX);
        let expires_at = Utc::now() + chrono::Duration::seconds(ttl);
        IssuedToken {
            token: self.sign(session_id, expires_at.timestamp()),
            expires_at,
        }
    }

    /// A token for `session_id` expiring at the Unix time `expires`.
    pub fn sign(&self, session_id: &str, expires: i64) -> String {
        let claims = format!("{session_id}\n{expires}");
        let mac = self.mac(claims.as_bytes());
        format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(claims.as_bytes()),
            URL_SAFE_NO_PAD.encode(mac)
        )
    }

    /// Checks a token for `session_id`: signature, session and expiry.
    pub fn verify(&self, token: &str, session_id: &str) -> Result<(), ApiError> {
        let invalid = || ApiError::unauthorized("invalid stream token");
        let (claims_b64, mac_b64) = token.split_once('.').ok_or_else(invalid)?;
        let claims = URL_SAFE_NO_PAD.decode(claims_b64).map_err(|_| invalid())?;
        let mac = URL_SAFE_NO_PAD.decode(mac_b64).map_err(|_| invalid())?;
        let mut check = HmacSha256::new_from_slice(&self.key).map_err(|_| invalid())?;
        check.update(&claims);
        check.verify_slice(&mac).map_err(|_| invalid())?;
        let claims = String::from_utf8(claims).map_err(|_| invalid())?;
        let (sid, expires) = claims.split_once('\n').ok_or_else(invalid)?;
        let expires: i64 = expires.parse().map_err(|_| invalid())?;
        if sid != session_id {
            return Err(ApiError::unauthorized(
                "stream token was issued for another session",
            ));
        }
        if Utc::now().timestamp() >= expires {
            return Err(ApiError::unauthorized("stream token expired"));
        }
        Ok(())
    }

    fn mac(&self, data: &[u8]) -> Vec<u8> {
        match HmacSha256::new_from_slice(&self.key) {
            Ok(mut mac) => {
                mac.update(data);
                mac.finalize().into_bytes().to_vec()
            }
            // HMAC takes keys of any length; this arm is never taken.
            Err(_) => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_verify_only_for_their_session_and_lifetime() {
        let tokens = StreamTokens::new(b"k".to_vec(), 60);
        let issued = tokens.issue("s1");
        assert!(tokens.verify(&issued.token, "s1").is_ok());
        assert!(tokens.verify(&issued.token, "s2").is_err());
        let expired = tokens.sign("s1", Utc::now().timestamp() - 1);
        assert!(tokens.verify(&expired, "s1").is_err());
        let other_key = StreamTokens::new(b"other".to_vec(), 60);
        assert!(other_key.verify(&issued.token, "s1").is_err());
        assert!(tokens.verify("garbage", "s1").is_err());
        assert!(tokens.verify("a.b", "s1").is_err());
    }

    #[test]
    fn bearer_tokens_carry_their_scope() {
        let tokens = Tokens::new(vec![
            TokenConfig {
                token: "all".into(),
                projects: None,
            },
            TokenConfig {
                token: "p".into(),
                projects: Some(vec!["p1".into()]),
            },
        ]);
        assert_eq!(tokens.check("all").ok(), Some(Scope::All));
        let scope = tokens.check("p").unwrap();
        assert!(scope.sees_project("p1"));
        assert!(!scope.sees_project("p2"));
        assert!(tokens.check("nope").is_err());
    }
}
