#!/usr/bin/env bash
# Local PostgreSQL and Redis for the scale-out tests and bench, on 127.0.0.1 and custom
# ports, with their data under .tmp/services (nothing outside the project is touched but
# the Debian packages, installed when missing).
#
#   scripts/services.sh start    install if missing, start both (idempotent), print the URLs
#   scripts/services.sh stop     stop both by PID
#   scripts/services.sh status   say what runs
#   scripts/services.sh start-postgres | stop-postgres | start-redis | stop-redis
#   scripts/services.sh env      print the export lines only
# start also writes the URLs to .tmp/services.env (KEY=VALUE lines) for scripts/check.sh.
#
# Ports: XQL_PG_PORT (default 54329), XQL_REDIS_PORT (default 63799); state under
# XQL_SERVICES_DIR (default .tmp/services), so a test can run a second pair of its own.
# XQL_REDIS_PERSIST=1 turns on Redis's append-only file (fsync on every write), so counters
# survive a Redis restart as they should in production; by default Redis keeps nothing.
# The tests read XQL_TEST_DATABASE_URL and XQL_TEST_REDIS_URL:
#   eval "$(scripts/services.sh start | grep ^export)"
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
DIR=${XQL_SERVICES_DIR:-"$ROOT/.tmp/services"}
PG_PORT=${XQL_PG_PORT:-54329}
REDIS_PORT=${XQL_REDIS_PORT:-63799}
PG_DATA="$DIR/pg/data"
PG_SOCK="$DIR/pg/sock"
PG_LOG="$DIR/pg/postgres.log"
PG_PID="$DIR/pg/postgres.pid"
REDIS_LOG="$DIR/redis/redis.log"
REDIS_PID="$DIR/redis/redis.pid"
DATABASE_URL="postgres://xql@127.0.0.1:$PG_PORT/xql"
REDIS_URL="redis://127.0.0.1:$REDIS_PORT"

log() { printf 'services: %s\n' "$*" >&2; }

