//! The built-in triggers, by name. What each looks for, its class and its rules are the
//! policy's defaults (`defaults.yaml`); the names are code because code refers to some of
//! them (`file-count` is counted, not matched; `policy` also watches a `--policy` file).

use crate::spelled::spelled_enum;
use std::str::FromStr;

spelled_enum! {
    /// A built-in trigger.
    Trigger {
        /// More than three files changed.
        FileCount => "file-count",
        /// A test file touched.
        TestFile => "test-file",
        /// An API route, handler, URL conf, GraphQL schema or resolver, or OpenAPI spec.
        ApiRoute => "api-route",
        /// Authentication, sessions, tokens, permissions, middleware, RLS.
        Auth => "auth",
        /// A database migration added, changed or removed.
        Migration => "migration",
        /// Payments, billing, checkout, invoices, refunds.
        Payment => "payment",
        /// An environment variable read or set, or an env file changed.
        EnvVar => "env-var",
        /// An external credential referenced or contained.
        Credential => "credential",
        /// The gate's own policy file changed.
        Policy => "policy",
    }
}

impl FromStr for Trigger {
    type Err = String;

    /// The trigger named exactly `name`.
    fn from_str(name: &str) -> Result<Trigger, String> {
        Trigger::ALL
            .iter()
            .copied()
            .find(|trigger| trigger.as_str() == name)
            .ok_or_else(|| {
                format!(
                    "unknown trigger `{name}`; expected one of: {}",
                    Trigger::allowed()
                )
            })
    }
}
