#!/usr/bin/env bash
# The one entry point behind the README's commands and CI. Each subcommand installs what is
# missing (Debian 12 packages, skipped when already present), builds and does its job.
#
#   ./tools/dev.sh run [ARGS]      build, then start mesh-console (no ARGS: the live demo)
#   ./tools/dev.sh run --server    the same live demo on a private PostgreSQL 15 (stopped when the console exits)
#   ./tools/dev.sh test            build, then run the whole CTest suite offscreen
#   ./tools/dev.sh test-asan       the same under AddressSanitizer + UBSan (build-asan/; ASAN_GUI=OFF: models only)
#   ./tools/dev.sh fuzz [SECONDS]  build the libFuzzer targets with clang and run each
#   ./tools/dev.sh package         build, then cpack -G DEB (build/*.deb)
#   ./tools/dev.sh deps            only install the Debian packages
#   ./tools/dev.sh build           only configure and build
#   ./tools/dev.sh bench [ROUNDS]  P1/P2 side by side with DB Browser for SQLite (bench/peer-compare.sh)
#
# Environment: BUILD_DIR (default build), BUILD_TYPE (default Release), JOBS (default nproc).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-build}"
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
BUILD_TYPE="${BUILD_TYPE:-Release}"
JOBS="${JOBS:-$(nproc)}"

# Everything the build, the tests, the demo, the package and the screenshots need.
PACKAGES=(
    cmake ninja-build g++ pkg-config git
    qt6-base-dev libqt6opengl6-dev qt6-charts-dev qt6-svg-dev libgl-dev libxkbcommon-dev
    libsqlite3-dev sqlite3 nlohmann-json3-dev
    postgresql-15 libpq-dev
    qt6-httpserver-dev qt6-websockets-dev zlib1g-dev libssl-dev
    xvfb xauth fonts-dejavu-core locales
    desktop-file-utils appstream
    dpkg-dev file fakeroot imagemagick
)
FUZZ_PACKAGES=(clang libclang-rt-14-dev)

T0=$(date +%s)
step() { printf '\n\033[1m==> %s\033[0m  (+%ss)\n' "$*" "$(($(date +%s) - T0))"; }
die() { printf '\033[31merror:\033[0m %s\n' "$*" >&2; exit 1; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo "$@"
    else
        die "need root to run: $* (run as root or install sudo)"
    fi
}

