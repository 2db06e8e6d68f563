#!/usr/bin/env bash
# Installs what the browser test (test/browser/) drives: Debian's chromium, run headless by
# playwright-core (a devDependency that brings no browser of its own).
#
# Idempotent: nothing is installed when chromium is present (no apt-get update either). Runs on a
# fresh Debian machine as root without prompts; as another user it only says what is missing
# (exit 0: the browser test is then skipped unless CI requires it).
#
# Last line of output (machine-readable): CHROMIUM_BIN=<path to chromium>
set -euo pipefail

log() { printf '[install-chromium] %s\n' "$*" >&2; }

chromium_bin() { command -v chromium 2>/dev/null || { [[ -x /usr/bin/chromium ]] && echo /usr/bin/chromium; } || true; }

if [[ -z "$(chromium_bin)" ]]; then
	if [[ "$(id -u)" != 0 ]]; then
		log "missing: chromium; the browser test will be skipped. To run it: sudo apt-get install -y chromium"
		exit 0
	fi
	if ! command -v apt-get >/dev/null; then
		log "missing: chromium, and this is not a Debian-like system (no apt-get); install it yourself"
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	# One apt at a time: wait for another install's dpkg lock instead of failing on it.
	exec 9>/tmp/.clinic-scribe-install-chromium.lock
	flock 9
	log "installing chromium (apt-get update first)"
	apt-get update -q >&2
	apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 \
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
		chromium >&2
fi

CHROMIUM_BIN="$(chromium_bin)"
if [[ -z "$CHROMIUM_BIN" ]]; then
	log "chromium still not found after installing"
	exit 1
fi
log "chromium: $CHROMIUM_BIN ($("$CHROMIUM_BIN" --version 2>/dev/null | head -n 1))"
echo "CHROMIUM_BIN=$CHROMIUM_BIN"
