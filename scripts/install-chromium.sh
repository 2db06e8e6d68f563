#!/usr/bin/env bash
# Installs what the browser test (test/browser/) drives: Debian's chromium, run headless by
# playwright-core (a devDependency that brings no browser of its own), and a Devanagari font
# (fonts-lohit-deva, 190 kB), so the Hindi in the screenshots of e-mails and EHR pages is text,
# not empty boxes (Debian's chromium brings no font for it).
#
# Idempotent: nothing is installed when both are present (no apt-get update either). Runs on a
# fresh Debian machine as root without prompts; as another user it only says what is missing
# (exit 0: the browser test is then skipped unless CI requires it).
#
# Last line of output (machine-readable): CHROMIUM_BIN=<path to chromium>
set -euo pipefail

log() { printf '[install-chromium] %s\n' "$*" >&2; }

chromium_bin() { command -v chromium 2>/dev/null || { [[ -x /usr/bin/chromium ]] && echo /usr/bin/chromium; } || true; }

has_devanagari_font() { command -v fc-list >/dev/null && [[ -n "$(fc-list :lang=hi family 2>/dev/null)" ]]; }

missing=()
[[ -z "$(chromium_bin)" ]] && missing+=(chromium)
has_devanagari_font || missing+=(fonts-lohit-deva)

if (( ${#missing[@]} > 0 )); then
	if [[ "$(id -u)" != 0 ]]; then
		if [[ " ${missing[*]} " == *" chromium "* ]]; then
			log "missing: chromium; the browser test will be skipped. To run it: sudo apt-get install -y ${missing[*]}"
		else
			log "missing: a Devanagari font; Hindi shows as boxes in the browser test's screenshots. To fix it: sudo apt-get install -y fonts-lohit-deva"
		fi
		exit 0
	fi
	if ! command -v apt-get >/dev/null; then
		log "missing: ${missing[*]}, and this is not a Debian-like system (no apt-get); install it yourself"
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	# One apt at a time: wait for another install's dpkg lock instead of failing on it.
	exec 9>/tmp/.clinic-scribe-install-chromium.lock
	flock 9
	log "installing ${missing[*]} (apt-get update first)"
	apt-get update -q >&2
	apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 \
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
		"${missing[@]}" >&2
fi

CHROMIUM_BIN="$(chromium_bin)"
if [[ -z "$CHROMIUM_BIN" ]]; then
	log "chromium still not found after installing"
	exit 1
fi
log "chromium: $CHROMIUM_BIN ($("$CHROMIUM_BIN" --version 2>/dev/null | head -n 1))"
echo "CHROMIUM_BIN=$CHROMIUM_BIN"
