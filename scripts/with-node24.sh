#!/usr/bin/env bash
# Runs a command with the Node 24 that n8n 2.41 needs first on PATH (installed once into the cache
# by `scripts/install-n8n.sh node`, without an n8n). `npm run dev` uses it: `n8n-node dev` starts
# n8n itself (`npx n8n@latest`), which refuses Node 20.
#
#   bash scripts/with-node24.sh n8n-node dev [flags]
set -euo pipefail
cd "$(dirname "$0")/.."
node24=$(bash scripts/install-n8n.sh node | sed -n 's/^NODE24_BIN=//p')
PATH="$(dirname "$node24"):$PATH"
export PATH
exec "$@"
