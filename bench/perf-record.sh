#!/usr/bin/env bash
# Profiles the service with Linux perf while `npm run bench -- paced` runs (root or
# perf_event_paranoid <= 1). JIT frames are named from V8's jitdump (--perf-prof + perf inject
# --jit): the plain --perf-basic-prof map goes stale when V8 reuses code addresses, and then
# charges steady-state samples to functions that ran once at start-up (TypeScript's emitter).
# Usage: bash bench/perf-record.sh [out dir] ; PERF_S (15) seconds recorded; BENCH_* as for paced.
# Writes <out>/script.txt (samples with stacks) and <out>/report.txt (self time by thread and
# symbol); then: npx ts-node --transpile-only bench/perf-threads.ts <out>/script.txt
set -euo pipefail
out=${1:-/tmp/at-perf}
mkdir -p "$out"
export BENCH_NODE_FLAGS="--perf-prof --perf-prof-unwinding-info --interpreted-frames-native-stack"
npm run bench -- paced > "$out/bench.log" 2>&1 &
bench=$!
pid=''
while [ -z "$pid" ]; do
  kill -0 "$bench" 2>/dev/null || { cat "$out/bench.log"; exit 1; }
  sleep 1
  pid=$(grep -o 'service pid [0-9]*' "$out/bench.log" | awk '{print $3}' || true)
done
sleep 2 # past the first requests of the window
perf record -k 1 -F 999 -g -p "$pid" -o "$out/perf.data" -- sleep "${PERF_S:-15}"
wait "$bench"
cat "$out/bench.log"
# The service wrote jit-<pid>.dump into its working directory (here); inject reads it from there
# and writes one jitted-<pid>-<n>.so per compiled function beside it, which the reports read.
perf inject --jit -i "$out/perf.data" -o "$out/perf.jit.data"
perf script -i "$out/perf.jit.data" -F tid,ip,sym > "$out/script.txt" 2>/dev/null
perf report -i "$out/perf.jit.data" --no-children --sort pid,symbol --stdio -g none > "$out/report.txt" 2>/dev/null
# Out of the worktree again (tens of thousands of files); perf.jit.data cannot be read without them.
find . -maxdepth 1 -name "jitted-$pid-*.so" -delete
rm -f "jit-$pid.dump" "$out/perf.jit.data"
echo "samples with stacks: $out/script.txt; self time by thread and symbol: $out/report.txt"
