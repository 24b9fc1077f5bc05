# syntax=docker/dockerfile:1
# Allocation Lens container image, on the Next.js standalone output (docs/deployment.md).
#   docker build -t allocation-lens:0.1.0 .
#   docker build --build-arg ALLOCATION_LENS_BASE_PATH=/lens -t allocation-lens:0.1.0-lens .   # served under /lens
# Runs as uid 10001 with a read-only root filesystem: it writes only to /data (churn history) and /tmp. Configuration is
# required (ALLOCATION_LENS_CONFIG): the embedded demo cluster needs the source tree and is not in the image.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /src
# better-sqlite3 compiles its native module when no prebuilt binary can be fetched; packages/memory always compiles its own
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# the workspaces' manifests too: npm ci links them (packages/allocation, packages/demo-cluster, test-support), and
# packages/memory whole: its install compiles its addon (binding.gyp, src/memory.cc)
COPY package.json package-lock.json ./
COPY packages/allocation/package.json packages/allocation/
COPY packages/demo-cluster/package.json packages/demo-cluster/
COPY packages/memory/ packages/memory/
COPY test-support/package.json test-support/
RUN npm ci --no-audit --no-fund \
 && test -f packages/memory/build/Release/allocation_lens_memory.node

FROM ${NODE_IMAGE} AS build
WORKDIR /src
ENV NEXT_TELEMETRY_DISABLED=1
# baked into the client bundles at build time: a different prefix needs a different image
ARG ALLOCATION_LENS_BASE_PATH=""
COPY --from=deps /src/node_modules ./node_modules
COPY . .
# the workspace's compiled addon (node_modules/@allocation-lens/memory links to packages/memory)
COPY --from=deps /src/packages/memory/build ./packages/memory/build
# `npm run build` also bundles the server entry (server/inbound/main.ts: our HTTP server with explicit limits and the body
# gate in front of Next.js) into .next/allocation-lens-server.mjs, and the poll worker (server/poll/worker.ts, the thread
# that polls, analyses and keeps the history) into .next/allocation-lens-poll-worker.mjs; the image runs the entry instead
# of the standalone server.js
RUN ALLOCATION_LENS_STANDALONE=1 ALLOCATION_LENS_BASE_PATH="${ALLOCATION_LENS_BASE_PATH}" npm run build \
 && test -f .next/standalone/server.js \
 && test -f .next/allocation-lens-server.mjs \
 && test -f .next/allocation-lens-poll-worker.mjs

FROM ${NODE_IMAGE} AS runtime
ARG ALLOCATION_LENS_BASE_PATH=""
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    PORT=3000 \
    HOSTNAME=0.0.0.0 \
    HOME=/data \
    TMPDIR=/tmp \
    ALLOCATION_LENS_BASE_PATH=${ALLOCATION_LENS_BASE_PATH}
# glibc's malloc gives blocks of 128 KiB and more pages of their own, returned when freed (SERVING_ENV, lib/node-flags.ts)
ENV MALLOC_MMAP_THRESHOLD_=131072
RUN groupadd --system --gid 10001 allocation-lens \
 && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home --shell /usr/sbin/nologin allocation-lens \
 && mkdir -p /data \
 && chown 10001:10001 /data \
 && chmod 0750 /data
WORKDIR /app
# owned by root and not writable by the app user: the same as a read-only root filesystem
COPY --from=build /src/.next/standalone ./
COPY --from=build /src/.next/static ./.next/static
COPY --from=build /src/public ./public
COPY --from=build /src/.next/allocation-lens-server.mjs ./allocation-lens-server.mjs
COPY --from=build /src/.next/allocation-lens-poll-worker.mjs ./allocation-lens-poll-worker.mjs
USER 10001:10001
EXPOSE 3000
VOLUME ["/data"]
# SIGTERM: the server stops accepting connections, stops its pollers and Kubernetes watches, flushes the churn history and
# exits 0
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}${process.env.ALLOCATION_LENS_BASE_PATH}/api/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# HOSTNAME=0.0.0.0 with auth.mode none refuses to start unless the configuration sets auth.allowAnonymous: true
# --max-semi-space-size=2: the serving thread's young generation (lib/node-flags.ts; about 30 MiB of RSS at 5,000 nodes);
# --single-threaded-gc: each thread collects its own garbage, so the poll worker's collections run at its lower priority
CMD ["node", "--max-semi-space-size=2", "--single-threaded-gc", "allocation-lens-server.mjs"]
