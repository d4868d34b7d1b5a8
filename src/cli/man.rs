//! `handoff man [COMMAND]`: the manual page, generated from the command line's
//! definition (clap_mangen), so it says exactly what `--help` says.
//!
//! `handoff man > handoff.1` writes the page of the whole tool (its commands listed);
//! `handoff man check > handoff-check.1` the page of one command, with every flag.

use super::output::write_stdout;
use super::{Cli, Failure, Outcome};
use clap::CommandFactory;

/// Arguments of `handoff man`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Install, for example: \
    handoff man > ~/.local/share/man/man1/handoff.1, then `man handoff`.")]
pub struct Args {
    /// A command (`check`, `lint`, …) whose page to print instead of the tool's.
    command: Option<String>,
}

/// Prints the page in roff.
pub fn run(args: Args) -> Result<Outcome, Failure> {
    let mut tool = Cli::command();
    // Gives each command its full name (`handoff check`) for the synopsis.
    tool.build();
    let page = match &args.command {
        None => tool,
        Some(name) => {
            let found = tool.find_subcommand(name).cloned().ok_or_else(|| {
                let names: Vec<&str> = tool.get_subcommands().map(|c| c.get_name()).collect();
                Failure(format!("no command `{name}`; one of: {}", names.join(", ")))
            })?;
            found
                .display_name(format!("handoff-{name}"))
                .version(super::VERSION)
        }
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page).render(&mut roff)?;
    write_stdout(&String::from_utf8_lossy(&roff))?;
    Ok(Outcome::Ok)
}
