#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and runs the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
mkdir -p build
# The demo needs the jars only: no tests, no javadoc or sources jars (scripts/test.sh builds those).
if ! mvn -B -ntp -q install -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true \
  > build/demo-build.log 2>&1; then
  cat build/demo-build.log
  echo "demo: the build failed (log above, also in build/demo-build.log)" >&2
  exit 1
fi
exec bin/zkv demo "$@"
