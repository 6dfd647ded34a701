#!/bin/sh
# Installs what the fuzz targets need (cargo-fuzz; a C++ compiler for libFuzzer), then
# runs targets one at a time, each on one core (FUZZ_JOBS below for more), at low priority (nice 10):
#
#   fuzz/run.sh                               every target, 60 s each
#   FUZZ_SECONDS=3600 fuzz/run.sh core_sync   one target for an hour
#   FUZZ_RUNS=10000000 fuzz/run.sh            every target to 10 M executions
#   FUZZ_RUNS=10000000 FUZZ_SECONDS=1800 fuzz/run.sh session
#                                             10 M executions or 30 min, whichever first
#   FUZZ_JOBS=2 FUZZ_RUNS=10000000 fuzz/run.sh transcript
#                                             two processes on one corpus, 5 M each
#
# With FUZZ_RUNS alone there is no time limit. libFuzzer needs nightly compiler flags;
# RUSTC_BOOTSTRAP=1 unlocks them on a stable toolchain. FUZZ_SANITIZER (default
# `address`, cargo-fuzz's own) is passed to `cargo fuzz` (`none` runs about twice as
# fast; the targets are safe Rust). The corpus grows in fuzz/corpus/<target> (ignored by
# git), starting from fuzz/seeds/<target>; a crash is written to
# fuzz/artifacts/<target>/ and the script goes on to the next target. Each run's output
# is in fuzz/logs/<target>.log, and a line per run is added to fuzz/logs/summary.md:
# target, executions, crashes, exec/s, date, command (the table docs/RELIABILITY.md
# keeps). The exit status is 1 if any target crashed. FUZZ_BUILD=0 skips the build and
# runs the targets as last built.
set -eu
cd "$(dirname "$0")"
if ! command -v c++ >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        apt-get install -y g++
    else
        echo "libFuzzer needs a C++ compiler (g++ or clang++)" >&2
        exit 2
    fi
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi
export RUSTC_BOOTSTRAP=1
# The cryptographic crates without coverage instrumentation (rustc-wrapper.sh says why).
# Cargo does not rebuild for a new wrapper; the cfg, in the flags it does compare, makes
# a build made before the wrapper be redone once.
export RUSTC_WRAPPER="${RUSTC_WRAPPER:-$(pwd)/rustc-wrapper.sh}"
export RUSTFLAGS="${RUSTFLAGS:-} --cfg sealed_fuzz_plain_crypto"
sanitizer=${FUZZ_SANITIZER:-address}
# FUZZ_JOBS=N (with FUZZ_RUNS): N processes of a target on its one corpus, each to
# FUZZ_RUNS/N executions, one per core.
jobs=${FUZZ_JOBS:-1}
if [ "$jobs" -gt 1 ] && [ -z "${FUZZ_RUNS:-}" ]; then
    echo "FUZZ_JOBS needs FUZZ_RUNS" >&2
    exit 2
fi
limits=""
if [ -n "${FUZZ_RUNS:-}" ]; then
    limits="-runs=$FUZZ_RUNS"
    [ -n "${FUZZ_SECONDS:-}" ] && limits="$limits -max_total_time=$FUZZ_SECONDS"
else
    limits="-max_total_time=${FUZZ_SECONDS:-60}"
fi
if [ "$#" -gt 0 ]; then
    targets="$*"
else
    targets=$(cargo fuzz list)
fi
# Built once, before any run: a source edited while the runs go on changes nothing.
# FUZZ_BUILD=0 runs the targets as last built.
if [ "${FUZZ_BUILD:-1}" != 0 ]; then
    cargo fuzz build -s "$sanitizer"
