#!/usr/bin/env bash
# Installs Debian's chromium (driven by playwright-core in the browser tests; nothing is downloaded
# at test time) and a colour emoji font (the comment's medal marks). Idempotent.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
fc-list 2>/dev/null | grep -qi "color emoji" || need+=(fonts-noto-color-emoji)
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
chromium --version
