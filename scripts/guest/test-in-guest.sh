#!/usr/bin/env bash
# The real-kernel part of scripts/test.sh: in ONE boot of the QEMU guest (docs/guest.md) it runs the
# C device test and the Java ZonedDevice conformance suite against nvme:/dev/ng0n1 and
# zbd:/dev/nvme0n1, then RocksDB end to end on the guest's device (scripts/guest/guest-tests.sh).
# Needs the Maven build (target/classes, target/test-classes) and build/ctest to be done.
# Skips, successfully and saying so, only when QEMU is not installed; any other problem fails.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
  echo "== guest tests SKIPPED: qemu-system-x86_64 is not installed (scripts/bootstrap.sh installs it" \
    "on Debian), so the nvme: and zbd: backends were NOT tested"
  exit 0
fi
start=$SECONDS
# This script's own results directory (class path, runner, JUnit XML reports, guest kernel log).
out=build/guest-tests
rm -rf "$out"
mkdir -p "$out"

# The JUnit Platform console launcher matching the project's JUnit 5 (Jupiter 5.x.y runs on
# Platform 1.x.y), fetched once into a cache outside the repository.
dep_plugin=org.apache.maven.plugins:maven-dependency-plugin:3.7.1
jupiter=$(sed -n 's:.*<junit.version>\(5\.[0-9.]*\)</junit.version>.*:\1:p' pom.xml)
[ -n "$jupiter" ] || { echo "test-in-guest: no <junit.version>5.x.y</junit.version> in pom.xml" >&2; exit 1; }
launcher_dir=${XDG_CACHE_HOME:-$HOME/.cache}/zkv/junit
launcher=$launcher_dir/junit-platform-console-standalone-1.${jupiter#5.}.jar
if [ ! -f "$launcher" ]; then
  mvn -B -ntp -q "$dep_plugin:copy" \
    -Dartifact="org.junit.platform:junit-platform-console-standalone:1.${jupiter#5.}" -DoutputDirectory="$launcher_dir"
fi

# One class path for the guest tests of all modules (one JVM runs them): each module's
# test-classes and classes, then the dependencies. Maven resolves the project's own modules to jars
# in ~/.m2, which may be older than this checkout: they are replaced by the modules' target/classes.
# JUnit's own jars are dropped: the standalone launcher brings them, and two Jupiter engines on one
# path stop it from starting.
modules=(zkv-native zkv-core)
mvn -B -ntp -q "$dep_plugin:build-classpath" -Dmdep.includeScope=test \
  -Dmdep.outputFile=target/guest-test-classpath.txt -pl "$(IFS=,; echo "${modules[*]}")"
for m in "${modules[@]}"; do
  echo "$PWD/$m/target/test-classes"
  echo "$PWD/$m/target/classes"
  tr ':' '\n' <"$m/target/guest-test-classpath.txt" |
    sed -E "s:^.*/io/zkv/([^/]+)/[^/]+/[^/]+\.jar$:$PWD/\1/target/classes:" |
    grep -vE '/(org/junit|org/opentest4j|org/apiguardian)/'
  # The test classes that carry @Tag("guest"), named here so that the launcher in the guest loads
  # only them instead of scanning every test class (slow under emulation).
  { grep -rl --include='*.java' '@Tag("guest")' "$m/src/test/java" || true; } |
    sed -e "s:^$m/src/test/java/::" -e 's:\.java$::' -e 's:/:.:g' | sort >"$out/guest-classes-$m.txt"
done | awk '!seen[$0]++' | paste -sd: >"$out/classpath.txt"
# The one-JVM step runner (scripts/guest/GuestJUnit.java).
javac -d "$out/runner" -cp "$launcher" scripts/guest/GuestJUnit.java
echo "test-in-guest: launcher, class path and runner ready in $((SECONDS - start))s"

rc=0
scripts/guest/run-in-guest.sh --results "$PWD/$out" --timeout "${ZKV_GUEST_TEST_TIMEOUT:-600}" -- \
  scripts/guest/guest-tests.sh "$launcher" || rc=$?
echo "test-in-guest: exit $rc, $((SECONDS - start))s in all"
exit "$rc"
