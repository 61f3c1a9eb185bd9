#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and runs the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
mvn -B -ntp -q install -DskipTests
exec bin/zkv demo "$@"
