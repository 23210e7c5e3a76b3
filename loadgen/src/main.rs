//! `wsbench-loadgen` binary: parses arguments and dispatches to the library.

use std::process::ExitCode;

use clap::Parser;
use wsbench_loadgen::cli::{Cli, Command};
use wsbench_loadgen::{probe, run_echo, run_stream, serve, Report, RunError};

fn print_report(r: Result<Report, RunError>) -> ExitCode {
    match r {
        Ok(report) => match serde_json::to_string(&report) {
            Ok(json) => {
                println!("{json}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("wsbench-loadgen: cannot encode the report: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("wsbench-loadgen: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Echo(a) => print_report(run_echo(&a.load.to_config(a.in_flight))),
        Command::Stream(a) => print_report(run_stream(&a.load.to_config(1))),
        Command::Serve(a) => match serve::run_serve(&a.host, a.port) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("wsbench-loadgen serve: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Probe(a) => match probe::run_probe(&a.url, a.timeout) {
            Ok(()) => ExitCode::SUCCESS,
            Err(why) => {
                eprintln!("wsbench-loadgen probe {}: {why}", a.url);
                ExitCode::FAILURE
            }
        },
    }
}
