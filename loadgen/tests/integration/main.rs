//! The integration tests, one module per subject, built as ONE test binary: each test binary
//! of a release build links the whole crate graph again with thin LTO (codegen-units = 1),
//! about 20 to 45 s apiece on a 2-core machine: seven binaries took about 45 s longer to
//! build than one. A new subject goes here as a module (`mod name;` below, `name.rs` beside
//! this file), not as another file directly under `tests/`.

mod common;

mod cli;
mod cli_many;
mod corpus;
mod counts;
mod cpus;
mod deflate;
mod fanout;
mod faults;
mod many;
mod ping;
mod socketio;
mod tls;
