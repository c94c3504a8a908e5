#!/usr/bin/env bash
# Debian's Chromium for the playground's browser tests and bench, installed when missing
# (as scripts/services.sh installs PostgreSQL and Redis). playwright-core drives it; no
# browser build is downloaded. XQL_CHROMIUM names another binary.
set -euo pipefail
CHROMIUM=${XQL_CHROMIUM:-/usr/bin/chromium}
log() { printf 'browser: %s\n' "$*" >&2; }

if [ -x "$CHROMIUM" ]; then
  log "$CHROMIUM present"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  log "need root to install Debian's chromium; install it yourself (apt-get install chromium) or set XQL_CHROMIUM"
  exit 1
fi
log "installing chromium"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
[ -x "$CHROMIUM" ] || { log "chromium installed but $CHROMIUM is missing"; exit 1; }
log "$CHROMIUM installed"
