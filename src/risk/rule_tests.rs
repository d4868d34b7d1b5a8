//! Every default rule against a real positive and a near miss.
//!
//! A case is a path and, for line rules, an added line. `yes` cases must fire the rule;
//! `no` cases are near misses that must not (other rules may). A final test checks that
//! every default rule has at least one of each, so a new rule cannot ship untested.

use super::matcher::Matcher;
use crate::git::LineSide;
use crate::policy::Policy;
use std::collections::BTreeSet;
use std::sync::LazyLock;

/// (rule id, path, added line or "" for a path-only case)
type Case = (&'static str, &'static str, &'static str);

const YES: &[Case] = &[
    ("test-file.path.test-dir", "tests/integration.rs", ""),
    ("test-file.path.test-dir", "web/src/__tests__/app.js", ""),
    ("test-file.path.python", "app/users/test_models.py", ""),
    ("test-file.path.python", "conftest.py", ""),
    ("test-file.path.go", "pkg/server/server_test.go", ""),
    ("test-file.path.js", "src/components/Button.test.tsx", ""),
    ("test-file.path.js", "src/api/users.spec.ts", ""),
    ("test-file.path.ruby", "app/models/user_spec.rb", ""),
    ("test-file.path.java", "src/test/java/com/acme/UserServiceTest.java", ""),
    ("test-file.line.rust-test", "src/parse.rs", "#[cfg(test)]"),
    ("test-file.line.rust-test", "src/parse.rs", "    #[tokio::test]"),
    ("api-route.path.api-dir", "src/api/users.ts", ""),
    ("api-route.path.routes", "src/routes/index.js", ""),
    ("api-route.path.routes", "app/controllers/users_controller.rb", ""),
    ("api-route.path.routes", "src/main/java/com/acme/UserController.java", ""),
    ("api-route.path.django", "shop/urls.py", ""),
    ("api-route.path.rails", "config/routes.rb", ""),
    ("api-route.path.next-remix", "pages/api/login.ts", ""),
    ("api-route.path.next-remix", "app/users/[id]/route.ts", ""),
    ("api-route.path.graphql", "schema/user.graphql", ""),
    ("api-route.path.graphql", "src/user.resolver.ts", ""),
    ("api-route.path.openapi", "docs/openapi.yaml", ""),
    ("api-route.line.python", "app/main.py", "@app.get(\"/items/{item_id}\")"),
    ("api-route.line.python", "shop/blueprints.py", "@bp.route('/cart', methods=['POST'])"),
    ("api-route.line.express", "server/index.js", "app.post('/login', handler);"),
    ("api-route.line.spring", "src/main/java/Api.java", "    @GetMapping(\"/users\")"),
    ("api-route.line.go", "cmd/server/main.go", "mux.HandleFunc(\"/health\", health)"),
    ("api-route.line.go", "cmd/server/main.go", "r.GET(\"/users/:id\", getUser)"),
    ("api-route.line.rust", "src/main.rs", "#[get(\"/users/<id>\")]"),
    ("api-route.line.rust", "src/main.rs", "    .route(\"/users\", get(list_users))"),
    ("auth.path.auth-dir", "src/auth/login.ts", ""),
    ("auth.path.auth-dir", "app/oauth/callback.py", ""),
    ("auth.path.auth-file", "src/lib/auth.ts", ""),
    ("auth.path.auth-file", "src/main/java/JwtAuthenticationFilter.java", ""),
    ("auth.path.auth-file", "app/services/AuthService.ts", ""),
    ("auth.path.auth-file", "pages/api/auth/[...nextauth].ts", ""),
    ("auth.path.auth-file", "src/components/LoginForm.tsx", ""),
    ("auth.path.auth-file", "app/views/user_login.py", ""),
    ("auth.path.session", "app/session.py", ""),
    ("auth.path.token", "src/utils/jwt.ts", ""),
    ("auth.path.token", "app/refresh_token_store.py", ""),
    ("auth.path.password", "app/views/password_reset.py", ""),
    ("auth.path.middleware", "middleware.ts", ""),
    ("auth.path.middleware", "app/middleware/cors.py", ""),
    ("auth.path.permissions", "app/permissions.py", ""),
    ("auth.path.permissions", "src/guards/admin.guard.ts", ""),
    ("auth.path.security", "src/main/java/com/acme/SecurityConfig.java", ""),
    ("auth.path.security", "app/security/headers.py", ""),
    ("auth.line.rls", "supabase/seed.sql", "CREATE POLICY \"own rows\" ON todos FOR SELECT USING (auth.uid() = user_id);"),
    ("auth.line.rls", "db/setup.sql", "alter table todos enable row level security;"),
    ("auth.line.python", "shop/views_admin.py", "@login_required"),
    ("auth.line.python", "shop/api_views.py", "    permission_classes = [IsAdminUser]"),
    ("auth.line.rails", "app/models/user.rb", "  has_secure_password"),
    ("auth.line.rails", "app/x/base.rb", "  skip_before_action :authenticate_user!"),
    ("auth.line.js", "server/app.js", "app.use(passport.authenticate('jwt'));"),
    ("auth.line.js", "server/tokens.js", "const t = jwt.sign(payload, key);"),
    ("auth.line.go", "internal/http/server.go", "token, err := jwt.Parse(raw, keyFunc)"),
    ("auth.line.rust", "src/server.rs", "use jsonwebtoken::{decode, Validation};"),
    ("auth.line.spring", "src/main/java/Admin.java", "@PreAuthorize(\"hasRole('ADMIN')\")"),
    ("migration.path.migrations-dir", "shop/migrations/0002_add_price.py", ""),
    ("migration.path.migrations-dir", "prisma/migrations/20240101_init/migration.sql", ""),
    ("migration.path.migrations-dir", "supabase/migrations/20240101000000_todos.sql", ""),
    ("migration.path.rails", "db/migrate/20240101000000_add_users.rb", ""),
    ("migration.path.rails", "db/schema.rb", ""),
    ("migration.path.alembic", "alembic/versions/3a4b_add_index.py", ""),
    ("migration.path.flyway-liquibase", "src/main/resources/db/migration/V2__add_orders.sql", ""),
    ("migration.path.flyway-liquibase", "sql/V12__users.sql", ""),
    ("migration.path.golang-migrate", "db/000001_create_users.up.sql", ""),
    ("migration.path.sql-dir", "migrate/2024/001_users.sql", ""),
    ("payment.path.payment-dir", "app/billing/plans.py", ""),
    ("payment.path.payment-dir", "src/checkout/Summary.tsx", ""),
    ("payment.path.payment-file", "src/services/payment_service.go", ""),
    ("payment.path.payment-file", "app/models/invoice.rb", ""),
    ("payment.path.checkout-file", "shop/checkout.py", ""),
    ("payment.path.checkout-file", "web/CheckoutSession.ts", ""),
    ("payment.line.stripe", "server/orders.js", "const intent = await stripe.paymentIntents.create({ amount });"),
    ("payment.line.stripe", "shop/orders.py", "import stripe"),
    ("payment.line.stripe", "app/models/order.rb", "Stripe::Refund.create(charge: id)"),
    ("payment.line.paypal-braintree-adyen", "server/pay.js", "import paypal from '@paypal/checkout-server-sdk';"),
    ("payment.line.paypal-braintree-adyen", "shop/pay.py", "gateway = braintree.BraintreeGateway(config)"),
    ("env-var.path.env-file", ".env", ""),
    ("env-var.path.env-file", "config/.env.production", ""),
    ("env-var.path.env-file", "deploy/prod.env", ""),
    ("env-var.line.python", "app/settings.py", "DEBUG = os.environ.get('DEBUG')"),
    ("env-var.line.python", "app/settings.py", "SECRET = env.str(\"SECRET\")"),
    ("env-var.line.python", "app/settings.py", "HOME = getenv('HOME')"),
    ("env-var.line.js", "src/config.ts", "const url = process.env.API_URL;"),
    ("env-var.line.js", "src/config.ts", "const url = import.meta.env.VITE_API;"),
    ("env-var.line.rust", "src/config.rs", "let port = std::env::var(\"PORT\")?;"),
    ("env-var.line.rust", "src/db.rs", "const URL: &str = env!(\"DATABASE_URL\");"),
    ("env-var.line.rust", "src/db.rs", "let c = option_env!(\"COOKIE_SECRET\");"),
    ("env-var.line.go", "cmd/main.go", "port := os.Getenv(\"PORT\")"),
    ("env-var.line.go", "internal/config.go", "\tPort int `envconfig:\"PORT\"`"),
    ("env-var.line.ruby", "config/initializers/mail.rb", "host = ENV.fetch('MAIL_HOST')"),
    ("env-var.line.java", "src/main/java/Config.java", "String url = System.getenv(\"DB_URL\");"),
    ("env-var.line.java", "src/main/resources/application.yml", "  url: ${DATABASE_URL}"),
    ("env-var.line.dockerfile", "Dockerfile", "ENV NODE_ENV=production"),
    ("env-var.line.compose", "docker-compose.yml", "    environment:"),
    ("env-var.line.compose", "docker-compose.yml", "      - POSTGRES_DB=app"),
    ("env-var.line.ci", ".github/workflows/ci.yml", "    env:"),
    ("env-var.line.ci", ".github/workflows/ci.yml", "      RUST_LOG: debug"),
    ("env-var.line.kubernetes", "k8s/api/deployment.yaml", "          env:"),
    ("env-var.line.kubernetes", "k8s/api/deployment.yaml", "              secretKeyRef:"),
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
    ("policy.path.policy-file", ".handoff.yaml", ""),
    ("credential.line.secret-assignment", "app/aws.py", "AWS_SESSION_TOKEN = 'FwoGZXIvYXdzEJr8q8Zr4x0pLmN2'"),
    // Issue 12: the classes of misses seen on real commits, each in a shape of its own.
    ("api-route.path.routes", "crates/db_views/post/src/api.rs", ""),
    ("api-route.path.routes", "packages/trpc/server/team-router/create-team.ts", ""),
    ("api-route.path.graphql", "shop/graphql/product/types.py", ""),
    ("api-route.line.trpc", "server/routers/post.ts", "  create: protectedProcedure.input(schema).mutation(async ({ ctx }) => {"),
    ("api-route.line.ktor", "backend/src/Routes.kt", "    get(\"/sessions/{id}\") {"),
    ("auth.path.security", "app/server/security-headers.ts", ""),
    ("auth.line.access-denied", "app/api/v1/files.py", "            abort(403)"),
    ("auth.line.access-denied", "internal/apis/record.go", "\t\treturn NewForbiddenError(\"not allowed\", nil)"),
    ("auth.line.access-denied", "server/teams.ts", "      throw new AppError(AppErrorCode.UNAUTHORIZED, { message: 'no' });"),
    ("auth.line.access-check", "app/controllers/invites_controller.rb", "    raise NotAllowed unless Current.user.admin?"),
    ("auth.line.access-check", "src/db/views/modlog.rs", "    if !self.local_user.is_admin() {"),
    ("auth.line.access-check", "server/routes/api/docs.ts", "    authorize(user, \"read\", document);"),
    ("auth.line.access-check", "app/Routes.kt", "        val principal = call.principal<UserSession>()"),
    ("auth.line.permission-type", "src/incidents/views.py", "    dependencies=[Depends(PermissionsDependency([IncidentEditPermission]))],"),
    ("auth.line.account-state", "accounts/mutations.py", "        user.is_active = True"),
    ("auth.line.security-header", "server/headers.ts", "  res.setHeader('Content-Security-Policy', policy);"),
    ("auth.line.security-header", "server/headers.ts", "type CspMode = 'strict' | 'relaxed';"),
    ("auth.line.config", "src/main/resources/application.yml", "  tokenHead: 'Bearer '"),
    ("migration.path.data-migration", "lib/tasks/data_migration.rake", ""),
    ("migration.line.alembic", "db/revisions/versions/2024_01_add_index.py", "    op.create_index(\"ix_user_email\", \"user\", [\"email\"])"),
    ("migration.line.data-task", "lib/tasks/cleanup.rake", "    Order.where(state: nil).update_all(state: \"open\")"),
    ("migration.line.data-task", "app/Console/Commands/FixAmounts.php", "        $journal->save();"),
    ("payment.path.payment-dir", "app/views/settings/billings/show.html.erb", ""),
    ("payment.path.payment-file", "src/service/impl/AlipayServiceImpl.java", ""),
    ("payment.line.subscription-state", "app/controllers/concerns/gate.rb", "    redirect_to upgrade_subscription_path unless family.subscribed?"),
    ("payment.line.subscription-state", "src/order/OrderService.java", "        orderService.paySuccessByOrderSn(sn, 1);"),
    ("env-var.path.env-schema", "server/env.ts", ""),
    ("env-var.line.js", "server/mail.ts", "  const key = env('MAIL_API_KEY');"),
    ("env-var.line.js", "server/tracing.ts", "if (env.DATADOG_KEY) {"),
    ("env-var.line.js", "src/config.js", "const { env } = process;"),
    ("env-var.line.java", "src/main/java/x/Service.java", "    @Value(\"${cache.enabled}\")"),
    ("env-var.line.dockerfile", "Dockerfile", "CMD server --port \"${PORT:-8080}\""),
    ("env-var.line.compose", "docker/compose.yml", "      test: ['CMD', 'pg_isready', '-d', '${POSTGRES_DB}']"),
    ("env-var.line.ruby", "config/database.yml", "  pool: <%= ENV.fetch(\"DB_POOL\") { 5 } %>"),
    ("env-var.line.manifest-env", "deploy/api.yaml", "        - name: REDIS_ADDR"),
    ("env-var.line.php", "config/cache.php", "    'enabled' => env('CACHE_ENABLED', true),"),
    ("env-var.line.xml", "phpunit.xml", "        <env name=\"APP_ENV\" value=\"testing\"/>"),
    ("api-route.path.routes", "crates/routes/src/feeds.rs", ""),
    ("api-route.path.laravel", "routes/api.php", ""),
    ("api-route.path.remix", "app/routes/_index.tsx", ""),
    ("credential.line.secret-reference", "plugins/llm/plugin.py", "        client = Client(api_key=self.api_key)"),
    ("credential.line.secret-reference", "server/tracer.ts", "if (env.DD_API_KEY && cluster.isWorker) {"),
    ("auth.line.activitypub", "crates/apub/activities/src/community/update.rs", "        verify_urls_match(m.attributed_to.inner(), self.actor())?;"),
    ("auth.scope.guard", "CTFd/utils/initialization/__init__.py", "    def csrf():"),
    ("auth.scope.guard", "CTFd/utils/initialization/__init__.py", "    def change_password():"),
    ("auth.scope.guard", "internal/server/middleware.go", "func (s *Server) requireAuth(next http.Handler) http.Handler {"),
    ("auth.scope.guard", "src/server/session.ts", "export async function authorizeRequest(req: Request): Promise<User> {"),
    ("payment.scope.pay", "mall-portal/src/main/java/com/macro/mall/portal/service/impl/OmsPortalOrderServiceImpl.java", "    public Integer paySuccess(Long orderId, Integer payType) {"),
    ("payment.scope.pay", "app/services/orders.rb", "  def refund!(amount)"),
    ("api-route.path.graphql", "server/src/infra/graphql/mutation.rs", ""),
    ("api-route.path.laravel", "app/Http/Resources/SongResource.php", ""),
    ("auth.line.password", "src/cli/user.js", "\t\t\tconst hashedPassword = await user.hashPassword(password);"),
    ("auth.line.password", "eladmin-system/src/main/java/UserController.java", "        String pwd = passwordEncoder.encode(\"123456\");"),
    ("auth.line.identity-provider", "internal/model/user.go", "\tOpenIDConnectID                 *string  `json:\"openid_connect_id\"`"),
    ("auth.line.crypto", "server/src/sql_tcp_backend_handler.rs", "    use rand::{Rng, distributions::Alphanumeric, rngs::OsRng};"),
    ("auth.line.crypto", "internal/googlereader/middleware.go", "\t\tif !crypto.ConstantTimeCmp(expectedToken, token) {"),
    ("auth.line.elixir", "lib/chat_api_web/controllers/company_controller.ex", "  plug :authorize when action in [:show, :update, :delete]"),
    ("auth.line.spring", "src/main/java/SpringSecurityConfig.java", "    protected SecurityFilterChain filterChain(HttpSecurity httpSecurity) throws Exception {"),
    ("auth.line.access-check", "src/api/topics.js", "\t\t\t\tconst canReadSource = await privileges.topics.can('topics:read', tid, caller.uid);"),
    ("auth.line.access-check", "src/routes/email_signups.rs", "        .map(|i| i.open_registrations)"),
    ("auth.scope.guard", "lib/chat_api_web/channels/event_channel.ex", "  defp authorized?(socket, account_id) do"),
    ("auth.scope.check", "src/controllers/accounts/info.js", "\tif (isPrivileged) {"),
    ("auth.scope.check", "src/topics/create.js", "\t\t\tprivileges.categories.can("),
    ("auth.scope.config", "eladmin-system/src/main/resources/config/application-dev.yml", "login:"),
    ("migration.path.migrations-dir", "src/migration/1700000000000-DropUserEmail.ts", ""),
    ("migration.path.migrations-dir", "drizzle/0001_x.sql", ""),
    ("migration.line.framework", "src/database/migrations/1715028537217-CreateUser.ts", "export class CreateUser1715028537217 implements MigrationInterface {"),
    ("migration.line.framework", "priv/repo/structure/20200708223000_create_messages.exs", "  use Ecto.Migration"),
    ("migration.scope.list", "internal/database/migrations.go", "var migrations = [...]func(tx *sql.Tx) error{"),
    ("payment.path.payment-dir", "src/subscriptions/renewal.py", ""),
    ("env-var.line.rust", "server/src/infra/cli.rs", "    #[clap(short, long, env = \"LLDAP_FORCE_LADP_USER_PASS_RESET\")]"),
    ("env-var.line.rust", "server/src/infra/configuration.rs", "    .merge(FileAdapter::wrap(Env::prefixed(\"LLDAP_\").split(\"__\")).ignore(&ignore_keys));"),
    ("env-var.line.js", "app.js", "nconf.argv().env({"),
    ("env-var.line.elixir", "config/prod.exs", "require_db_ssl = System.get_env(\"REQUIRE_DB_SSL\") || true"),
    ("env-var.scope.option-table", "internal/config/options.go", "\t\t\t\"SCHEDULER_ENTRY_FREQUENCY_FACTOR\": {"),
    ("env-var.line.elixir", "config/prod.secret.exs", "    scheme: {:system, \"PUBLIC_PROTOCOL\", \"https\"},"),
    ("env-var.line.go", "config/config.go", "\terr := configor.New(&configor.Config{ENVPrefix: \"GOTIFY\"}).Load(conf, configFiles()...)"),
    ("auth.line.permission-type", "lib/web/channels/project_ping_channel.ex", "      Permission.get_permission(socket.assigns.user, %Project{id: project_id}))"),
    ("credential.line.npm-token", "scripts/publish.sh", "NPM_TOKEN=npm_7hQk3LmZ9pXw2RtY8vBn4CdE6fGh1JkLs0Qa"),
    ("credential.line.registry-token", ".npmrc", "//registry.npmjs.org/:_authToken=npm_7hQk3LmZ9pXw2RtY8vBn4CdE6fGh1JkLs0Qa"),
    ("auth.line.security-setting", "saleor/settings.py", "    SECURE_SSL_REDIRECT = not DEBUG"),
    ("auth.line.security-setting", "CTFd/config.py", "    SESSION_COOKIE_HTTPONLY: bool = config_ini[\"security\"].getboolean(\"SESSION_COOKIE_HTTPONLY\", fallback=True)"),
    ("auth.line.security-setting", "saleor/settings.py", "    MIDDLEWARE = [\"saleor.core.db.connection.log_writer_usage_middleware\"] + MIDDLEWARE"),
    ("auth.scope.security-setting", "saleor/settings.py", "AUTHENTICATION_BACKENDS = ["),
    ("auth.scope.security-setting", "app/Http/Kernel.php", "    protected $middlewareGroups = ["),
    ("auth.line.security-middleware", "server/main.ts", "  app.use(helmet());"),
    ("auth.line.security-middleware", "app/main.py", "app.add_middleware(CORSMiddleware, allow_origins=[\"*\"], allow_credentials=True)"),
    ("auth.line.rails-security", "config/environments/production.rb", "  config.force_ssl = ActiveModel::Type::Boolean.new.cast(ENV.fetch(\"RAILS_FORCE_SSL\", true))"),
    ("auth.line.security-properties", "src/main/resources/application.properties", "server.servlet.session.cookie.secure=true"),
    ("auth.line.security-header", "config/initializers/content_security_policy.rb", "Rails.application.config.content_security_policy do |policy|"),
    ("env-var.data.env-block", "deployments/kubernetes/chart/reloader/templates/deployment.yaml", "Deployment/spec.template.spec.containers.-.env.-.name"),
    ("env-var.data.env-block", "netlify.toml", "/build.environment.NODE_VERSION"),
    ("env-var.data.env-block", ".gitlab-ci.yml", "/test:linux.variables.CUSTOM_PATH"),
    ("env-var.data.env-block", "docker-compose.yml", "/services.tracing-server.environment.-"),
    ("auth.data.rbac", "deployments/kubernetes/manifests/clusterrole.yaml", "ClusterRole/rules.-.verbs.-"),
    ("auth.data.rbac", "deployments/kubernetes/chart/reloader/templates/clusterrolebinding.yaml", "ClusterRoleBinding/subjects.-.name"),
    ("auth.data.security-config", "src/main/resources/application.yml", "/server.servlet.session.cookie.same-site"),
    ("auth.data.security-config", "src/main/resources/application.yml", "/zeroverse.cors.allowed-origins.-"),
    ("auth.scope.class", "src/paperless_mail/views.py", "class OauthCallbackView(GenericAPIView):"),
    ("auth.scope.class", "src/api/authorization.rs", "pub struct Authorization<A, S>(pub ApiToken, PhantomData<(A, S)>);"),
];

const NO: &[Case] = &[
    ("test-file.path.test-dir", "src/testimonials/page.tsx", ""),
    ("test-file.path.test-dir", "docs/testing-guide.md", ""),
    ("test-file.path.python", "app/contest.py", ""),
    ("test-file.path.go", "pkg/latest.go", ""),
    ("test-file.path.js", "src/attest.js", ""),
    ("test-file.path.ruby", "app/models/spectrum.rb", ""),
    (
        "test-file.path.java",
        "src/main/java/com/acme/Contest.java",
        "",
    ),
    (
        "test-file.line.rust-test",
        "src/parse.rs",
        "// run the #[test] functions with cargo test",
    ),
    ("test-file.line.rust-test", "src/query.py", "#[test]"),
    ("api-route.path.api-dir", "docs/api/overview.md", ""),
    ("api-route.path.routes", "src/routing-table.md", ""),
    ("api-route.path.django", "shop/models.py", ""),
    ("api-route.path.rails", "config/application.rb", ""),
    ("api-route.path.next-remix", "app/components/Header.tsx", ""),
    ("api-route.path.graphql", "src/graph/layout.ts", ""),
    ("api-route.path.openapi", "docs/open-source.md", ""),
    (
        "api-route.line.python",
        "app/main.py",
        "@app.get_setting('x')",
    ),
    (
        "api-route.line.express",
        "server/index.js",
        "const v = app.get('view engine');",
    ),
    (
        "api-route.line.spring",
        "src/main/java/Api.java",
        "// maps Get requests",
    ),
    (
        "api-route.line.go",
        "cmd/server/main.go",
        "v := cache.Get(\"key\")",
    ),
    (
        "api-route.line.rust",
        "src/main.rs",
        "let r = route(\"x\");",
    ),
    ("auth.path.auth-dir", "src/authors/list.ts", ""),
    ("auth.path.auth-file", "app/models/author.py", ""),
    ("auth.path.auth-file", "docs/authoring.md", ""),
    ("auth.path.auth-file", "docs/auth.md", ""),
    ("auth.path.auth-file", "src/catalogIndex.ts", ""),
    ("auth.path.auth-file", "src/dialogInput.tsx", ""),
    ("auth.path.password", "docs/password-policy.md", ""),
    ("auth.path.session", "src/sessionize.ts", ""),
    ("auth.path.session", "app/db_session.py", ""),
    ("auth.path.token", "src/lexer/token.rs", ""),
    ("auth.path.password", "src/pass_through.rs", ""),
    ("auth.path.middleware", "src/middle/ware.ts", ""),
    ("auth.path.permissions", "aclocal.m4", ""),
    ("auth.path.security", "SECURITY.md", ""),
    (
        "auth.line.rls",
        "db/setup.sql",
        "CREATE TABLE policy_documents (id int);",
    ),
    (
        "auth.line.python",
        "shop/views.py",
        "# login required for checkout",
    ),
    (
        "auth.line.rails",
        "app/x/base.rb",
        "  before_action :set_locale",
    ),
    (
        "auth.line.js",
        "server/app.js",
        "const signed = document.sign(payload);",
    ),
    (
        "auth.line.go",
        "internal/http/server.go",
        "v, err := json.Parse(raw)",
    ),
    (
        "auth.line.rust",
        "src/server.rs",
        "use serde_json::from_str;",
    ),
    ("auth.line.spring", "src/main/java/Admin.java", "@Autowired"),
    ("migration.path.migrations-dir", "docs/migrations.md", ""),
    ("migration.path.rails", "db/seeds.rb", ""),
    ("migration.path.alembic", "app/versions.py", ""),
    ("migration.path.flyway-liquibase", "sql/views.sql", ""),
    ("migration.path.golang-migrate", "db/upgrade.sql", ""),
    ("migration.path.sql-dir", "sql/reports/monthly.sql", ""),
    ("payment.path.payment-dir", "app/payroll/report.py", ""),
    (
        "payment.path.payment-file",
        "src/styles/striped-table.css",
        "",
    ),
    (
        "payment.path.checkout-file",
        "scripts/git-checkout-all.sh",
        "",
    ),
    (
        "payment.line.stripe",
        "src/util.js",
        "const s = stripe(whitespace);",
    ),
    ("payment.line.stripe", "src/util.py", "text = strip_e(line)"),
    (
        "payment.line.stripe",
        "docs/payments.md",
        "    import stripe",
    ),
    (
        "payment.line.paypal-braintree-adyen",
        "docs/x.js",
        "// we do not support paypal yet",
    ),
    ("env-var.path.env-file", "src/environment.ts", ""),
    ("env-var.path.env-file", ".venv/pyvenv.cfg", ""),
    (
        "env-var.line.python",
        "app/wsgi.py",
        "script = environ.get(\"PATH_INFO\", \"\")",
    ),
    (
        "env-var.line.python",
        "app/wsgi.py",
        "host = request.environ[\"HTTP_HOST\"]",
    ),
    (
        "env-var.line.python",
        "app/settings.py",
        "environment = 'production'",
    ),
    (
        "env-var.line.js",
        "src/config.ts",
        "const env = getProcess().envelope;",
    ),
    (
        "env-var.line.rust",
        "src/main.rs",
        "let args: Vec<String> = env::args().collect();",
    ),
    ("env-var.line.go", "cmd/main.go", "name := os.Getwd()"),
    (
        "env-var.line.ruby",
        "config/x.rb",
        "environment = Rails.env",
    ),
    (
        "env-var.line.java",
        "src/main/java/Config.java",
        "String s = System.getProperty(\"user.dir\");",
    ),
    (
        "env-var.line.dockerfile",
        "Dockerfile",
        "RUN echo ENV is set",
    ),
    ("env-var.line.dockerfile", "src/env.py", "ENV FOO=bar"),
    (
        "env-var.line.compose",
        "docker-compose.yml",
        "    image: postgres:16",
    ),
    (
        "env-var.line.ci",
        ".github/workflows/ci.yml",
        "    environment: production",
    ),
    ("env-var.line.ci", "config/app.yml", "    env:"),
    (
        "env-var.line.kubernetes",
        "k8s/api/deployment.yaml",
        "          image: api:1.2",
    ),
    ("credential.path.key-file", "docs/keynotes.md", ""),
    ("credential.path.key-file", "src/keyboard.ts", ""),
    ("credential.path.credential-file", "src/credentials.ts", ""),
    (
        "credential.line.aws-access-key",
        "scripts/upload.py",
        "key = 'AKIA-not-a-key'",
    ),
    (
        "credential.line.github-token",
        "ci/push.sh",
        "TOKEN=ghp_short",
    ),
    (
        "credential.line.stripe-key",
        "server/pay.js",
        "const p = 'pk_live_4eC39HqLyjWDarjtT1zdp7dc';",
    ),
    (
        "credential.line.slack-token",
        "bot/app.py",
        "# xoxb tokens go in the vault",
    ),
    (
        "credential.line.google-key",
        "web/maps.js",
        "const key = 'AIza-short';",
    ),
    (
        "credential.line.private-key",
        "deploy/key.txt",
        "-----BEGIN PUBLIC KEY-----",
    ),
    (
        "credential.line.jwt",
        "src/auth.ts",
        "const prefix = 'eyJ';",
    ),
    (
        "credential.line.url-password",
        "app/db.py",
        "DB = 'postgres://localhost:5432/app'",
    ),
    (
        "credential.line.url-password",
        "app/db.py",
        "DB = 'postgres://user:password@localhost/app'",
    ),
    (
        "credential.line.ci-secret",
        ".github/workflows/ci.yml",
        "          REF: ${{ github.ref }}",
    ),
    (
        "credential.line.secret-assignment",
        "app/urls.py",
        "password_reset_url = 'https://example.com/reset'",
    ),
    (
        "credential.line.secret-assignment",
        "app/x.py",
        "token = None",
    ),
    (
        "credential.line.secret-assignment",
        "app/x.py",
        "password = ''",
    ),
    (
        "credential.line.secret-assignment",
        "app/x.py",
        "password = 'changeme'",
    ),
    (
        "credential.line.secret-assignment",
        "app/x.py",
        "api_key = os.environ['API_KEY']",
    ),
    (
        "credential.line.secret-assignment",
        "app/x.py",
        "token = '{{ csrf_token }}'",
    ),
    (
        "credential.line.secret-assignment",
        "app/x.py",
        "max_tokens = '1000000'",
    ),
    (
        "credential.line.secret-assignment",
        "app/x.py",
        "tokenizer = 'bert-base-uncased'",
    ),
    (
        "credential.line.secret-config",
        "config/app.yml",
        "  password: ${DB_PASSWORD}",
    ),
    (
        "credential.line.secret-config",
        "config/app.yml",
        "  password_min_length: 12345678",
    ),
    (
        "credential.line.secret-config",
        "src/app.py",
        "password: q8Zr4x0pLmN2",
    ),
    ("policy.path.policy-file", "docs/.handoff.yaml", ""),
    (
        "auth.line.rls",
        "docs/rls.md",
        "Run `CREATE POLICY` to restrict rows.",
    ),
    ("payment.path.payment-file", "assets/billing.png", ""),
    (
        "env-var.line.rust",
        "src/main.rs",
        "const VERSION: &str = env!(\"CARGO_PKG_VERSION\");",
    ),
    (
        "env-var.line.rust",
        "src/lib.rs",
        "include!(concat!(env!(\"OUT_DIR\"), \"/gen.rs\"));",
    ),
    (
        "api-route.line.express",
        "web/src/users.ts",
        "const users = await api.get('/users');",
    ),
    (
        "credential.line.secret-assignment",
        "tests/test_login.py",
        "password = 'password123'",
    ),
    (
        "credential.line.secret-assignment",
        "app/pager.py",
        "self.update_token = '1a2b3c4d5e6f'",
    ),
    (
        "credential.line.secret-assignment",
        "app/logs.py",
        "new_token = f\"{group_name}-{stream_name}\"",
    ),
    (
        "credential.line.secret-assignment",
        "app/api.py",
        "params = {\"next_token\": \"page-2-of-9\"}",
    ),
    // Issue 12.
    ("api-route.path.routes", "src/apiary.rs", ""),
    ("api-route.path.graphql", "docs/graphql/intro.md", ""),
    (
        "api-route.line.trpc",
        "src/utils/steps.ts",
        "const nextProcedure = steps[0];",
    ),
    (
        "api-route.line.ktor",
        "app/Client.kt",
        "    val r = client.get(\"/sessions\")",
    ),
    ("auth.path.security", "app/models/securities/price.rb", ""),
    (
        "auth.line.access-denied",
        "app/views.py",
        "            abort(404)",
    ),
    (
        "auth.line.access-check",
        "src/jobs/retry.ts",
        "if (isPermanentFailure(err)) {",
    ),
    (
        "auth.line.access-check",
        "app/models/enrollment.rb",
        "    return unless enrolled?(course)",
    ),
    (
        "auth.line.permission-type",
        "src/notify.ts",
        "  await Notification.requestPermission();",
    ),
    (
        "auth.line.account-state",
        "shop/models.py",
        "    product.is_active = True",
    ),
    (
        "auth.line.security-header",
        "cspell.json",
        "  \"language\": \"en\", \"cspell\": true",
    ),
    (
        "auth.line.config",
        "config/app.yml",
        "  tokens_per_page: 20",
    ),
    (
        "migration.path.data-migration",
        "docs/data-migration.md",
        "",
    ),
    (
        "migration.line.alembic",
        "app/ops.py",
        "    result = ops.create_table_report()",
    ),
    (
        "migration.line.data-task",
        "lib/tasks/report.rake",
        "    puts Order.where(state: nil).count",
    ),
    (
        "migration.line.data-task",
        "app/models/order.rb",
        "    Order.where(state: nil).update_all(state: \"open\")",
    ),
    (
        "payment.path.payment-dir",
        "app/views/settings/billing_address.md",
        "",
    ),
    (
        "payment.line.subscription-state",
        "app/channels/feed.ts",
        "socket.on('subscribed', onReady)",
    ),
    ("env-var.path.env-schema", "src/environment.ts", ""),
    (
        "env-var.line.js",
        "src/build.ts",
        "const env = loadConfig('production');",
    ),
    (
        "env-var.line.java",
        "src/main/java/x/Service.java",
        "    @Value(\"#{1 + 1}\")",
    ),
    (
        "env-var.line.manifest-env",
        "deploy/api.yaml",
        "        - name: redis",
    ),
    (
        "env-var.line.php",
        "app/Support/Env.php",
        "    $value = $this->envName('x');",
    ),
    (
        "env-var.line.xml",
        "pom.xml",
        "        <environment.name>prod</environment.name>",
    ),
    (
        "credential.line.secret-reference",
        "app/forms.py",
        "    token = request.args.get('page_token')",
    ),
    ("api-route.path.routes", "app/routes/authenticated.tsx", ""),
    ("api-route.path.laravel", "routes/breadcrumbs.php", ""),
    ("api-route.path.remix", "app/components/routes.tsx", ""),
    (
        "auth.line.activitypub",
        "crates/apub/activities/src/community/update.rs",
        "        verify_is_public(&self.to, &self.cc)?;",
    ),
    (
        "auth.scope.guard",
        "saleor/graphql/translations/types.py",
        "    if all_permissions_required(info.context, [ProductPermissions.MANAGE_PRODUCTS]):",
    ),
    (
        "auth.scope.guard",
        "blog/views.py",
        "def author_page(request, slug):",
    ),
    (
        "payment.scope.pay",
        "server/events.py",
        "def payload_for(event):",
    ),
    (
        "payment.scope.pay",
        "src/player.ts",
        "  display(frame: Frame) {",
    ),
    (
        "payment.scope.pay",
        "mall-portal/src/main/java/com/macro/mall/portal/controller/OmsPortalOrderController.java",
        "        return paySuccess(orderId, payType);",
    ),
    (
        "auth.line.password",
        "src/components/Form.tsx",
        "  togglePasswordVisibility();",
    ),
    (
        "auth.line.identity-provider",
        "docs/setup.md",
        "Configure OAuth in the admin panel",
    ),
    (
        "auth.line.crypto",
        "src/shuffle.rs",
        "    let mut rng = rand::thread_rng();",
    ),
    (
        "auth.line.elixir",
        "lib/app_web/router.ex",
        "    plug :put_root_layout, html: {AppWeb.Layouts, :root}",
    ),
    (
        "auth.scope.check",
        "CTFd/schemas/users.py",
        "        if is_admin():",
    ),
    ("auth.scope.config", "config/application.yml", "logging:"),
    (
        "migration.line.framework",
        "src/cli/migrate.ts",
        "import { Migrator } from \"./migrator\";",
    ),
    (
        "migration.scope.list",
        "src/status.ts",
        "const migrationStatus = await getStatus();",
    ),
    (
        "env-var.line.elixir",
        "lib/app/application.ex",
        "  @env Mix.env()",
    ),
    (
        "env-var.scope.option-table",
        "internal/http/status.go",
        "\t\"NOT_FOUND\": {",
    ),
    (
        "credential.line.npm-token",
        ".github/workflows/ci.yml",
        "      npm_config_cache: /tmp/npm",
    ),
    (
        "credential.line.registry-token",
        ".npmrc",
        "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
    ),
    (
        "auth.line.security-setting",
        "saleor/settings.py",
        "GRAPHQL_MIDDLEWARE: list[str] = []",
    ),
    (
        "auth.line.security-setting",
        "shop/views.py",
        "    if SESSION_COOKIE_AGE == 0:",
    ),
    (
        "auth.scope.security-setting",
        "saleor/settings.py",
        "ANONYMOUS_CHECKOUTS_TIMEDELTA = datetime.timedelta(",
    ),
    (
        "auth.line.security-middleware",
        "src/dispatch/main.py",
        "app.add_middleware(GZipMiddleware, minimum_size=1000)",
    ),
    (
        "auth.line.rails-security",
        "config/environments/production.rb",
        "  config.cache_store = :solid_cache_store",
    ),
    (
        "auth.line.security-properties",
        "src/main/resources/application.properties",
        "server.servlet.context-path=/api",
    ),
    (
        "env-var.data.env-block",
        "deployments/kubernetes/chart/reloader/values.yaml",
        "/reloader.deployment.env.open",
    ),
    (
        "env-var.data.env-block",
        "database/Seeders/eggs/source-engine/egg-ark--survival-evolved.json",
        "/variables.-.description",
    ),
    (
        "env-var.data.env-block",
        "app.json",
        "/env.GITHUB_WEBHOOK_SECRET.description",
    ),
    (
        "env-var.data.env-block",
        ".gitlab-ci.yml",
        "/deploy:production.environment.name",
    ),
    (
        "auth.data.rbac",
        "deployments/kubernetes/manifests/clusterrole.yaml",
        "ClusterRole/metadata.labels.chart",
    ),
    (
        "auth.data.security-config",
        "src/main/resources/application.yml",
        "/server.error.include-message",
    ),
    (
        "auth.scope.class",
        "plume-models/src/blog_authors.rs",
        "pub struct BlogAuthor {",
    ),
];

/// The rule ids that fire for a path and, when given, an added line.
fn fired(matcher: &Matcher, path: &str, line: &str) -> BTreeSet<String> {
    let mut ids: BTreeSet<String> = matcher
        .path_rules_for(path)
        .into_iter()
        .map(|index| matcher.path_rules[index].id.clone())
        .collect();
    if !line.is_empty() {
        let mut open = vec![false; matcher.line_rules.len()];
        matcher.line_rules_for(path, &mut open);
        matcher.open_matches(LineSide::Added, line.as_bytes(), &open, |index| {
            if matcher.confirms(index, line.as_bytes()) {
                ids.insert(matcher.line_rules[index].id.clone());
            }
        });
    }
    ids
}

fn matcher() -> Matcher {
    Matcher::new(&Policy::default()).expect("the default rules compile")
}

#[test]
fn every_default_rule_fires_on_its_positives() {
    let matcher = matcher();
    let missed: Vec<String> = YES
        .iter()
        .filter(|(rule, path, line)| !fired(&matcher, path, line).contains(*rule))
        .map(|(rule, path, line)| format!("{rule} should fire on {path} {line:?}"))
        .collect();
    assert!(missed.is_empty(), "{missed:#?}");
}

#[test]
fn no_default_rule_fires_on_its_near_misses() {
    let matcher = matcher();
    let false_alarms: Vec<String> = NO
        .iter()
        .filter(|(rule, path, line)| fired(&matcher, path, line).contains(*rule))
        .map(|(rule, path, line)| format!("{rule} should not fire on {path} {line:?}"))
        .collect();
    assert!(false_alarms.is_empty(), "{false_alarms:#?}");
}

#[test]
fn every_default_rule_has_a_positive_and_a_near_miss() {
    for trigger in &crate::policy::defaults().triggers {
        for rule in &trigger.rules {
            assert!(
                YES.iter().any(|case| case.0 == rule.id),
                "{} has no positive",
                rule.id
            );
            assert!(
                NO.iter().any(|case| case.0 == rule.id),
                "{} has no near miss",
                rule.id
            );
        }
    }
}

#[test]
fn removed_lines_count_for_every_trigger_but_credential() {
    let matcher = matcher();
    let mut removed = BTreeSet::new();
    let lines = [
        "port = os.getenv('PORT')",
        "@login_required",
        "key = 'AKIAIOSFODNN7REALKEY'",
    ];
    let open = vec![true; matcher.line_rules.len()];
    for line in lines {
        matcher.open_matches(LineSide::Removed, line.as_bytes(), &open, |index| {
            removed.insert(matcher.line_rules[index].id.clone());
        });
    }
    let expected: BTreeSet<String> = [
        "auth.line.python".to_string(),
        "env-var.line.python".to_string(),
        // PHP's `getenv(` is spelled as Python's.
        "env-var.line.php".to_string(),
    ]
    .into();
    assert_eq!(removed, expected);
}

#[test]
fn excerpts_never_hold_a_whole_secret() {
    let matcher = matcher();
    let excerpt =
        matcher.excerpt(b"  AWS = 'AKIAIOSFODNN7REALKEY'; db = 'postgres://a:s3cr3tPass@h/db'");
    assert!(
        !excerpt.contains("AKIAIOSFODNN7REALKEY") && !excerpt.contains("s3cr3tPass"),
        "{excerpt}"
    );
    assert_eq!(excerpt, "AWS = '[redacted]'; db = '[redacted]'");
}

/// [`Matcher::open_matches_one_by_one`]: the line rules that match a line, one by one.
type OneByOne = dyn Fn(LineSide, &[u8], &[bool]) -> Vec<usize> + Send + Sync;

/// The default rules, compiled once for every test case, and the same rules one by one.
fn shared() -> (&'static Matcher, &'static OneByOne) {
    static MATCHER: LazyLock<Matcher> = LazyLock::new(matcher);
    static ONE_BY_ONE: LazyLock<Box<OneByOne>> =
        LazyLock::new(|| Box::new(MATCHER.open_matches_one_by_one()));
    (&MATCHER, &**ONE_BY_ONE)
}

/// The paths and lines of the corpus above, positives and near misses alike.
fn corpus() -> impl Iterator<Item = &'static (&'static str, &'static str, &'static str)> {
    YES.iter().chain(NO.iter())
}

