#!/usr/bin/env bash
# Usage: fetch-rocksdb-headers.sh [ROCKSDB_VERSION]   (default 9.7.3)
# Prints the path of that RocksDB release's include/ directory, fetching it once with cargo.
# The headers come from the rust-librocksdb-sys crate release that bundles that RocksDB (they are
# never committed). Cache: $ZKV_CACHE (default ~/.cache/zkv); the result is reused on later builds.
set -euo pipefail
version="${1:-9.7.3}"
# One crate release per supported RocksDB version (the crate's version carries RocksDB's after '+').
case "$version" in
  9.7.3) CRATE_VERSION="0.28.0+9.7.3" ;;
  10.1.3) CRATE_VERSION="0.36.0+10.1.3" ;;
  *) echo "no rust-librocksdb-sys release known for RocksDB $version (supported: 9.7.3, 10.1.3)" >&2; exit 1 ;;
esac
cache="${ZKV_CACHE:-$HOME/.cache/zkv}"
dest="$cache/rocksdb-$version"
if [ -f "$dest/include/rocksdb/version.h" ]; then echo "$dest/include"; exit 0; fi
command -v cargo >/dev/null || { echo "cargo is required to fetch the RocksDB $version headers (run scripts/bootstrap.sh)" >&2; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
( cd "$work" && cargo init --name zkv_rocksdb_headers --vcs none -q \
  && echo "rust-librocksdb-sys = { version = \"=$CRATE_VERSION\", default-features = false }" >> Cargo.toml \
  && cargo fetch -q ) >&2
crate=$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/rust-librocksdb-sys-$CRATE_VERSION.crate | head -n 1)
mkdir -p "$work/x"
tar xzf "$crate" -C "$work/x" --wildcards '*/rocksdb/include/*'
src="$work/x/rust-librocksdb-sys-$CRATE_VERSION/rocksdb/include"
IFS=. read -r major minor patch <<<"$version"
for part in "MAJOR $major" "MINOR $minor" "PATCH $patch"; do
  grep -q "define ROCKSDB_$part\$" "$src/rocksdb/version.h" || { echo "fetched headers are not RocksDB $version" >&2; exit 1; }
done
mkdir -p "$dest.tmp" && rm -rf "$dest.tmp"/* && cp -r "$src" "$dest.tmp/include" && rm -rf "$dest" && mv "$dest.tmp" "$dest"
echo "$dest/include"
