#!/usr/bin/env bash
# Adds a toy game to a scratch copy of the repository — the Duel's folder copied as
# `toy` — and shows that the only change outside the new folder is one line (its name
# in the `games!` list of games/src/lib.rs). Then `sealed demo toy` plays a whole game
# of it between two nodes and verifies the transcript. Usage: scripts/toy-game.sh (from
# anywhere in the repository).
set -euo pipefail
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/sealed"
cd "$work/sealed"

# The new game: everything in its own folder.
cp -r games/src/duel games/src/toy
sed -i -e 's/"duel"/"toy"/g' -e 's/\bDuel\b/Toy/g' -e 's/crate::duel/crate::toy/g' games/src/toy/*.rs

# The one line outside it.
sed -i 's/^    stallmate,$/    stallmate,\n    toy,/' games/src/lib.rs

echo "--- outside games/src/toy:"
git add -A
git diff --cached --stat -- . ':(exclude)games/src/toy'
outside=$(git diff --cached --numstat -- . ':(exclude)games/src/toy' | awk '{a += $1; d += $2} END {print a + d}')
inside=$(git diff --cached --numstat -- games/src/toy | awk '{a += $1} END {print a}')
echo "--- lines changed outside the game's folder: $outside; lines in it: $inside"
test "$outside" = 1

# The toy plays like the others: two real nodes play a whole game of it between bots,
# and the transcript verifies (the registry's open, restore and check, end to end).
echo "--- sealed demo toy:"
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}" cargo run -q -p sealed-cli -- demo toy | tail -4
