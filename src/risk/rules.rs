//! The nine built-in triggers and their default rules.
//!
//! A trigger raises a change to its class when one of its rules fires. A path rule fires
//! when a touched path matches one of its globs; a line rule fires when an added line (and,
//! for `env-var`, a removed line) matches its regex, optionally only in files matching its
//! own globs. Every rule has a stable id, `<trigger>.<path|line>.<name>`, which findings
//! report and which a policy file names to remove the rule.
//!
//! Globs follow .gitignore conventions (see [`normalize_glob`]) and are matched
//! case-insensitively; regexes are matched against raw bytes with ASCII classes.
//!
//! The defaults aim at precision as much as recall: a gate that cries wolf gets switched
//! off. Names are matched at word boundaries (`auth` but not `author`), credential names
//! only fire when a literal value is assigned, and ecosystem idioms (Django, Rails,
//! Alembic, Next.js, Remix, Prisma, Go, Rust, Spring, SQL, Supabase) each get their own
//! rule so they can be removed one by one.

use super::RiskClass;
use std::fmt;
use std::str::FromStr;

/// A built-in trigger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Trigger {
    /// More than three files changed.
    FileCount,
    /// A test file touched.
    TestFile,
    /// An API route, handler, URL conf, GraphQL schema or resolver, or OpenAPI spec touched.
    ApiRoute,
    /// Authentication, sessions, tokens, permissions, middleware, RLS.
    Auth,
    /// A database migration added, changed or removed.
    Migration,
    /// Payments, billing, checkout, invoices, refunds.
    Payment,
    /// An environment variable read or set, or an env file changed.
    EnvVar,
    /// An external credential referenced or contained.
    Credential,
    /// The gate's own policy file changed.
    Policy,
}

impl Trigger {
    /// Every built-in trigger, in report order.
    pub const ALL: [Trigger; 9] = [
        Trigger::FileCount,
        Trigger::TestFile,
        Trigger::ApiRoute,
        Trigger::Auth,
        Trigger::Migration,
        Trigger::Payment,
        Trigger::EnvVar,
        Trigger::Credential,
        Trigger::Policy,
    ];

    /// The trigger's name as reports and policy files spell it.
    pub fn name(self) -> &'static str {
        match self {
            Trigger::FileCount => "file-count",
            Trigger::TestFile => "test-file",
            Trigger::ApiRoute => "api-route",
            Trigger::Auth => "auth",
            Trigger::Migration => "migration",
            Trigger::Payment => "payment",
            Trigger::EnvVar => "env-var",
            Trigger::Credential => "credential",
            Trigger::Policy => "policy",
        }
    }

    /// The class the trigger raises a change to.
    pub fn class(self) -> RiskClass {
        match self {
            Trigger::FileCount | Trigger::TestFile | Trigger::ApiRoute => RiskClass::Medium,
            _ => RiskClass::High,
        }
    }

    /// Whether line rules also look at removed lines (GATE.md: "an added or removed line").
    pub fn reads_removed_lines(self) -> bool {
        self == Trigger::EnvVar
    }

    /// Whether matched text is a secret: redacted in excerpts, placeholders ignored.
    pub fn is_secret(self) -> bool {
        self == Trigger::Credential
    }

    /// What the trigger looks for, in one line.
    pub fn description(self) -> &'static str {
        match self {
            Trigger::FileCount => "more than 3 files changed",
            Trigger::TestFile => "a test file touched",
            Trigger::ApiRoute => "an API route, handler, URL conf, GraphQL or OpenAPI file",
            Trigger::Auth => "auth, session, token, password, permission, middleware or RLS",
            Trigger::Migration => "a database migration added, changed or removed",
            Trigger::Payment => "payment, billing, checkout, invoice or refund code",
            Trigger::EnvVar => "an env file changed or an environment variable read or set",
            Trigger::Credential => "an external credential referenced or contained",
            Trigger::Policy => "the gate's own policy file changed",
        }
    }

    /// The default rules of this trigger.
    pub fn default_rules(self) -> &'static [DefaultRule] {
        match self {
            Trigger::FileCount => &[],
            Trigger::TestFile => TEST_FILE,
            Trigger::ApiRoute => API_ROUTE,
            Trigger::Auth => AUTH,
            Trigger::Migration => MIGRATION,
            Trigger::Payment => PAYMENT,
            Trigger::EnvVar => ENV_VAR,
            Trigger::Credential => CREDENTIAL,
            Trigger::Policy => POLICY,
        }
    }
}

