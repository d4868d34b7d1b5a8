//! CLI cases as data (trycmd): `tests/cmd/*.md`, each a console session with the exit
//! code and the output of every command, run in the case's `*.in/` directory.
//! `TRYCMD=overwrite cargo test --test it cmd` rewrites the expected output.

#[test]
fn cli_cases() {
    trycmd::TestCases::new()
        .register_bin("handoff", trycmd::cargo::cargo_bin!("handoff"))
        .case("tests/cmd/*.md");
}
