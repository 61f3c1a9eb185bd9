#!/usr/bin/env bash
# The README's test command: installs what is missing, builds everything and runs every test:
# the C device tests (plain, under AddressSanitizer/UBSan, and plain again pinned to one core beside
# two busy loops, as a cold or loaded host runs them; the zone file system's also under
# ThreadSanitizer), all Java tests (-Xcheck:jni), a
# separate project using the installed zkv-core (examples/consumer, which also runs the README's
# quickstart twice), a placement policy in a project of its own benchmarked against LIZA
# (examples/policy), and
# the nvme:/zbd: backends and RocksDB on a real kernel in a QEMU guest (scripts/guest/).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
jobs=2 # the machines have 2 cores

echo "== C/C++ format check (clang-format, .clang-format)"
git ls-files '*.c' '*.h' '*.cc' | xargs clang-format --dry-run --Werror

echo "== C call graph: no circle of files calling each other (docs/native-library.md)"
scripts/c-call-graph.sh --check >/dev/null

echo "== C device tests"
cmake -S zkv-native/src/main/native -B build/ctest -DZKV_JNI=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/ctest -j"$jobs" >/dev/null
ctest --test-dir build/ctest --output-on-failure

echo "== C device tests under AddressSanitizer + UBSan"
cmake -S zkv-native/src/main/native -B build/ctest-asan -DZKV_JNI=OFF -DZKV_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build/ctest-asan -j"$jobs" >/dev/null
ctest --test-dir build/ctest-asan --output-on-failure

echo "== C device tests again on one core beside two busy loops (a cold or loaded host: no test may assert wall-clock timing)"
busy=()
trap 'kill "${busy[@]}" 2>/dev/null || true' EXIT
for _ in 1 2; do
  taskset -c 0 sh -c 'while :; do :; done' &
  busy+=($!)
done
taskset -c 0 ctest --test-dir build/ctest --output-on-failure
kill "${busy[@]}" 2>/dev/null || true
wait "${busy[@]}" 2>/dev/null || true
busy=()

echo "== Zone file system tests under ThreadSanitizer (policies are called without its lock)"
cmake -S zkv-native/src/main/native -B build/ctest-tsan -DZKV_JNI=OFF -DZKV_TSAN=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build/ctest-tsan -j"$jobs" >/dev/null
ctest --test-dir build/ctest-tsan --output-on-failure -R '^test_zonefs_'

echo "== Java build, format check and tests"
mvn -B -ntp install

echo "== A project of its own that depends on zkv-core alone, as users do (examples/consumer)"
version=$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' pom.xml | head -1)
mvn -B -ntp -f examples/consumer/pom.xml -Dzkv.version="$version" verify

echo "== A placement policy of one's own, in a project of its own, benchmarked against LIZA (examples/policy)"
mvn -B -ntp -f examples/policy/pom.xml -Dzkv.version="$version" verify

echo "== Tests on a real kernel: QEMU guest with an NVMe ZNS namespace (docs/guest.md)"
scripts/guest/test-in-guest.sh
