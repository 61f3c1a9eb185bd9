#!/usr/bin/env bash
# Opt-in long crash run (not part of CI): many more SIGKILL cycles and power cuts than the test
# suite's 50 + 20, same test class, same checks (every acknowledged write present after each).
# Usage: scripts/crash-long.sh [kill-cycles (default 1000)] [power-cuts (default 500)] [seed]
# A failing seed is printed by the test; pass it back as the third argument to replay it.
set -euo pipefail
cd "$(dirname "$0")/.."
cycles=${1:-1000}
cuts=${2:-500}
seed_arg=()
if [ $# -ge 3 ]; then seed_arg=("-Dzkv.seed=$3"); fi
scripts/bootstrap.sh
mvn -B -ntp -q install -DskipTests
exec mvn -B -ntp test -pl zkv-native -Dtest=CrashRecoveryTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dzkv.crash.cycles="$cycles" -Dzkv.crash.powercuts="$cuts" "${seed_arg[@]}" \
  -Dzkv.test.forkTimeout=0
