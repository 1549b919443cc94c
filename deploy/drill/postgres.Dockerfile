# PostgreSQL 15 from Debian's packages, started as the official image is: POSTGRES_USER,
# POSTGRES_PASSWORD and POSTGRES_DB make the first cluster; pg_isready answers the
# health check (scripts/deploy-drill).
ARG BASE=localhost/pips-debian:bookworm
FROM ${BASE}
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-15 \
    && rm -rf /var/lib/apt/lists/* \
    && install -d -o postgres -g postgres -m 700 /var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
EXPOSE 5432
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint"]
