# Sourced by the scripts that need a live collision_server on loopback.
#
#   start_server BINARY [FLAGS...]
#
# Starts BINARY on 127.0.0.1 port 0 with a port file, waits (bounded, 20 s)
# until it reports its port while checking that it is still alive, and sets
# SERVER_PID, SERVER_PORT, SERVER_TARGET and SERVER_WORK (a scratch folder
# whose server.log holds the server's stderr). An EXIT trap stops the server
# with SIGTERM and removes SERVER_WORK. Returns non-zero, showing the log,
# when the server exits or never reports a port.
start_server() {
  local binary=$1
  shift
  SERVER_WORK=$(mktemp -d)
  "$binary" --address=127.0.0.1:0 --port_file="$SERVER_WORK/port" "$@" \
    2>"$SERVER_WORK/server.log" &
  SERVER_PID=$!
  trap 'stop_server' EXIT
  local _
  for _ in $(seq 200); do
    [ -s "$SERVER_WORK/port" ] && break
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "collision_server exited before serving; its log:" >&2
      cat "$SERVER_WORK/server.log" >&2
      return 1
    fi
    sleep 0.1
  done
  if [ ! -s "$SERVER_WORK/port" ]; then
    echo "collision_server did not report its port within 20 s; its log:" >&2
    cat "$SERVER_WORK/server.log" >&2
    return 1
  fi
  SERVER_PORT=$(cat "$SERVER_WORK/port")
  SERVER_TARGET="127.0.0.1:$SERVER_PORT"
}

stop_server() {
  if [ -n "${SERVER_PID:-}" ]; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  [ -n "${SERVER_WORK:-}" ] && rm -rf "$SERVER_WORK"
  SERVER_PID=
}
