# One image for every Railyard process; the command picks the role (start, start:api, start:projector).
FROM node:20-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
RUN npm ci --no-audit --no-fund
ENV RAILYARD_DATA_DIR=/data RAILYARD_HOST=0.0.0.0
EXPOSE 8080
CMD ["npm", "start"]
