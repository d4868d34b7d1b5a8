# Shared by the real-history benchmarks (sourced, not run): a repository `handoff check`
# can run in without touching the repository under measurement.
#
# A change can only bring its own Task Assignment in its records directory (records given
# with --records may not assign a task), so `check` runs in a temporary bare repository
# that borrows the measured repository's objects (objects/info/alternates: nothing is
# copied) and in which each measured head gets one child commit adding
# `.handoff/bench.md` (meta-data: neither counted, scoped nor classified). Needs $work.

# make_check_repo REPO: creates the repository and prints its path.
make_check_repo() {
    local repo=$1 check_repo="$work/check.git" objects
    git init -q --bare "$check_repo"
    objects=$(cd "$repo" && cd "$(git rev-parse --git-path objects)" && pwd)
    echo "$objects" > "$check_repo/objects/info/alternates"
    cat > "$work/bench.md" <<'MD'
## Task Assignment

| Field | Value |
|---|---|
| Task ID | BENCH-1 |
| Assigned to | backend-engineer |
| Expected file scope | [**] |
| Risk Class | high |

## Interaction Record

| Field | Value |
|---|---|
| Task ID | BENCH-1 |
| Type | review |
| From | backend-engineer |
| To | reality-checker |

### Evidence Bundle

- **Files changed**: `**`
- **Description**: The range under measurement.
- **Test mapping**: AC1 → `bench`
- **Before/after**: Before: the base. After: the head.
- **Security implications**: none.
- **Rollback plan**: `git revert HEAD`
MD
    echo "$check_repo"
}

# add_task_assignment CHECK_REPO COMMIT: prints a new commit, COMMIT plus the record.
add_task_assignment() {
    local check_repo=$1 commit=$2 blob tree
    blob=$(git --git-dir="$check_repo" hash-object -w "$work/bench.md")
    GIT_INDEX_FILE="$work/index" git --git-dir="$check_repo" read-tree "$commit"
    GIT_INDEX_FILE="$work/index" git --git-dir="$check_repo" update-index --add \
        --cacheinfo "100644,$blob,.handoff/bench.md"
    tree=$(GIT_INDEX_FILE="$work/index" git --git-dir="$check_repo" write-tree)
    GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com \
        GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com \
        git --git-dir="$check_repo" commit-tree "$tree" -p "$commit" -m "bench: task assignment"
}
