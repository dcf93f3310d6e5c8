#!/usr/bin/env bash
# The Dockerfile's steps without a container engine (docs/operations.md, "Image"): each stage in a
# directory of its own under a temporary root, with the same commands, then the server started the way
# the image's CMD starts it and probed with the image's own HEALTHCHECK command, read from the Dockerfile.
# Unlike test/e2e/production-build.e2e.test.ts this runs every step as the image does, the native addon's
# build included (minutes where no prebuilt binary can be fetched). Usage: scripts/build/simulate-image.sh
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/railyard-image-XXXXXX")"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
step() { printf '\n== %s (%ss)\n' "$1" "$SECONDS"; }

step "build: the sources and manifests as the build stage copies them, npm ci --ignore-scripts, npm run build"
mkdir -p "$WORK/src"
(cd "$ROOT" && cp --parents package.json package-lock.json .npmrc apps/*/package.json libs/*/package.json "$WORK/src/")
(cd "$WORK/src" && npm ci --ignore-scripts --no-audit --no-fund --prefer-offline >/dev/null)
# COPY scripts/build/, apps/, libs/ (node_modules are in .dockerignore).
tar -C "$ROOT" --exclude=node_modules -cf - scripts/build apps libs | tar -C "$WORK/src" -xf -
(cd "$WORK/src" && node scripts/build/build.js --out "$WORK/app" --no-links)
mkdir "$WORK/manifests"
(cd "$WORK/app" && cp --parents package.json package-lock.json .npmrc apps/*/package.json libs/*/package.json "$WORK/manifests/")

step "deps: npm ci --omit=dev --ignore-scripts from the built manifests alone, npm rebuild better-sqlite3"
mkdir "$WORK/deps"
cp -r "$WORK/manifests/." "$WORK/deps/"
(cd "$WORK/deps" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --prefer-offline >/dev/null && npm rebuild better-sqlite3 >/dev/null)

step "runtime: the deps stage, then the build output over it"
mkdir "$WORK/runtime"
cp -a "$WORK/deps/." "$WORK/runtime/"
cp -a "$WORK/app/." "$WORK/runtime/"
for pkg in tsx esbuild typescript jest; do
  if [ -e "$WORK/runtime/node_modules/$pkg" ]; then echo "the image would hold $pkg" >&2; exit 1; fi
done
if find "$WORK/runtime/apps" "$WORK/runtime/libs" -name '*.ts' -not -path '*/node_modules/*' | grep -q .; then
  echo "the image would hold TypeScript sources" >&2
  exit 1
fi

step "start: node apps/server/src/main.js with the image's environment, probed by its HEALTHCHECK"
PORT="${PORT:-18080}"
mkdir "$WORK/data"
HEALTHCHECK="$(sed -n 's/^ *CMD \(\["node", "-e".*\]\)$/\1/p' "$ROOT/Dockerfile")"
PROBE="$(node -e 'const cmd = JSON.parse(process.argv[1]); process.stdout.write(cmd[2]);' "$HEALTHCHECK")"
(cd "$WORK/runtime" && exec env -i PATH="$PATH" HOME="$WORK" NODE_ENV=production PORT="$PORT" \
  RAILYARD_DATA_DIR="$WORK/data" RAILYARD_HOST=127.0.0.1 node apps/server/src/main.js >"$WORK/server.log" 2>&1) &
SERVER_PID=$!
for _ in $(seq 1 120); do
  if (cd "$WORK/runtime" && PORT="$PORT" node -e "$PROBE"); then
    step "healthy: the HEALTHCHECK command exited 0"
    exit 0
  fi
  sleep 0.5
done
echo "the HEALTHCHECK never passed; server log:" >&2
cat "$WORK/server.log" >&2
exit 1
