//! `wsbench-loadgen` binary: parses arguments, raises the open-file limit, and dispatches
//! to the library.

use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use serde::Serialize;
use wsbench_loadgen::cli::DEFAULT_SIZE;
use wsbench_loadgen::cli::{Cli, Command};
use wsbench_loadgen::modes::{autobahn, connect, fanout, hold, probe};
use wsbench_loadgen::transport::limits;
use wsbench_loadgen::{run_echo, run_ping, run_stream, serve, RunError};

/// Prints `value` as one JSON line on stdout and flushes.
fn print_json<T: Serialize>(value: &T) -> Result<(), String> {
    let json =
        serde_json::to_string(value).map_err(|e| format!("cannot encode the report: {e}"))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{json}")
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write the report: {e}"))
}

fn print_report<T: Serialize>(r: Result<T, RunError>) -> ExitCode {
    let printed = r
        .map_err(|e| e.to_string())
        .and_then(|report| print_json(&report));
    match printed {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wsbench-loadgen: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_hold(a: &wsbench_loadgen::cli::HoldArgs) -> ExitCode {
    let mut first_printed = Ok(());
    let r = hold::run_hold(&a.to_config(), hold::stdin_eof(), |opened| {
        first_printed = print_json(opened);
    });
    let (opened, closed) = match (r, first_printed) {
        (Ok(lines), Ok(())) => lines,
        (Err(e), _) => {
            eprintln!("wsbench-loadgen hold: {e}");
            return ExitCode::FAILURE;
        }
        (_, Err(e)) => {
            eprintln!("wsbench-loadgen hold: {e}");
            return ExitCode::FAILURE;
        }
    };
    if opened.connections_ok == 0 {
        eprintln!("wsbench-loadgen hold: no connection succeeded");
        return ExitCode::FAILURE;
    }
    match print_json(&closed) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wsbench-loadgen hold: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let nofile = limits::raise_nofile_limit();
    if let Err(msg) = cli.command.check(nofile) {
        Cli::command()
            .error(clap::error::ErrorKind::ArgumentConflict, msg)
            .exit();
    }
    match cli.command {
        Command::Echo(a) => print_report(run_echo(&a.to_config())),
        Command::Stream(a) => print_report(run_stream(&a.load.to_config(1))),
        Command::Ping(a) => print_report(run_ping(&a.to_config())),
        Command::Broadcast(a) => print_report(fanout::run_fanout(&a.fanout.to_config(
            fanout::Workload::Broadcast,
            a.size as usize,
            a.text,
        ))),
        Command::Market(a) => print_report(fanout::run_fanout(&a.fanout.to_config(
            fanout::Workload::Market,
            DEFAULT_SIZE as usize,
            false,
        ))),
        Command::Connect(a) => print_report(connect::run_connect(&a.to_config())),
        Command::Hold(a) => run_hold(&a),
        Command::Serve(a) => match serve::run_serve(&a.host, a.port, &a.options()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("wsbench-loadgen serve: {e}");
                ExitCode::FAILURE
            }
        },
        Command::AutobahnClient(a) => print_report(autobahn::run_autobahn(&a.to_config())),
        Command::Probe(a) => match probe::run_probe(&a.url, a.timeout, a.tls_ca.as_deref()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(why) => {
                eprintln!("wsbench-loadgen probe {}: {why}", a.url);
                ExitCode::FAILURE
            }
        },
    }
}