fi
bin="target/$(rustc -vV | sed -n 's/^host: //p')/release"
mkdir -p logs
[ -f logs/summary.md ] || {
    echo "| target | executions | crashes | exec/s | date | command |"
    echo "|---|---|---|---|---|---|"
} >logs/summary.md
# Crash files of target $1 (a slow unit, libFuzzer's `slow-unit-`, written when one input
# takes seconds on a loaded machine, is no crash: only crash-, leak-, timeout- and oom-
# files count).
crash_files() {
    find "artifacts/$1" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l
}
# From libFuzzer's log $1, its last words "Done N runs in S second(s)": N with $2=1, S
# with $2=2 (absent after a crash, when the last status line counts the runs).
done_field() {
    sed -n "s/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\\$2/p" "$1" | tail -n 1
}
last_count() {
    sed -n 's/^#\([0-9]*\).*/\1/p' "$1" | tail -n 1
}
failed=0
for t in $targets; do
    mkdir -p "corpus/$t" "artifacts/$t"
    if [ -d "seeds/$t" ]; then seeds="seeds/$t"; else seeds=""; fi
    before=$(crash_files "$t")
    cmd="${FUZZ_JOBS:+FUZZ_JOBS=$FUZZ_JOBS }${FUZZ_RUNS:+FUZZ_RUNS=$FUZZ_RUNS }${FUZZ_SECONDS:+FUZZ_SECONDS=$FUZZ_SECONDS }fuzz/run.sh $t"
    # The drivers that read their input as a stream of choices (a step per byte or
    # two) need inputs of kilobytes from the start: libFuzzer's length control grows
    # inputs slowly from a few bytes, and its early inputs drive a few steps only.
    # Plain random files of 50–4,050 bytes found faults in `session` that its
    # length-controlled runs had not (docs/RELIABILITY.md).
    case $t in
    session | core_sync) extra="-max_len=4096 -len_control=0" ;;
    *) extra="" ;;
    esac
    echo "== $t: $bin/$t corpus/$t $seeds $limits $extra"
    start=$(date -u +%Y-%m-%d)
    if [ "$jobs" -gt 1 ]; then
        # Several processes of the same binary on the one corpus (each reads what the
        # others add), each to its share of FUZZ_RUNS, with seeds of their own; their
        # runs are added up below, and the time is the longest's.
        pids=""
        for j in $(seq 1 "$jobs"); do
            # shellcheck disable=SC2086
            nice -n 10 "$bin/$t" "corpus/$t" $seeds $(echo "$limits" | sed "s/-runs=[0-9]*/-runs=$((FUZZ_RUNS / jobs))/") \
                $extra -seed="$j" -artifact_prefix="artifacts/$t/" -print_final_stats=1 \
                >"logs/$t.$j.log" 2>&1 &
            pids="$pids $!"
        done
        for p in $pids; do wait "$p" || failed=1; done
        runs=0
        secs=0
        for j in $(seq 1 "$jobs"); do
            r=$(done_field "logs/$t.$j.log" 1)
            [ -n "$r" ] || r=$(last_count "logs/$t.$j.log")
            sec=$(done_field "logs/$t.$j.log" 2)
            runs=$((runs + ${r:-0}))
            [ "${sec:-0}" -gt "$secs" ] && secs=$sec
        done
        crashes=$(($(crash_files "$t") - before))
        rate="?"
        [ "$secs" -gt 0 ] && rate=$((runs / secs))
        echo "| \`$t\` | $runs ($jobs processes) | $crashes | $rate | $start | \`$cmd\` |" | tee -a logs/summary.md
        tail -n 3 "logs/$t.1.log"
        continue
    fi
    # shellcheck disable=SC2086
    if nice -n 10 "$bin/$t" "corpus/$t" $seeds $limits $extra -artifact_prefix="artifacts/$t/" \
        -print_final_stats=1 >"logs/$t.log" 2>&1; then
        :
    else
        failed=1
    fi
    crashes=$(($(crash_files "$t") - before))
    runs=$(done_field "logs/$t.log" 1)
    secs=$(done_field "logs/$t.log" 2)
    if [ -z "$runs" ]; then
        runs=$(last_count "logs/$t.log")
        secs=""
    fi
    rate=$(sed -n 's/.*exec\/s: \([0-9]*\).*/\1/p' "logs/$t.log" | tail -n 1)
    if [ -n "$runs" ] && [ -n "$secs" ] && [ "$secs" -gt 0 ]; then rate=$((runs / secs)); fi
    echo "| \`$t\` | ${runs:-?} | $crashes | ${rate:-?} | $start | \`$cmd\` |" | tee -a logs/summary.md
    tail -n 3 "logs/$t.log"
done
exit $failed
