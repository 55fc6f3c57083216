# One image for both roles: `npm run api` and `npm run worker` (see docker-compose.yml).
FROM node:24-bookworm-slim
# No toolchain: better-sqlite3 13 ships its native binary (glibc 2.34+; bookworm has 2.36).
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
ENV HOST=0.0.0.0 DATA_DIR=/data
VOLUME /data
EXPOSE 8080
CMD ["npm", "start"]
