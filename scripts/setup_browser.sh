#!/usr/bin/env bash
# Headless Chromium from Debian's packages, for the dashboard's browser tests
# (test/browser) and scripts/dashboard_screenshots.py. Playwright drives this browser;
# it never downloads one of its own.
# Idempotent: does nothing when /usr/bin/chromium exists. Installs with apt-get when
# running as root or with passwordless sudo; otherwise says why and exits 0 (the browser
# tests then skip, saying Chromium is missing).
set -uo pipefail

say() { printf '[setup_browser] %s\n' "$*"; }

if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  say "no apt-get on this machine: install Chromium yourself (/usr/bin/chromium); the browser tests skip until then"
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  say "not root and no passwordless sudo: run 'apt-get install chromium chromium-driver' as root; the browser tests skip until then"
  exit 0
fi
say "installing chromium and chromium-driver with apt-get"
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get update -qq >/dev/null; then
  say "apt-get update failed; the browser tests skip until Chromium is installed"
  exit 0
fi
if ! "${sudo[@]}" apt-get install -y -qq chromium chromium-driver >/dev/null; then
  say "apt-get install chromium failed; the browser tests skip until Chromium is installed"
  exit 0
fi
say "installed: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
