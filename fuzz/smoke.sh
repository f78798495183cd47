#!/usr/bin/env bash
# The fuzz smoke run CI calls: builds every target, seeds the corpora
# (fuzz/seed.sh) when they are empty, then runs each target for N seconds
# (default 20) from its corpus, FUZZ_JOBS targets at a time (default: the
# number of cores). Fails when any target crashes, hangs past its timeout
# or runs out of memory; the input is in fuzz/artifacts/<target>/.
#
#   fuzz/smoke.sh          # 20 s per target
#   fuzz/smoke.sh 5        # 5 s per target
#   fuzz/smoke.sh build    # only build the targets (CI builds them while the tests run)
#
# FUZZ_SANITIZER picks cargo-fuzz's sanitizer (default none: every crate of
# the workspace forbids unsafe code, and AddressSanitizer slows every
# execution; `address` for a run that checks the dependencies' unsafe code
# too). No nightly is needed: RUSTC_BOOTSTRAP=1 lets the stable
# compiler take cargo-fuzz's flags.
set -euo pipefail
cd "$(dirname "$0")"

seconds="${1:-20}"
sanitizer="${FUZZ_SANITIZER:-none}"
# A smoke run builds in the dev profile: about 6 minutes instead of 16 on
# two cores (the CDP types above all), with overflow checks and debug
# assertions on; executions are slower, which a run of seconds does not
# mind. FUZZ_RELEASE=1 builds as a long run does: release, with
# FUZZ_CODEGEN_UNITS codegen units (default 16; 1 gives the fastest fuzzer).
if [ -n "${FUZZ_RELEASE:-}" ]; then
  build=(-s "$sanitizer" --codegen-units "${FUZZ_CODEGEN_UNITS:-16}")
else
  build=(-s "$sanitizer" --dev)
fi
export RUSTC_BOOTSTRAP=1

start=$(date +%s)
cargo fuzz build "${build[@]}"
built=$(date +%s)
echo "fuzz smoke: built in $((built - start)) s"
if [ "$seconds" = build ]; then
  exit 0
fi

if [ -z "$(ls -A corpus/tree_builder 2>/dev/null)" ]; then
  ./seed.sh
fi

# One target's run; its output goes to artifacts/<target>/smoke.log.
run_one() {
  local target="$1" dict
  case "$target" in
    url) dict=url.dict ;;
    tree_builder | snapshot | diff) dict=html.dict ;;
    *) dict= ;;
  esac
  mkdir -p "corpus/$target" "artifacts/$target"
  # -max_len cuts long seed pages so that the first pass over the corpus
  # fits in the time; -timeout catches a hang (a lost linearity bound).
  cargo fuzz run "${build[@]}" "$target" -- \
    -max_total_time="$seconds" -max_len=16384 -timeout=20 -rss_limit_mb=2048 \
    ${dict:+-dict="$dict"} -print_final_stats=1 2>"artifacts/$target/smoke.log"
}

jobs="${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}"
targets=($(cargo fuzz list))
failed=()
# A pool of `jobs` runs: the next target starts as soon as one ends.
declare -A running=()
reap() {
  local pid target
  wait -n -p pid "${!running[@]}" && rc=0 || rc=$?
  target="${running[$pid]}"
  unset "running[$pid]"
  if [ "$rc" -ne 0 ]; then
    failed+=("$target")
    tail -n 60 "artifacts/$target/smoke.log"
  fi
  grep -E '^stat::number_of_executed_units|^stat::average_exec_per_sec' "artifacts/$target/smoke.log" \
    | sed "s/^/fuzz smoke: $target /" || true
}
for target in "${targets[@]}"; do
  while [ "${#running[@]}" -ge "$jobs" ]; do reap; done
  run_one "$target" &
  running[$!]="$target"
done
while [ "${#running[@]}" -gt 0 ]; do reap; done

echo "fuzz smoke: built and ran in $(($(date +%s) - start)) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz smoke: FAILED: ${failed[*]} (inputs in fuzz/artifacts/<target>/; see fuzz/README.md)"
  exit 1
fi
echo "fuzz smoke: no crashes"
