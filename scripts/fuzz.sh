#!/usr/bin/env bash
# Builds the libFuzzer binary of Fuzz/Sources/ImgFuzz and runs each fuzz target in turn (never two at once).
#
#   FUZZ_SECONDS=60        seconds per target
#   FUZZ_TARGETS="chain url entry header truncation range renderer parquet"
#   FUZZ_SANITIZE=fuzzer,address   what -sanitize= gets (fuzzer alone is faster, address catches more)
#   FUZZ_ARGS=             extra libFuzzer flags, e.g. "-seed=1 -dict=..."
#
# New corpus entries go to Fuzz/work/<target>/corpus (git-ignored), crashes to Fuzz/work/<target>/, logs to
# Fuzz/work/<target>.log. The seeds in Fuzz/corpus/<target> are read, never written. Exits 1 when a target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-chain url entry header truncation range renderer parquet}
SANITIZE=${FUZZ_SANITIZE:-fuzzer,address}
SCRATCH=.build/fuzz
WORK=Fuzz/work

# Release with testability (the header and truncation targets reach internal API through @testable import).
# lld is needed to link the libFuzzer runtime; -DFUZZING makes main.swift hand over to LLVMFuzzerRunDriver.
"$SWIFT" build -c release --scratch-path "$SCRATCH" --product ImgFuzz \
  -Xswiftc -sanitize="$SANITIZE" -Xswiftc -DFUZZING -Xswiftc -enable-testing \
  -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld
BIN="$SCRATCH/release/ImgFuzz"

max_len() {
  case "$1" in
    chain|url|range|renderer) echo 4096 ;;
    entry) echo 16384 ;;
    *) echo 65536 ;;
  esac
}

export SWIFT_BACKTRACE=enable=no VIPS_WARNING=0
# libvips and GLib keep process-lifetime allocations that LeakSanitizer would report after every run.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}

summary=()
failed=0
for target in $TARGETS; do
  mkdir -p "$WORK/$target/corpus"
  log="$WORK/$target.log"
  echo "fuzz: $target for ${SECONDS_PER_TARGET}s (log $log)"
  set +e
  # shellcheck disable=SC2086
  IMGFUZZ_TARGET="$target" "$BIN" "$WORK/$target/corpus" "Fuzz/corpus/$target" \
    -max_total_time="$SECONDS_PER_TARGET" -max_len="$(max_len "$target")" -rss_limit_mb=2048 -timeout=30 \
    -artifact_prefix="$WORK/$target/" -print_final_stats=1 ${FUZZ_ARGS:-} >"$log" 2>&1
  status=$?
  set -e
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
  runs=$(grep -E '^stat::number_of_executed_units:' "$log" | awk '{print $2}' | tail -1 || true)
  if [ "$status" -ne 0 ]; then
    failed=1
    crash=$(ls -t "$WORK/$target"/crash-* "$WORK/$target"/timeout-* "$WORK/$target"/oom-* 2>/dev/null | head -1 || true)
    summary+=("$target: FAILED (exit $status) after ${runs:-?} executions; input ${crash:-?}; see $log")
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*Fatal error|.*fuzz invariant)' "$log" | head -5 || true
  else
    summary+=("$target: ${runs:-?} executions, no crash — ${done_line:-no DONE line}")
  fi
done

echo
echo "fuzz summary ($(date -u '+%Y-%m-%d %H:%M UTC'), ${SECONDS_PER_TARGET}s per target):"
printf '  %s\n' "${summary[@]}"
exit "$failed"
