# The live stores (issue 23), sourced by scripts/test: the databases the tests read, built
# with the real packages (engrama 0.18.1's sqlite backend from the dumps in fixtures/engrama/,
# LangGraph's SqliteStore and PostgresStore through their Python API, Chroma collections through
# chromadb's), and a real PostgreSQL
# on a Unix socket in a temporary folder, stopped by live_stores_stop. The tests find them
# through VERCY_TEST_LIVE_DIR, VERCY_TEST_PG_URL and VERCY_TEST_PG_PASSWORD.
#
# Uses from scripts/test: $pg_bin, `say`, `missing`, the venvs target/ref-venv (engrama) and
# target/live-venv (LangGraph, psycopg), target/live-chroma-venv (chromadb).
#
# initdb and postgres refuse to run as root: as root, the server runs as `nobody` in a folder
# only `nobody` owns (root, which runs the tests, reaches its socket regardless).

live_dir="$PWD/target/live"
live_python="$PWD/target/live-venv/bin/python"
chroma_python="$PWD/target/live-chroma-venv/bin/python"
engrama="$PWD/target/ref-venv/bin/engrama"
pg_tmp=""
pg_as=()

# The files target/live is made from, and the packages that make it: when none changed since
# it was made, it is not made again.
live_inputs() {
  find fixtures/engrama fixtures/live tests/live -type f -print0 | sort -z | xargs -0 cat \
    target/ref-venv/.requirements target/live-venv/.requirements \
    target/live-chroma-venv/.requirements | sha256sum
}

live_stores_start() {
  if [ ! -x "$engrama" ] || [ ! -x "$live_python" ] || [ ! -x "$chroma_python" ]; then
    missing "the live stores cannot be made without engrama, LangGraph and chromadb"
    return
  fi
  local stamp
  stamp=$(live_inputs)
  if [ "$(cat "$live_dir/.inputs" 2>/dev/null)" != "$stamp" ]; then
    say "making the live stores in $live_dir"
    rm -rf "$live_dir"
    mkdir -p "$live_dir"
    # engrama: each dump imported into a fresh database, and that database's own export beside it
    local dump name
    for dump in fixtures/engrama/*.ndjson fixtures/live/engrama-quirks.ndjson; do
      name="$(basename "$dump" .ndjson)"
      ENGRAMA_DB_PATH="$live_dir/$name.db" GRAPH_BACKEND=sqlite EMBEDDING_DIMENSIONS=4 \
        "$engrama" import "$dump" >/dev/null
      ENGRAMA_DB_PATH="$live_dir/$name.db" GRAPH_BACKEND=sqlite EMBEDDING_DIMENSIONS=4 \
        "$engrama" export "$live_dir/$name.export.ndjson" >/dev/null
    done
    # LangGraph's SqliteStore
    "$live_python" tests/live/make_stores.py langgraph-sqlite \
      fixtures/live/langgraph-items.jsonl "$live_dir/langgraph.db" \
      "$live_dir/langgraph-sqlite.api.jsonl"
    # Chroma collections, written by the real chromadb (issue 53)
    "$chroma_python" tests/live/make_chroma.py fixtures/live/chroma "$live_dir"
    echo "$stamp" >"$live_dir/.inputs"
  fi
  export VERCY_TEST_LIVE_DIR="$live_dir"
  live_postgres_start
}

live_postgres_start() {
  if [ -z "$pg_bin" ]; then
    missing "PostgreSQL is not installed (no initdb)"
    return
  fi
  pg_tmp="$(mktemp -d /tmp/vercy-pg.XXXXXX)"
  # no TCP: the port only names the socket, in a folder of this run's own
  local port=54323 password
  password="$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  if [ "$(id -u)" = 0 ]; then
    chown nobody "$pg_tmp"
    pg_as=(runuser -u nobody --)
  fi
  printf '%s\n' "$password" >"$pg_tmp/pw"
  chmod 644 "$pg_tmp/pw" # inside a folder only its owner enters
  "${pg_as[@]}" "$pg_bin/initdb" -D "$pg_tmp/data" -U vercy --pwfile="$pg_tmp/pw" \
    --auth=scram-sha-256 -E UTF8 --no-locale >/dev/null
  rm -f "$pg_tmp/pw"
  "${pg_as[@]}" "$pg_bin/pg_ctl" -D "$pg_tmp/data" -l "$pg_tmp/server.log" -w \
    -o "-k $pg_tmp -c listen_addresses= -p $port" start >/dev/null
  PGPASSWORD="$password" "$pg_bin/createdb" -h "$pg_tmp" -p "$port" -U vercy vercy_test

  local conninfo="host=$pg_tmp port=$port user=vercy password=$password dbname=vercy_test"
  "$live_python" tests/live/make_stores.py langgraph-postgres \
    fixtures/live/langgraph-items.jsonl "$conninfo" "$live_dir/langgraph-postgres.api.jsonl"
  "$live_python" tests/live/make_stores.py memories-postgres \
    fixtures/live/memories.jsonl "$conninfo"
  "$live_python" tests/live/make_stores.py mem0-pgvector \
    fixtures/live/chroma/mem0.jsonl "$conninfo"

  export VERCY_TEST_PG_URL="postgresql://vercy@/vercy_test?host=$pg_tmp&port=$port"
  export VERCY_TEST_PG_PASSWORD="$password"
}

live_stores_stop() {
  if [ -n "$pg_tmp" ] && [ -d "$pg_tmp" ]; then
    if [ -f "$pg_tmp/data/postmaster.pid" ]; then
      "${pg_as[@]}" "$pg_bin/pg_ctl" -D "$pg_tmp/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$pg_tmp"
  fi
}
