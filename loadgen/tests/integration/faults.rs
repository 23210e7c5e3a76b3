//! Deliberately faulty servers show up in the integrity counters.

use crate::common;

use common::{count_cfg, faulty_echo_server, gappy_push_server, Fault};
use wsbench_loadgen::{run_echo, run_stream};

#[test]
fn dropped_echo_is_lost() {
    let server = faulty_echo_server(Fault::Drop);
    let r = run_echo(&count_cfg(server.url("/echo"), 2, 200, 32, 64)).unwrap();
    assert!(r.integrity.lost >= 1, "{:?}", r.integrity);
    assert_eq!(r.integrity.lost, 2, "one per connection: {:?}", r.integrity);
    assert_eq!(r.integrity.out_of_order, 0, "{:?}", r.integrity);
    assert_eq!(r.messages_received, 2 * 199);
}

#[test]
fn dropped_ping_pong_echo_is_lost_and_times_out() {
    let server = faulty_echo_server(Fault::Drop);
    let r = run_echo(&count_cfg(server.url("/echo"), 1, 50, 16, 1)).unwrap();
    assert!(r.integrity.lost >= 1, "{:?}", r.integrity);
    assert_eq!(r.errors.timeout, 1, "{:?}", r.errors);
}

#[test]
fn corrupted_echo_is_detected() {
    for text in [false, true] {
        let server = faulty_echo_server(Fault::Corrupt);
        let mut cfg = count_cfg(server.url("/echo"), 1, 100, 100, 8);
        cfg.text = text;
        let r = run_echo(&cfg).unwrap();
        assert!(r.integrity.corrupted >= 1, "{:?}", r.integrity);
        assert_eq!(r.integrity.lost, 0, "{:?}", r.integrity);
    }
}

#[test]
fn reordered_echo_is_detected() {
    let server = faulty_echo_server(Fault::Reorder);
    let r = run_echo(&count_cfg(server.url("/echo"), 1, 100, 16, 16)).unwrap();
    assert!(r.integrity.out_of_order >= 1, "{:?}", r.integrity);
    assert_eq!(r.integrity.lost, 0, "{:?}", r.integrity);
    assert_eq!(r.messages_received, 100);
}

#[test]
fn duplicated_echo_is_detected() {
    let server = faulty_echo_server(Fault::Duplicate);
    let r = run_echo(&count_cfg(server.url("/echo"), 1, 100, 16, 16)).unwrap();
    assert_eq!(r.integrity.duplicated, 1, "{:?}", r.integrity);
    assert_eq!(r.integrity.lost, 0, "{:?}", r.integrity);
}

#[test]
fn stream_gap_is_lost() {
    let server = gappy_push_server();
    let r = run_stream(&count_cfg(server.url("/push"), 2, 100, 20, 1)).unwrap();
    assert_eq!(r.integrity.lost, 2, "{:?}", r.integrity);
    assert_eq!(r.messages_received, 2 * 99);
    assert_eq!(r.errors.timeout, 0, "{:?}", r.errors);
}
