#!/usr/bin/env bash
# Installs what the queue-mode end-to-end test (test/e2e/queue-mode.e2e.test.ts) runs n8n against:
# Debian's redis-server and postgresql. The test starts its own private instances of both (a
# redis-server and an initdb cluster on loopback ports of its own, data in a temp folder); it never
# uses or touches the system services these packages may set up.
#
# Idempotent: nothing is installed when both are present (no apt-get update either). Runs on a
# fresh Debian machine as root without prompts; as another user it only says what is missing
# (exit 0, no output lines: the queue-mode test is then skipped unless CI requires it).
#
# Last lines of output (machine-readable, used by test/support/queueServices.ts):
#   REDIS_SERVER_BIN=<path to redis-server>
#   PG_BIN_DIR=<directory holding initdb, postgres, pg_isready, createdb>
set -euo pipefail

log() { printf '[install-queue-services] %s\n' "$*" >&2; }

redis_bin() { command -v redis-server 2>/dev/null || { [[ -x /usr/bin/redis-server ]] && echo /usr/bin/redis-server; } || true; }
# The newest installed PostgreSQL's server binaries (Debian keeps them out of PATH).
pg_bin_dir() {
	local dir
	dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
	if [[ -n "$dir" && -x "$dir/initdb" && -x "$dir/postgres" && -x "$dir/pg_isready" && -x "$dir/createdb" ]]; then echo "$dir"; fi
}

missing=()
[[ -n "$(redis_bin)" ]] || missing+=(redis-server)
[[ -n "$(pg_bin_dir)" ]] || missing+=(postgresql)

if ((${#missing[@]} > 0)); then
	if [[ "$(id -u)" != 0 ]]; then
		# Not an error for a developer without root: the queue-mode test is skipped (CI requires it).
		log "missing: ${missing[*]}; the queue-mode e2e test will be skipped. To run it: sudo apt-get install -y ${missing[*]}"
		exit 0
	fi
	if ! command -v apt-get >/dev/null; then
		log "missing: ${missing[*]}, and this is not a Debian-like system (no apt-get); install them yourself"
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	# One apt at a time (a concurrent run waits here instead of failing on dpkg's lock).
	exec 9>/tmp/.clinic-scribe-install-queue-services.lock
	flock 9
	log "installing ${missing[*]} (apt-get update first)"
	apt-get update -q >&2
	apt-get install -y -q --no-install-recommends \
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
		"${missing[@]}" >&2
fi

REDIS_SERVER_BIN="$(redis_bin)"
PG_BIN_DIR="$(pg_bin_dir)"
if [[ -z "$REDIS_SERVER_BIN" || -z "$PG_BIN_DIR" ]]; then
	log "redis-server or PostgreSQL's binaries still not found after installing"
	exit 1
fi
if ! id postgres >/dev/null 2>&1; then
	# initdb/postgres refuse to run as root; the test runs them as this user.
	log "the postgres system user does not exist (the postgresql package creates it)"
	exit 1
fi
log "redis-server: $REDIS_SERVER_BIN ($("$REDIS_SERVER_BIN" --version | head -n 1))"
log "postgresql:   $PG_BIN_DIR ($("$PG_BIN_DIR/postgres" --version))"
echo "REDIS_SERVER_BIN=$REDIS_SERVER_BIN"
echo "PG_BIN_DIR=$PG_BIN_DIR"
