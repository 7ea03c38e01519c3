#!/usr/bin/env bash
# One-command environment for py_controllers on a machine without ROS 2:
# a virtualenv from the ROS 2 PyPI wheels, the interface packages PyPI lacks
# built from interfaces/ with CMake, and the project installed editable.
# Usage: scripts/setup.sh [kilted|jazzy]   (kilted: .venv and build/; jazzy: .venv-jazzy
# and build-jazzy/, side by side, sharing the checkout).
# Idempotent: every step keeps a stamp and is skipped when its inputs are unchanged.
set -euo pipefail
shopt -s nullglob

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
distro="${1:-kilted}"
case "$distro" in
  kilted) venv="$root/.venv"; build="$root/build"; req="$root/scripts/requirements-ros.txt" ;;
  jazzy) venv="$root/.venv-jazzy"; build="$root/build-jazzy"; req="$root/scripts/requirements-ros-jazzy.txt" ;;
  *) printf '[setup] ERROR: ROS distro %s: the wheels here are kilted or jazzy\n' "$distro" >&2; exit 2 ;;
esac
stamps="$venv/.py_controllers"
py="${PYTHON:-python3}"

say() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }
hash_of() { cat "$@" | sha256sum | cut -d' ' -f1; }
fresh() { [ -f "$stamps/$1" ] && [ "$(cat "$stamps/$1")" = "$2" ]; }
stamp() { printf '%s' "$2" > "$stamps/$1"; }

# --- tools --------------------------------------------------------------------
command -v "$py" >/dev/null || die "python3 not found (need Python 3.11: the ROS wheels are cp311)"
pyver="$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
[ "$pyver" = "3.11" ] || die "python3 is $pyver; the ROS 2 wheels on PyPI need Python 3.11 (set PYTHON=...)"
"$py" -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
  || die "Python headers (Python.h) not found: install the python3-dev package"
command -v cmake >/dev/null || die "cmake not found: install cmake (apt-get install cmake)"
command -v make >/dev/null || die "make not found: install make"
command -v cc >/dev/null || command -v gcc >/dev/null || die "no C compiler: install gcc/g++"
command -v c++ >/dev/null || command -v g++ >/dev/null || die "no C++ compiler: install g++"

# --- virtualenv and wheels ----------------------------------------------------
if [ ! -x "$venv/bin/python" ]; then
  say "creating $venv"
  "$py" -m venv "$venv"
fi
mkdir -p "$stamps"
vpy="$venv/bin/python"

h="$(hash_of "$req")"
if ! fresh wheels "$h"; then
  say "installing ROS 2 $distro wheels (first run: about a minute)"
  "$vpy" -m pip install --quiet --disable-pip-version-check --upgrade 'pip>=24' \
    || die "pip could not upgrade itself"
  mkdir -p "$build"
  "$vpy" -m pip install --disable-pip-version-check -r "$req" >"$build/pip-wheels.log" 2>&1 \
    || { tail -n 30 "$build/pip-wheels.log" >&2; die "pip could not install the ROS 2 wheels listed in $req"; }
  stamp wheels "$h"
fi

# The wheels' CMake exports name the include dirs of the machine they were built on.
py_inc="$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
np_inc="$("$vpy" -c 'import numpy; print(numpy.get_include())')"
mapfile -t bad < <(grep -rl '/opt/python/cp311-cp311' "$venv/share" --include='*.cmake' 2>/dev/null || true)
if [ "${#bad[@]}" -gt 0 ]; then
  say "rewriting include paths in ${#bad[@]} CMake export files"
  sed -i \
    -e "s#/opt/python/cp311-cp311/lib/python3.11/site-packages/numpy/_core/include#$np_inc#g" \
    -e "s#/opt/python/cp311-cp311/include/python3.11#$py_inc#g" \
    "${bad[@]}"
fi

# ament_index_python, rmw and the console scripts find packages through
# AMENT_PREFIX_PATH; the venv prefix is an install prefix like /opt/ros/<distro>.
cat > "$venv/lib/python3.11/site-packages/py_controllers_env.pth" <<'PTH'
import os, sys; os.environ['AMENT_PREFIX_PATH'] = os.pathsep.join(dict.fromkeys([sys.prefix, *filter(None, os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep))]))
PTH

