//! `handoff completions SHELL`: a completion script generated from the command line's
//! definition (clap_complete), so it never falls behind a new command or flag.

use super::output::write_stdout;
use super::{Cli, Failure, Outcome};
use clap::CommandFactory;
use clap_complete::Shell;

/// Arguments of `handoff completions`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Install, for example:\n  \
    bash: handoff completions bash > ~/.local/share/bash-completion/completions/handoff\n  \
    zsh:  handoff completions zsh > ~/.zfunc/_handoff   (with fpath+=~/.zfunc before compinit)\n  \
    fish: handoff completions fish > ~/.config/fish/completions/handoff.fish")]
pub struct Args {
    /// The shell.
    shell: Shell,
}

/// Prints the completion script.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "handoff", &mut script);
    write_stdout(&String::from_utf8_lossy(&script))?;
    Ok(Outcome::Ok)
}
