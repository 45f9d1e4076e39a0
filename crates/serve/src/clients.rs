//! What each client holds of the server, capped at `--max-per-client`: a direct client's
//! connections, counted from accept to close; through a `--trusted-proxy`, each request the
//! proxy forwards, counted against the client its `X-Forwarded-For` names until the response's
//! body ends (an event stream holds its place as long as it is open).
//!
//! One client is one address whatever its form: an IPv4 address and its IPv4-mapped IPv6 form
//! (`::ffff:a.b.c.d`) are one client, and an IPv6 client is its /64, the smallest network a
//! host is given, since one host holds a /64's addresses at will. A forwarded request whose
//! client cannot be read (no `X-Forwarded-For`, or no address in it) counts in one bucket
//! shared by all such requests, never uncapped.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper::body::{Body as HttpBody, Frame, SizeHint};

use koth_game::cli::Guard;

/// The address a connection came from, put in each of its requests.
#[derive(Clone, Copy)]
pub(crate) struct Peer(pub IpAddr);

/// Whom a connection or a forwarded request counts against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Client {
    /// An IPv4 address, or an IPv6 /64 (its address with the last 64 bits zero).
    Net(IpAddr),
    /// Every request a trusted proxy forwards without a client address koth can read.
    Unnamed,
}

impl Client {
    /// The client at `address`: an IPv4-mapped address as its IPv4 one, an IPv6 one as its /64.
    fn at(address: IpAddr) -> Client {
        Client::Net(match address.to_canonical() {
            IpAddr::V4(v4) => IpAddr::V4(v4),
            IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from_bits(v6.to_bits() & (!0u128 << 64))),
        })
    }

    /// The client a trusted proxy names in `headers`: the last address of its last
    /// `X-Forwarded-For` (the one the proxy itself appended; the ones before it are the
    /// client's own word), else [`Client::Unnamed`]. One that does not parse is not replaced
    /// by the client's word.
    fn forwarded(headers: &HeaderMap) -> Client {
        headers
            .get_all("x-forwarded-for")
            .iter()
            .next_back()
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.rsplit(',').next())
            .and_then(address_of)
            .map_or(Client::Unnamed, Client::at)
    }
}

/// The address in one entry of `X-Forwarded-For`, which proxies write as an address alone
/// (`1.2.3.4`, `2001:db8::1`), with a port (`1.2.3.4:5678`, `[2001:db8::1]:443`), or an IPv6
/// address in brackets without one (`[2001:db8::1]`).
fn address_of(entry: &str) -> Option<IpAddr> {
    let entry = entry.trim();
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<SocketAddr>().ok().map(|at| at.ip()))
        .or_else(|| {
            let inside = entry.strip_prefix('[')?.strip_suffix(']')?;
            inside.parse::<Ipv6Addr>().ok().map(IpAddr::V6)
        })
}

/// What each client holds of the server: connections, or a trusted proxy's forwarded requests,
/// by [`Client`].
pub(crate) struct Clients {
    cap: u32,
    /// The trusted proxies' addresses, IPv4-mapped ones as IPv4.
    proxies: Vec<IpAddr>,
    held: Mutex<HashMap<Client, u32>>,
}

/// One connection or request of a client, given back when dropped.
pub(crate) struct Held {
    clients: Arc<Clients>,
    client: Option<Client>,
}

impl Clients {
    pub(crate) fn new(guard: &Guard) -> Clients {
        Clients {
            cap: guard.max_per_client,
            proxies: guard
                .trusted_proxies
                .iter()
                .map(IpAddr::to_canonical)
                .collect(),
            held: Mutex::default(),
        }
    }

    fn is_proxy(&self, peer: IpAddr) -> bool {
        self.proxies.contains(&peer.to_canonical())
    }

    /// A connection from `peer`, if its client holds fewer than the cap; a trusted proxy's is
    /// counted by the requests it forwards instead ([`cap_forwarded`]).
    pub(crate) fn enter(self: &Arc<Self>, peer: IpAddr) -> Option<Held> {
        if self.is_proxy(peer) {
            return Some(Held {
                clients: Arc::clone(self),
                client: None,
            });
        }
        self.take(Client::at(peer))
    }

    fn take(self: &Arc<Self>, client: Client) -> Option<Held> {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let count = held.entry(client).or_default();
        if *count >= self.cap {
            return None;
        }
        *count += 1;
        Some(Held {
            clients: Arc::clone(self),
            client: Some(client),
        })
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let Some(client) = self.client else { return };
        let mut held = self
            .clients
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = held.get_mut(&client) {
            *count -= 1;
            if *count == 0 {
                held.remove(&client);
            }
        }
    }
}

