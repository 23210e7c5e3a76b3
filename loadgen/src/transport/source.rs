//! Source addresses (`--source-addresses N`): spreading connections over loopback
//! addresses so that many short connections do not run out of ephemeral ports.
//!
//! A TCP connection is identified by (source address, source port, destination address,
//! destination port). Against one server port, one source address offers only the
//! ephemeral port range (28,232 ports by default), and every connection the client
//! closes first keeps its port in TIME_WAIT for 60 s: about 470 connection cycles per
//! second, sustained, exhaust them. With N > 1 and a loopback IPv4 target, connection `k`
//! is bound to `127.0.0.(1 + k % N)` before it connects (all of 127.0.0.0/8 is local on
//! Linux), so the ports of N addresses are available.

use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use tokio::net::{TcpSocket, TcpStream};

/// Largest `--source-addresses`: 127.0.0.1 to 127.0.0.250.
pub const MAX_SOURCE_ADDRESSES: usize = 250;

/// The local address connection `k` binds to before connecting to `target` when the run
/// uses `n` source addresses: `127.0.0.(1 + k % n)` for a loopback IPv4 target and
/// `n > 1`; `None` (the kernel chooses, as without the option) otherwise.
pub fn source_address(target: SocketAddr, k: usize, n: usize) -> Option<IpAddr> {
    match target.ip() {
        IpAddr::V4(ip) if ip.is_loopback() && n > 1 => {
            let n = n.min(MAX_SOURCE_ADDRESSES);
            Some(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1 + (k % n) as u8)))
        }
        _ => None,
    }
}

/// Opens a TCP connection to `target`, first binding the socket to `local` (port 0)
/// when given. On Linux the bind sets `IP_BIND_ADDRESS_NO_PORT`, so the port is chosen
/// at connect time for the whole 4-tuple (as without a bind), not reserved at bind time
/// for the address alone.
pub async fn tcp_connect(target: SocketAddr, local: Option<IpAddr>) -> io::Result<TcpStream> {
    let Some(local) = local else {
        return TcpStream::connect(target).await;
    };
    let socket = match local {
        IpAddr::V4(_) => TcpSocket::new_v4()?,
        IpAddr::V6(_) => TcpSocket::new_v6()?,
    };
    bind_address_no_port(&socket);
    socket.bind(SocketAddr::new(local, 0))?;
    socket.connect(target).await
}

#[cfg(target_os = "linux")]
fn bind_address_no_port(socket: &TcpSocket) {
    use std::os::fd::AsRawFd;
    let one: libc::c_int = 1;
    // SAFETY: a valid socket descriptor and a c_int option value of the right size.
    // Best effort: without it the bind reserves a port per address, which still works.
    let _ = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::IPPROTO_IP,
            libc::IP_BIND_ADDRESS_NO_PORT,
            (&one as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
}

#[cfg(not(target_os = "linux"))]
fn bind_address_no_port(_socket: &TcpSocket) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_cycle_over_loopback_only() {
        let lo: SocketAddr = "127.0.0.1:8000".parse().unwrap();
        let ip = |k, n| source_address(lo, k, n).map(|a| a.to_string());
        assert_eq!(ip(0, 1), None, "one address: the kernel chooses");
        assert_eq!(ip(0, 4).as_deref(), Some("127.0.0.1"));
        assert_eq!(ip(3, 4).as_deref(), Some("127.0.0.4"));
        assert_eq!(ip(4, 4).as_deref(), Some("127.0.0.1"));
        assert_eq!(ip(249, 250).as_deref(), Some("127.0.0.250"));
        let other: SocketAddr = "10.1.2.3:8000".parse().unwrap();
        assert_eq!(source_address(other, 3, 4), None);
        let v6: SocketAddr = "[::1]:8000".parse().unwrap();
        assert_eq!(source_address(v6, 3, 4), None);
    }

    #[test]
    fn bound_connections_come_from_the_chosen_address() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let target = listener.local_addr().unwrap();
            for k in 0..3 {
                let local = source_address(target, k, 3);
                let s = tcp_connect(target, local).await.unwrap();
                let (_, peer) = listener.accept().await.unwrap();
                assert_eq!(Some(peer.ip()), local);
                assert_eq!(s.local_addr().unwrap().ip(), local.unwrap());
            }
        });
    }
}
