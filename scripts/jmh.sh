#!/usr/bin/env bash
# Runs zkv's JMH benchmarks (zkv-bench/src/test/java/io/zkv/bench/jmh); arguments go to JMH, e.g.
#   scripts/jmh.sh JniBoundaryBenchmark
#   scripts/jmh.sh DeviceQueueBenchmark -p profile=zn540 -p qd=1,4,32 -p op=append
#   scripts/jmh.sh -l            # list the benchmarks
# Builds zkv-bench and its modules first (tests are compiled, not run), unless ZKV_JMH_NOBUILD=1.
# See docs/benchmarks.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if [ "${ZKV_JMH_NOBUILD:-0}" != 1 ]; then
  mvn -B -ntp -q -o test-compile -pl zkv-bench -am -Dspotless.check.skip=true
fi
cp_file="$root/zkv-bench/target/test-classpath.txt"
if [ ! -f "$cp_file" ] || [ ! -f "$root/zkv-bench/target/test-classes/META-INF/BenchmarkList" ]; then
  echo "jmh: benchmarks not built (no zkv-bench/target/test-classes/META-INF/BenchmarkList)" >&2
  exit 2
fi
# The modules' own classes: the reactor's target/classes (test-classpath.txt names the jars of
# the other modules as installed in ~/.m2, which may be stale).
cp="$root/zkv-bench/target/test-classes:$root/zkv-bench/target/classes"
for m in zkv-native zkv-placement zkv-wal zkv-plm zkv-core zkv-cli; do
  cp="$cp:$root/$m/target/classes"
done
exec java -cp "$cp:$(cat "$cp_file")" org.openjdk.jmh.Main "$@"