impl fmt::Display for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Trigger {
    type Err = String;

    fn from_str(name: &str) -> Result<Trigger, String> {
        Trigger::ALL
            .into_iter()
            .find(|trigger| trigger.name() == name)
            .ok_or_else(|| {
                let names: Vec<_> = Trigger::ALL.iter().map(|t| t.name()).collect();
                format!(
                    "unknown trigger `{name}`; expected one of: {}",
                    names.join(", ")
                )
            })
    }
}

/// What a default rule matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultMatch {
    /// Any touched path matching one of these globs.
    Paths(&'static [&'static str]),
    /// A line matching `regex` in a file matching one of `files` (any file when empty).
    ///
    /// A regex may capture the secret in a group named `value`: the rule then fires only
    /// when that value is not a placeholder, and excerpts redact it.
    Line {
        /// The line regex.
        regex: &'static str,
        /// Globs restricting the files the regex applies to.
        files: &'static [&'static str],
    },
}

/// A built-in rule with its stable id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultRule {
    /// The stable id, e.g. `auth.path.middleware`.
    pub id: &'static str,
    /// What it matches.
    pub matches: DefaultMatch,
}

const fn paths(id: &'static str, globs: &'static [&'static str]) -> DefaultRule {
    DefaultRule {
        id,
        matches: DefaultMatch::Paths(globs),
    }
}

const fn line(
    id: &'static str,
    regex: &'static str,
    files: &'static [&'static str],
) -> DefaultRule {
    DefaultRule {
        id,
        matches: DefaultMatch::Line { regex, files },
    }
}

const PY: &[&str] = &["*.py"];
const RB: &[&str] = &["*.rb", "*.rake", "*.erb", "Gemfile", "Rakefile"];
const JS: &[&str] = &["*.{js,jsx,mjs,cjs,ts,tsx,mts,cts,svelte,vue}"];
const GO: &[&str] = &["*.go"];
const RS: &[&str] = &["*.rs"];
const JVM: &[&str] = &["*.{java,kt,kts,groovy,scala}"];

const TEST_FILE: &[DefaultRule] = &[
    paths(
        "test-file.path.test-dir",
        &[
            "test/",
            "tests/",
            "__tests__/",
            "testing/",
            "e2e/",
            "cypress/",
            "playwright/",
        ],
    ),
    paths(
        "test-file.path.python",
        &[
            "test_*.py",
            "*_test.py",
            "conftest.py",
            "pytest.ini",
            "tox.ini",
        ],
    ),
    paths("test-file.path.go", &["*_test.go", "testdata/"]),
    paths(
        "test-file.path.js",
        &[
            "*.{test,spec,e2e}.{js,jsx,mjs,cjs,ts,tsx}",
            "jest.config.*",
            "vitest.config.*",
        ],
    ),
    paths(
        "test-file.path.ruby",
        &[
            "*_spec.rb",
            "*_test.rb",
            "**/spec/spec_helper.rb",
            "**/spec/rails_helper.rb",
            ".rspec",
        ],
    ),
    paths(
        "test-file.path.java",
        &[
            "**/src/test/",
            "**/src/androidTest/",
            "**/src/integrationTest/",
            "**/src/testFixtures/",
        ],
    ),
    line(
        "test-file.line.rust-test",
        r"^\s*#\[(cfg\(test\)|test|tokio::test|async_std::test)\]",
        RS,
    ),
];