/// Caps the requests in flight of each client behind a trusted proxy ([`Client::forwarded`]):
/// each holds its place until its response's body ends or is dropped, so an event stream
/// counts as long as it is open. Others pass: their connections are capped as they open.
pub(crate) async fn cap_forwarded(
    State(clients): State<Arc<Clients>>,
    request: Request,
    next: Next,
) -> Response {
    let from_proxy = request
        .extensions()
        .get::<Peer>()
        .is_some_and(|peer| clients.is_proxy(peer.0));
    if !from_proxy {
        return next.run(request).await;
    }
    match clients.take(Client::forwarded(request.headers())) {
        Some(held) => next.run(request).await.map(|body| {
            Body::new(HeldBody {
                body,
                held: Some(held),
            })
        }),
        None => (
            StatusCode::TOO_MANY_REQUESTS,
            "too many requests at once from one client\n",
        )
            .into_response(),
    }
}

/// A response's body holding its client's place ([`Held`]) until its last frame is sent, or
/// until it is dropped (the client went away, the connection failed).
struct HeldBody {
    body: Body,
    held: Option<Held>,
}

impl HttpBody for HeldBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.body).poll_frame(cx);
        if matches!(polled, Poll::Ready(None | Some(Err(_)))) {
            this.held = None;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(address: &str) -> Client {
        Client::at(address.parse().unwrap())
    }

    fn forwarded(values: &[&str]) -> Client {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append("x-forwarded-for", value.parse().unwrap());
        }
        Client::forwarded(&headers)
    }

    #[test]
    fn an_ipv4_address_and_its_mapped_ipv6_form_are_one_client() {
        assert_eq!(client("203.0.113.7"), client("::ffff:203.0.113.7"));
        assert_eq!(client("203.0.113.7"), client("::ffff:cb00:7107"));
        assert_ne!(client("203.0.113.7"), client("203.0.113.8"));
        // Only the mapped form is IPv4: the deprecated compatible form `::a.b.c.d` is an IPv6
        // address of the /64 `::`.
        assert_eq!(client("::203.0.113.7"), client("::1"));
        assert_ne!(client("::203.0.113.7"), client("203.0.113.7"));
    }

    #[test]
    fn an_ipv6_client_is_its_slash_64() {
        assert_eq!(
            client("2001:db8:1:2::1"),
            client("2001:db8:1:2:ffff:ffff:ffff:ffff")
        );
        assert_eq!(client("2001:db8:1:2::1"), client("2001:db8:1:2::"));
        assert_ne!(client("2001:db8:1:2::1"), client("2001:db8:1:3::1"));
        assert_ne!(client("2001:db8:1:2::1"), client("2001:db8:0:2::1"));
        assert_eq!(
            client("2001:db8:1:2:abcd::1"),
            Client::Net("2001:db8:1:2::".parse().unwrap())
        );
    }

    #[test]
    fn a_forwarded_address_is_read_in_each_form_proxies_write() {
        let ada = client("203.0.113.7");
        for form in [
            "203.0.113.7",
            " 203.0.113.7 ",
            "203.0.113.7:5678",
            "::ffff:203.0.113.7",
            "[::ffff:203.0.113.7]:443",
            "[::ffff:203.0.113.7]",
            "198.51.100.1, 203.0.113.7",
            "198.51.100.1,203.0.113.7:80",
        ] {
            assert_eq!(forwarded(&[form]), ada, "{form}");
        }
        let six = client("2001:db8::1");
        for form in [
            "2001:db8::1",
            "[2001:db8::1]:443",
            "[2001:db8::99]",
            "2001:db8::2",
        ] {
            assert_eq!(forwarded(&[form]), six, "{form}");
        }
        // The proxy's own header is the last one.
        assert_eq!(forwarded(&["198.51.100.1", "203.0.113.7"]), ada);
    }

    #[test]
    fn a_forwarded_request_without_a_readable_address_counts_in_one_bucket() {
        for values in [
            &[][..],
            &[""],
            &["unknown"],
            &["203.0.113.7, unknown"],
            &["203.0.113.7, "],
            &["_hidden"],
            &["203.0.113.7:port"],
            &["[2001:db8::1"],
            &["203.0.113.7", "garbage"],
        ] {
            assert_eq!(forwarded(values), Client::Unnamed, "{values:?}");
        }
    }

    #[test]
    fn a_client_holds_at_most_the_cap_whatever_its_forms_until_it_gives_back() {
        let guard = Guard {
            max_per_client: 2,
            trusted_proxies: vec!["::ffff:127.0.0.1".parse().unwrap()],
            ..Guard::default()
        };
        let clients = Arc::new(Clients::new(&guard));
        let first = clients.enter("203.0.113.7".parse().unwrap()).unwrap();
        let second = clients
            .enter("::ffff:203.0.113.7".parse().unwrap())
            .unwrap();
        assert!(clients.enter("203.0.113.7".parse().unwrap()).is_none());
        assert!(clients.enter("203.0.113.8".parse().unwrap()).is_some());
        drop(first);
        assert!(
            clients
                .enter("::ffff:203.0.113.7".parse().unwrap())
                .is_some()
        );
        drop(second);
        // A trusted proxy, named in either form, is not capped by its connections.
        let proxied: Vec<Held> = (0..5)
            .map(|_| clients.enter("127.0.0.1".parse().unwrap()).unwrap())
            .collect();
        assert!(clients.is_proxy("::ffff:127.0.0.1".parse().unwrap()));
        drop(proxied);
    }
}
