#!/usr/bin/env bash
# Issue 34's own measurement, between two real nodes: two release nodes on 127.0.0.1
# (`sealed node --bots`, stores on disk in a scratch folder) play one Tempête with a ply
# limit of 100,000, and every 30 s the script prints the plies made in that window and
# each node's resident memory. A move that costs the same at any ply gives the same
# count in every window. Usage: scripts/long-game.sh [SECONDS] (default 180).
set -euo pipefail
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
seconds=${1:-180}
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$repo"
cargo build -q --release -p sealed-cli
sealed=$repo/target/release/sealed

start() { # home → sets addr to the node's first address ending in /p2p/
    "$sealed" --home "$1" node --listen /ip4/127.0.0.1/tcp/0 --no-mdns --bots >"$1.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do
        addr=$(grep -o '/ip4/127.0.0.1/tcp/[0-9]*/p2p/[A-Za-z0-9]*' "$1.log" | head -1 || true)
        [ -n "$addr" ] && return
        sleep 0.1
    done
    echo "the node at $1 printed no address" >&2
    exit 1
}

for n in alice bob; do "$sealed" --home "$work/$n" init --name "$n" >/dev/null; done
start "$work/alice"
start "$work/bob"
game=$("$sealed" --home "$work/alice" new tempete --peer "$addr" -o "ply-limit=${PLIES:-100000}" | head -1 | cut -c1-12)
ply() { "$sealed" --home "$work/alice" games --json | python3 -c "
import json, sys
for g in json.load(sys.stdin):
    if g['game'].startswith('$game'):
        print(g['ply'])"; }
rss() { awk '/VmRSS/ {printf "%.0f MB", $2 / 1024}' "/proc/$1/status"; }
echo "| seconds | plies in the window | ply reached | alice RSS | bob RSS |"
echo "|---|---|---|---|---|"
last=$(ply)
for t in $(seq 30 30 "$seconds"); do
    sleep 30
    now=$(ply)
    echo "| $((t - 30))–$t | $((now - last)) | $now | $(rss "${pids[0]}") | $(rss "${pids[1]}") |"
    last=$now
done
"$sealed" --home "$work/alice" games | grep "$game" || true