const API_ROUTE: &[DefaultRule] = &[
    paths(
        "api-route.path.api-dir",
        &["**/api/**/*.{py,rb,js,jsx,mjs,cjs,ts,tsx,go,rs,java,kt,php}"],
    ),
    paths(
        "api-route.path.routes",
        &[
            "routes/",
            "routers/",
            "handlers/",
            "controllers/",
            "endpoints/",
            "routes.{py,rb,js,mjs,ts,go,rs,php}",
            "router.{py,js,mjs,ts,go,rs}",
            "*_controller.rb",
            "*.controller.{ts,js}",
            "*Controller.{java,kt}",
            "*Resource.{java,kt}",
        ],
    ),
    paths(
        "api-route.path.django",
        &["urls.py", "views.py", "viewsets.py", "**/views/**/*.py"],
    ),
    paths(
        "api-route.path.rails",
        &["**/config/routes.rb", "**/config/routes/"],
    ),
    paths(
        "api-route.path.next-remix",
        &[
            "**/pages/api/",
            "**/app/**/route.{js,ts,jsx,tsx}",
            "**/app/routes/**/*.{js,jsx,ts,tsx}",
        ],
    ),
    paths(
        "api-route.path.graphql",
        &[
            "*.graphql",
            "*.graphqls",
            "*.gql",
            "resolvers/",
            "*.resolver.{ts,js}",
            "resolvers.{py,ts,js,go,rb}",
            "schema.resolvers.go",
        ],
    ),
    paths(
        "api-route.path.openapi",
        &[
            "openapi.{yaml,yml,json}",
            "openapi/",
            "swagger.{yaml,yml,json}",
            "*.openapi.{yaml,yml,json}",
            "*.proto",
        ],
    ),
    line(
        "api-route.line.python",
        r#"^\s*@\w+\.(route|get|post|put|patch|delete|api_route|websocket)\(\s*['"]/"#,
        PY,
    ),
    line(
        "api-route.line.express",
        r#"\b(app|router|server|api)\.(get|post|put|patch|delete|all|route)\(\s*['"`]/"#,
        JS,
    ),
    line(
        "api-route.line.spring",
        r"@(Get|Post|Put|Patch|Delete|Request)Mapping\b|@(RestController|Path)\b",
        JVM,
    ),
    line(
        "api-route.line.go",
        r#"\.(HandleFunc|Handle|GET|POST|PUT|PATCH|DELETE|Get|Post|Put|Patch|Delete)\(\s*"/"#,
        GO,
    ),
    line(
        "api-route.line.rust",
        r#"#\[(get|post|put|patch|delete|route)\(\s*"/|\.route\(\s*"/"#,
        RS,
    ),
];

const AUTH: &[DefaultRule] = &[
    paths(
        "auth.path.auth-dir",
        &["auth/", "authn/", "authz/", "authentication/", "authorization/", "oauth/", "oauth2/", "oidc/", "saml/", "sso/", "login/", "identity/"],
    ),
    paths(
        "auth.path.auth-file",
        &[
            "*auth.*",
            "auth_*",
            "auth-*",
            "*authenticat*",
            "*authoriz*",
            "*oauth*",
            "*auth{controller,service,provider,guard,filter,handler,manager,module,middleware,context,config,utils,helpers}.*",
            "*login*.*",
            "*nextauth*",
            "devise.rb",
            "devise/",
        ],
    ),
    paths(
        "auth.path.session",
        &["session.*", "sessions.*", "session_*", "*_session.*", "*session{manager,store,config,middleware}.*", "sessions/"],
    ),
    paths(
        "auth.path.token",
        &["*jwt*", "*{access,refresh,auth,api,bearer,id}[-_]token*", "*{access,refresh,auth,bearer}token*", "*csrf*"],
    ),
    paths("auth.path.password", &["*password*", "*passwd*"]),
    paths(
        "auth.path.middleware",
        &["middleware/", "middlewares/", "*middleware.*", "*middleware_*"],
    ),
    paths(
        "auth.path.permissions",
        &["*permission*", "rbac/", "*rbac*", "acl/", "acl.*", "acls.*", "*_acl.*", "policies/", "guards/", "*.guard.{ts,js}", "ability.rb", "abilities/"],
    ),
    paths(
        "auth.path.security",
        &["security/", "security.{py,rb,js,ts,go,rs,java,kt}", "*securityconfig*", "*websecurity*", "*security_*.py", "*_security.*"],
    ),
    line(
        "auth.line.rls",
        r"(?i)\b(create|alter|drop)\s+policy\b|\b(enable|disable|force)\s+row\s+level\s+security\b",
        &[],
    ),
    line(
        "auth.line.python",
        r"@(login_required|permission_required|user_passes_test|staff_member_required|requires_auth|jwt_required)\b|\b(permission_classes|authentication_classes)\s*=|\bDepends\(\s*(get_current_\w*user|oauth2_scheme)",
        PY,
    ),
    line(
        "auth.line.rails",
        r"\b(prepend_|skip_)?before_action\s+:(authenticate|authorize|require_(login|user|admin|auth))\w*!?|\bhas_secure_password\b|^\s*devise\s+:",
        RB,
    ),
    line(
        "auth.line.js",
        r"\bpassport\.(authenticate|use)\(|\b(jwt|jsonwebtoken)\.(sign|verify)\(|\bgetServerSession\(|\bbcrypt\.(hash|compare)(Sync)?\(|\bNextAuth\(|\bclerkMiddleware\(|\bwithAuth\(",
        JS,
    ),
    line(
        "auth.line.go",
        r"\bjwt\.(Parse|ParseWithClaims|NewWithClaims)\(|\bbcrypt\.(GenerateFromPassword|CompareHashAndPassword)\(|\boauth2\.Config\b",
        GO,
    ),
    line(
        "auth.line.rust",
        r"\bjsonwebtoken::|\b(bcrypt|argon2)::|\bArgon2::default\(|\boauth2::",
        RS,
    ),
    line(
        "auth.line.spring",
        r"@(PreAuthorize|PostAuthorize|Secured|RolesAllowed|EnableWebSecurity|EnableMethodSecurity)\b|\.(permitAll|hasRole|hasAnyRole|hasAuthority|hasAnyAuthority)\(",
        JVM,
    ),
];

