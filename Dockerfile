# syntax=docker/dockerfile:1
# Clarion's container image (docs/deploy.md). Two stages: `build` installs every dependency and compiles src/ into
# dist/ (scripts/build.js); the runtime stage gets the compiled build, the production dependencies and the static
# files, and runs as the unprivileged `node` user with its data on a volume.
#
#   docker build -t clarion .
#   docker run -p 3000:3000 -v clarion-data:/data clarion
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Dependencies first, in a layer of their own that a source change does not invalidate. --ignore-scripts skips
# `prepare` (no sources yet); esbuild's install script then runs through `npm rebuild`. No compiler is needed: on
# Node 22 and later the SQLite driver is better-sqlite3 13, whose binaries for linux x64 and arm64 (glibc and musl)
# are inside the package (src/store/sqlite/sqlite-driver.ts); the optional better-sqlite3-node20 is for Node 20 only and
# stays unbuilt here.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts && npm rebuild esbuild
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.js scripts/vendor-bundle.js scripts/server-bundle.js scripts/
COPY src src
COPY packages/client packages/client
RUN npm run build && npm prune --omit=dev

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    CLARION_DATA_DIR=/data \
    CLARION_HOST=0.0.0.0 \
    CLARION_PORT=3000
WORKDIR /app
# Owned by root and read-only to the process: only /data is the service's to write.
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/packages/client/package.json packages/client/package.json
COPY --from=build /app/packages/client/dist packages/client/dist
COPY package.json ./
COPY bin bin
COPY web web
COPY web-sdk web-sdk
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# /readyz answers 200 once the database answers (docs/api.md); node's fetch, since the slim image has no curl.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.CLARION_PORT || 3000}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# clarion serve finishes in-flight requests and hands unfinished jobs back on SIGTERM (src/cli/serve.ts).
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "bin/clarion.js"]
CMD ["serve"]
