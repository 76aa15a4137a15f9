#!/usr/bin/env bash
# Install what the tests need and run every check.
#
#   sudo sh scripts/test.sh [PYTEST ARGS...]
#
# 1. Debian packages (scripts/install-system-deps.sh --test; apt-get only if some are missing;
#    no service is started or stopped: the tests start their own PostgreSQL, MariaDB and sshd).
# 2. .venv with `pip install -e '.[test]'` (through scripts/launch.sh, which skips it when
#    pyproject.toml has not changed since the last install).
# 3. ruff check, ruff format --check (a warning only), lint-imports, mypy, pytest (under
#    `xvfb-run -a` when there is no DISPLAY). PYTEST ARGS are passed to pytest; it ends with
#    the ten slowest tests (--durations=10 in pyproject.toml's addopts).
# Exit status: 0 only if ruff check, lint-imports, mypy and pytest all passed; pytest collecting
# no test (its exit 5) is a failure. Root is needed for the whole suite (loop devices, mkfs);
# as another user the install steps ask sudo and tests needing root skip themselves.
#
# Environment:
#   BENCH_GUI_PYTEST_TIMEOUT=4500   seconds before pytest is interrupted (0: no limit)
#   BENCH_GUI_SKIP_INSTALL=1        use the existing .venv and Debian packages as they are
#   BENCH_GUI_TEST_WORKERS=N        pytest-xdist workers (default: CPUs + 1, at most 4; 1: serial,
#                                   no -n). Files are dealt out by tests/_fixtures/schedule.py.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo" || exit 1
venv="$repo/.venv"
started=$(date +%s)

# Run with sudo by a user who owns the checkout: give that user back what root creates in it
# (.venv, caches, __pycache__), so that scripts/launch.sh keeps working without root.
# shellcheck disable=SC2317  # called by the EXIT trap
give_back() {
    if [ "$(id -u)" = 0 ] && [ -n "${SUDO_UID:-}" ] && [ "${SUDO_UID}" != 0 ] \
        && [ "$(stat -c %u "$repo")" = "$SUDO_UID" ]; then
        find "$repo" -xdev -user 0 -exec chown -h "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" {} + \
            2>/dev/null || true
    fi
}
trap give_back EXIT

elapsed() {
    local s=$(($(date +%s) - $1))
    printf '%dm%02ds' $((s / 60)) $((s % 60))
}

banner() { printf '\n==== %s ====\n' "$*"; }

# --- install ------------------------------------------------------------------------------------
if [ "${BENCH_GUI_SKIP_INSTALL:-}" != 1 ]; then
    banner "Install: Debian packages"
    if ! bash "$repo/scripts/install-system-deps.sh" --test; then
        echo "test.sh: installing the Debian packages failed; nothing was tested." >&2
        exit 1
    fi
    banner "Install: .venv with .[test]"
    if ! BENCH_GUI_EXTRAS=test BENCH_GUI_NO_EXEC=1 BENCH_GUI_NO_DESKTOP=1 \
        BENCH_GUI_NO_SYSTEM_DEPS=1 bash "$repo/scripts/launch.sh"; then
        echo "test.sh: installing the Python packages failed; nothing was tested." >&2
        exit 1
    fi
fi
if [ ! -x "$venv/bin/pytest" ]; then
    echo "test.sh: $venv/bin/pytest is missing (run without BENCH_GUI_SKIP_INSTALL=1)" >&2
    exit 1
fi

export VIRTUAL_ENV="$venv"
export PATH="$venv/bin:$PATH"

# --- checks -------------------------------------------------------------------------------------
names=()
verdicts=()
notes=()
failed=0

# record NAME VERDICT NOTE
record() {
    names+=("$1")
    verdicts+=("$2")
    notes+=("$3")
    if [ "$2" = FAIL ]; then failed=1; fi
}

# check NAME warn|fail COMMAND...: run COMMAND, record PASS, or FAIL/WARN with its exit code.
check() {
    local name=$1 mode=$2 rc t0
    shift 2
    banner "$name: $*"
    t0=$(date +%s)
    "$@"
    rc=$?
    if [ "$rc" -eq 0 ]; then
        record "$name" PASS "$(elapsed "$t0")"
    elif [ "$mode" = warn ]; then
        record "$name" WARN "exit $rc, not counted as a failure; fix with: ruff format ."
    else
        record "$name" FAIL "exit $rc"
    fi
}

check "ruff check" fail ruff check .
check "ruff format" warn ruff format --check .
check "lint-imports" fail lint-imports
check "mypy" fail mypy

workers=${BENCH_GUI_TEST_WORKERS:-}
if [ -z "$workers" ]; then
    workers=$(($(nproc 2>/dev/null || echo 1) + 1))
    if [ "$workers" -gt 4 ]; then workers=4; fi
fi
pytest_cmd=(python -m pytest)
if [ "$workers" -gt 1 ]; then
    pytest_cmd+=(-n "$workers")
fi
pytest_cmd+=("$@")
timeout_s=${BENCH_GUI_PYTEST_TIMEOUT:-4500}
if [ "$timeout_s" != 0 ]; then
    # SIGINT first, so pytest still tears its fixtures down and prints which tests ran and
    # failed; KILL two minutes later. --foreground keeps Ctrl-C on a terminal working.
    pytest_cmd=(timeout --foreground --signal=INT --kill-after=120 "$timeout_s"
        "${pytest_cmd[@]}")
fi
how=""
if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null 2>&1; then
    pytest_cmd=(xvfb-run -a -s "-screen 0 1920x1080x24 -nolisten tcp" "${pytest_cmd[@]}")
    how=" (under xvfb-run)"
fi
banner "pytest$how: ${*:-(all tests)}"
t0=$(date +%s)
"${pytest_cmd[@]}"
rc=$?
case "$rc" in
    0) record pytest PASS "$(elapsed "$t0")" ;;
    1) record pytest FAIL "exit 1: some tests failed" ;;
    2) record pytest FAIL "exit 2: interrupted (or an error while collecting)" ;;
    3) record pytest FAIL "exit 3: internal error" ;;
    4) record pytest FAIL "exit 4: usage error" ;;
    5) record pytest FAIL "exit 5: no tests were collected" ;;
    124) record pytest FAIL "timed out after ${timeout_s}s (BENCH_GUI_PYTEST_TIMEOUT)" ;;
    *) record pytest FAIL "exit $rc" ;;
esac

# --- summary ------------------------------------------------------------------------------------
banner "Summary ($(elapsed "$started") in all)"
for i in "${!names[@]}"; do
    printf '  %-14s %-5s %s\n' "${names[$i]}" "${verdicts[$i]}" "${notes[$i]}"
done
if [ "$failed" = 0 ]; then
    echo "All checks passed."
    exit 0
fi
echo "Some checks FAILED (see above)."
exit 1