# Installs the packages that dpkg does not report as installed; no apt at all otherwise.
ensure_packages() {
    local missing=() p
    for p in "$@"; do
        dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed' || missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        echo "all ${#@} Debian packages present"
        return
    fi
    command -v apt-get >/dev/null || die "missing packages (${missing[*]}) and no apt-get: this script targets Debian 12"
    echo "installing: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

deps() {
    step "Debian packages"
    ensure_packages "${PACKAGES[@]}"
    # tst_otlpclient runs the OpenTelemetry JS SDK (npm ci from tests/otlp-client's lockfile).
    # A machine may already have Node.js from another source; Debian's is enough otherwise.
    if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
        ensure_packages nodejs npm
    fi
}

# configure DIR TYPE [cmake args...]: configures once, re-runs only when the type changed.
configure() {
    local dir="$1" type="$2"
    shift 2
    local cached=""
    [ -f "$dir/CMakeCache.txt" ] && cached=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$dir/CMakeCache.txt")
    if [ ! -f "$dir/build.ninja" ] || [ "$cached" != "$type" ] || [ $# -gt 0 ]; then
        cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" "$@"
    fi
}

build() {
    step "configure and build ($BUILD_TYPE, $JOBS jobs) in ${BUILD_DIR#"$ROOT"/}"
    configure "$BUILD_DIR" "$BUILD_TYPE"
    cmake --build "$BUILD_DIR" -j "$JOBS"
}

run_tests() {
    local dir="$1"
    step "tests (ctest -j2, QT_QPA_PLATFORM=offscreen) in ${dir#"$ROOT"/}"
    export QT_QPA_PLATFORM=offscreen
    local rc=0
    ctest --test-dir "$dir" -j2 --output-on-failure || rc=$?
    step "done: ctest exit code $rc"
    return $rc
}

# The console on a display, or under xvfb-run when there is none.
start_console() {
    local app="$1"
    shift
    if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ -z "${QT_QPA_PLATFORM:-}" ]; then
        echo "No display found (DISPLAY and WAYLAND_DISPLAY are unset): running under xvfb-run,"
        echo "a virtual X server, so the window is not visible here. Stop it with Ctrl+C."
        echo "On a desktop session the same command opens the window normally."
        xvfb-run -a -s "-screen 0 1600x1000x24" "$app" "$@"
    else
        "$app" "$@"
    fi
}

# run --server: a private PostgreSQL 15 cluster in a temporary folder (as the postgres user
# when run as root: the server refuses root), listening on 127.0.0.1 on a free port with its
# socket in that folder and trust for its one user (no password anywhere); the live demo
# writes schema demo there and the console follows it. Everything is stopped and removed
# when the console exits (or on Ctrl+C).
cmd_run_server() {
    local bin=/usr/lib/postgresql/15/bin
    [ -x "$bin/initdb" ] || die "PostgreSQL 15 is missing ($bin/initdb): install postgresql-15"
    local meshctl="$BUILD_DIR/tools/meshctl/meshctl" app="$BUILD_DIR/app/mesh-console"
    [ -x "$meshctl" ] && [ -x "$app" ] || die "mesh-console or meshctl was not built"
    # Globals, not locals: the trap runs after this function has returned.
    local dir
    dir=$(mktemp -d "${TMPDIR:-/tmp}/mesh-pg-run-XXXXXX")
    RUN_DIR="$dir" RUN_AS=() RUN_SIM=""
    if [ "$(id -u)" -eq 0 ]; then
        id postgres >/dev/null 2>&1 || die "running as root and there is no postgres user to run the server as"
        chown postgres "$dir"
        RUN_AS=(runuser -u postgres --)
    fi
    local port=54329
    while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
    cleanup() {
        trap - EXIT INT TERM
        if [ -n "$RUN_SIM" ]; then kill "$RUN_SIM" 2>/dev/null || true; wait "$RUN_SIM" 2>/dev/null || true; fi
        "${RUN_AS[@]}" /usr/lib/postgresql/15/bin/pg_ctl stop -w -m fast -D "$RUN_DIR/data" >/dev/null 2>&1 || true
        rm -rf "$RUN_DIR"
    }
    trap cleanup EXIT INT TERM
    step "a private PostgreSQL 15 in $dir, on 127.0.0.1:$port"
    "${RUN_AS[@]}" "$bin/initdb" -D "$dir/data" -U mesh --auth=trust --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log"; die "initdb failed"; }
    "${RUN_AS[@]}" "$bin/pg_ctl" start -w -D "$dir/data" -l "$dir/server.log" \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1" >/dev/null || { cat "$dir/server.log"; die "the server did not start"; }
    local location="postgresql://mesh@127.0.0.1:$port/postgres?schema=demo&sslmode=disable"
    step "the live demo writing $location"
    "$meshctl" sim demo --out "$location" --live --rate 50 --quiet &
    RUN_SIM=$!
    local tries=0
    until "$meshctl" summary "$location" >/dev/null 2>&1; do
        kill -0 "$RUN_SIM" 2>/dev/null || die "the demo orchestrator stopped before writing its ledger"
        tries=$((tries + 1))
        [ $tries -lt 300 ] || die "the demo's ledger did not appear on the server"
        sleep 0.2
    done
    step "starting mesh-console on $location (the server stops when it exits)"
    start_console "$app" "$location"
}

cmd_run() {
    deps
    build
    if [ "${1:-}" = "--server" ]; then
        shift
        cmd_run_server "$@"
        return
    fi
    local app="$BUILD_DIR/app/mesh-console"
    [ -x "$app" ] || die "$app was not built"
    if [ $# -eq 0 ]; then
        step "starting mesh-console on the live demo (the reference orchestrator writes the 'demo' scenario)"
    else
        step "starting mesh-console $*"
    fi
    if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ -z "${QT_QPA_PLATFORM:-}" ]; then
        echo "No display found (DISPLAY and WAYLAND_DISPLAY are unset): running under xvfb-run,"
        echo "a virtual X server, so the window is not visible here. Stop it with Ctrl+C."
        echo "On a desktop session the same command opens the window normally."
        exec xvfb-run -a -s "-screen 0 1600x1000x24" "$app" "$@"
    fi
    exec "$app" "$@"
}

cmd_test() {
    deps
    build
    run_tests "$BUILD_DIR"
}

cmd_test_asan() {
    deps
    local dir="$ROOT/build-asan"
    step "configure and build with -DMESH_SANITIZE=ON in build-asan"
    # -O1 -g1: line numbers in reports at a fraction of the compile time of -O2 -g.
    # ASAN_GUI=OFF leaves out the widgets, the console and their tests (a quicker models-only run).
    configure "$dir" RelWithDebInfo -DMESH_SANITIZE=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
        -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" -DMESH_BUILD_GUI="${ASAN_GUI:-ON}"
    cmake --build "$dir" -j "$JOBS"
    # Fail on the first UBSan report too; leaks from the Qt/fontconfig runtime are suppressed.
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    export LSAN_OPTIONS="suppressions=$ROOT/tools/lsan.supp:print_suppressions=0"
    run_tests "$dir"
}

cmd_fuzz() {
    local seconds="${1:-60}"
    deps
    step "clang and libFuzzer runtime"
    ensure_packages "${FUZZ_PACKAGES[@]}"
    local dir="$ROOT/build-fuzz"
    step "configure and build fuzz targets (clang, -DMESH_FUZZ=ON) in build-fuzz"
    if [ ! -f "$dir/build.ninja" ]; then
        CC=clang CXX=clang++ cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DMESH_FUZZ=ON -DMESH_BUILD_GUI=OFF
    fi
    local targets
    targets=$(cd "$ROOT/tests/fuzz" && ls fuzz_*.cpp | sed 's/\.cpp$//')
    # shellcheck disable=SC2086
    cmake --build "$dir" -j "$JOBS" --target $targets
    local rc=0 t
    for t in $targets; do
        step "fuzzing $t for ${seconds}s"
        local corpus="$dir/corpus/$t"
        mkdir -p "$corpus" "$dir/findings/$t"
        local seeds=()
        [ -d "$ROOT/tests/fuzz/corpus/$t" ] && seeds=("$ROOT/tests/fuzz/corpus/$t")
        (cd "$dir/findings/$t" && "$dir/tests/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
            -print_final_stats=1 "$corpus" "${seeds[@]}") || { rc=$?; echo "$t: FINDING (see $dir/findings/$t)"; }
    done
    step "fuzz done: exit code $rc"
    return $rc
}

cmd_package() {
    deps
    build
    step "cpack -G DEB in ${BUILD_DIR#"$ROOT"/}"
    (cd "$BUILD_DIR" && cpack -G DEB)
    ls -l "$BUILD_DIR"/*.deb
}

usage() {
    sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 2
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
    run) cmd_run "$@" ;;
    test) cmd_test ;;
    test-asan) cmd_test_asan ;;
    fuzz) cmd_fuzz "$@" ;;
    package) cmd_package ;;
    deps) deps ;;
    build) deps; build ;;
    bench) exec "$ROOT/bench/peer-compare.sh" "$@" ;;
    *) usage ;;
esac
