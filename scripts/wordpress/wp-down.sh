#!/usr/bin/env bash
# Stop the WordPress started by wp-up.sh (nginx, php-fpm, MariaDB, by their pid files).
# PURGE=1 also deletes $WP_BASE. Derived from the shared recipe /work/shared/wordpress/wp-down.sh.
source "$(dirname "$(readlink -f "$0")")/lib.sh"
stop_nginx
for p in $(fpm_pids); do kill "$p" 2>/dev/null || true; done; stop_pidfile "$WP_BASE/run/php-fpm.pid"
stop_db
[ "$(readlink "$CFG" 2>/dev/null)" = "$WP_BASE/config.php" ] && rm -f "$CFG"   # only our own link
[ "${PURGE:-0}" = 1 ] && rm -rf "$WP_BASE"
echo "wordpress: stopped${PURGE:+ (PURGE=$PURGE)}" >&2
