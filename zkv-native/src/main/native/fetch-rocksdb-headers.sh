#!/usr/bin/env bash
# Prints the path of RocksDB 9.7.3's include/ directory, fetching it once with cargo.
# The headers come from the rust-librocksdb-sys =0.28.0+9.7.3 crate (they are never committed).
# Cache: $ZKV_CACHE (default ~/.cache/zkv); the result is reused on later builds.
set -euo pipefail
CRATE_VERSION="0.28.0+9.7.3"
cache="${ZKV_CACHE:-$HOME/.cache/zkv}"
dest="$cache/rocksdb-9.7.3"
if [ -f "$dest/include/rocksdb/version.h" ]; then echo "$dest/include"; exit 0; fi
command -v cargo >/dev/null || { echo "cargo is required to fetch the RocksDB 9.7.3 headers (run scripts/bootstrap.sh)" >&2; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
( cd "$work" && cargo init --name zkv_rocksdb_headers --vcs none -q \
  && echo "rust-librocksdb-sys = { version = \"=$CRATE_VERSION\", default-features = false }" >> Cargo.toml \
  && cargo fetch -q ) >&2
crate=$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/rust-librocksdb-sys-$CRATE_VERSION.crate | head -n 1)
mkdir -p "$work/x"
tar xzf "$crate" -C "$work/x" --wildcards '*/rocksdb/include/*'
src="$work/x/rust-librocksdb-sys-$CRATE_VERSION/rocksdb/include"
grep -q 'define ROCKSDB_MINOR 7' "$src/rocksdb/version.h" || { echo "fetched headers are not RocksDB 9.7" >&2; exit 1; }
mkdir -p "$dest.tmp" && rm -rf "$dest.tmp"/* && cp -r "$src" "$dest.tmp/include" && rm -rf "$dest" && mv "$dest.tmp" "$dest"
echo "$dest/include"
