#!/bin/sh
# The first start makes the cluster, its superuser and database; every start runs the
# server as the postgres user, listening on the container's network.
set -eu
install -d -o postgres -g postgres -m 2775 /var/run/postgresql
chown postgres:postgres "$PGDATA"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s\n' "$POSTGRES_PASSWORD" >/tmp/pw && chown postgres /tmp/pw
  as_postgres initdb --username="$POSTGRES_USER" --pwfile=/tmp/pw \
    --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm -f /tmp/pw
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "CREATE DATABASE \"$POSTGRES_DB\"" \
    | as_postgres postgres --single -D "$PGDATA" -j template1 >/dev/null
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups \
  postgres -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/var/run/postgresql
