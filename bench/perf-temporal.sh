#!/usr/bin/env bash
# Profiles the Temporal dev server with Linux perf while `npm run bench -- paced` runs, and names
# its samples from the binary's Go pclntab (bench/go-symbols; needs Go). Writes <out>/self.txt
# (self time per Go function) and <out>/inclusive.txt (the share of samples each function is on
# the stack of), prints the shares by part (SQLite, Go runtime, Temporal, …) and the Temporal
# services' own entry points by inclusive share (which request or queue task the time is under).
# Usage: bash bench/perf-temporal.sh [out dir]; PERF_S (15) seconds recorded; BENCH_* as for paced.
set -euo pipefail
out=${1:-/tmp/at-perf-temporal}
mkdir -p "$out"
npm run bench -- paced > "$out/bench.log" 2>&1 &
bench=$!
until grep -q 'service pid' "$out/bench.log"; do kill -0 "$bench" 2>/dev/null || { cat "$out/bench.log"; exit 1; }; sleep 1; done
pid=$(pgrep -n -f 'temporal server start-dev')
binary=$(readlink -f "/proc/$pid/exe")
sleep 2
perf record -F 499 -g -p "$pid" -o "$out/perf.data" -- sleep "${PERF_S:-15}"
wait "$bench"
perf script -G -i "$out/perf.data" -F ip,dso 2>/dev/null | awk '$2 ~ /temporal/ {print 1, "0x"$1}' \
  | (cd "$(dirname "$0")/go-symbols" && go run . "$binary") > "$out/self.txt"
awk '{ v = $1; sub(/%/, "", v); n = $2; c = "other"
  if (n ~ /^modernc.org\/sqlite/) c = "SQLite (modernc)"; else if (n ~ /^modernc/) c = "modernc libc/memory"
  else if (n ~ /^(runtime|internal\/runtime)/) c = "Go runtime"; else if (n ~ /protobuf/) c = "protobuf"
  else if (n ~ /^go.temporal.io/) c = "Temporal"; else if (n ~ /grpc|http2|^net|syscall|internal\/poll/) c = "gRPC / network"
  s[c] += v } END { for (k in s) printf "%5.1f%% %s\n", s[k], k }' "$out/self.txt" | sort -rn
perf script -i "$out/perf.data" -F ip,dso 2>/dev/null \
  | (cd "$(dirname "$0")/go-symbols" && go run . -inclusive "$binary") > "$out/inclusive.txt"
echo "under (inclusive):"
grep -E 'service/(history|frontend|matching)\.\(\*[A-Za-z]*(Handler|Executor)\)\.[A-Za-z]+$' "$out/inclusive.txt" | head -12
echo "self time per function: $out/self.txt; inclusive: $out/inclusive.txt; kernel share: perf report -i $out/perf.data --sort dso"