const MIGRATION: &[DefaultRule] = &[
    paths("migration.path.migrations-dir", &["migrations/"]),
    paths(
        "migration.path.rails",
        &["**/db/migrate/", "**/db/schema.rb", "**/db/structure.sql"],
    ),
    paths(
        "migration.path.alembic",
        &["**/alembic/versions/", "alembic.ini"],
    ),
    paths(
        "migration.path.flyway-liquibase",
        &[
            "**/db/migration/",
            "V[0-9]*__*.sql",
            "R__*.sql",
            "**/db/changelog/",
        ],
    ),
    paths("migration.path.golang-migrate", &["*.up.sql", "*.down.sql"]),
    paths(
        "migration.path.sql-dir",
        &[
            "**/migrate/**/*.sql",
            "**/migration/**/*.sql",
            "**/schema/**/*.sql",
        ],
    ),
];

const PAYMENT: &[DefaultRule] = &[
    paths(
        "payment.path.payment-dir",
        &[
            "payment/",
            "payments/",
            "billing/",
            "checkout/",
            "invoices/",
            "invoice/",
            "invoicing/",
            "refunds/",
            "stripe/",
            "paypal/",
            "**/subscriptions/billing/",
        ],
    ),
    paths(
        "payment.path.payment-file",
        &[
            "*payment*",
            "*billing*",
            "*invoice*",
            "*refund*",
            "stripe.*",
            "stripe[-_]*",
            "*[-_]stripe.*",
            "*stripe{service,client,webhook,webhooks,controller,gateway,provider}.*",
            "*paypal*",
            "*braintree*",
            "*adyen*",
        ],
    ),
    paths(
        "payment.path.checkout-file",
        &[
            "checkout.{py,rb,js,jsx,mjs,cjs,ts,tsx,go,rs,java,kt,php}",
            "*_checkout.*",
            "*checkout{controller,service,session,form,page,flow}*",
        ],
    ),
    line(
        "payment.line.stripe",
        r#"(?i)\bstripe\.(charges|paymentintents|payment_intents|customers|subscriptions|checkout|refunds|invoices|webhooks|prices|paymentmethods|payment_methods|billingportal)\b|\bStripe::(Charge|PaymentIntent|Customer|Subscription|Checkout|Refund|Invoice|Webhook)\b|\brequire\(\s*['"]stripe['"]\)|\bfrom\s+['"](stripe|@stripe/[\w-]+)['"]|^\s*import\s+stripe\b|github\.com/stripe/stripe-go|\bcom\.stripe\.|\bstripe::(Client|Charge|PaymentIntent)"#,
        &[],
    ),
    line(
        "payment.line.paypal-braintree-adyen",
        r#"\bpaypalrestsdk\b|@paypal/|\bcom\.paypal\.|\bPayPalHttpClient\b|\bbraintree\.(Gateway|Transaction|BraintreeGateway)\b|\bBraintree::|\bcom\.braintreegateway\b|@adyen/|\bcom\.adyen\."#,
        &[],
    ),
];

