//! Files and standard input: the one place `handoff` reads user input from disk, replaces
//! a file, or lists the Markdown files under a directory.
//!
//! - [`read`]: a capped UTF-8 read of a file or of standard input. One limit
//!   ([`MAX_INPUT_BYTES`]) for every document a command reads, one name for standard
//!   input ([`STDIN_NAME`], `-`), and errors that name the file, the line and column of
//!   the first bad byte, and what to do.
//! - [`write`]: one atomic replace ([`replace_atomically`]): a temporary file in the
//!   target's directory, flushed, given the target's permissions, then renamed over it; a
//!   symbolic link is followed, so the file it points at is the one replaced. `fmt`,
//!   `new --force` and the contract state file all write through it. A [`Spool`] holds
//!   back output that must be whole or absent (a JSON document streamed from the trail).
//! - [`walk`]: one walker ([`markdown_files`]) for every command that takes a directory.

mod read;
mod walk;
mod write;

pub use read::{
    decode_text, read_capped, read_stdin, read_text, utf8_error_position, InputError, Source,
    MAX_INPUT_BYTES, STDIN_NAME,
};
pub use walk::{is_markdown_file, markdown_files, Depth, WalkError};
pub use write::{
    create_new, replace_atomically, replace_atomically_unsynced, Spool, SPOOL_MEMORY_BYTES,
};
