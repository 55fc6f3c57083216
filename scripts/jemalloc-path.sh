#!/bin/sh
# Prints the path of jemalloc where the machine has it (Debian's libjemalloc2), else nothing.
# scripts/run-service.sh (`npm start`, `npm run api`, `npm run worker`) preloads it: with glibc's
# malloc a worker kept ~150 MB of freed memory after a 1,000 × 50 fan-out, with jemalloc it goes
# back to its idle size (docs/decisions.md, fan-out).
for lib in /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 /usr/lib/aarch64-linux-gnu/libjemalloc.so.2 /usr/lib64/libjemalloc.so.2 /usr/lib/libjemalloc.so.2; do
  if [ -f "$lib" ]; then echo "$lib"; exit 0; fi
done
