//! The forge's network endpoint: which addresses a `HOST:PORT` names.
//!
//! guard-sh calls no resolver at run time (no NSS, no DNS), so it knows a
//! host's addresses only from a literal, `localhost` or `/etc/hosts`.
//! arm-build, which runs once before any trial, asks DNS for any other
//! name and writes the addresses it got into the policy, with the
//! resolvers of `/etc/resolv.conf` on port 53 so the tool can still look
//! the name up itself.

use std::net::{IpAddr, SocketAddr};

/// The addresses of `host` known without DNS: a literal, `localhost`, or
/// `/etc/hosts`.
pub fn resolve_locally(host: &str) -> Vec<IpAddr> {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = host.parse::<IpAddr>() {
        return vec![ip];
    }
    if host.eq_ignore_ascii_case("localhost") {
        return vec![
            IpAddr::from([127, 0, 0, 1]),
            IpAddr::from(std::net::Ipv6Addr::LOCALHOST),
        ];
    }
    let hosts = std::fs::read_to_string("/etc/hosts").unwrap_or_default();
    hosts
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let ip: IpAddr = words.next()?.parse().ok()?;
            words.any(|w| w.eq_ignore_ascii_case(host)).then_some(ip)
        })
        .collect()
}

/// The endpoints (`ADDRESS:PORT`) a tool that talks to `host:port` may
/// reach. A name known locally stays a name (guard-sh resolves it the same
/// way at run time). Any other name becomes the addresses `dns` gives it,
/// plus each `nameserver` of `resolv_conf` on port 53; when `dns` fails or
/// gives nothing, the name stays and guard-sh allows its port on any
/// address, and DNS (README: what is not covered).
pub fn forge_endpoints(
    host: &str,
    port: u16,
    dns: impl Fn(&str, u16) -> std::io::Result<Vec<SocketAddr>>,
    resolv_conf: &str,
) -> Vec<String> {
    let named = vec![format!("{host}:{port}")];
    if !resolve_locally(host).is_empty() {
        return named;
    }
    let Ok(addresses) = dns(host, port) else {
        return named;
    };
    if addresses.is_empty() {
        return named;
    }
    let mut endpoints: Vec<String> = addresses
        .iter()
        .map(|a| SocketAddr::new(a.ip(), port).to_string())
        .collect();
    endpoints.extend(
        resolv_conf
            .lines()
            .filter_map(|l| l.strip_prefix("nameserver"))
            .filter_map(|ns| ns.trim().parse::<IpAddr>().ok())
            .map(|ip| SocketAddr::new(ip, 53).to_string()),
    );
    endpoints.sort();
    endpoints.dedup();
    endpoints
}

/// `host:port` through the system's resolver (getaddrinfo).
pub fn system_dns(host: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
    use std::net::ToSocketAddrs;
    Ok((host, port).to_socket_addrs()?.collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_only_dns_knows_becomes_its_addresses_and_the_resolvers() {
        let dns = |_: &str, port: u16| Ok(vec![SocketAddr::from(([203, 0, 113, 5], port))]);
        let conf = "# generated\nnameserver 10.0.0.2\nnameserver ::1\nsearch example\n";
        assert_eq!(
            forge_endpoints("forge.example", 443, dns, conf),
            ["10.0.0.2:53", "203.0.113.5:443", "[::1]:53"]
        );
    }

    #[test]
    fn a_local_name_or_a_failed_lookup_stays_a_name() {
        let never = |_: &str, _: u16| -> std::io::Result<Vec<SocketAddr>> {
            Err(std::io::Error::other("no lookup expected"))
        };
        assert_eq!(
            forge_endpoints("127.0.0.1", 3000, never, ""),
            ["127.0.0.1:3000"]
        );
        assert_eq!(
            forge_endpoints("localhost", 3000, never, ""),
            ["localhost:3000"]
        );
        assert_eq!(
            forge_endpoints("forge.invalid", 443, never, "nameserver 10.0.0.2"),
            ["forge.invalid:443"]
        );
        let nothing = |_: &str, _: u16| Ok(Vec::new());
        assert_eq!(
            forge_endpoints("forge.invalid", 443, nothing, ""),
            ["forge.invalid:443"]
        );
    }
}
