# Redis from Debian's packages (scripts/deploy-drill); compose.yaml gives its command.
ARG BASE=localhost/pips-debian:bookworm
FROM ${BASE}
RUN apt-get update && apt-get install -y --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/*
EXPOSE 6379
CMD ["redis-server", "--protected-mode", "no"]
