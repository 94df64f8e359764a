#!/usr/bin/env bash
# Sourced by .ci/run: a throwaway PostgreSQL cluster for the tests of @plan/postgres and the
# durability tests of the adapters. plan_pg_start exports PLAN_TEST_PG_URL; plan_pg_stop removes it.

plan_pg_bin() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    if [ -x "$dir/initdb" ]; then
      echo "$dir"
      return 0
    fi
  done
  return 1
}

plan_pg_start() {
  if ! plan_pg_bin >/dev/null; then
    if [ "$(id -u)" -ne 0 ]; then
      echo "ci: PostgreSQL is not installed and this is not root; install the Debian package postgresql" >&2
      return 1
    fi
    echo "ci: installing PostgreSQL (Debian package postgresql)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  local bin
  bin="$(plan_pg_bin)"
  PLAN_PG_DIR="$(mktemp -d /tmp/plan-pg.XXXXXX)"
  local port
  port="$(node -e 'const s=require("node:net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  # initdb and postgres refuse to run as root: the cluster belongs to an unprivileged user.
  local as=()
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres "$PLAN_PG_DIR"
    as=(runuser -u postgres --)
  fi
  "${as[@]}" "$bin/initdb" -D "$PLAN_PG_DIR/data" -U plan --auth=trust -E UTF8 >/dev/null
  "${as[@]}" "$bin/pg_ctl" -D "$PLAN_PG_DIR/data" -l "$PLAN_PG_DIR/log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $PLAN_PG_DIR -c max_connections=200 -c fsync=off" start >/dev/null
  "${as[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U plan plan_test
  PLAN_PG_AS="${as[*]}"
  PLAN_PG_BINDIR="$bin"
  export PLAN_TEST_PG_URL="postgres://plan@127.0.0.1:$port/plan_test"
  echo "ci: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port"
}

plan_pg_stop() {
  if [ -n "${PLAN_PG_DIR:-}" ] && [ -d "$PLAN_PG_DIR/data" ]; then
    # shellcheck disable=SC2086
    $PLAN_PG_AS "$PLAN_PG_BINDIR/pg_ctl" -D "$PLAN_PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$PLAN_PG_DIR"
  fi
}
