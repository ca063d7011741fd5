#!/usr/bin/env bash
# Builds the TypeScript bot (bot.ts) into OUT_DIR, from a clean clone:
#
#   bash tests/contract/ts_client/build.sh OUT_DIR
#
# 1. Installs the pinned tools of package-lock.json (openapi-typescript, openapi-fetch, TypeScript,
#    Node's types) with `npm ci` into tests/contract/ts_client/node_modules (git-ignored), the first
#    time and whenever the lock file changes; later runs reuse them and need no network.
# 2. Generates OUT_DIR/ginbox-api.ts from openapi.yaml with openapi-typescript.
# 3. Compiles bot.ts there with tsc (tsconfig.json: --strict, no output on any error) into
#    OUT_DIR/build/bot.js, for Node.js 20: node OUT_DIR/build/bot.js http://127.0.0.1:8000
#
# OUT_DIR also gets narrowing_refused.ts and tsconfig.refused.json, which must not compile:
# OUT_DIR/node_modules/.bin/tsc -p OUT_DIR/tsconfig.refused.json
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
SPEC=$(cd "$HERE/../../.." && pwd)/openapi.yaml

# one install at a time (test processes may build at once); a stamp names the lock file it came from
exec 9>"$HERE/.install.lock"
flock 9
stamp=$(sha256sum "$HERE/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$HERE/node_modules/.ginbox-lock-sha256" 2>/dev/null)" != "$stamp" ]; then
  (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$stamp" >"$HERE/node_modules/.ginbox-lock-sha256"
fi
flock -u 9

cp "$HERE/package.json" "$HERE/tsconfig.json" "$HERE/bot.ts" "$HERE/narrowing_refused.ts" \
   "$HERE/tsconfig.refused.json" "$OUT/"
ln -sfn "$HERE/node_modules" "$OUT/node_modules"

# --empty-objects-unknown: a schema `{type: object}` with no properties (a challenge's options, a
# clock_moved move's data) may hold any field, so Record<string, unknown>, not the empty object
# openapi-typescript assumes by default
"$HERE/node_modules/.bin/openapi-typescript" "$SPEC" --empty-objects-unknown -o "$OUT/ginbox-api.ts"
"$HERE/node_modules/.bin/tsc" -p "$OUT/tsconfig.json"
