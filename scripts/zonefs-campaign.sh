#!/usr/bin/env bash
# The long randomized crash campaign of the zone file system (docs/zone-fs.md, "The crash
# campaign"); the test suite runs a short one (40 cycles). Builds the C tests if needed.
#
#   scripts/zonefs-campaign.sh [cycles=1000] [seed=time]
set -euo pipefail
cd "$(dirname "$0")/.."
cycles=${1:-1000}
seed=${2:-$(date +%s)}
if [ ! -x build/ctest/zonefs_campaign ]; then
  cmake -S zkv-native/src/main/native -B build/ctest -DZKV_JNI=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build/ctest -j2 --target zonefs_campaign >/dev/null
fi
exec build/ctest/zonefs_campaign "$cycles" "$seed"
