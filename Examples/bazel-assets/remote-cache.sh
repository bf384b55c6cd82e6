# A Bazel HTTP remote cache for the proofs and benchmarks: nginx with its WebDAV module (Debian's
# nginx-light) on a free loopback port, as Bazel's documentation sets one up. Source this file, then
# `start_remote_cache DIR` sets `remote_cache_url` and `remote_cache_pid` (stop it with
# `stop_remote_cache`); entries are stored under DIR/cache, requests logged in DIR/nginx/access.log.
start_remote_cache() {
    local dir=$1 nginx port
    nginx=$(PATH="$PATH:/usr/sbin" command -v nginx) || { echo "nginx is not installed (Debian: nginx-light)"; return 1; }
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    mkdir -p "$dir/cache" "$dir/nginx"
    cat > "$dir/nginx/nginx.conf" <<CONF
daemon off;
master_process off;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log;
events { worker_connections 256; }
http {
    access_log $dir/nginx/access.log;
    client_body_temp_path $dir/nginx/body;
    client_max_body_size 0;
    server {
        listen 127.0.0.1:$port;
        root $dir/cache;
        location / {
            dav_methods PUT;
            create_full_put_path on;
            dav_access user:rw group:r all:r;
        }
    }
}
CONF
    "$nginx" -e "$dir/nginx/error.log" -c "$dir/nginx/nginx.conf" &
    remote_cache_pid=$!
    remote_cache_url="http://127.0.0.1:$port"
    for _ in $(seq 200); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
        sleep 0.05
    done
    echo "nginx did not start: $(cat "$dir/nginx/error.log")"
    return 1
}

stop_remote_cache() {
    if [ -n "${remote_cache_pid:-}" ]; then
        kill "$remote_cache_pid" 2>/dev/null && wait "$remote_cache_pid" 2>/dev/null
        remote_cache_pid=
    fi
    return 0
}
