#!/usr/bin/env bash
# The test suite on each ROS distro named (kilted, jazzy): set up each venv and run pytest in
# it; report every distro's result, fail if any failed. The first distro's suite runs in the
# foreground; every other distro is set up and tested at the same time, in the background
# (its output in build-test-<distro>.log, shown at the end). Each suite runs as SHARDS pytest
# processes side by side (test/sharding.py splits the files), each on a ROS domain of its own:
# a test process mostly waits (for processes, discovery, messages), about a third of a core,
# but its managers and simulators are real-time loops; one shard per two cores (on 2 cores,
# two shards per distro starved them: watchdog exits and late messages in 3-6 tests a run).
# PY_CONTROLLERS_TEST_SHARDS sets the number.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ "$#" -gt 0 ] || set -- kilted
venv_of() { if [ "$1" = jazzy ]; then echo "$root/.venv-jazzy"; else echo "$root/.venv"; fi; }
setup_log() { echo "$root/build-setup-$1.log"; }
test_log() { echo "$root/build-test-$1.log"; }
minutes() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }
half_the_cores=$(($(nproc) / 2))
SHARDS="${PY_CONTROLLERS_TEST_SHARDS:-$((half_the_cores > 1 ? half_the_cores : 1))}"
if ! [[ "$SHARDS" =~ ^([1-9]|1[0-9]|2[0-5])$ ]]; then  # 25: ROS domains 1..101 for two distros
  echo "[test] PY_CONTROLLERS_TEST_SHARDS must be a whole number from 1 to 25, got '$SHARDS'"
  exit 2
fi

# The pure Python variant of the hot path (py_controllers/compiled.py), run after the first
# distro's suite: the unit tier and the ros tests of the compiled modules' users.
PURE_TESTS=(test/unit test/ros/test_command_limits.py test/ros/test_command_guard.py
  test/ros/test_pid_controllers.py test/ros/test_joint_trajectory_controller.py)

