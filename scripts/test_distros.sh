#!/usr/bin/env bash
# The test suite on each ROS distro named (kilted, jazzy). The first distro is set up first
# (its build uses every core); each other distro's setup then runs beside the tests, in the
# place of one test process (niced, beside three, it took 8 min instead of 2.5).
# Each suite is split into SHARDS shards (test/sharding.py: whole files, by the seconds each
# took in a recorded run), and the shards of every distro, plus the pure Python subset, run
# from one queue as pytest processes, PROCESSES at a time, each on a ROS domain of its own.
# A test process mostly waits (for child processes, discovery, messages, real time): two
# side by side left 2 cores 65-80 % idle. But its managers and simulators are real-time
# loops, and four at once on 2 cores starved them (watchdog exits, late messages: 3-6
# failed tests a run), so the default is one process more than the cores.
# PY_CONTROLLERS_TEST_PROCESSES sets the processes at once, PY_CONTROLLERS_TEST_SHARDS the
# shards per distro (default: twice the processes: with one shard per process, the last
# shard ran alone for two minutes of a 20 min run; a shard's process costs a few seconds). Each job's start and result are printed as
# they happen; at the end, every job's summary and the logs of the jobs that failed.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ "$#" -gt 0 ] || set -- kilted
venv_of() { if [ "$1" = jazzy ]; then echo "$root/.venv-jazzy"; else echo "$root/.venv"; fi; }
setup_log() { echo "$root/build-setup-$1.log"; }
job_log() { echo "$root/build-test-$1-$2.log"; }
minutes() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }
whole_number() {  # name value max: exits 2 unless 1 <= value <= max
  if ! [[ "$2" =~ ^[1-9][0-9]*$ ]] || [ "$2" -gt "$3" ]; then
    echo "[test] $1 must be a whole number from 1 to $3, got '$2'"
    exit 2
  fi
}
PROCESSES="${PY_CONTROLLERS_TEST_PROCESSES:-$(($(nproc) + 1))}"
whole_number PY_CONTROLLERS_TEST_PROCESSES "$PROCESSES" 32
SHARDS="${PY_CONTROLLERS_TEST_SHARDS:-$((2 * PROCESSES))}"
# ROS domains 1..101, one per job (above that, a domain's ports fall among the ephemeral
# ones Linux hands out)
whole_number PY_CONTROLLERS_TEST_SHARDS "$SHARDS" $((99 / $#))

# The pure Python variant of the hot path (py_controllers/compiled.py), on the first distro:
# the unit tier and the ros tests of the compiled modules' users.
PURE_TESTS=(test/unit test/ros/test_command_limits.py test/ros/test_command_guard.py
  test/ros/test_pid_controllers.py test/ros/test_joint_trajectory_controller.py)

# A pytest process that ends inside a test (the hang guard of test/conftest.py, a crash) is
# resumed after that test, at most twice, from its progress file. The run fails when a test
# failed, when pytest itself failed, or when the process ended inside a test whose own call
# had not passed (but see rclpy_close_hang); one that passed and then hung in its teardown
# (rclpy's node destruction did, three times in about ten whole runs) is reported, with its
# stacks, and the suite goes on.
# A process that ended inside a test leaves that test's children running (its managers,
# simulators, test nodes), on the job's ROS domain: the resumed process then met them (s53: a
# leftover manager answered the next tests' spawners, 7 failures after one hang). Every
# process whose environment names the job's progress file (pytest's children inherit it) is
# ended before resuming.
end_leftovers() {  # progress-file: the number of leftover processes ended
  local pid n=0
  for pid in $(grep -lzxsF "PY_CONTROLLERS_TEST_PROGRESS=$1" /proc/[0-9]*/environ | cut -d/ -f3); do
    kill -KILL "$pid" 2>/dev/null && n=$((n + 1))
  done
  echo "$n"
}

# rclpy's node destruction (a Fast DDS participant's) has hung now and then on jazzy, holding
# the GIL: in a teardown after the test passed (above), and once inside a test body, at the
# end of a `with RosHarness(...)` whose checks had passed (s53). A test that the hang guard
# ended there runs once more in the resumed process, and fails the run unless it passes then.
rclpy_close_hang() {  # stacks-file: 0 when the test's thread (pytest's) was inside rclpy, called
  awk 'BEGIN {RS = ""}  # from RosHarness.close; faulthandler prints one block per thread
    /_pytest\// && /py_controllers\/testing\.py", line [0-9]+ in close/ {
      n = split($0, line, "\n")
      for (i = 1; i <= n && line[i] !~ /^  File /; i++) {}
      if (line[i] ~ /\/rclpy\//) found = 1  # its innermost frame
    }
    END {exit !found}' "$1" 2>/dev/null
}

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
    cat "$progress.stacks" 2>/dev/null
    if grep -qxF "passed $stuck" "$progress"; then
      printf '[test] %s: the process ended in the teardown of %s, which had passed\n' "$label" "$stuck"
    elif rclpy_close_hang "$progress.stacks" && ! grep -qxF "retry $stuck" "$progress"; then
      printf "[test] %s: %s hung inside rclpy's node destruction (RosHarness.close); it runs once more\n" \
        "$label" "$stuck"
      echo "retry $stuck" >>"$progress"
    else
      printf '[test] %s: FAILED: the process ended inside %s\n' "$label" "$stuck"
      ok=0
    fi
    echo "end $stuck" >>"$progress"
    printf '[test] %s: %s leftover processes of it ended\n' "$label" "$(end_leftovers "$progress")"
    [ "$runs" -lt 3 ] || { ok=0; break; }
    printf '[test] %s: resuming after it\n' "$label"
  done
  ! grep -q '^failed ' "$progress" && [ "$ok" -eq 1 ]
}

# One job: a shard of a distro's suite, or (shard "pure") the pure subset. The browser tier
# (the dashboard's pages in Chromium) runs on the first distro only: its pages do not change
# with the distro, and the dashboard's ROS side is in test/ros on both.
run_job() {  # distro shard domain
  local d="$1" shard="$2" py
  py="$(venv_of "$d")/bin/python"
  export ROS_DOMAIN_ID="$3"
  if [ "$shard" = pure ]; then
    PY_CONTROLLERS_PURE=1 resumable_pytest "$d (pure)" "$py" "$root/build-progress-$d-pure.txt" \
      "${PURE_TESTS[@]}"
  elif [ "$d" = "$first" ]; then
    PY_CONTROLLERS_TEST_SHARD="$shard/$SHARDS" resumable_pytest "$d [$shard/$SHARDS]" "$py" \
      "$root/build-progress-$d-$shard.txt" test
  else
    PY_CONTROLLERS_TEST_SHARD="$shard/$SHARDS" resumable_pytest "$d [$shard/$SHARDS]" "$py" \
      "$root/build-progress-$d-$shard.txt" test/ros test/unit
  fi
}

top_files() {  # event progress-files...: the 8 test files with the most seconds of that event
  local event="$1"          # (took: wall time; cpu: the test process's and its children's CPU)
  shift
  cat "$@" 2>/dev/null |
    awk -v e="$event" '$1 == e {split($3, id, "::"); t[id[1]] += $2}
      END {for (f in t) printf "%.0f %s\n", t[f], f}' |
    sort -rn | head -n 8 | awk '{printf "%s%s %s s", (NR > 1 ? ", " : ""), $2, $1}'
}

describe() {  # distro: its rclpy and hot path
  local py
  py="$(venv_of "$1")/bin/python"
  printf '[test] %s: rclpy %s; hot path: %s\n' "$1" \
    "$("$py" -c 'import importlib.metadata as m; print(m.version("ros-rclpy"))')" \
    "$("$py" -c 'from py_controllers import compiled; print(compiled.variant())')"
}

# Fast DDS keeps each participant's shared memory in /dev/shm until its process ends cleanly;
# a process killed or crashed leaves it there until reboot (a whole run here: about 30 of
# 0.5 MB each; thousands had piled up from earlier runs). Each distro's own `fastdds shm clean`
# (jazzy's Fast DDS names its files fastrtps_*) removes what no live process holds.
clean_shared_memory() {  # distro: one line saying what its tool removed
  local venv out
  venv="$(venv_of "$1")"
  if out="$(PATH="$venv/bin:$PATH" "$venv/bin/fastdds" shm clean 2>&1)"; then
    printf '[test] %s: fastdds shm clean: %s\n' "$1" \
      "$(echo "$out" | grep -E 'zombie (segments|ports) cleaned' | paste -sd ',' | sed 's/,/, /')"
  else
    printf '[test] %s: fastdds shm clean failed: %s\n' "$1" "$(echo "$out" | tail -n 1)"
  fi
}

summary_of() {  # log: pytest's last summary line in it
  grep -E '^=*.* in [0-9.]+s' "$1" | tail -n 1 | tr -d '='
}

first="$1"
start=$SECONDS
bash "$root/scripts/setup.sh" "$first" || exit 1
declare -A ready=([$first]=1) setup_of=() job_of=() began=() result=()
for d in "${@:2}"; do
  bash "$root/scripts/setup.sh" "$d" >"$(setup_log "$d")" 2>&1 &
  setup_of[$!]="$d"
  printf '[test] %s: set up beside the tests (%s)\n' "$d" "$(setup_log "$d")"
done
queue=()
for d in "$@"; do for i in $(seq 1 "$SHARDS"); do queue+=("$d $i"); done; done
queue+=("$first pure")
domain=$((1 + ($$ % (100 / ${#queue[@]})) * ${#queue[@]}))
describe "$first"
printf '[test] %d jobs (%s shards per distro, the pure subset), %d at a time, ROS domains %d-%d\n' \
  "${#queue[@]}" "$SHARDS" "$PROCESSES" "$domain" $((domain + ${#queue[@]} - 1))

startable() {  # job: 0 when its distro (for the pure subset, every distro) is set up
  local d="${1% *}" s
  if [ "${1#* }" = pure ]; then
    for s in "${all[@]}"; do [ -n "${ready[$s]:-}" ] || return 1; done
    return 0
  fi
  [ -n "${ready[$d]:-}" ]
}
all=("$@")
failed=0
declare -A started=()
while :; do
  # start every job that may, in queue order, while a process is free (a setup takes one)
  for ((j = 0; j < ${#queue[@]} && ${#job_of[@]} + ${#setup_of[@]} < PROCESSES; j++)); do
    job="${queue[$j]}"
    [ -z "${started[$job]:-}" ] && startable "$job" || continue
    started[$job]=1
    set -- $job
    run_job "$1" "$2" $((domain + j)) >"$(job_log "$1" "$2")" 2>&1 &
    job_of[$!]="$job"
    began[$job]=$SECONDS
    printf '[test] %s: started %s (domain %d)\n' "$(minutes $((SECONDS - start)))" "$job" $((domain + j))
  done
  [ "${#job_of[@]}" -gt 0 ] || [ "${#setup_of[@]}" -gt 0 ] || break
  wait -n -p pid
  rc=$?
  if [ -n "${setup_of[$pid]:-}" ]; then
    d="${setup_of[$pid]}"
    unset "setup_of[$pid]"
    if [ "$rc" -eq 0 ]; then
      ready[$d]=1
      printf '[test] %s: %s set up\n' "$(minutes $((SECONDS - start)))" "$d"
      describe "$d"
    else
      printf '[test] %s: setup FAILED (see %s):\n' "$d" "$(setup_log "$d")"
      tail -n 40 "$(setup_log "$d")"
      failed=1
      for job in "${queue[@]}"; do  # its jobs, and the pure subset, never start
        if [ -z "${started[$job]:-}" ] && { [ "${job% *}" = "$d" ] || [ "${job#* }" = pure ]; }; then
          result[$job]="not run: $d's setup failed"
          started[$job]=1
        fi
      done
    fi
    continue
  fi
  job="${job_of[$pid]:-}"
  [ -n "$job" ] || continue
  unset "job_of[$pid]"
  set -- $job
  if [ "$rc" -eq 0 ]; then result[$job]=passed; else result[$job]=FAILED; failed=1; fi
  result[$job]+=" in $(minutes $((SECONDS - began[$job]))): $(summary_of "$(job_log "$1" "$2")")"
  printf '[test] %s: %s %s\n' "$(minutes $((SECONDS - start)))" "$job" "${result[$job]}"
done

for job in "${queue[@]}"; do
  set -- $job
  if [[ "${result[$job]:-}" == FAILED* ]]; then
    printf '\n[test] ---- %s (from %s) ----\n' "$job" "$(job_log "$1" "$2")"
    tail -n 300 "$(job_log "$1" "$2")"
  fi
done
printf '\n'
for d in "${all[@]}"; do
  printf '[test] %s: slowest files: %s\n' "$d" "$(top_files took "$root"/build-progress-"$d"-[0-9]*.txt)"
  printf '[test] %s: most CPU: %s\n' "$d" "$(top_files cpu "$root"/build-progress-"$d"-[0-9]*.txt)"
done
for job in "${queue[@]}"; do printf '[test] %s: %s\n' "$job" "${result[$job]:-not run}"; done
for d in "${all[@]}"; do [ -z "${ready[$d]:-}" ] || clean_shared_memory "$d"; done
printf '[test] all in %s: %s\n' "$(minutes $((SECONDS - start)))" "$([ "$failed" -eq 0 ] && echo passed || echo FAILED)"
exit "$failed"
