#!/usr/bin/env bash
# Installs the system packages Baton's tests use (bash, dash, SQLite CLI for inspection) when missing.
# Node 22 itself comes from the `node` devDependency, so nothing else is needed for it.
set -euo pipefail
missing=()
for tool in bash dash sqlite3 git; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" != 0 ]; then
    echo "setup-machine: missing ${missing[*]}; install them (needs root)" >&2
    exit 1
  fi
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
