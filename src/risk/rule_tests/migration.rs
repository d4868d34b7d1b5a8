//! The `migration` trigger's default rules: positives that must fire each rule, near
//! misses that must not.

use super::Case;

#[rustfmt::skip]
pub(super) const YES: &[Case] = &[
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
    // Issue 12: the classes of misses seen on real commits, each in a shape of its own.
    ("migration.path.data-migration", "lib/tasks/data_migration.rake", ""),
    ("migration.line.alembic", "db/revisions/versions/2024_01_add_index.py", "    op.create_index(\"ix_user_email\", \"user\", [\"email\"])"),
    ("migration.line.data-task", "lib/tasks/cleanup.rake", "    Order.where(state: nil).update_all(state: \"open\")"),
    ("migration.line.data-task", "app/Console/Commands/FixAmounts.php", "        $journal->save();"),
    ("migration.path.migrations-dir", "src/migration/1700000000000-DropUserEmail.ts", ""),
    ("migration.path.migrations-dir", "drizzle/0001_x.sql", ""),
    ("migration.line.framework", "src/database/migrations/1715028537217-CreateUser.ts", "export class CreateUser1715028537217 implements MigrationInterface {"),
    ("migration.line.framework", "priv/repo/structure/20200708223000_create_messages.exs", "  use Ecto.Migration"),
    ("migration.scope.list", "internal/database/migrations.go", "var migrations = [...]func(tx *sql.Tx) error{"),
];

#[rustfmt::skip]
pub(super) const NO: &[Case] = &[
    ("migration.path.migrations-dir", "docs/migrations.md", ""),
    ("migration.path.rails", "db/seeds.rb", ""),
    ("migration.path.alembic", "app/versions.py", ""),
    ("migration.path.flyway-liquibase", "sql/views.sql", ""),
    ("migration.path.golang-migrate", "db/upgrade.sql", ""),
    ("migration.path.sql-dir", "sql/reports/monthly.sql", ""),
    // Issue 12.
    ("migration.path.data-migration", "docs/data-migration.md", ""),
    ("migration.line.alembic", "app/ops.py", "    result = ops.create_table_report()"),
    ("migration.line.data-task", "lib/tasks/report.rake", "    puts Order.where(state: nil).count"),
    ("migration.line.data-task", "app/models/order.rb", "    Order.where(state: nil).update_all(state: \"open\")"),
    ("migration.line.framework", "src/cli/migrate.ts", "import { Migrator } from \"./migrator\";"),
    ("migration.scope.list", "src/status.ts", "const migrationStatus = await getStatus();"),
];
