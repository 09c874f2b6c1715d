# Live stores (issue 23), sourced by .ci/run before `cargo test`: the databases the tests read,
# built with the real packages (engrama 0.18.1's sqlite backend from the dumps in
# fixtures/engrama/, LangGraph's SqliteStore and PostgresStore through their Python API, Chroma
# collections through chromadb's), and a real PostgreSQL 15 on a Unix socket in a temporary
# folder, stopped when .ci/run exits (an EXIT trap, kept beside any trap already set). The
# tests find them through VERCY_TEST_LIVE_DIR, VERCY_TEST_PG_URL and VERCY_TEST_PG_PASSWORD.
#
# initdb and postgres refuse to run as root: as root, the server runs as `nobody` in a folder
# only `nobody` owns (root, which runs the tests, reaches its socket regardless).

live_dir="$PWD/target/live"
live_venv="$PWD/target/live-venv"
pg_bin="${VERCY_PG_BIN:-/usr/lib/postgresql/15/bin}"

if ! "$live_venv/bin/python" -c 'import langgraph.store.sqlite, langgraph.store.postgres, psycopg' 2>/dev/null; then
  /usr/bin/python3 -m venv "$live_venv"
  "$live_venv/bin/pip" install --quiet --disable-pip-version-check \
    langgraph-checkpoint-sqlite langgraph-checkpoint-postgres 'psycopg[binary]'
fi

rm -rf "$live_dir"
mkdir -p "$live_dir"

# engrama: each dump imported into a fresh database, and that database's own export beside it
for dump in fixtures/engrama/*.ndjson fixtures/live/engrama-quirks.ndjson; do
  name="$(basename "$dump" .ndjson)"
  ENGRAMA_DB_PATH="$live_dir/$name.db" GRAPH_BACKEND=sqlite EMBEDDING_DIMENSIONS=4 \
    engrama import "$dump" >/dev/null
  ENGRAMA_DB_PATH="$live_dir/$name.db" GRAPH_BACKEND=sqlite EMBEDDING_DIMENSIONS=4 \
    engrama export "$live_dir/$name.export.ndjson" >/dev/null
done

# Chroma (issue 53): collections written by the real chromadb, pinned, in a venv of its own
chroma_venv="${VERCY_CHROMA_VENV:-$PWD/target/live-chroma-venv}"
if ! "$chroma_venv/bin/python" -c 'import chromadb, sys; sys.exit(chromadb.__version__ != "1.5.9")' 2>/dev/null; then
  /usr/bin/python3 -m venv "$chroma_venv"
  "$chroma_venv/bin/pip" install --quiet --disable-pip-version-check 'chromadb==1.5.9'
fi
"$chroma_venv/bin/python" tests/live/make_chroma.py fixtures/live/chroma "$live_dir"

# LangGraph's SqliteStore
"$live_venv/bin/python" tests/live/make_stores.py langgraph-sqlite \
  fixtures/live/langgraph-items.jsonl "$live_dir/langgraph.db" "$live_dir/langgraph-sqlite.api.jsonl"

# PostgreSQL
pg_tmp="$(mktemp -d /tmp/vercy-pg.XXXXXX)"
pg_port=54323
pg_password="$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
pg_as=()
if [ "$(id -u)" = 0 ]; then
  chown nobody "$pg_tmp"
  pg_as=(runuser -u nobody --)
fi
printf '%s\n' "$pg_password" > "$pg_tmp/pw"
chmod 644 "$pg_tmp/pw" # inside a folder only its owner enters

live_stores_stop() {
  if [ -n "${pg_tmp:-}" ] && [ -d "$pg_tmp" ]; then
    if [ -f "$pg_tmp/data/postmaster.pid" ]; then
      "${pg_as[@]}" "$pg_bin/pg_ctl" -D "$pg_tmp/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$pg_tmp"
  fi
}
live_prev_trap="$(trap -p EXIT | sed -e "s/^trap -- '//" -e "s/' EXIT\$//")"
trap "live_stores_stop; ${live_prev_trap}" EXIT
trap 'exit 130' INT TERM

"${pg_as[@]}" "$pg_bin/initdb" -D "$pg_tmp/data" -U vercy --pwfile="$pg_tmp/pw" \
  --auth=scram-sha-256 -E UTF8 --no-locale >/dev/null
rm -f "$pg_tmp/pw"
"${pg_as[@]}" "$pg_bin/pg_ctl" -D "$pg_tmp/data" -l "$pg_tmp/server.log" -w \
  -o "-k $pg_tmp -c listen_addresses= -p $pg_port" start >/dev/null
PGPASSWORD="$pg_password" "$pg_bin/createdb" -h "$pg_tmp" -p "$pg_port" -U vercy vercy_test

pg_conninfo="host=$pg_tmp port=$pg_port user=vercy password=$pg_password dbname=vercy_test"
"$live_venv/bin/python" tests/live/make_stores.py langgraph-postgres \
  fixtures/live/langgraph-items.jsonl "$pg_conninfo" "$live_dir/langgraph-postgres.api.jsonl"
"$live_venv/bin/python" tests/live/make_stores.py memories-postgres \
  fixtures/live/memories.jsonl "$pg_conninfo"
"$live_venv/bin/python" tests/live/make_stores.py mem0-pgvector \
  fixtures/live/chroma/mem0.jsonl "$pg_conninfo"

export VERCY_TEST_LIVE_DIR="$live_dir"
export VERCY_TEST_PG_URL="postgresql://vercy@/vercy_test?host=$pg_tmp&port=$pg_port"
export VERCY_TEST_PG_PASSWORD="$pg_password"
export VERCY_TEST_LIVE_PYTHON="$live_venv/bin/python"
