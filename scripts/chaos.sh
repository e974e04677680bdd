#!/usr/bin/env bash
# make chaos: the client's published fault suite (issue 11), the long version of what `make test` runs
# briefly. Prints the kill -9 trial count with lost and duplicated records (both must be 0), and the rounds of
# processes sharing one data directory after expire-tokens (issue 15: one refresh per expiry, no duplicate POST).
set -euo pipefail
cd "$(dirname "$0")/.."
trials="${JQC_CHAOS_TRIALS:-200}"
rounds="${JQC_PROCESS_ROUNDS:-100}"
iterations="${JQC_FUZZ_ITERATIONS:-20000}"
swift build --build-tests -j "$(nproc)"
echo "chaos: kill -9 mid-sync ($trials trials), fault matrix, rotated refresh tokens, disk full, damaged store, clock jumps"
echo "chaos: 2 and 5 processes on one data directory ($rounds rounds each), refused refreshes, short tokens, background sync"
JQC_CHAOS_TRIALS="$trials" JQC_PROCESS_ROUNDS="$rounds" swift test --skip-build \
  --filter 'KillMidSyncTests|ChaosFaultMatrixTests|ConcurrentRefreshTests|RefusedRefreshPassTests|ChaosStorageTests|ClockJumpTests|MultiProcessSessionTests|BackgroundSyncTests|RefreshAcrossProcessesTests' 2>&1 \
  | tee /tmp/jqc-chaos.log | grep -E '^chaos:|✘|Test run'
echo "fuzzing: $iterations iterations each of JPEG input, API replies and schema text"
JQC_FUZZ_ITERATIONS="$iterations" swift test --skip-build --filter 'FuzzTests' 2>&1 | grep -E '✘|Test run'
! grep -q '✘' /tmp/jqc-chaos.log
