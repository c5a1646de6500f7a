#!/usr/bin/env bash
# Installs and starts what Baton's tests use when it is missing, and does nothing when it is all there:
# bash, dash, the SQLite CLI and git; wrk for `npm run bench -- server`; for the sandboxes the Docker engine
# (Debian's docker.io, dockerd started in the background when no engine answers), bubblewrap, debootstrap (the image
# build), iproute2, iptables and procps's sysctl (the namespace driver's network), curl (the proxy suites), and jq
# and openssl (the docs' shell blocks, which a test runs), Chromium (the browser tests drive Debian's build through
# playwright-core) and tmux (the client's token prompt is tested in a real terminal). Node 22 comes from the `node` devDependency, so nothing
# else is needed for it. test/unit/scripts/setup-machine.test.ts holds this list to the programs the code starts.
set -euo pipefail

# Each check names the program a later step runs, not a neighbour of it: a machine may ship a Docker client
# (`docker`) without the engine (`dockerd`), and only the engine's check installs docker.io there.
packages=()
need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  local p
  for p in "${packages[@]}"; do [ "$p" = "$2" ] && return 0; done
  packages+=("$2")
}
need bash bash
need dash dash
need sqlite3 sqlite3
need git git
need wrk wrk
need docker docker.io
need dockerd docker.io
need bwrap bubblewrap
need debootstrap debootstrap
need ip iproute2
need iptables iptables
need setpriv util-linux
need sysctl procps
need curl curl
need npm npm
need jq jq
need openssl openssl
need chromium chromium
need tmux tmux
need ssh openssh-client
# PostgreSQL 15 (the second store engine, `--database-url`): the server binary itself, not the psql client that a
# machine may carry without it.
[ -x "${BATON_PG_BIN:-/usr/lib/postgresql/15/bin}/postgres" ] || packages+=(postgresql-15)
need psql postgresql-client-15
need pg_ctlcluster postgresql-common

as_root() {
  if [ "$(id -u)" != 0 ]; then
    echo "setup-machine: $1 needs root; run this script as root (or do it by hand)" >&2
    exit 1
  fi
}

if ((${#packages[@]})); then
  as_root "installing ${packages[*]}"
  echo "setup-machine: installing ${packages[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi

# The Docker engine: use the one that answers; otherwise start dockerd in the background and wait for it.
if ! docker info >/dev/null 2>&1; then
  as_root "starting dockerd"
  log=${BATON_DOCKERD_LOG:-/var/log/baton-dockerd.log}
  echo "setup-machine: starting dockerd in the background (log: $log)"
  nohup dockerd >"$log" 2>&1 &
  deadline=$((SECONDS + ${BATON_DOCKERD_WAIT_S:-60}))
  until docker info >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      echo "setup-machine: dockerd did not answer within ${BATON_DOCKERD_WAIT_S:-60} s; see $log" >&2
      tail -n 20 "$log" >&2 || true
      exit 1
    fi
    sleep 0.5
  done
  echo "setup-machine: dockerd is up"
fi

# PostgreSQL on loopback for the tests of the second engine: Debian's cluster 15/main (created when the package
# did not), listening on 127.0.0.1 only, with a `baton` role that may create databases. The tests read
# BATON_TEST_DATABASE_URL and default to the URL below.
if ! pg_isready -q -h 127.0.0.1 -p "${BATON_PG_PORT:-5432}" 2>/dev/null; then
  as_root "starting PostgreSQL"
  pg_lsclusters -h 2>/dev/null | awk '{print $1, $2}' | grep -qx "15 main" || pg_createcluster 15 main >/dev/null
  echo "setup-machine: starting PostgreSQL 15 on 127.0.0.1:${BATON_PG_PORT:-5432}"
  pg_ctlcluster -o "-c listen_addresses=127.0.0.1 -c port=${BATON_PG_PORT:-5432}" 15 main start
  deadline=$((SECONDS + 60))
  until pg_isready -q -h 127.0.0.1 -p "${BATON_PG_PORT:-5432}"; do
    if ((SECONDS >= deadline)); then
      echo "setup-machine: PostgreSQL did not answer within 60 s; see /var/log/postgresql/postgresql-15-main.log" >&2
      exit 1
    fi
    sleep 0.2
  done
fi
if [ "$(id -u)" = 0 ]; then
  runuser -u postgres -- psql -q -p "${BATON_PG_PORT:-5432}" -v ON_ERROR_STOP=1 <<'SQL' >/dev/null
SELECT 'CREATE ROLE baton LOGIN CREATEDB PASSWORD ''baton'''
WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'baton') \gexec
SELECT 'CREATE DATABASE baton_test OWNER baton'
WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'baton_test') \gexec
-- The tests never crash PostgreSQL itself (a killed baton serve loses no committed row either way), so their
-- commits need not wait for the WAL flush; under the suite's I/O load that wait made a fresh schema's migrations
-- outlast a service's start-up deadline. The benchmarks set it back on for their own sessions.
ALTER DATABASE baton_test SET synchronous_commit = off;
SQL
fi

