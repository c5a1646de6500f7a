#!/usr/bin/env bash
# Installs and starts what Baton's tests use when it is missing, and does nothing when it is all there:
# bash, dash, the SQLite CLI and git; wrk for `npm run bench -- server`; for the sandboxes the Docker engine
# (Debian's docker.io, dockerd started in the background when no engine answers), bubblewrap, debootstrap (the image
# build), iproute2, iptables and procps's sysctl (the namespace driver's network), curl (the proxy suites), and jq
# and openssl (the docs' shell blocks, which a test runs), Chromium (the browser tests drive Debian's build through
# playwright-core) and tmux (the client's token prompt is tested in a real terminal). Node 22 comes from the `node` devDependency, so nothing
# else is needed for it. test/unit/scripts/setup-machine.test.ts holds this list to the programs the code starts.
#
# It ends with one line per part a newcomer asks about (the Docker engine, bubblewrap, PostgreSQL and the `baton`
# role, Chromium): ready, installed or started. `--check` prints those lines and changes nothing (exit 1 when a
# part is missing).
set -euo pipefail

pg_port=${BATON_PG_PORT:-5432}
# Each part's check changes nothing. The role check signs in the way the tests do (the role and password below).
part_ready() {
  case "$1" in
    docker) docker info >/dev/null 2>&1 ;;
    bubblewrap) command -v bwrap >/dev/null 2>&1 ;;
    postgres)
      pg_isready -q -h 127.0.0.1 -p "$pg_port" >/dev/null 2>&1 &&
        PGPASSWORD=baton psql -h 127.0.0.1 -p "$pg_port" -U baton -d baton_test -tAc 'SELECT 1' >/dev/null 2>&1
      ;;
    chromium) command -v chromium >/dev/null 2>&1 ;;
  esac
}
parts=(docker bubblewrap postgres chromium)
declare -A part_name=([docker]="Docker engine" [bubblewrap]="bubblewrap"
  [postgres]="PostgreSQL and the baton role" [chromium]="Chromium")
declare -A part_package=([docker]=docker.io [bubblewrap]=bubblewrap [postgres]=postgresql-15 [chromium]=chromium)
declare -A was_ready=()
for part in "${parts[@]}"; do
  if part_ready "$part"; then was_ready[$part]=1; else was_ready[$part]=0; fi
done

if [ "${1:-}" = --check ]; then
  missing=0
  for part in "${parts[@]}"; do
    if ((was_ready[$part])); then
      echo "setup-machine: ${part_name[$part]}: ready"
    else
      echo "setup-machine: ${part_name[$part]}: missing (run bash scripts/setup-machine.sh as root)"
      missing=1
    fi
  done
  exit "$missing"
fi

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
need ss iproute2
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
if ! pg_isready -q -h 127.0.0.1 -p "$pg_port" 2>/dev/null; then
  as_root "starting PostgreSQL"
  pg_lsclusters -h 2>/dev/null | awk '{print $1, $2}' | grep -qx "15 main" || pg_createcluster 15 main >/dev/null
  echo "setup-machine: starting PostgreSQL 15 on 127.0.0.1:$pg_port"
  pg_ctlcluster -o "-c listen_addresses=127.0.0.1 -c port=$pg_port" 15 main start
  deadline=$((SECONDS + 60))
  until pg_isready -q -h 127.0.0.1 -p "$pg_port"; do
    if ((SECONDS >= deadline)); then
      echo "setup-machine: PostgreSQL did not answer within 60 s; see /var/log/postgresql/postgresql-15-main.log" >&2
      exit 1
    fi
    sleep 0.2
  done
fi
if [ "$(id -u)" = 0 ]; then
  runuser -u postgres -- psql -q -p "$pg_port" -v ON_ERROR_STOP=1 <<'SQL' >/dev/null
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


# One line per part: ready (it was), installed (its package was installed here), started (it was there, not
# running), or not ready with what to do.
report=0
for part in "${parts[@]}"; do
  if ((was_ready[$part])); then
    state=ready
  elif part_ready "$part"; then
    state=started
    for p in "${packages[@]}"; do [ "$p" = "${part_package[$part]}" ] && state=installed; done
  else
    state="NOT ready: run bash scripts/setup-machine.sh as root"
    report=1
  fi
  echo "setup-machine: ${part_name[$part]}: $state"
done
exit "$report"
