//! The `api-route` trigger's default rules: positives that must fire each rule, near
//! misses that must not.

use super::Case;

#[rustfmt::skip]
pub(super) const YES: &[Case] = &[
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
    // Issue 12: the classes of misses seen on real commits, each in a shape of its own.
    ("api-route.path.routes", "crates/db_views/post/src/api.rs", ""),
    ("api-route.path.routes", "packages/trpc/server/team-router/create-team.ts", ""),
    ("api-route.path.graphql", "shop/graphql/product/types.py", ""),
    ("api-route.line.trpc", "server/routers/post.ts", "  create: protectedProcedure.input(schema).mutation(async ({ ctx }) => {"),
    ("api-route.line.ktor", "backend/src/Routes.kt", "    get(\"/sessions/{id}\") {"),
    ("api-route.path.routes", "crates/routes/src/feeds.rs", ""),
    ("api-route.path.laravel", "routes/api.php", ""),
    ("api-route.path.remix", "app/routes/_index.tsx", ""),
    ("api-route.path.graphql", "server/src/infra/graphql/mutation.rs", ""),
    ("api-route.path.laravel", "app/Http/Resources/SongResource.php", ""),
];

#[rustfmt::skip]
pub(super) const NO: &[Case] = &[
    ("api-route.path.api-dir", "docs/api/overview.md", ""),
    ("api-route.path.routes", "src/routing-table.md", ""),
    ("api-route.path.django", "shop/models.py", ""),
    ("api-route.path.rails", "config/application.rb", ""),
    ("api-route.path.next-remix", "app/components/Header.tsx", ""),
    ("api-route.path.graphql", "src/graph/layout.ts", ""),
    ("api-route.path.openapi", "docs/open-source.md", ""),
    ("api-route.line.python", "app/main.py", "@app.get_setting('x')"),
    ("api-route.line.express", "server/index.js", "const v = app.get('view engine');"),
    ("api-route.line.spring", "src/main/java/Api.java", "// maps Get requests"),
    ("api-route.line.go", "cmd/server/main.go", "v := cache.Get(\"key\")"),
    ("api-route.line.rust", "src/main.rs", "let r = route(\"x\");"),
    ("api-route.line.express", "web/src/users.ts", "const users = await api.get('/users');"),
    // Issue 12.
    ("api-route.path.routes", "src/apiary.rs", ""),
    ("api-route.path.graphql", "docs/graphql/intro.md", ""),
    ("api-route.line.trpc", "src/utils/steps.ts", "const nextProcedure = steps[0];"),
    ("api-route.line.ktor", "app/Client.kt", "    val r = client.get(\"/sessions\")"),
    ("api-route.path.routes", "app/routes/authenticated.tsx", ""),
    ("api-route.path.laravel", "routes/breadcrumbs.php", ""),
    ("api-route.path.remix", "app/components/routes.tsx", ""),
];
