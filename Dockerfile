# syntax=docker/dockerfile:1
# Railyard's production image (docs/operations.md, "Image"): the compiled build on Node 22 LTS, production
# dependencies only, run as the unprivileged `node` user. One image for every process; the command picks
# the role (docker-compose.yml runs the API, the projector and the engine from it).

# 1. build: `npm run build` (esbuild) into /app. Only esbuild is needed here, so no package script runs.
FROM node:22-bookworm AS build
WORKDIR /src
# The manifests alone first, so the install stays cached while only the sources change.
COPY package.json package-lock.json .npmrc ./
COPY apps/api/package.json apps/api/
COPY apps/cli/package.json apps/cli/
COPY apps/engine/package.json apps/engine/
COPY apps/projector/package.json apps/projector/
COPY apps/server/package.json apps/server/
COPY apps/simulator/package.json apps/simulator/
COPY libs/api-schema/package.json libs/api-schema/
COPY libs/auth/package.json libs/auth/
COPY libs/ci/package.json libs/ci/
COPY libs/domain/package.json libs/domain/
COPY libs/eventstore/package.json libs/eventstore/
COPY libs/githost/package.json libs/githost/
COPY libs/github/package.json libs/github/
COPY libs/observability/package.json libs/observability/
COPY libs/queue-driver/package.json libs/queue-driver/
COPY libs/readmodels/package.json libs/readmodels/
COPY libs/runtime/package.json libs/runtime/
COPY libs/testhealth/package.json libs/testhealth/
COPY libs/testkit/package.json libs/testkit/
COPY libs/webhooks/package.json libs/webhooks/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY scripts/build/ scripts/build/
COPY apps/ apps/
COPY libs/ libs/
# The output's manifests are copied apart too: the next stage installs from them alone.
RUN node scripts/build/build.js --out /app --no-links \
 && mkdir /manifests \
 && cd /app \
 && cp --parents package.json package-lock.json .npmrc apps/*/package.json libs/*/package.json /manifests/

# 2. deps: the production dependencies of the built manifests (tsx and every devDependency left out).
#    Package scripts are off but for better-sqlite3's, which fetches or compiles the one native addon
#    (this full image has the compiler it may need; the runtime image does not).
FROM node:22-bookworm AS deps
WORKDIR /app
COPY --from=build /manifests/ ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3 \
 && npm cache clean --force

# 3. runtime: git for the local git host, bubblewrap for the local CI's sandbox (docs/security.md),
#    tini as PID 1 so the checks' orphaned processes are reaped and signals reach node.
FROM node:22-bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap ca-certificates git tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    PORT=8080 \
    RAILYARD_DATA_DIR=/data \
    RAILYARD_HOST=0.0.0.0
WORKDIR /app
# Owned by root and read-only to the server: it can write its data dir and nothing else.
COPY --from=deps /app/ ./
COPY --from=build /app/ ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# /healthz of the API (PORT) or, for the standalone engine and projector, of their metrics listener
# (RAILYARD_METRICS_PORT). No curl in this image: node asks.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const p=process.env.RAILYARD_METRICS_PORT||process.env.PORT||8080;fetch('http://127.0.0.1:'+p+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "apps/server/src/main.js"]
