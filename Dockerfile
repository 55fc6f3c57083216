# One image for both roles: `npm run api` and `npm run worker` (see docker-compose.yml).
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
ENV HOST=0.0.0.0 DATA_DIR=/data
VOLUME /data
EXPOSE 8080
CMD ["npm", "start"]