const ENV_VAR: &[DefaultRule] = &[
    paths(
        "env-var.path.env-file",
        &[
            ".env",
            ".env.*",
            "*.env",
            ".envrc",
            "env.example",
            "env.sample",
            "env.template",
            ".env.example",
        ],
    ),
    line(
        "env-var.line.python",
        r#"\bos\.(environ|getenv|putenv|unsetenv)\b|\b(getenv|environ\.get)\(|\benviron\[|\benv\.(str|bool|int|float|list|dict|url|db_url|json)\(\s*['"]|\bconfig\(\s*['"][A-Z][A-Z0-9_]*['"]"#,
        PY,
    ),
    line(
        "env-var.line.js",
        r"\bprocess\.env\b|\bimport\.meta\.env\b|\bDeno\.env\b|\bBun\.env\b",
        JS,
    ),
    line(
        "env-var.line.rust",
        r"\benv::(var|var_os|vars|vars_os|set_var|remove_var)\b|\b(option_)?env!\(",
        RS,
    ),
    line(
        "env-var.line.go",
        r#"\bos\.(Getenv|LookupEnv|Setenv|Unsetenv|Environ|ExpandEnv)\(|\bviper\.(AutomaticEnv|BindEnv|SetEnvPrefix)\(|`[^`]*\benv(config)?:"[^"]+""#,
        GO,
    ),
    line(
        "env-var.line.ruby",
        r"\bENV(\[|\.fetch\b|\.key\?|\.store\b|\.delete\b)",
        RB,
    ),
    line(
        "env-var.line.java",
        r#"\bSystem\.getenv\(|\$\{[A-Z][A-Z0-9_]*(:[^}]*)?\}"#,
        &[
            "*.{java,kt,scala,groovy}",
            "application*.{yml,yaml,properties}",
            "bootstrap*.{yml,yaml,properties}",
        ],
    ),
    line(
        "env-var.line.dockerfile",
        r"^\s*ENV\s+\w",
        &[
            "Dockerfile",
            "Dockerfile.*",
            "*.dockerfile",
            "Containerfile",
        ],
    ),
    line(
        "env-var.line.compose",
        r"^\s*(environment|env_file)\s*:|^\s*-\s*[A-Z][A-Z0-9_]*=|^\s+[A-Z][A-Z0-9_]*\s*:\s",
        &["docker-compose*.{yml,yaml}", "compose*.{yml,yaml}"],
    ),
    line(
        "env-var.line.ci",
        r"^\s*(env|variables)\s*:|^\s+[A-Z][A-Z0-9_]*\s*:\s|\$\{\{\s*(env|vars)\.",
        &[
            ".github/workflows/*.{yml,yaml}",
            "/.gitlab-ci.yml",
            "/.circleci/config.yml",
            "/azure-pipelines.yml",
            "/bitbucket-pipelines.yml",
        ],
    ),
    line(
        "env-var.line.kubernetes",
        r"^\s*(env|envFrom)\s*:|\b(configMapKeyRef|secretKeyRef)\s*:",
        &[
            "**/k8s/**/*.{yml,yaml}",
            "**/kubernetes/**/*.{yml,yaml}",
            "**/helm/**/*.{yml,yaml}",
            "**/charts/**/*.{yml,yaml}",
            "**/deploy/**/*.{yml,yaml}",
        ],
    ),
];

