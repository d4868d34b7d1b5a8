//! The registry readers (capability index or plain registry, and the aliases file) on
//! any text: never panic; a registry they accept can route any capability.
#![no_main]

use handoff::{Aliases, Registry};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(registry) = Registry::from_yaml(Path::new("fuzz.yaml"), text) {
        for agent in registry.agents() {
            let _ = registry.agent(&agent.name);
        }
    }
    let _ = Aliases::from_yaml(Path::new("aliases.yaml"), text);
});
