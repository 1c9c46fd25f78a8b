//! `img2fen completions SHELL` and `img2fen manpage`: generated from the clap definition, so that
//! they never drift from the options.

use std::io::Write;

use clap::Args;
use clap_complete::Shell;

use crate::{Failure, Outcome};

/// Arguments of `img2fen completions`.
#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell
    shell: Shell,
}

/// Prints the completion script for the shell.
pub fn completions(args: &CompletionsArgs) -> Result<Outcome, Failure> {
    let mut cmd = crate::definition();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "img2fen", &mut out);
    write_stdout(&out)
}

/// Prints the manual page in roff.
pub fn manpage() -> Result<Outcome, Failure> {
    let mut out = Vec::new();
    clap_mangen::Man::new(crate::definition())
        .render(&mut out)
        .map_err(|e| Failure::Output(format!("cannot render the manual page: {e}")))?;
    write_stdout(&out)
}

fn write_stdout(bytes: &[u8]) -> Result<Outcome, Failure> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(bytes)
        .and_then(|_| stdout.flush())
        .map_err(|e| Failure::Output(format!("standard output: write error: {e}")))?;
    Ok(Outcome::Read)
}
