# The service image: one image, three commands (migrate, api, worker), chosen by docker-compose.yml.
FROM node:24-bookworm-slim
WORKDIR /app
# SVC_ENV too: the service's own switch (secrets required, /dev/mail gone, l2_signing off by default).
ENV NODE_ENV=production SVC_ENV=production
COPY package.json package-lock.json ./
# The workspaces' manifests too: the API mounts the MCP server (clients/mcp), whose dependencies and
# links npm ci installs only when it sees them.
COPY clients/sdk/package.json clients/sdk/
COPY clients/cli/package.json clients/cli/
COPY clients/mcp/package.json clients/mcp/
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
RUN mkdir -p /data && chown node:node /data
USER node
# node as PID 1, with no npm process in between (npm would forward SIGTERM and wait, at the cost of a process).
CMD ["node", "--import", "tsx", "runtime/api.ts"]
