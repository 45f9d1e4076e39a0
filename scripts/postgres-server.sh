# Sourced by the benchmarks that need PostgreSQL: starts a throwaway server (trust auth, user
# koth, 127.0.0.1 on a free port) with its data in "$work/data", stopped when the script exits,
# which also removes "$work". Needs $work; sets $port and pg_database (NAME -> a fresh
# database's URL).
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as_postgres() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$work"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_postgres "$bin/initdb -D $work/data --auth=trust -U koth --no-sync >/dev/null"
as_postgres "$bin/pg_ctl -D $work/data -l $work/pg.log -w -o '-p $port -k $work -c listen_addresses=127.0.0.1' start >/dev/null"
trap 'as_postgres "$bin/pg_ctl -D $work/data -m immediate stop" >/dev/null 2>&1; rm -rf "$work"' EXIT
pg_database() {
  psql -q -h 127.0.0.1 -p "$port" -U koth -d postgres -c "CREATE DATABASE $1" >/dev/null
  echo "postgres://koth@127.0.0.1:$port/$1"
}
