# shellcheck shell=bash
# Shared settings and start/stop functions for wp-up.sh, wp-down.sh and wp-ctl.sh.
# Derived from the shared recipe /work/shared/wordpress (WordPress 6.1 from Debian 12 packages),
# adapted for factline: idempotent, every server detached (setsid) and bound to 127.0.0.1 or a
# unix socket, all state under $WP_BASE.
set -euo pipefail
WP_BASE=${WP_BASE:-/tmp/factline-wp}
WP_PORT=${WP_PORT:-8080}
WP_HOST=127.0.0.1
WP_USER=${WP_USER:-factline}
WP_LOGIN_PASS=${WP_LOGIN_PASS:-factline-login-pass}    # the login password; REST uses the application password
WP_MAX_BODY=${WP_MAX_BODY:-8m}                          # nginx client_max_body_size (PHP's post_max_size is 8M)
WP_SCRIPTS=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
HELPER=$WP_SCRIPTS/wp-helper.php
ME=$(id -un)
SOCK=$WP_BASE/run/mysqld.sock
URL=http://$WP_HOST:$WP_PORT
# Debian's wp-config.php loads /etc/wordpress/config-$WORDPRESS_CONFIG.php when that server variable is
# set (nginx fastcgi_param, or the environment for the PHP CLI): one name per port, so this instance never
# takes over config-127.0.0.1.php that another WordPress on this host (the shared recipe) may use.
export WORDPRESS_CONFIG=factline-$WP_PORT
CFG=/etc/wordpress/config-$WORDPRESS_CONFIG.php
WP_PACKAGES=(wordpress wordpress-theme-twentytwentythree nginx php8.2-fpm php8.2-mysql php8.2-cli
             php8.2-curl php8.2-xml php8.2-mbstring mariadb-server curl)
_t0=$(date +%s%N)
ts() { echo "[$(( ($(date +%s%N) - _t0) / 1000000 )) ms] $*" >&2; }
die() { echo "wordpress: $*" >&2; exit 1; }

# pid from a pid file if that process is alive, else nothing
alive_pid() { local p; [ -f "$1" ] || return 1; p=$(cat "$1" 2>/dev/null) || return 1
              [ -n "$p" ] && kill -0 "$p" 2>/dev/null && echo "$p"; }
wait_for() { local n=$1; shift; for _ in $(seq "$n"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
# stop a server by pid file: SIGTERM, wait up to 10 s, then SIGKILL
stop_pidfile() { local p; p=$(alive_pid "$1") || { rm -f "$1"; return 0; }
                 kill "$p" 2>/dev/null || true
                 wait_for 100 bash -c "! kill -0 $p" || kill -9 "$p" 2>/dev/null || true
                 wait_for 20 bash -c "! kill -0 $p" || true; rm -f "$1"; }

ensure_packages() {
  dpkg -s "${WP_PACKAGES[@]}" >/dev/null 2>&1 && return 0
  export DEBIAN_FRONTEND=noninteractive
  # update first when the lists are empty; retry once after an update when they are stale
  if ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1; then apt-get update -q >/dev/null; ts "apt-get update done"; fi
  if ! apt-get install -y -q --no-install-recommends "${WP_PACKAGES[@]}" >"$WP_BASE/log/apt.log" 2>&1; then
    apt-get update -q >/dev/null; ts "apt-get update done (retry)"
    apt-get install -y -q --no-install-recommends "${WP_PACKAGES[@]}" >"$WP_BASE/log/apt.log" 2>&1 \
      || die "apt-get install failed, see $WP_BASE/log/apt.log"
  fi
  ts "apt-get install done"
}

db_ping() { mariadb-admin --no-defaults -S "$SOCK" -u"$ME" ping; }
# The server of this data folder: by its pid file, else by its command line. Two wp-up.sh runs at once (two
# sessions' test fixtures) can leave a mariadbd whose pid file the loser removed; stop_db must still find it,
# and start_db must adopt it instead of starting a second server that cannot lock the same data folder.
db_pid() { alive_pid "$WP_BASE/run/mysqld.pid" || pgrep -o -f -- "^mariadbd --no-defaults --datadir=$WP_BASE/db( |\$)"; }
start_db() {
  local p
  if p=$(db_pid) && db_ping >/dev/null 2>&1; then echo "$p" >"$WP_BASE/run/mysqld.pid"; return 0; fi
  if [ ! -d "$WP_BASE/db/mysql" ]; then
    mariadb-install-db --no-defaults --datadir="$WP_BASE/db" --user="$ME" \
      --auth-root-authentication-method=socket --skip-test-db >"$WP_BASE/log/install-db.log" 2>&1 \
      || die "mariadb-install-db failed, see $WP_BASE/log/install-db.log"
    ts "mariadb-install-db done"
  fi
  # --skip-networking: unix socket only, never a TCP port (a system MariaDB may own 3306)
  setsid -f mariadbd --no-defaults --datadir="$WP_BASE/db" --socket="$SOCK" --skip-networking \
    --pid-file="$WP_BASE/run/mysqld.pid" --log-error="$WP_BASE/log/mysqld.err" --user="$ME" \
    --innodb-buffer-pool-size=64M --max-allowed-packet=64M </dev/null >/dev/null 2>&1
  wait_for 300 db_ping || die "MariaDB did not start, see $WP_BASE/log/mysqld.err"
  ts "mariadb up"
}
stop_db() { local p; p=$(db_pid) && echo "$p" >"$WP_BASE/run/mysqld.pid"; stop_pidfile "$WP_BASE/run/mysqld.pid"; }

fpm_pids() { local m; m=$(alive_pid "$WP_BASE/run/php-fpm.pid") || return 0; echo "$m"; pgrep -P "$m" || true; }
start_fpm() {
  alive_pid "$WP_BASE/run/php-fpm.pid" >/dev/null && return 0
  rm -f "$WP_BASE/run/php-fpm.sock"
  local r=""; [ "$ME" = root ] && r="-R"
  setsid -f php-fpm8.2 $r --nodaemonize --fpm-config "$WP_BASE/php-fpm.conf" </dev/null >/dev/null 2>&1
  wait_for 100 test -S "$WP_BASE/run/php-fpm.sock" || die "php-fpm did not start, see $WP_BASE/log/php-fpm.log"
  wait_for 50 alive_pid "$WP_BASE/run/php-fpm.pid" || die "php-fpm wrote no pid file"
  ts "php-fpm up"
}
# SIGKILL the master and its workers at once (killing only the master leaves workers serving)
kill_fpm() { local p; p=$(fpm_pids); [ -n "$p" ] && kill -9 $p 2>/dev/null || true
             for q in $p; do wait_for 50 bash -c "! kill -0 $q" || true; done
             rm -f "$WP_BASE/run/php-fpm.pid"; }
signal_fpm() { local p; p=$(fpm_pids); [ -n "$p" ] || die "php-fpm is not running"; kill -"$1" $p; }

start_nginx() {
  alive_pid "$WP_BASE/run/nginx.pid" >/dev/null && return 0
  setsid -f nginx -p "$WP_BASE/nginx" -c "$WP_BASE/nginx.conf" -g 'daemon off;' </dev/null >/dev/null 2>&1
  wait_for 100 curl -s -o /dev/null "$URL/" || die "nginx did not answer on $URL, see $WP_BASE/log/nginx-error.log"
  ts "nginx up"
}
stop_nginx() { stop_pidfile "$WP_BASE/run/nginx.pid"; }

helper() { php "$HELPER" "$WP_HOST" "$@"; }
