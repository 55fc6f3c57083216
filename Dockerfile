# One image for both roles (docker-compose.yml runs `--role=api` and `--role=worker`): compiled
# JavaScript, production dependencies and the admin's files only, run as a non-root user.
# `npm run test:image` builds and starts it with podman on a base made from Debian's mirror
# (scripts/image-base.sh: no registry is reachable there), passed as NODE_IMAGE.
ARG NODE_IMAGE=node:24-bookworm-slim

# Build: every dependency, the TypeScript compiled and the workflow code bundled (npm run build).
FROM ${NODE_IMAGE} AS build
# A CA file for npm behind a TLS-inspecting proxy (the build mounts it; unset: Node's own CAs only).
ARG NODE_EXTRA_CA_CERTS
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build, and the sources are not here yet. No toolchain needed:
# better-sqlite3 and Temporal's core bridge ship their native binaries inside their packages.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src src
# The service takes its wire types from the client package's sources (types only: nothing of it runs).
COPY clients/node/src clients/node/src
COPY scripts/bundle-workflows.js scripts/bundle-workflows.js
RUN npm run build

# Run: nothing is fetched or compiled at start.
FROM ${NODE_IMAGE}
ARG NODE_EXTRA_CA_CERTS
WORKDIR /app
# jemalloc, with its background thread returning freed pages while the process is idle: with
# glibc's malloc a worker kept hundreds of MB of freed memory after a 1,000 × 50 fan-out
# (docs/decisions.md, memory after a fan-out). Two malloc arenas where LD_PRELOAD is emptied.
COPY scripts/jemalloc-path.sh scripts/jemalloc-path.sh
RUN apt-get update && apt-get install -y --no-install-recommends libjemalloc2 && rm -rf /var/lib/apt/lists/* \
  && lib="$(sh scripts/jemalloc-path.sh)" && test -n "$lib" && ln -s "$lib" /usr/local/lib/libjemalloc.so.2
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data MALLOC_ARENA_MAX=2 \
  LD_PRELOAD=/usr/local/lib/libjemalloc.so.2 MALLOC_CONF=background_thread:true
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist dist
COPY web web
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080
# /healthz answers within 1 s whatever Temporal or a broker does (the API role; the worker role's
# health check is set in docker-compose.yml).
HEALTHCHECK --interval=10s --timeout=2s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "--max-old-space-size=1024", "dist/src/main.js"]
CMD ["--role=api"]
