//! Words in strings and comments against code, by each language's grammar: for Go, Rust,
//! Ruby, PHP, Java and Kotlin, a change whose env read, auth check or route stands in
//! code fires its rule, and the same words in a string, a heredoc, a text block or a
//! comment fire nothing (interpolations are code again).

use crate::common::{head_commit, TestRepo};
use handoff::{classify, Policy, Repo};

/// The rules the change writing `files` over a one-file base fires, with their lines.
fn fired(files: &[(&str, &str)]) -> Vec<(String, Option<usize>)> {
    let (repo, base) = TestRepo::with_base();
    files
        .iter()
        .for_each(|(path, text)| _ = repo.write(path, text));
    repo.commit("change");
    let opened = Repo::open(repo.path()).unwrap();
    let policy = Policy::load(&opened, &base, None).unwrap();
    let result = classify(&opened, &base, &head_commit(), None, &policy).unwrap();
    let findings = result.findings.into_iter();
    findings.map(|f| (f.rule, f.line)).collect()
}

/// Asserts that `near_miss` (a file that only speaks of `rule`'s words) does not fire
/// `rule`, and that `positive` fires `rule` at `line` only. Other rules that read the
/// same words (`auth.line.identifier` reads `authenticate`, `jwt`) have cases of their own.
fn holds(path: &str, rule: &str, near_miss: &str, positive: &str, line: usize) {
    let of_rule = |files: &[(&str, &str)]| -> Vec<(String, Option<usize>)> {
        fired(files)
            .into_iter()
            .filter(|(id, _)| id == rule)
            .collect()
    };
    assert_eq!(of_rule(&[(path, near_miss)]), [], "near miss in {path}");
    assert_eq!(
        of_rule(&[(path, positive)]),
        [(rule.to_string(), Some(line))],
        "positive in {path}"
    );
}

#[test]
fn go_env_reads_in_code_fire_and_in_strings_and_comments_do_not() {
    let near_miss = "package config\n\n// Port used to call os.Getenv(\"PORT\").\nfunc Usage() string {\n\treturn `set PORT; read by os.Getenv(\"PORT\")` + \"os.Getenv\" /* os.Getenv( */\n}\n";
    let positive = "package config\n\n// Port is the listening port.\nfunc Port() string {\n\treturn \"port \" + os.Getenv(\"PORT\") // os.Getenv\n}\n";
    holds(
        "internal/config/port.go",
        "env-var.line.go",
        near_miss,
        positive,
        5,
    );
}

#[test]
fn rust_env_reads_in_code_fire_and_in_strings_and_doc_comments_do_not() {
    let near_miss = "/// Reads `std::env::var(\"PORT\")` at start-up.\npub fn usage() -> &'static str {\n    r#\"set PORT; see env::var(\"PORT\")\"#\n}\n";
    let positive = "/// The listening port.\npub fn port() -> String {\n    format!(\"{}\", std::env::var(\"PORT\").unwrap_or_default())\n}\n";
    holds("src/config.rs", "env-var.line.rust", near_miss, positive, 3);
}

#[test]
fn ruby_env_reads_in_code_and_interpolations_fire_and_in_strings_heredocs_and_comments_do_not() {
    let near_miss = "# Reads ENV.fetch(\"SMTP_HOST\")\nclass Mailer\n  HELP = <<~TEXT\n    Set ENV[\"SMTP_HOST\"] first.\n  TEXT\n  NOTE = 'ENV.fetch is read at boot'\nend\n";
    let positive = "# The mail host.\nclass Mailer\n  HELP = 'set the host'\n  HOST = \"smtp://#{ENV.fetch(\"SMTP_HOST\")}\"\nend\n";
    holds(
        "app/mailers/mailer.rb",
        "env-var.line.ruby",
        near_miss,
        positive,
        4,
    );
}

#[test]
fn php_env_reads_in_code_and_interpolations_fire_and_in_strings_nowdocs_and_comments_do_not() {
    let near_miss = "<?php\n// Reads getenv('APP_KEY') at boot.\n$help = 'set getenv(\"APP_KEY\") first';\n$doc = <<<'TXT'\n  $_ENV['APP_KEY'] holds it\n  TXT;\n";
    let positive = "<?php\n// The application key.\n$help = 'the key';\n$key = \"base64:{$loader->getenv('APP_KEY')}\";\n";
    holds("config/key.php", "env-var.line.php", near_miss, positive, 4);
}

#[test]
fn java_env_reads_in_code_fire_and_in_strings_text_blocks_and_comments_do_not() {
    let near_miss = "/** Reads System.getenv(\"DB_URL\"). */\nclass Db {\n  String help = \"\"\"\n      set System.getenv(\"DB_URL\")\n      \"\"\";\n  String more = \"System.getenv\"; // System.getenv(\n}\n";
    let positive = "/** The database. */\nclass Db {\n  String help = \"the url\";\n  String url = System.getenv(\"DB_URL\");\n}\n";
    holds(
        "src/main/java/app/Db.java",
        "env-var.line.java",
        near_miss,
        positive,
        4,
    );
}

