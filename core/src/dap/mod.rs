//! The Debug Adapter Protocol as the engine sees it: Content-Length framing, the
//! request/response/event envelope (read from the message text by a scan of its
//! top-level keys), the capabilities the engine advertises and errors that carry
//! blame.

pub mod capabilities;
pub mod error;
pub mod framing;
pub mod json;
pub mod message;
pub mod raw;
pub mod surrogates;
