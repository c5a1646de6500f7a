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
need jq jq
need openssl openssl
need chromium chromium
need tmux tmux
need ssh openssh-client

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