#[test]
fn kotlin_env_reads_in_code_and_templates_fire_and_in_strings_and_comments_do_not() {
    let near_miss = "/* Reads System.getenv(\"DB_URL\") */\nobject Db {\n    val help = \"set System.getenv(\\\"DB_URL\\\")\"\n    val raw = \"\"\"System.getenv(\"DB_URL\")\"\"\"\n}\n";
    let positive = "/* The database. */\nobject Db {\n    val help = \"the url\"\n    val url = \"jdbc:${System.getenv(\"DB_URL\")}\"\n}\n";
    holds(
        "src/main/kotlin/app/Db.kt",
        "env-var.line.java",
        near_miss,
        positive,
        4,
    );
}

#[test]
fn auth_checks_in_strings_of_the_new_languages_are_text() {
    // The same word, `authenticate`, as a message and as a call, in each language.
    let cases: &[(&str, &str, &str)] = &[
        (
            "internal/web/users.go",
            "package web\n\nvar msg = \"could not authenticate\"\n",
            "package web\n\nvar ok = authenticate(user)\n",
        ),
        (
            "src/web.rs",
            "const MSG: &str = \"could not authenticate\";\n",
            "let ok = authenticate(&user);\n",
        ),
        (
            "app/models/user.rb",
            "MSG = 'could not authenticate'\n",
            "ok = authenticate(user)\n",
        ),
        (
            "app/Models/User.php",
            "<?php\n$msg = 'could not authenticate';\n",
            "<?php\n$ok = authenticate($user);\n",
        ),
        (
            "src/main/java/app/Web.java",
            "class Web { String m = \"could not authenticate\"; }\n",
            "class Web { boolean ok = authenticate(user); }\n",
        ),
        (
            "src/main/kotlin/app/Web.kt",
            "val msg = \"could not authenticate\"\n",
            "val ok = authenticate(user)\n",
        ),
    ];
    for (path, near_miss, positive) in cases {
        let line = near_miss.lines().count();
        holds(path, "auth.line.access-check", near_miss, positive, line);
    }
}

#[test]
fn route_declarations_in_code_fire_and_in_doc_strings_do_not() {
    let near_miss =
        "/// Use it as `#[get(\"/users\")]`.\nconst EXAMPLE: &str = \"#[get(\\\"/users\\\")]\";\n";
    let positive = "/// Lists users.\n#[get(\"/users\")]\nasync fn users() {}\n";
    holds("src/web.rs", "api-route.line.rust", near_miss, positive, 2);
}

#[test]
fn a_blade_template_keeps_the_line_rule_s_answer() {
    // Blade's directives stand where PHP's grammar sees inline HTML: no grammar, so the
    // line rule decides (fail closed).
    let result = fired(&[(
        "resources/views/welcome.blade.php",
        "<p>{{ env('APP_NAME') }}</p>\n",
    )]);
    assert_eq!(result, [("env-var.line.php".to_string(), Some(1))]);
}

#[test]
fn everyday_spellings_fire_in_code_and_not_in_strings() {
    // (path, rule, near miss, positive), the positive's match on its last line.
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "internal/sys/home.go",
            "env-var.line.go",
            "package sys\n\nvar help = \"syscall.Getenv(\\\"HOME\\\")\"\n",
            "package sys\n\nvar home, _ = syscall.Getenv(\"HOME\")\n",
        ),
        (
            "src/config.rs",
            "env-var.line.rust",
            "const HELP: &str = \"e::var(\\\"PORT\\\")\";\n",
            "fn main() {}\nfn port() -> String { e::var(\"PORT\").unwrap() }\n",
        ),
        (
            "src/main/kotlin/app/Signer.kt",
            "env-var.line.java",
            "val help = \"@Value(\\\"\\\\${jwt.secret}\\\")\"\n",
            "class Jwt(@Value(\"\\${jwt.secret}\") val secret: String)\n",
        ),
        (
            "routes/admin.php",
            "api-route.line.laravel",
            "<?php\n$doc = \"Route::get('/users')\";\n",
            "<?php\nRoute::get('/users', [Users::class, 'index']);\n",
        ),
        (
            "app.rb",
            "api-route.line.ruby",
            "HELP = <<~TXT\n  get '/users' do\nTXT\n",
            "require 'sinatra'\nget '/users' do\n",
        ),
        (
            "src/main/java/app/Users.java",
            "api-route.line.spring",
            "/** See {@code @GET} below. */ class A { String h = \"@Get(\\\"/users\\\")\"; }\n",
            "class Users { @Get(\"/users\") List<User> all() { return List.of(); } }\n",
        ),
    ];
    for (path, rule, near_miss, positive) in cases {
        holds(path, rule, near_miss, positive, positive.lines().count());
    }
}