# --- interface packages -------------------------------------------------------
# Ours depend on wheel packages alone, so they build side by side (each one's code
# generators run one after another, leaving cores idle): about 75 s on 2 cores, not 165 s.
# Nothing below needs them until the end, so the project, the compiled hot path and the
# dashboard install meanwhile (control_msgs alone keeps one core busy for its last minute).
build_interface() {  # package-dir package: configure, build and install one package
  export AMENT_PREFIX_PATH="$venv"
  rm -rf "$build/$2"
  cmake -S "$1" -B "$build/$2" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$venv" \
    -DCMAKE_PREFIX_PATH="$venv" \
    -DPython3_EXECUTABLE="$vpy" \
    -DPython3_FIND_VIRTUALENV=ONLY \
    -DBUILD_TESTING=OFF &&
    cmake --build "$build/$2" -j "$(nproc)" &&
    cmake --install "$build/$2"
}
shared="$root/interfaces/rosidl_build.cmake"
trap wait EXIT  # a step below that fails lets the builds end before the script does
declare -A building=()
declare -A iface_hash=()
for pkg_dir in "$root"/interfaces/*/; do
  pkg="$(basename "$pkg_dir")"
  h="$( (cd "$pkg_dir" && find . -type f -not -path './build/*' | LC_ALL=C sort | xargs sha256sum;
    sha256sum <"$shared") | sha256sum | cut -d' ' -f1)"
  if fresh "iface-$pkg" "$h" && "$vpy" -c "import $pkg" 2>/dev/null; then
    continue
  fi
  say "building interface package $pkg (first run: a minute or two)"
  mkdir -p "$build"
  build_interface "$pkg_dir" "$pkg" >"$build/$pkg.log" 2>&1 &
  building[$pkg]=$!
  iface_hash[$pkg]="$h"
done
# --- the project itself ---------------------------------------------------------
h="$(hash_of "$root/setup.py" "$root/setup.cfg" "$root/package.xml" "$root/pyproject.toml" \
  "$root/examples/custom_controller/pyproject.toml" \
  "$root/examples/ros2_control_demos/pyproject.toml")"
if ! fresh project "$h"; then
  say "installing py_controllers (editable) with its test tools"
  mkdir -p "$build"
  "$vpy" -m pip install --disable-pip-version-check --no-build-isolation -e "$root[test]" \
    >"$build/pip-project.log" 2>&1 || { tail -n 30 "$build/pip-project.log" >&2; die "pip install -e . failed"; }
  "$vpy" -m pip install --disable-pip-version-check --no-build-isolation \
    -e "$root/examples/custom_controller" >>"$build/pip-project.log" 2>&1 \
    || { tail -n 30 "$build/pip-project.log" >&2; die "installing examples/custom_controller failed"; }
  "$vpy" -m pip install --disable-pip-version-check --no-build-isolation \
    -e "$root/examples/ros2_control_demos" >>"$build/pip-project.log" 2>&1 \
    || { tail -n 30 "$build/pip-project.log" >&2; die "installing examples/ros2_control_demos failed"; }
  stamp project "$h"
fi
# An editable install carries no data_files: link the share folder and the ament index
# marker to the checkout, so get_package_share_directory('py_controllers') sees edits.
share="$venv/share/py_controllers"
mkdir -p "$share" "$venv/share/ament_index/resource_index/packages"
for item in package.xml launch config; do
  ln -sfn "$root/$item" "$share/$item"
done
touch "$venv/share/ament_index/resource_index/packages/py_controllers"

# --- the compiled hot path (optional) ---------------------------------------------
# mypyc builds the modules of py_controllers/compiled.py beside their sources when a C compiler
# is there; without them (or with PY_CONTROLLERS_PURE=1) the same code runs as pure Python.
"$vpy" "$root/scripts/build_compiled.py" || say "the compiled hot path was not built: pure Python runs"

# --- the web dashboard and its browser tests ------------------------------------
req="$root/scripts/requirements-dashboard.txt"
h="$(hash_of "$req")"
if ! fresh dashboard "$h"; then
  say "installing the dashboard's packages (NiceGUI, Playwright)"
  mkdir -p "$build"
  "$vpy" -m pip install --disable-pip-version-check -r "$req" >"$build/pip-dashboard.log" 2>&1 \
    || { tail -n 30 "$build/pip-dashboard.log" >&2; die "pip could not install $req"; }
  stamp dashboard "$h"
fi
bash "$root/scripts/setup_browser.sh"

# --- bytecode ----------------------------------------------------------------------
# Python reads cached bytecode even where PYTHONDONTWRITEBYTECODE is set (as on some CI
# machines), but then never writes it: each process (every test's manager and spawner, the
# demo) compiled the checkout's modules it imports again, about 0.1 s of CPU a process.
# Compiled once here (seconds; a second run only compares times); a source edited later is
# compiled in memory at import, as without the cache.
"$vpy" -m compileall -q -j 0 "$root/py_controllers" "$root/faults" "$root/bench" "$root/test" \
  "$root/examples" >/dev/null || say "byte-compiling the checkout failed: modules compile at import"

for pkg in "${!building[@]}"; do
  log="$build/$pkg.log"
  if ! wait "${building[$pkg]}"; then
    wait  # the others finish (or fail) before the script exits
    tail -n 40 "$log" >&2
    die "building $pkg failed; full log in $log"
  fi
done
for pkg in "${!building[@]}"; do
  "$vpy" -c "import $pkg.msg" 2>/dev/null || "$vpy" -c "import $pkg.srv" \
    || die "$pkg was built but does not import; see $build/$pkg.log"
  stamp "iface-$pkg" "${iface_hash[$pkg]}"
done

say "ready: $venv"
