//! What the command-line test files share.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `cmd`, killing it after `limit`: a hang is a failure, not a stuck test suite.
pub fn run_within(mut cmd: Command, limit: Duration) -> Output {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            panic!("no answer within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}
