#!/usr/bin/env bash
# Secret Stallmate without a referee between two fresh `sealed node` processes and a
# witness, on 127.0.0.1: Alice proposes, Bob accepts, the board is set up, then after WAIT
# seconds (a person reading it; 20 by default, 0 for none) Alice makes her first attempts, and
# the time from each `sealed move` to the answer in her `sealed show` is printed (issue 57:
# nothing is compiled; each node reads the circuit files once, when it first computes,
# about 50-90 ms). Figures in
# docs/PERFORMANCE.md. With EARLY=1 Alice does not wait for her board: her first attempt
# is typed again and again from the moment Bob accepts until her node takes it, which
# may be while the game is still starting at either seat.
#
#   SEALED=target/release/sealed scripts/duo-first-attempts.sh
set -euo pipefail
S=$(realpath "${SEALED:-target/release/sealed}")
WAIT=${WAIT:-20}
dir=$(mktemp -d)
cd "$dir"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$dir"' EXIT
for h in a b w; do "$S" --home $h init --name $h >/dev/null; done
"$S" --home w node --witness --listen /ip4/127.0.0.1/tcp/0 --no-mdns >w.out 2>w.err & pids+=($!)
"$S" --home a node --listen /ip4/127.0.0.1/tcp/0 --no-mdns >a.out 2>a.err & pids+=($!)
"$S" --home b node --listen /ip4/127.0.0.1/tcp/0 --no-mdns >b.out 2>b.err & pids+=($!)
addr() {
    for _ in $(seq 100); do
        grep -m1 '^listening' "$1.out" 2>/dev/null | awk '{print $2}' | grep . && return
        sleep 0.1
    done
    return 1
}
game=$("$S" --home a new stallmate --no-referee --peer "$(addr b)" --witness "$(addr w)" \
    -o time-per-move=1d 2>/dev/null | head -1)
for _ in $(seq 50); do "$S" --home b accept "$game" >/dev/null 2>&1 && break; sleep 0.2; done
# Waits (polling Alice's `show` every 50 ms) until attempt $1 has its answer and no
# step of its computation is still owed.
answered() {
    for _ in $(seq 1200); do
        v=$("$S" --home a show "$game" 2>/dev/null || true)
        if grep -q "^$1: " <<<"$v" && ! grep -q "to send step\|to leave step" <<<"$v"; then
            return
        fi
        sleep 0.05
    done
}
if [ "${EARLY:-0}" = 1 ]; then
    t0=$(date +%s.%N)
    for _ in $(seq 600); do
        "$S" --home a move "$game" a2-a5 >/dev/null 2>&1 && break
        sleep 0.05
    done
    answered a2-a5
    printf 'a2-a5 (typed from the acceptance on) answered %.3f s after the acceptance\n' \
        "$(echo "$(date +%s.%N) - $t0" | bc)"
    exit 0
fi
for _ in $(seq 600); do
    "$S" --home a show "$game" 2>/dev/null | grep -q "choose an attempt\|your move" && break
    sleep 0.1
done
sleep "$WAIT"
# An illegal attempt, a second one (the next shape), then a legal move.
for mv in a2-a5 b2-b5 a2-a3; do
    t0=$(date +%s.%N)
    if ! "$S" --home a move "$game" "$mv" >/dev/null 2>&1; then
        echo "$mv: refused"
        continue
    fi
    answered "$mv"
    printf '%s answered in %.3f s\n' "$mv" "$(echo "$(date +%s.%N) - $t0" | bc)"
done
