#!/usr/bin/env bash
# Small controls over the WordPress started by wp-up.sh, for fault tests:
#   wp-ctl.sh fault <scope> <action> [arg]   scope front|rest|all; action an HTTP status or "sleep N"
#   wp-ctl.sh fault-clear
#   wp-ctl.sh content-fault truncate|replace|strip-pre   pages show a changed post (mu-plugins/content-faults.php)
#   wp-ctl.sh content-fault-clear
#   wp-ctl.sh fpm kill|stop|cont|restart     SIGKILL / SIGSTOP / SIGCONT master+workers; restart = start if down
#   wp-ctl.sh db stop|start                  stop / start the private MariaDB
#   wp-ctl.sh trash <post-id>                move a post to the trash (PHP CLI, no HTTP)
#   wp-ctl.sh status                         which servers are alive
# Derived from the fault checks of the shared recipe /work/shared/wordpress/wp-smoke.sh.
source "$(dirname "$(readlink -f "$0")")/lib.sh"
cmd=${1:-}; shift || true
case "$cmd" in
  fault)       [ $# -ge 2 ] || die "usage: wp-ctl.sh fault <front|rest|all> <status|sleep N>"
               echo "$*" >"$WP_BASE/fault.tmp" && mv "$WP_BASE/fault.tmp" "$WP_BASE/fault" ;;
  fault-clear) rm -f "$WP_BASE/fault" ;;
  content-fault)
    case "${1:-}" in
      truncate|replace|strip-pre) echo "$1" >"$WP_BASE/content-fault.tmp" && mv "$WP_BASE/content-fault.tmp" "$WP_BASE/content-fault" ;;
      *) die "usage: wp-ctl.sh content-fault truncate|replace|strip-pre" ;;
    esac ;;
  content-fault-clear) rm -f "$WP_BASE/content-fault" ;;
  fpm)
    case "${1:-}" in
      kill)    kill_fpm ;;
      stop)    signal_fpm STOP ;;
      cont)    signal_fpm CONT ;;
      restart) p=$(fpm_pids); [ -n "$p" ] && kill -CONT $p 2>/dev/null; start_fpm ;;
      *)       die "usage: wp-ctl.sh fpm kill|stop|cont|restart" ;;
    esac ;;
  db)
    case "${1:-}" in
      stop)    stop_db ;;
      start)   start_db ;;
      *)       die "usage: wp-ctl.sh db stop|start" ;;
    esac ;;
  trash)       [ -n "${1:-}" ] || die "usage: wp-ctl.sh trash <post-id>"; helper trash "$1" ;;
  status)      for s in mysqld php-fpm nginx; do
                 if [ "$s" = mysqld ]; then p=$(db_pid) || p=""; else p=$(alive_pid "$WP_BASE/run/$s.pid") || p=""; fi
                 if [ -n "$p" ]; then echo "$s up ($p)"; else echo "$s down"; fi; done
               [ -f "$WP_BASE/fault" ] && echo "fault: $(cat "$WP_BASE/fault")" || echo "fault: none"
               [ -f "$WP_BASE/content-fault" ] && echo "content fault: $(cat "$WP_BASE/content-fault")" || echo "content fault: none" ;;
  *)           sed -n '2,11p' "$0" >&2; exit 2 ;;
esac
