#!/usr/bin/env bash
# Runs INSIDE the test guest; scripts/guest/test-in-guest.sh boots it and prepares, in the results
# directory $ZKV_GUEST_RESULTS, the test class path, the lists of guest test classes and the
# compiled step runner (GuestJUnit.java):
#   guest-tests.sh LAUNCHER_JAR
# Every step runs even after one fails; the exit code says whether all passed.
set -uo pipefail
if [ "${ZKV_GUEST:-}" != 1 ] || [ $# -ne 1 ]; then
  echo "guest-tests.sh runs inside the test guest: use scripts/guest/test-in-guest.sh" >&2
  exit 2
fi
launcher=$1
results=$ZKV_GUEST_RESULTS
# The guest's ZNS namespaces seen through the two kernel paths (docs/guest.md): namespace 1 has
# zone capacity below zone size, namespace 2 capacity equal to size.
nvme=nvme:/dev/ng0n1
zbd=zbd:/dev/nvme0n1
nvme2=nvme:/dev/ng0n2
zbd2=zbd:/dev/nvme0n2
# Namespaces 3-6 composed as the NVM Sets of one drive (docs/plm.md): QEMU has no PLM, so only
# the base scheduler runs on it.
plmarray=plmarray:nvme:/dev/ng0n3,nvme:/dev/ng0n4,nvme:/dev/ng0n5,nvme:/dev/ng0n6

failed=()
step() {
  local name=$1 start=$SECONDS
  shift
  echo "== guest: $name"
  if "$@"; then
    echo "== guest: $name: passed ($((SECONDS - start))s)"
  else
    echo "== guest: $name: FAILED ($((SECONDS - start))s)"
    failed+=("$name")
  fi
}

for uri in "$nvme" "$zbd" "$nvme2" "$plmarray"; do
  step "C device test on $uri" build/ctest/test_kernel_dev "$uri"
done
# The reads a plmarray: rebuild issues, at once on the four namespaces (io_uring passthrough).
step "C parallel reads on ${plmarray#plmarray:}" build/ctest/test_plm_array --parallel-reads "${plmarray#plmarray:}"

# The Java steps share one JVM (GuestJUnit): each step names its device URI and its test classes.
# JVM flags: the host tests' -Xcheck:jni; C1 only, because under emulation C2's compilations cost
# more than they give back in runs this short (the emulator conformance suite: 29 s -> 14 s in the
# guest); a crash log goes to the results directory, which outlives the guest.
step "Java tests (conformance and RocksDB on $nvme and $zbd; conformance and RocksDB with capacity = size on $nvme2, RocksDB on $zbd2; RocksDB and schedulers on $plmarray)" \
  java -Xcheck:jni -Xmx1g -XX:TieredStopAtLevel=1 "-XX:ErrorFile=$results/hs_err_pid%p.log" \
  -cp "$launcher:$results/runner:$(cat "$results/classpath.txt")" GuestJUnit "$results" \
  "ZonedDevice conformance suite" "$nvme" "$results/guest-classes-zkv-native.txt" \
  "ZonedDevice conformance suite" "$zbd" "$results/guest-classes-zkv-native.txt" \
  "RocksDB on the zone file system" "$nvme" "$results/guest-classes-zkv-core.txt" \
  "RocksDB on the zone file system" "$zbd" "$results/guest-classes-zkv-core.txt" \
  "ZonedDevice conformance suite, capacity = size" "$nvme2" "$results/guest-classes-zkv-native.txt" \
  "RocksDB on the zone file system, capacity = size" "$nvme2" "$results/guest-classes-zkv-core.txt" \
  "RocksDB on the zone file system, capacity = size" "$zbd2" "$results/guest-classes-zkv-core.txt" \
  "RocksDB and window schedulers on a plmarray: of four namespaces" "$plmarray" "$results/guest-classes-zkv-core.txt"

if [ ${#failed[@]} -gt 0 ]; then
  printf '== guest: FAILED: %s\n' "${failed[@]}"
  exit 1
fi
echo "== guest: all passed"
