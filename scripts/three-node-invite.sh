#!/usr/bin/env bash
# A Secret Stallmate invitation between three real nodes on loopback (White, Black and a
# `sealed referee`), with the CPUs kept busy: how many `sealed new` calls say the
# invitation was delivered, out of N (docs/RELIABILITY.md). The referee may hear of the
# game from Black before White reaches it; the invitation must count as delivered then.
# Usage: scripts/three-node-invite.sh [runs, default 40] [busy loops, default 6]
set -euo pipefail
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$repo"
cargo build -q -p sealed-cli
sealed="${CARGO_TARGET_DIR:-$repo/target}/debug/sealed"
runs=${1:-40}
busy=${2:-6}
loops=()
trap 'kill "${loops[@]}" 2>/dev/null || true' EXIT
for _ in $(seq "$busy"); do
    sh -c 'while :; do :; done' &
    loops+=("$!")
done
delivered=0
for _ in $(seq "$runs"); do
    work=$(mktemp -d)
    pids=()
    start() { # home command → the address it prints
        "$sealed" --home "$work/$1" "$2" --listen /ip4/127.0.0.1/tcp/0 --no-mdns >"$work/$1.out" 2>/dev/null &
        pids+=("$!")
        until grep -q '^control' "$work/$1.out" 2>/dev/null; do sleep 0.05; done
        grep '^listening' "$work/$1.out" | head -1 | cut -d' ' -f2
    }
    for n in white black referee; do "$sealed" --home "$work/$n" init --name "$n" >/dev/null; done
    start white node >/dev/null
    b=$(start black node)
    r=$(start referee referee)
    if "$sealed" --home "$work/white" new stallmate --peer "$b" --referee "$r" \
        -o period=3s -o ply-limit=4 >/dev/null 2>&1; then
        delivered=$((delivered + 1))
    fi
    kill "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
    rm -rf "$work"
done
echo "delivered $delivered of $runs (with $busy busy loops)"
