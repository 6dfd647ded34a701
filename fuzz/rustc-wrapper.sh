#!/bin/sh
# RUSTC_WRAPPER that fuzz/run.sh sets: compiles the cryptographic crates without
# libFuzzer's coverage instrumentation (the sancov pass and its options, which
# cargo-fuzz puts in RUSTFLAGS for every crate). Their branches tell nothing of sealed's,
# and tracing the comparisons of their field arithmetic took about half the time of the
# slow targets (perf on core_sync, docs/RELIABILITY.md). They still run, under the same
# sanitizer and checks; every other crate is compiled exactly as cargo-fuzz asks.
rustc=$1
shift
crypto=0
previous=
for a in "$@"; do
    if [ "$previous" = --crate-name ]; then
        case $a in
            curve25519_dalek | ed25519_dalek | x25519_dalek | sha2 | chacha20 | \
                chacha20poly1305 | aes | aes_gcm | blake2) crypto=1 ;;
        esac
    fi
    previous=$a
done
if [ "$crypto" = 1 ]; then
    for a in "$@"; do
        shift
        case $a in
            -Cpasses=sancov-module | -Cllvm-args=-sanitizer-coverage-*) ;;
            *) set -- "$@" "$a" ;;
        esac
    done
fi
exec "$rustc" "$@"
