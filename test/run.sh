#!/usr/bin/env bash
# `npm test`: installs what is missing, starts PostgreSQL if it is down, typechecks (tsc --noEmit), then runs every test
# (test/run.ts builds or reuses the Temporal CLI and starts one dev server for the run), the files
# under test/reliability/ last and one at a time; `npm run test:reliability` (--reliability) runs
# only those.
set -euo pipefail
cd "$(dirname "$0")/.."

# The suite runs on Node 24, the LTS the project targets: the node on PATH when it is 24 or later, else
# node@24 from the npm registry (the package ships the binary), installed once beside the other built
# tools. TEST_NODE=current keeps the node on PATH (the service still starts on Node 20).
if [ "${TEST_NODE:-24}" != current ] && [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 24 ]; then
  node24="${SVC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/svc}/node-24"
  if ! "$node24/node_modules/.bin/node" --version >/dev/null 2>&1; then
    echo "installing Node 24 (npm install node@24 into $node24) ..."
    npm install --prefix "$node24" --no-audit --no-fund --loglevel=error node@24 >/dev/null
  fi
  export PATH="$node24/node_modules/.bin:$PATH"
fi
echo "node $(node --version)"

# The whole suite needs every Go-built tool (test/tools.ts): the missing ones build in the background,
# beside `npm ci` and the apt installs, on Node's own type stripping (nothing installed yet; the hook
# only adds the .ts the project's imports leave out). A narrowed run builds what its files need later.
tools_pid=
if [ $# -eq 0 ] && node -e 'process.exit(process.features.typescript ? 0 : 1)' 2>/dev/null; then
  tools_log="$(mktemp)"
  node --import 'data:text/javascript,import{registerHooks}from"node:module";registerHooks({resolve(s,c,n){if(/^\.\.?\//.test(s)&&!/\.[cm]?[jt]s$/.test(s))s+=".ts";return n(s,c)}})' \
    test/tools.ts >"$tools_log" 2>&1 &
  tools_pid=$!
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "installing dependencies (npm ci) ..."
  npm ci --no-audit --no-fund
fi

# Tools the tests drive: Chromium (sign pages), pdfsig/pdftotext (poppler-utils) and qpdf (PDF checks).
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v pdfsig >/dev/null 2>&1 || missing+=(poppler-utils)
command -v qpdf >/dev/null 2>&1 || missing+=(qpdf)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]} (apt) ..."
  if [ "$(id -u)" = 0 ]; then apt-get install -y "${missing[@]}" >/dev/null || { apt-get update >/dev/null && apt-get install -y "${missing[@]}" >/dev/null; }
  else sudo apt-get install -y "${missing[@]}" >/dev/null; fi
fi

if [ -n "$tools_pid" ]; then
  wait "$tools_pid" || { cat "$tools_log"; echo "0 passed, 1 failed"; exit 1; }
  cat "$tools_log"
  rm -f "$tools_log"
fi

# The tests' PostgreSQL: TEST_DATABASE_URL, or the local server on 127.0.0.1:5432 (started if down).
if [ -z "${TEST_DATABASE_URL:-}" ]; then
  export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:5432/postgres"
  if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
    if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
      echo "starting PostgreSQL ..."
      pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
      for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
    fi
    pg_isready -q -h 127.0.0.1 -p 5432 || { echo "PostgreSQL is not reachable on 127.0.0.1:5432; set TEST_DATABASE_URL" >&2; exit 1; }
  fi
fi

exec node --import tsx test/run.ts "$@"
