#!/usr/bin/env bash
# Installs what zkv needs on a fresh Debian 12 machine; idempotent and quick when all is present.
# Assumption: run as root or with passwordless sudo (CI and the dev machines run as root).
set -euo pipefail

need_pkgs=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
# The second line is the test guest (scripts/guest): QEMU, a static busybox for its initramfs, and
# the tools that unpack the Debian kernel and pack the initramfs.
for p in openjdk-17-jdk-headless maven cmake make gcc g++ liburing-dev clang-format cargo \
  qemu-system-x86 busybox-static cpio kmod xz-utils; do
  have "$p" || need_pkgs+=("$p")
done
# cargo may come from rustup instead of Debian: accept any cargo on PATH.
if command -v cargo >/dev/null 2>&1; then
  need_pkgs=("${need_pkgs[@]/cargo}")
fi
pkgs=()
for p in "${need_pkgs[@]}"; do [ -n "$p" ] && pkgs+=("$p"); done
if [ ${#pkgs[@]} -gt 0 ]; then
  echo "zkv bootstrap: installing ${pkgs[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
fi
# The RocksDB headers (9.7.3, 10.1.3) are fetched by the native build itself (zkv-native/src/main/native/fetch-rocksdb-headers.sh).
