//! The host names the server answers for: a request naming another (DNS rebinding) is refused.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The host names the server answers for.
pub(crate) struct Hosts {
    names: Vec<String>,
}

impl Hosts {
    pub(crate) fn new(local: SocketAddr, allowed: &[String]) -> Hosts {
        let listening = match local.ip() {
            std::net::IpAddr::V4(ip) => ip.to_string(),
            std::net::IpAddr::V6(ip) => format!("[{ip}]"),
        };
        let mut names: Vec<String> = ["127.0.0.1", "localhost", "[::1]"]
            .into_iter()
            .map(str::to_string)
            .chain([listening])
            .chain(allowed.iter().map(|host| host.to_ascii_lowercase()))
            .collect();
        names.dedup();
        Hosts { names }
    }

    /// Whether a request whose `Host` is `host` (a name, and maybe a port) is for this server.
    fn allow(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        // `[::1]:8080`, `name:8080`, or a name alone.
        let name = match host.rfind(':') {
            Some(colon) if !host[colon..].contains(']') => &host[..colon],
            _ => &host[..],
        };
        self.names.iter().any(|allowed| allowed == name)
    }
}

/// Refuses a request that does not name this server in its `Host`: 421, as a browser sends a
/// page's requests to the address it was given, under another site's name.
pub(crate) async fn check_host(
    State(hosts): State<Arc<Hosts>>,
    request: Request,
    next: Next,
) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|host| host.to_str().ok());
    match host {
        Some(host) if hosts.allow(host) => next.run(request).await,
        _ => (
            StatusCode::MISDIRECTED_REQUEST,
            "this dashboard answers only the host names it serves (see --allow-host)\n",
        )
            .into_response(),
    }
}
