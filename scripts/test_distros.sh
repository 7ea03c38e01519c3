#!/usr/bin/env bash
# The test suite on each ROS distro named (kilted, jazzy): set up each venv and run pytest in
# it; report every distro's result, fail if any failed. The first distro's suite runs in the
# foreground; every other distro is set up and tested at the same time, in the background
# (its output in build-test-<distro>.log, shown at the end), on a ROS domain of its own.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ "$#" -gt 0 ] || set -- kilted
venv_of() { if [ "$1" = jazzy ]; then echo "$root/.venv-jazzy"; else echo "$root/.venv"; fi; }
setup_log() { echo "$root/build-setup-$1.log"; }
test_log() { echo "$root/build-test-$1.log"; }
minutes() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }

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
suite() {  # distro tier...: pytest in its venv (from the repository root)
  local py d="$1"
  shift
  py="$(venv_of "$d")/bin/python"
  printf '[test] %s: rclpy %s; hot path: %s; %s\n' "$d" \
    "$("$py" -c 'import importlib.metadata as m; print(m.version("ros-rclpy"))')" \
    "$("$py" -c 'from py_controllers import compiled; print(compiled.variant())')" "$*"
  resumable_pytest "$d" "$py" "$root/build-progress-$d.txt" "$@"
}

pure_suite() {  # distro: the PURE_TESTS on the pure Python hot path
  printf '[test] %s: the pure Python hot path (PY_CONTROLLERS_PURE=1): %s\n' "$1" "${PURE_TESTS[*]}"
  PY_CONTROLLERS_PURE=1 resumable_pytest "$1 (pure)" "$(venv_of "$1")/bin/python" \
    "$root/build-progress-$1-pure.txt" "${PURE_TESTS[@]}"
}

bash "$root/scripts/setup.sh" "$1" || exit 1
domain=$((1 + ($$ % 100) * 2))  # 1..199; each background distro takes the next one
declare -A pid=()
declare -A result=()
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
    export ROS_DOMAIN_ID=$((domain + n))
    suite "$d" test/ros test/unit
    rc=$?
    echo "[test] $d: setup and suite took $(minutes $((SECONDS - start)))"
    exit $rc
  ) >"$(test_log "$d")" 2>&1 &
  pid[$d]=$!
done

failed=0
start=$SECONDS
[ "$#" -gt 1 ] && export ROS_DOMAIN_ID=$domain  # alone: each pytest picks its own
if suite "$1" test; then result[$1]=passed; else result[$1]=FAILED; failed=1; fi
result[$1]+=" in $(minutes $((SECONDS - start)))"
start=$SECONDS
if pure_suite "$1"; then pure=passed; else pure=FAILED; failed=1; fi
pure+=" in $(minutes $((SECONDS - start)))"
for d in "${@:2}"; do
  if wait "${pid[$d]}"; then result[$d]=passed; else result[$d]=FAILED; failed=1; fi
  printf '\n[test] ---- %s (from %s) ----\n' "$d" "$(test_log "$d")"
  if [ "${result[$d]}" = passed ]; then tail -n 3 "$(test_log "$d")"; else tail -n 200 "$(test_log "$d")"; fi
done
printf '\n'
for d in "$@"; do printf '[test] %s: %s\n' "$d" "${result[$d]}"; done
printf '[test] %s, pure Python hot path: %s\n' "$1" "$pure"
exit "$failed"
