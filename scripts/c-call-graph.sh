#!/usr/bin/env bash
# The native sources' call graph by file (docs/native-library.md, "Which file calls which"):
# compiles every C source of zkv-native with gcc's -fcallgraph-info and prints which file calls
# which and every circle of files calling each other. --check exits 1 on a circle.
# Usage: scripts/c-call-graph.sh [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
src=zkv-native/src/main/native
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
java_home=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
includes=(-I"$src/include" -I"$src/device" -I"$src/zonefs" -I"$src/jni" -I"$java_home/include" -I"$java_home/include/linux")
n=0
while IFS= read -r f; do
  n=$((n + 1))
  gcc -std=gnu11 -D_GNU_SOURCE -w -c -fcallgraph-info "${includes[@]}" "$f" -o "$out/$n.o" -dumpbase "$n"
done < <(find "$src/device" "$src/zonefs" "$src/jni" -name '*.c' | sort)
java scripts/callgraph/FileCallGraph.java "$src" "$@" "$out"/*.ci
