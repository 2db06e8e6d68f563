#!/usr/bin/env bash
# Runs a bench script under the Node that n8n 2.41 runs on (the cached Node 24, installed once by
# scripts/install-n8n.sh): figures only count where the product runs.
set -euo pipefail
cd "$(dirname "$0")/.."
node24=$(bash scripts/install-n8n.sh 2>/dev/null | sed -n 's/^NODE24_BIN=//p')
if [ -z "$node24" ]; then
	echo "scripts/install-n8n.sh did not print NODE24_BIN; run it once: npm run n8n:install" >&2
	exit 1
fi
exec "$node24" --import tsx "$@"
