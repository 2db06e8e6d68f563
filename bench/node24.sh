#!/usr/bin/env bash
# Runs a bench script under the Node that n8n 2.41 runs on (the cached Node 24, installed once by
# scripts/install-n8n.sh): figures only count where the product runs.
set -euo pipefail
cd "$(dirname "$0")/.."
exec bash scripts/with-node24.sh node --import tsx "$@"
