# syntax=docker/dockerfile:1
#
# One Dockerfile, one image per app:
#   docker build --target gateway        -t tradeinfra/gateway .
#   docker build --target intent-service -t tradeinfra/intent-service .
#   docker build --target simulation-service -t tradeinfra/simulation-service .
#   docker build --target payout-service -t tradeinfra/payout-service .
#   docker build --target orderflow-service -t tradeinfra/orderflow-service .
#   docker build --target migrate        -t tradeinfra/migrate .
# (docker-compose.yml builds all three.)

FROM node:20-bookworm-slim AS base
WORKDIR /app
# No network side trips during npm ci / the build (update notice, funding, audit, telemetry).
ENV npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false \
    TURBO_TELEMETRY_DISABLED=1 \
    SCARF_ANALYTICS=false

# Only the manifests: the root package.json, the lockfile and every workspace's package.json
# (apps/*, packages/*, test), at their paths. Found by name so that a new workspace needs no edit
# here. BuildKit caches the `npm ci` layers below on the content of these files, so a source
# change does not reinstall dependencies.
FROM base AS manifests
COPY . /src
RUN mkdir /manifests \
 && cd /src \
 && find . -name node_modules -prune -o \( -name package.json -o -name package-lock.json \) -type f -print \
    | xargs cp --parents --target-directory=/manifests

# All dependencies, dev included: what the build needs.
FROM base AS deps
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm npm ci

# Production dependencies only: what the runtime images get.
FROM base AS prod-deps
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev

# Compiles every workspace (apps/*/dist, packages/contracts/dist).
FROM deps AS build
COPY . .
RUN npx turbo run build

# Shared by the runtime images: production node_modules (workspace packages are symlinks into
# apps/ and packages/), every workspace manifest, the compiled shared packages. Files stay owned by
# root and read-only to the process, which runs as `node`.
FROM base AS runtime
ENV NODE_ENV=production
COPY --from=prod-deps /app ./
COPY --from=build /app/packages/contracts/dist packages/contracts/dist
COPY --from=build /app/packages/service-kit/dist packages/service-kit/dist
# The executor contract's artifact and helpers (wallet intents, in the intent service).
COPY --from=build /app/packages/executor/dist packages/executor/dist
USER node

FROM runtime AS gateway
COPY --from=build /app/apps/gateway/dist apps/gateway/dist
ENV PORT=3000
EXPOSE 3000
# The slim image has no curl: ask /health with Node's own fetch.
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"]
CMD ["node", "apps/gateway/dist/main.js"]

# No HTTP port: it serves NATS only. Run as many replicas as needed (one queue group).
FROM runtime AS intent-service
COPY --from=build /app/apps/intent-service/dist apps/intent-service/dist
CMD ["node", "apps/intent-service/dist/main.js"]

# No HTTP port and no database: NATS in, chain JSON-RPC (RPC_URL_<chainId>) out.
FROM runtime AS simulation-service
COPY --from=build /app/apps/simulation-service/dist apps/simulation-service/dist
CMD ["node", "apps/simulation-service/dist/main.js"]

# The ledger: NATS requests and the MEV-capture stream in, Postgres schema "payout".
FROM runtime AS payout-service
COPY --from=build /app/apps/payout-service/dist apps/payout-service/dist
CMD ["node", "apps/payout-service/dist/main.js"]

# Order flow: private transactions, the backrun auction and its crediting; NATS in, relays and
# chain JSON-RPC out, Postgres schema "orderflow".
FROM runtime AS orderflow-service
COPY --from=build /app/apps/orderflow-service/dist apps/orderflow-service/dist
CMD ["node", "apps/orderflow-service/dist/main.js"]

# One-shot job: creates the database, one role and one schema per service
# (infra/postgres/bootstrap.mjs), then runs each service's migrations as that service's role
# (apps/*/dist/database/migrate.js). Needs the admin credentials; the apps never get them.
FROM runtime AS migrate
COPY --from=build /app/apps/gateway/dist apps/gateway/dist
COPY --from=build /app/apps/intent-service/dist apps/intent-service/dist
COPY --from=build /app/apps/payout-service/dist apps/payout-service/dist
COPY --from=build /app/apps/orderflow-service/dist apps/orderflow-service/dist
COPY scripts/ scripts/
COPY infra/postgres/ infra/postgres/
CMD ["node", "scripts/migrate.mjs"]
