# One image for the app and every worker; docker-compose.yml picks the command.
# Node 24, the current LTS (package.json "engines" lists what else is supported).
FROM node:24-bookworm-slim
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1
COPY package.json package-lock.json ./
# npm ci applies patches/ (patch-package) to the dependencies.
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY . .
RUN node scripts/prisma.mjs generate && node node_modules/next/dist/bin/next build
EXPOSE 3000
# One app process per core (WEB_CONCURRENCY to choose), on one port.
CMD ["node", "scripts/serve.mjs"]