# A pytest process that ends inside a test (the hang guard of test/conftest.py, a crash) is
# resumed after that test, at most twice, from its progress file. The run fails when a test
# failed, when pytest itself failed, or when the process ended inside a test whose own call
# had not passed; one that passed and then hung in its teardown (rclpy's node destruction
# did, three times in about ten whole runs) is reported, with its stacks, and the suite goes on.
resumable_pytest() {  # label python progress-file pytest-args...: 0 when all passed
  local label="$1" py="$2" progress="$3" rc stuck runs=0 ok=1
  shift 3
  rm -f "$progress"
  while :; do
    runs=$((runs + 1))
    (cd "$root" && PY_CONTROLLERS_TEST_PROGRESS="$progress" "$py" -m pytest -q \
      -p no:cacheprovider "$@")
    rc=$?
    stuck="$(awk '/^start / {s = substr($0, 7)} /^end / {s = ""} END {print s}' "$progress" 2>/dev/null)"
    if [ -z "$stuck" ]; then
      [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || [ "$rc" -eq 5 ] || ok=0  # 1: failures, listed
      break
    fi
    if grep -qxF "passed $stuck" "$progress"; then
      printf '[test] %s: the process ended in the teardown of %s, which had passed\n' "$label" "$stuck"
    else
      printf '[test] %s: FAILED: the process ended inside %s\n' "$label" "$stuck"
      ok=0
    fi
    echo "end $stuck" >>"$progress"
    [ "$runs" -lt 3 ] || { ok=0; break; }
    printf '[test] %s: resuming after it\n' "$label"
  done
  ! grep -q '^failed ' "$progress" && [ "$ok" -eq 1 ]
}

# The browser tier (the dashboard's pages in Chromium) runs on the first distro only: its
# pages do not change with the distro, and the dashboard's ROS side is in test/ros on both.
suite() {  # distro domain tier...: pytest in its venv (from the repository root), SHARDS
  # processes on domains domain.. ; the first shard's output live, the others' after it
  local py d="$1" domain="$2" i rc=0
  local -a pids=()
  shift 2
  py="$(venv_of "$d")/bin/python"
  printf '[test] %s: rclpy %s; hot path: %s; %s in %d shards (ROS domains from %d)\n' "$d" \
    "$("$py" -c 'import importlib.metadata as m; print(m.version("ros-rclpy"))')" \
    "$("$py" -c 'from py_controllers import compiled; print(compiled.variant())')" "$*" "$SHARDS" \
    "$domain"
  for i in $(seq 2 "$SHARDS"); do
    ROS_DOMAIN_ID=$((domain + i - 1)) PY_CONTROLLERS_TEST_SHARD="$i/$SHARDS" \
      resumable_pytest "$d [$i/$SHARDS]" "$py" "$root/build-progress-$d-$i.txt" "$@" \
      >"$root/build-test-$d-$i.log" 2>&1 &
    pids+=($!)
  done
  ROS_DOMAIN_ID=$domain PY_CONTROLLERS_TEST_SHARD="1/$SHARDS" \
    resumable_pytest "$d [1/$SHARDS]" "$py" "$root/build-progress-$d-1.txt" "$@" \
    2>&1 | tee "$root/build-test-$d-1.log" || rc=1
  for i in $(seq 2 "$SHARDS"); do
    wait "${pids[$((i - 2))]}" || rc=1
    printf '\n[test] ---- %s, shard %d/%d (from %s) ----\n' "$d" "$i" "$SHARDS" \
      "$root/build-test-$d-$i.log"
    cat "$root/build-test-$d-$i.log"
  done
  for i in $(seq 1 "$SHARDS"); do  # each shard's pytest summary, the last one it printed
    printf '[test] %s [%d/%d]: %s\n' "$d" "$i" "$SHARDS" \
      "$(grep -E '^=*.* in [0-9.]+s' "$root/build-test-$d-$i.log" | tail -n 1 | tr -d '=')"
  done
  printf '[test] %s: slowest files: %s\n' "$d" "$(slowest "$root"/build-progress-"$d"-[0-9]*.txt)"
  return $rc
}

slowest() {  # progress files...: the 8 test files that took longest (their tests' time summed)
  cat "$@" 2>/dev/null |
    awk '/^took / {split($3, id, "::"); t[id[1]] += $2} END {for (f in t) printf "%.0f %s\n", t[f], f}' |
    sort -rn | head -n 8 | awk '{printf "%s%s %s s", (NR > 1 ? ", " : ""), $2, $1}'
}

pure_suite() {  # distro: the PURE_TESTS on the pure Python hot path
  printf '[test] %s: the pure Python hot path (PY_CONTROLLERS_PURE=1): %s\n' "$1" "${PURE_TESTS[*]}"
  PY_CONTROLLERS_PURE=1 resumable_pytest "$1 (pure)" "$(venv_of "$1")/bin/python" \
    "$root/build-progress-$1-pure.txt" "${PURE_TESTS[@]}"
}

bash "$root/scripts/setup.sh" "$1" || exit 1
# ROS domains: one per shard of each distro and one for the pure subset, from a base of this
# run's, all within 1..101 (above that, a domain's ports fall among the ephemeral ones Linux
# hands out)
slots=$((SHARDS * $# + 1))
domain=$((1 + ($$ % (100 / slots)) * slots))
declare -A pid=()
declare -A result=()
rm -f "$root"/build-setup-*.done
n=0
for d in "${@:2}"; do
  n=$((n + 1))
  printf '[test] %s: set up and tested in the background (%s, %s)\n' "$d" \
    "$(setup_log "$d")" "$(test_log "$d")"
  (
    start=$SECONDS
    if ! bash "$root/scripts/setup.sh" "$d" >"$(setup_log "$d")" 2>&1; then
      echo "[test] $d: setup failed (see $(setup_log "$d"))"
      exit 2
    fi
    touch "$root/build-setup-$d.done"
    suite "$d" $((domain + n * SHARDS)) test/ros test/unit
    rc=$?
    echo "[test] $d: setup and suite took $(minutes $((SECONDS - start)))"
    exit $rc
  ) >"$(test_log "$d")" 2>&1 &
  pid[$d]=$!
done

# The pure subset runs beside the suites, once the other distros' setups are done (they
# build on every core): the suites mostly wait (on real time, discovery, child processes),
# about a fifth of 2 cores each, so its minute of unit tests costs them little.
pure_log="$root/build-test-$1-pure.log"
(
  for d in "${@:2}"; do
    while [ ! -e "$root/build-setup-$d.done" ] && kill -0 "${pid[$d]}" 2>/dev/null; do sleep 1; done
  done
  start=$SECONDS
  ROS_DOMAIN_ID=$((domain + slots - 1)) pure_suite "$1"
  rc=$?
  echo "[test] $1, pure Python hot path: took $(minutes $((SECONDS - start)))"
  exit $rc
) >"$pure_log" 2>&1 &
pure_pid=$!

failed=0
start=$SECONDS
if suite "$1" "$domain" test; then result[$1]=passed; else result[$1]=FAILED; failed=1; fi
result[$1]+=" in $(minutes $((SECONDS - start)))"
if wait "$pure_pid"; then pure=passed; else pure=FAILED; failed=1; fi
printf '\n[test] ---- %s, pure Python hot path (from %s) ----\n' "$1" "$pure_log"
if [ "$pure" = passed ]; then tail -n 3 "$pure_log"; else tail -n 200 "$pure_log"; fi
for d in "${@:2}"; do
  if wait "${pid[$d]}"; then result[$d]=passed; else result[$d]=FAILED; failed=1; fi
  printf '\n[test] ---- %s (from %s) ----\n' "$d" "$(test_log "$d")"
  if [ "${result[$d]}" = passed ]; then tail -n $((SHARDS + 1)) "$(test_log "$d")"; else tail -n 200 "$(test_log "$d")"; fi
done
printf '\n'
for d in "$@"; do printf '[test] %s: %s\n' "$d" "${result[$d]}"; done
printf '[test] %s, pure Python hot path: %s\n' "$1" "$pure"
exit "$failed"
