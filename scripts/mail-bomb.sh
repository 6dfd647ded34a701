#!/usr/bin/env bash
# `sealed mail import` of a 1 GB file from a hostile opponent: refused at once, with the
# peak memory of the CLI and of the node printed (docs/RELIABILITY.md). Two files are
# tried: one armored block of 1 GB of base64 (refused when the decoded mail would pass
# 8 MiB), and 1 GB of text with no line break and no mail (refused at 32 MiB of text).
# Usage: scripts/mail-bomb.sh (from anywhere in the repository; builds the release binary).
set -euo pipefail
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$repo"
cargo build -q --release -p sealed-cli
sealed="${CARGO_TARGET_DIR:-$repo/target}/release/sealed"
work=$(mktemp -d)
trap 'kill "$node" 2>/dev/null || true; rm -rf "$work"' EXIT
home="$work/home"
"$sealed" --home "$home" init --name bomb >/dev/null
"$sealed" --home "$home" node --listen /ip4/127.0.0.1/tcp/0 >"$work/node.out" 2>&1 &
node=$!
for _ in $(seq 100); do
    grep -q /p2p/ "$work/node.out" 2>/dev/null && break
    sleep 0.1
done

# `yes` ends by SIGPIPE when `head` has enough: not a failure here.
set +o pipefail
{ echo "-----BEGIN SEALED MAIL-----"; yes AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA | head -c 1000000000; echo "-----END SEALED MAIL-----"; } >"$work/block.txt"
head -c 1000000000 /dev/zero | tr '\0' x >"$work/junk.txt"
set -o pipefail

for f in block junk; do
    start=$(date +%s.%N)
    set +e
    /usr/bin/env time -f "%M" -o "$work/rss" "$sealed" --home "$home" mail import "$work/$f.txt" 2>"$work/err"
    code=$?
    set -e
    end=$(date +%s.%N)
    node_kb=$(awk '/VmHWM/ {print $2}' "/proc/$node/status")
    printf '%-6s exit %d in %.2f s · CLI peak %d KB · node peak %d KB · %s\n' \
        "$f" "$code" "$(echo "$end - $start" | bc)" "$(tail -n1 "$work/rss")" "$node_kb" "$(head -c 120 "$work/err")"
done