pg_bin() {
  local name=$1 found
  for found in /usr/lib/postgresql/*/bin/"$name"; do
    if [ -x "$found" ]; then printf '%s\n' "$found"; return 0; fi
  done
  command -v "$name" || return 1
}

as_root() {
  if [ "$(id -u)" -ne 0 ]; then
    log "need root to install packages ($*); install postgresql and redis-server yourself"
    exit 1
  fi
  "$@"
}

install_missing() {
  local packages=()
  pg_bin postgres >/dev/null 2>&1 && pg_bin initdb >/dev/null 2>&1 || packages+=(postgresql)
  command -v redis-server >/dev/null 2>&1 || packages+=(redis-server)
  if [ ${#packages[@]} -gt 0 ]; then
    log "installing ${packages[*]}"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${packages[@]}" >/dev/null
  fi
}

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# Waits until something accepts TCP connections on 127.0.0.1:$1.
wait_port() {
  local port=$1 tries=0
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    tries=$((tries + 1))
    if [ $tries -gt 150 ]; then return 1; fi
    sleep 0.1
  done
}

# Runs a command as the postgres user when root (postgres refuses to run as root).
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start_postgres() {
  if alive "$PG_PID"; then log "postgres already running (pid $(cat "$PG_PID"))"; return 0; fi
  local postgres initdb psql
  postgres=$(pg_bin postgres)
  initdb=$(pg_bin initdb)
  psql=$(command -v psql || pg_bin psql)
  mkdir -p "$DIR/pg" "$PG_SOCK"
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir "$DIR/pg" --shell /usr/sbin/nologin postgres
    chown -R postgres "$DIR/pg"
    # The postgres user must reach the data directory through the project's parents.
    local d="$DIR"
    while [ "$d" != "/" ]; do chmod o+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
  fi
  if [ ! -s "$PG_DATA/PG_VERSION" ]; then
    log "initdb $PG_DATA"
    as_pg "$initdb" -D "$PG_DATA" -U postgres --auth=trust --encoding=UTF8 --locale=C >/dev/null
  fi
  rm -f "$PG_DATA/postmaster.pid"
  # Small and fast for tests: no fsync (the data is disposable), enough connections for replicas.
  as_pg "$postgres" -D "$PG_DATA" -p "$PG_PORT" -k "$PG_SOCK" -c listen_addresses=127.0.0.1 \
    -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 \
    >>"$PG_LOG" 2>&1 &
  echo $! >"$PG_PID"
  if ! wait_port "$PG_PORT"; then log "postgres did not start; see $PG_LOG"; tail -20 "$PG_LOG" >&2; exit 1; fi
  # $! is runuser's; the postmaster writes its own PID as the first line of postmaster.pid.
  head -1 "$PG_DATA/postmaster.pid" >"$PG_PID"
  local tries=0
  until "$psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -Atqc 'SELECT 1' >/dev/null 2>&1; do
    tries=$((tries + 1)); if [ $tries -gt 100 ]; then log "postgres does not answer; see $PG_LOG"; exit 1; fi; sleep 0.1
  done
  if [ "$("$psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -Atqc "SELECT count(*) FROM pg_roles WHERE rolname = 'xql'")" = 0 ]; then
    "$psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -qc "CREATE ROLE xql LOGIN SUPERUSER" >/dev/null
  fi
  if [ "$("$psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -Atqc "SELECT count(*) FROM pg_database WHERE datname = 'xql'")" = 0 ]; then
    "$psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -qc "CREATE DATABASE xql OWNER xql" >/dev/null
  fi
  log "postgres running (pid $(cat "$PG_PID"), port $PG_PORT)"
}

# Stops the process in pid file $1 with signal $3 (default TERM), waiting for it to exit.
stop_pid() {
  local file=$1 name=$2 signal=${3:-TERM} pid tries=0
  if ! alive "$file"; then rm -f "$file"; log "$name not running"; return 0; fi
  pid=$(cat "$file")
  kill -"$signal" "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do
    tries=$((tries + 1))
    if [ $tries -gt 300 ]; then kill -KILL "$pid" 2>/dev/null || true; fi
    sleep 0.1
  done
  rm -f "$file"
  log "$name stopped (pid $pid)"
}

start_redis() {
  if alive "$REDIS_PID"; then log "redis already running (pid $(cat "$REDIS_PID"))"; return 0; fi
  mkdir -p "$DIR/redis"
  local persist=(--appendonly no)
  if [ "${XQL_REDIS_PERSIST:-0}" = 1 ]; then persist=(--appendonly yes --appendfsync always --dir "$DIR/redis"); fi
  (cd "$DIR/redis" && exec redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' "${persist[@]}" \
    --daemonize no >>"$REDIS_LOG" 2>&1) &
  echo $! >"$REDIS_PID"
  if ! wait_port "$REDIS_PORT"; then log "redis did not start; see $REDIS_LOG"; tail -20 "$REDIS_LOG" >&2; exit 1; fi
  log "redis running (pid $(cat "$REDIS_PID"), port $REDIS_PORT)"
}

print_env() {
  echo "export XQL_TEST_DATABASE_URL=$DATABASE_URL"
  echo "export XQL_TEST_REDIS_URL=$REDIS_URL"
}

# The URLs as KEY=VALUE lines in $DIR/services.env, and (for the default pair) in
# .tmp/services.env, which scripts/check.sh sources.
write_env() {
  local lines="XQL_TEST_DATABASE_URL=$DATABASE_URL
XQL_TEST_REDIS_URL=$REDIS_URL"
  printf '%s\n' "$lines" >"$DIR/services.env"
  if [ -z "${XQL_SERVICES_DIR:-}" ]; then printf '%s\n' "$lines" >"$ROOT/.tmp/services.env"; fi
}

status() {
  if alive "$PG_PID"; then echo "postgres: running (pid $(cat "$PG_PID")) $DATABASE_URL"; else echo "postgres: stopped"; fi
  if alive "$REDIS_PID"; then echo "redis: running (pid $(cat "$REDIS_PID")) $REDIS_URL"; else echo "redis: stopped"; fi
}

case "${1:-}" in
  start)
    install_missing
    start_postgres
    start_redis
    write_env
    print_env
    ;;
  stop)
    stop_pid "$REDIS_PID" redis
    stop_pid "$PG_PID" postgres INT
    ;;
  start-postgres) install_missing; start_postgres ;;
  start-redis) install_missing; start_redis ;;
  # SIGINT is PostgreSQL's fast shutdown: open sessions are cut rather than waited for.
  stop-postgres) stop_pid "$PG_PID" postgres INT ;;
  stop-redis) stop_pid "$REDIS_PID" redis ;;
  status) status ;;
  env) print_env ;;
  *)
    echo "usage: $0 start|stop|status|env|start-postgres|stop-postgres|start-redis|stop-redis" >&2
    exit 2
    ;;
esac
