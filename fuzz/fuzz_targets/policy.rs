//! The policy loader on any bytes: never panics; a policy it accepts compiles or says
//! which rule does not.
#![no_main]

use handoff::{Policy, PolicySource};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = Policy::parse(data, PolicySource::Defaults);
});