/// Whether the set-based [`Matcher::open_matches`] reports exactly the rules that their
/// own regexes, tried one by one, match, on `line` in the file at `path`, on both sides and
/// with every rule open or only those that read the file.
fn agrees_with_one_by_one(
    matcher: &Matcher,
    one_by_one: &OneByOne,
    path: &str,
    line: &[u8],
) -> Result<(), String> {
    let mut for_path = vec![false; matcher.line_rules.len()];
    matcher.line_rules_for(path, &mut for_path);
    let every = vec![true; matcher.line_rules.len()];
    for open in [&for_path, &every] {
        for side in [LineSide::Added, LineSide::Removed] {
            let mut fast = Vec::new();
            matcher.open_matches(side, line, open, |index| fast.push(index));
            let slow = one_by_one(side, line, open);
            if fast != slow {
                return Err(format!(
                    "{path} {:?} ({side:?}): set {fast:?}, one by one {slow:?}",
                    String::from_utf8_lossy(line)
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn the_rule_set_agrees_with_each_rule_alone_on_the_corpus() {
    let (matcher, one_by_one) = shared();
    let mut disagreements = Vec::new();
    for (_, path, line) in corpus() {
        for (_, other_path, _) in corpus().step_by(7) {
            for path in [path, other_path] {
                if let Err(message) =
                    agrees_with_one_by_one(matcher, one_by_one, path, line.as_bytes())
                {
                    disagreements.push(message);
                }
            }
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}

proptest::proptest! {
    /// Lines spliced from pieces of the corpus (so that rules come close to firing, fire,
    /// or fire several at once) and of arbitrary bytes.
    #[test]
    fn the_rule_set_agrees_with_each_rule_alone_on_spliced_lines(
        pieces in proptest::collection::vec(
            (0..YES.len() + NO.len(), 0usize..200, 0usize..200, proptest::collection::vec(proptest::num::u8::ANY, 0..3)),
            1..4,
        ),
        path_index in 0..YES.len() + NO.len(),
    ) {
        let (matcher, one_by_one) = shared();
        let cases: Vec<_> = corpus().collect();
        let mut line = Vec::new();
        for (case, start, len, noise) in pieces {
            let text = cases[case].2.as_bytes();
            let start = start.min(text.len());
            let end = (start + len).min(text.len());
            line.extend_from_slice(&text[start..end]);
            line.extend_from_slice(&noise);
        }
        let path = cases[path_index].1;
        let agreed = agrees_with_one_by_one(matcher, one_by_one, path, &line);
        proptest::prop_assert!(agreed.is_ok(), "{}", agreed.unwrap_err());
    }
}
