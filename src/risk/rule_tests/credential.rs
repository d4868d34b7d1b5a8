//! The `credential` trigger's default rules: positives that must fire each rule, near
//! misses that must not.

use super::Case;

#[rustfmt::skip]
pub(super) const YES: &[Case] = &[
    ("credential.path.key-file", "certs/server.pem", ""),
    ("credential.path.key-file", "deploy/id_ed25519", ""),
    ("credential.path.credential-file", "config/credentials.json", ""),
    ("credential.path.credential-file", ".netrc", ""),
    ("credential.line.aws-access-key", "scripts/upload.py", "key = 'AKIAIOSFODNN7REALKEY'"),
    ("credential.line.github-token", "ci/push.sh", "TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
    ("credential.line.stripe-key", "server/pay.js", "const s = Stripe('sk_live_4eC39HqLyjWDarjtT1zdp7dc');"),
    ("credential.line.slack-token", "bot/app.py", "client = WebClient('xoxb-1234567890-abcdefghij')"),
    ("credential.line.slack-token", "bot/notify.sh", "curl https://hooks.slack.com/services/T024BE7LD/B01ABCDE2/q3Z8xKp0LmN4vB7w"),
    ("credential.line.google-key", "web/maps.js", "const key = 'AIzaSyA1234567890abcdefghijklmnopqrstuv';"),
    ("credential.line.google-key", "deploy/sa.txt", "  \"type\": \"service_account\","),
    ("credential.line.private-key", "deploy/key.txt", "-----BEGIN RSA PRIVATE KEY-----"),
    ("credential.line.private-key", "deploy/key.txt", "-----BEGIN OPENSSH PRIVATE KEY-----"),
    ("credential.line.jwt", "tests/fixture.txt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("credential.line.url-password", "app/db.py", "DB = 'postgres://app:s3cr3tPass@db.internal:5432/app'"),
    ("credential.line.ci-secret", ".github/workflows/release.yml", "          NPM_TOKEN: ${{ secrets.NPM_TOKEN }}"),
    ("credential.line.secret-assignment", "app/settings.py", "SECRET_KEY = 'django-insecure-9x!k2p0q'"),
    ("credential.line.secret-assignment", "src/client.ts", "const apiKey: string = \"q8Zr4x0pLmN2\";"),
    ("credential.line.secret-assignment", "src/config.rs", "const API_KEY: &str = \"q8Zr4x0pLmN2\";"),
    ("credential.line.secret-assignment", "cmd/main.go", "dbPassword := \"hunter22x\""),
    ("credential.line.secret-assignment", "config/x.json", "  \"client_secret\": \"q8Zr4x0pLmN2\","),
    ("credential.line.secret-config", "config/app.yml", "  password: q8Zr4x0pLmN2"),
    ("credential.line.secret-config", ".env.local", "STRIPE_SECRET_KEY=q8Zr4x0pLmN2abc"),
    ("credential.line.secret-assignment", "app/aws.py", "AWS_SESSION_TOKEN = 'FwoGZXIvYXdzEJr8q8Zr4x0pLmN2'"),
    // Issue 12: the classes of misses seen on real commits, each in a shape of its own.
    ("credential.line.secret-reference", "plugins/llm/plugin.py", "        client = Client(api_key=self.api_key)"),
    ("credential.line.secret-reference", "server/tracer.ts", "if (env.DD_API_KEY && cluster.isWorker) {"),
    ("credential.line.npm-token", "scripts/publish.sh", "NPM_TOKEN=npm_7hQk3LmZ9pXw2RtY8vBn4CdE6fGh1JkLs0Qa"),
    ("credential.line.registry-token", ".npmrc", "//registry.npmjs.org/:_authToken=npm_7hQk3LmZ9pXw2RtY8vBn4CdE6fGh1JkLs0Qa"),
];

#[rustfmt::skip]
pub(super) const NO: &[Case] = &[
    ("credential.path.key-file", "docs/keynotes.md", ""),
    ("credential.path.key-file", "src/keyboard.ts", ""),
    ("credential.path.credential-file", "src/credentials.ts", ""),
    ("credential.line.aws-access-key", "scripts/upload.py", "key = 'AKIA-not-a-key'"),
    ("credential.line.github-token", "ci/push.sh", "TOKEN=ghp_short"),
    ("credential.line.stripe-key", "server/pay.js", "const p = 'pk_live_4eC39HqLyjWDarjtT1zdp7dc';"),
    ("credential.line.slack-token", "bot/app.py", "# xoxb tokens go in the vault"),
    ("credential.line.google-key", "web/maps.js", "const key = 'AIza-short';"),
    ("credential.line.private-key", "deploy/key.txt", "-----BEGIN PUBLIC KEY-----"),
    ("credential.line.jwt", "src/auth.ts", "const prefix = 'eyJ';"),
    ("credential.line.url-password", "app/db.py", "DB = 'postgres://localhost:5432/app'"),
    ("credential.line.url-password", "app/db.py", "DB = 'postgres://user:password@localhost/app'"),
    ("credential.line.ci-secret", ".github/workflows/ci.yml", "          REF: ${{ github.ref }}"),
    ("credential.line.secret-assignment", "app/urls.py", "password_reset_url = 'https://example.com/reset'"),
    ("credential.line.secret-assignment", "app/x.py", "token = None"),
    ("credential.line.secret-assignment", "app/x.py", "password = ''"),
    ("credential.line.secret-assignment", "app/x.py", "password = 'changeme'"),
    ("credential.line.secret-assignment", "app/x.py", "api_key = os.environ['API_KEY']"),
    ("credential.line.secret-assignment", "app/x.py", "token = '{{ csrf_token }}'"),
    ("credential.line.secret-assignment", "app/x.py", "max_tokens = '1000000'"),
    ("credential.line.secret-assignment", "app/x.py", "tokenizer = 'bert-base-uncased'"),
    ("credential.line.secret-config", "config/app.yml", "  password: ${DB_PASSWORD}"),
    ("credential.line.secret-config", "config/app.yml", "  password_min_length: 12345678"),
    ("credential.line.secret-config", "src/app.py", "password: q8Zr4x0pLmN2"),
    ("credential.line.secret-assignment", "tests/test_login.py", "password = 'password123'"),
    ("credential.line.secret-assignment", "app/pager.py", "self.update_token = '1a2b3c4d5e6f'"),
    ("credential.line.secret-assignment", "app/logs.py", "new_token = f\"{group_name}-{stream_name}\""),
    ("credential.line.secret-assignment", "app/api.py", "params = {\"next_token\": \"page-2-of-9\"}"),
    // Issue 12.
    ("credential.line.secret-reference", "app/forms.py", "    token = request.args.get('page_token')"),
    ("credential.line.npm-token", ".github/workflows/ci.yml", "      npm_config_cache: /tmp/npm"),
    ("credential.line.registry-token", ".npmrc", "//registry.npmjs.org/:_authToken=${NPM_TOKEN}"),
];
