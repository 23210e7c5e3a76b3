//! Running the binary: one-shot runs (optionally under a given open-file limit) and a
//! `serve` child process.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_wsbench-loadgen");

/// Runs the binary with `args`: (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    output(Command::new(BIN).args(args))
}

/// Runs the binary with `args` under the open-file limits `soft` and `hard`
/// (descriptors).
pub fn run_with_nofile(args: &[&str], soft: u64, hard: u64) -> (i32, String, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        cmd.pre_exec(move || {
            let rl = libc::rlimit {
                rlim_cur: soft as libc::rlim_t,
                rlim_max: hard as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &rl) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    output(&mut cmd)
}

fn output(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A port nothing listens on (bound, then released).
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// A `serve` child process on a free port, killed by PID if a test fails midway.
pub struct Served(pub std::process::Child, pub u16);

impl Served {
    /// Starts `wsbench-loadgen serve --port 0` and reads its port from stderr.
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// [`Served::start`] with more options, e.g. `--deflate`.
    pub fn start_with(options: &[&str]) -> Self {
        let mut child = Command::new(BIN)
            .args(["serve", "--host", "127.0.0.1", "--port", "0"])
            .args(options)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().rsplit(':').next().unwrap().parse().unwrap();
        Served(child, port)
    }

    /// `ws://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("ws://127.0.0.1:{}{path}", self.1)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
