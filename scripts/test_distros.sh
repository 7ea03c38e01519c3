#!/usr/bin/env bash
# The test suite on each ROS distro named (kilted, jazzy): set up each venv, run pytest in
# it, report every distro's result, fail if any failed. The next distro's setup runs in the
# background while the first one's tests run (it is mostly downloads and CMake).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ "$#" -gt 0 ] || set -- kilted
venv_of() { if [ "$1" = jazzy ]; then echo "$root/.venv-jazzy"; else echo "$root/.venv"; fi; }
log_of() { echo "$root/build-setup-$1.log"; }

bash "$root/scripts/setup.sh" "$1" || exit 1
declare -A setup_pid=()
for d in "${@:2}"; do
  printf '[test] setting up %s in the background (log: %s)\n' "$d" "$(log_of "$d")"
  bash "$root/scripts/setup.sh" "$d" >"$(log_of "$d")" 2>&1 &
  setup_pid[$d]=$!
done

declare -A result=()
failed=0
for d in "$@"; do
  if [ -n "${setup_pid[$d]:-}" ]; then
    if ! wait "${setup_pid[$d]}"; then
      tail -n 30 "$(log_of "$d")" >&2
      result[$d]="setup failed"; failed=1; continue
    fi
  fi
  printf '[test] %s: %s\n' "$d" "$("$(venv_of "$d")/bin/python" -c 'import rclpy, importlib.metadata as m; print("rclpy", m.version("ros-rclpy"))')"
  start=$SECONDS
  if (cd "$root" && "$(venv_of "$d")/bin/python" -m pytest -q -p no:cacheprovider test); then
    result[$d]="passed"
  else
    result[$d]="FAILED"; failed=1
  fi
  result[$d]+=" in $(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s"
done
for d in "$@"; do printf '[test] %s: %s\n' "$d" "${result[$d]}"; done
exit "$failed"
