<?php
/* factline CI fault injector (derived from the shared recipe /work/shared/wordpress/mu-plugins/ci-faults.php).
 * If CI_FAULT_FILE exists, it holds "<scope> <action> [arg]":
 *   scope  = front (pages) | rest (/wp-json/ and ?rest_route=) | all
 *   action = an HTTP status, sent with "Retry-After: 30", or "sleep N" (seconds, then the request goes on).
 * Delete the file to return to normal (scripts/wordpress/wp-ctl.sh fault / fault-clear).
 * Never active for the PHP CLI (wp-helper.php). */
if (!defined('CI_FAULT_FILE') || PHP_SAPI === 'cli' || !is_readable(CI_FAULT_FILE)) return;
list($scope, $action, $arg) = array_pad(preg_split('/\s+/', trim((string)file_get_contents(CI_FAULT_FILE))), 3, '');
$is_rest = strpos($_SERVER['REQUEST_URI'] ?? '', '/wp-json/') === 0 || isset($_GET['rest_route']);
if (($scope === 'front' && $is_rest) || ($scope === 'rest' && !$is_rest)) return;
if ($action === 'sleep') { sleep((int)$arg); return; }
if (!ctype_digit($action)) return;   // unreadable fault file: do nothing rather than guess
status_header((int)$action);
header('Retry-After: 30');
header('Content-Type: text/plain; charset=utf-8');
exit("injected fault $action\n");