const CREDENTIAL: &[DefaultRule] = &[
    paths(
        "credential.path.key-file",
        &[
            "*.pem",
            "*.key",
            "*.p12",
            "*.pfx",
            "*.jks",
            "*.keystore",
            "*.p8",
            "*.ppk",
            "id_rsa",
            "id_dsa",
            "id_ecdsa",
            "id_ed25519",
        ],
    ),
    paths(
        "credential.path.credential-file",
        &[
            ".netrc",
            ".pgpass",
            ".htpasswd",
            ".pypirc",
            "credentials.json",
            "*service-account*.json",
            "*.tfvars",
        ],
    ),
    line(
        "credential.line.aws-access-key",
        r"\b(?P<value>(AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})\b",
        &[],
    ),
    line(
        "credential.line.github-token",
        r"\b(?P<value>(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{60,})\b",
        &[],
    ),
    line(
        "credential.line.stripe-key",
        r"\b(?P<value>(sk|rk)_(live|test)_[0-9A-Za-z]{16,})\b",
        &[],
    ),
    line(
        "credential.line.slack-token",
        r"\b(?P<value>xox[abposr]-[0-9A-Za-z-]{10,}|https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{8,})",
        &[],
    ),
    line(
        "credential.line.google-key",
        r#"\b(?P<value>AIza[0-9A-Za-z_-]{35}|GOCSPX-[0-9A-Za-z_-]{28})|"type"\s*:\s*"service_account""#,
        &[],
    ),
    line(
        "credential.line.private-key",
        r"-----BEGIN ((RSA|DSA|EC|OPENSSH|PGP|ENCRYPTED) )?PRIVATE KEY( BLOCK)?-----",
        &[],
    ),
    line(
        "credential.line.jwt",
        r"\b(?P<value>eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})",
        &[],
    ),
    line(
        "credential.line.url-password",
        r"(?i)\b(postgres(ql)?|mysql|mariadb|mongodb(\+srv)?|rediss?|amqps?|mssql|sqlserver|ftp|smtp)://[^:/\s@]+:(?P<value>[^@/\s]+)@",
        &[],
    ),
    line(
        "credential.line.ci-secret",
        r"\$\{\{\s*secrets\.[A-Za-z_][A-Za-z0-9_]*\s*\}\}",
        &[],
    ),
    line(
        "credential.line.secret-assignment",
        r#"(?i)(^|[^A-Za-z0-9])[A-Za-z0-9_.-]*(password|passwd|passphrase|pwd|secret|secret[_-]?key|api[_-]?key|apikey|access[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|bearer[_-]?token|private[_-]?key|client[_-]?secret|signing[_-]?key|encryption[_-]?key|token)["']?(\s*:\s*[&'A-Za-z_][A-Za-z0-9_&'<>\[\] ]*?)?\s*(=|:=|=>|:)\s*[bfru]?["'](?P<value>[^"'\s]{6,})["']"#,
        &[],
    ),
    line(
        "credential.line.secret-config",
        r#"(?i)^\s*(export\s+)?[A-Za-z0-9_.-]*(password|passwd|passphrase|pwd|secret|secret[_-]?key|api[_-]?key|apikey|access[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|bearer[_-]?token|private[_-]?key|client[_-]?secret|signing[_-]?key|encryption[_-]?key|token)\s*[:=]\s*(?P<value>[^\s'"\#]{8,})\s*$"#,
        &[
            "*.{yml,yaml,properties,ini,cfg,conf,toml,env}",
            ".env",
            ".env.*",
            ".envrc",
        ],
    ),
];

const POLICY: &[DefaultRule] = &[paths("policy.path.policy-file", &["/.handoff.yaml"])];

/// Rewrites a .gitignore-style glob into the full-path glob it means.
///
/// A leading `/` anchors the glob at the root; a glob with no other `/` matches at any
/// depth (`*.pem` means `**/*.pem`); a trailing `/` means everything below a directory
/// (`vendor/` means `**/vendor/**`). `*` and `?` never cross `/`; `**` does.
pub fn normalize_glob(glob: &str) -> String {
    let anchored = glob.starts_with('/');
    let body = glob.trim_start_matches('/');
    let (body, directory) = match body.strip_suffix('/') {
        Some(dir) => (dir, true),
        None => (body, false),
    };
    let prefix = if anchored || body.contains('/') || body.starts_with("**") {
        ""
    } else {
        "**/"
    };
    let suffix = if directory { "/**" } else { "" };
    format!("{prefix}{body}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_follow_gitignore_conventions() {
        assert_eq!(normalize_glob("*.pem"), "**/*.pem");
        assert_eq!(normalize_glob("vendor/"), "**/vendor/**");
        assert_eq!(normalize_glob("/.handoff.yaml"), ".handoff.yaml");
        assert_eq!(normalize_glob("db/migrate/"), "db/migrate/**");
        assert_eq!(normalize_glob("**/x"), "**/x");
    }

    #[test]
    fn rule_ids_are_unique_and_name_their_trigger() {
        let mut seen = std::collections::BTreeSet::new();
        for trigger in Trigger::ALL {
            for rule in trigger.default_rules() {
                assert!(seen.insert(rule.id), "duplicate rule id {}", rule.id);
                let kind = match rule.matches {
                    DefaultMatch::Paths(_) => "path",
                    DefaultMatch::Line { .. } => "line",
                };
                assert!(
                    rule.id.starts_with(&format!("{}.{kind}.", trigger.name())),
                    "{}",
                    rule.id
                );
            }
        }
    }
}
