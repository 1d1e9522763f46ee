#!/usr/bin/env bash
# The browser test drives Debian's Chromium (playwright-core never downloads a browser). Installs it when missing;
# CI and fresh machines run as root without sudo. Exits 0 with a note when it cannot install (no apt, no root):
# the browser test then fails naming the missing binary.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" != "0" ]; then
  echo "ensure-chromium: /usr/bin/chromium is missing and cannot be installed here (need apt-get as root)" >&2
  exit 0
fi
echo "ensure-chromium: installing Debian's chromium for the browser test" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends chromium >/dev/null
