#!/usr/bin/env bash
# Runs a command with the Node 24 that n8n 2.41 needs first on PATH (installed once into the cache
# by scripts/install-n8n.sh). `npm run dev` uses it: `n8n-node dev` starts n8n itself
# (`npx n8n@latest`), which refuses Node 20.
#
#   bash scripts/with-node24.sh n8n-node dev [flags]
set -euo pipefail
cd "$(dirname "$0")/.."
node24=$(bash scripts/install-n8n.sh 2>/dev/null | sed -n 's/^NODE24_BIN=//p')
if [ -z "$node24" ]; then
	echo "scripts/install-n8n.sh did not print NODE24_BIN; run it once: npm run n8n:install" >&2
	exit 1
fi
PATH="$(dirname "$node24"):$PATH"
export PATH
exec "$@"
