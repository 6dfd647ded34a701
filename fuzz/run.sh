#!/bin/sh
# Installs cargo-fuzz when missing, then runs fuzz targets for a while each:
#
#   fuzz/run.sh                    every target, 60 s each
#   FUZZ_SECONDS=3600 fuzz/run.sh core_sync sync_message
#
# libFuzzer needs nightly compiler flags; RUSTC_BOOTSTRAP=1 unlocks them on a stable
# toolchain. The corpus grows in fuzz/corpus/<target> (ignored by git), starting from
# fuzz/seeds/<target>; a crash is written to fuzz/artifacts/<target>/.
set -eu
cd "$(dirname "$0")"
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi
secs=${FUZZ_SECONDS:-60}
if [ "$#" -gt 0 ]; then
    targets="$*"
else
    targets=$(RUSTC_BOOTSTRAP=1 cargo fuzz list)
fi
for t in $targets; do
    mkdir -p "corpus/$t"
    if [ -d "seeds/$t" ]; then seeds="seeds/$t"; else seeds=""; fi
    echo "== $t ($secs s)"
    # shellcheck disable=SC2086
    RUSTC_BOOTSTRAP=1 cargo fuzz run "$t" "corpus/$t" $seeds -- -max_total_time="$secs"
done
