#!/usr/bin/env bash
# Build the peers that benchmarks/bench_peers.py runs side by side with sidebet, from
# their public sources, outside the repository (their code is never part of sidebet):
#
#   FARMER_SRC=path/to/a/clone/of/possibly-wrong/blackjack \
#   FREEBJ_SRC=path/to/a/clone/of/kevin-lesenechal/freebj \
#   scripts/build-peers.sh [OUT]
#
# OUT (default: $SIDEBET_PEERS_DIR, else ~/.cache/sidebet-peers) receives
#   farmer-strategy  Eric Farmer's basic strategy calculator (g++ -O3 -march=native)
#   freebj           FreeBJ's release binary (cargo build --release)
# A peer whose source folder is not given, or that does not build, is skipped with a line
# saying why; the benchmark then skips it too.
set -u
out="${1:-${SIDEBET_PEERS_DIR:-$HOME/.cache/sidebet-peers}}"
mkdir -p "$out"
status=0

if [ -n "${FARMER_SRC:-}" ] && [ -f "$FARMER_SRC/src/strategy.cpp" ]; then
    echo "farmer: building from $FARMER_SRC"
    src="$FARMER_SRC/src"
    if g++ -O3 -march=native -std=c++11 -I"$src" -I"$src/pdf" -o "$out/farmer-strategy" \
        "$src/strategy.cpp" "$src/blackjack.cpp" "$src/pdf/blackjack_pdf.cpp" \
        "$src/indices.cpp"; then
        echo "farmer: built $out/farmer-strategy"
    else
        echo "farmer: the build failed"; status=1
    fi
else
    echo "farmer: skipped (set FARMER_SRC to a clone of possibly-wrong/blackjack)"
fi

if [ -n "${FREEBJ_SRC:-}" ] && [ -f "$FREEBJ_SRC/Cargo.toml" ]; then
    echo "freebj: building from $FREEBJ_SRC"
    if ! command -v cargo > /dev/null; then
        echo "freebj: skipped (no cargo)"
    else
        # Built in a copy under OUT, so the clone is left as it was.  Its crates come from the
        # Rust package registry, or offline from Debian's packaged crates when they are
        # installed (apt-get install librust-clap-2-dev librust-arrayvec-dev
        # librust-bitflags-dev librust-rand-dev librust-serde-dev librust-serde-derive-dev
        # librust-serde-json-dev librust-crossbeam-dev librust-regex-dev): its Cargo.lock
        # is then dropped and the versions resolved from /usr/share/cargo/registry.
        build="$out/freebj-build"
        rm -rf "$build" && mkdir -p "$build" && cp -r "$FREEBJ_SRC/Cargo.toml" "$FREEBJ_SRC/src" "$build/"
        debian=/usr/share/cargo/registry
        if [ -d "$debian/clap-2.34.0" ]; then
            echo "freebj: using Debian's packaged crates ($debian), offline"
            set -- --offline --config 'source.crates-io.replace-with="debian"' \
                --config "source.debian.directory=\"$debian\""
        else
            [ -f "$FREEBJ_SRC/Cargo.lock" ] && cp "$FREEBJ_SRC/Cargo.lock" "$build/"
            set --
        fi
        if (cd "$build" && cargo build --release --quiet "$@" 2>/dev/null); then
            cp "$build/target/release/freebj" "$out/freebj"
            echo "freebj: built $out/freebj"
        else
            echo "freebj: the build failed (its crates come from the Rust package registry, or"
            echo "        offline from Debian's librust-*-dev packages: see this script)"; status=1
        fi
    fi
else
    echo "freebj: skipped (set FREEBJ_SRC to a clone of kevin-lesenechal/freebj)"
fi
exit $status
