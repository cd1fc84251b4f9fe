<?php
// Minimal wp-cli replacement (wp-cli is not packaged in Debian 12), for scripts/wordpress/*.sh.
// Derived from the shared recipe /work/shared/wordpress/wp-helper.php; every command is idempotent.
// usage: php wp-helper.php HOST install TITLE USER PASS EMAIL | permalinks STRUCTURE
//                               | app-password USER NAME | trash POST_ID
$host = $argv[1];
$cmd  = $argv[2];
$_SERVER['HTTP_HOST']   = $host;
// Debian's wp-config.php loads /etc/wordpress/config-$WORDPRESS_CONFIG.php (else config-<host>.php)
if (getenv('WORDPRESS_CONFIG')) $_SERVER['WORDPRESS_CONFIG'] = getenv('WORDPRESS_CONFIG');
$_SERVER['SERVER_NAME'] = preg_replace('/:.*/', '', $host);
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['SERVER_PROTOCOL'] = 'HTTP/1.1';
if ($cmd === 'install') define('WP_INSTALLING', true);
require '/usr/share/wordpress/wp-load.php';
add_filter('pre_wp_mail', '__return_false');   // no MTA in CI

switch ($cmd) {
case 'install':   // title user pass email
    require_once ABSPATH . 'wp-admin/includes/upgrade.php';
    if (is_blog_installed()) { echo "already installed\n"; exit(0); }
    $r = wp_install($argv[3], $argv[4], $argv[6], 1, '', wp_slash($argv[5]));
    echo "installed user_id={$r['user_id']}\n";
    break;
case 'permalinks': // structure; set_permalink_structure updates the option AND the live rewrite object
    global $wp_rewrite;
    if (get_option('permalink_structure') !== $argv[3]) {
        $wp_rewrite->set_permalink_structure($argv[3]);
        $wp_rewrite->flush_rules(false);
    }
    echo "permalinks=" . get_option('permalink_structure') . "\n";
    break;
case 'app-password': // user name -> prints a new password; older ones with the same name are revoked
    $u = get_user_by('login', $argv[3]);
    if (!$u) { fwrite(STDERR, "no such user\n"); exit(1); }
    if (!wp_is_application_passwords_available_for_user($u)) {
        fwrite(STDERR, "app passwords unavailable (need HTTPS or WP_ENVIRONMENT_TYPE=local)\n"); exit(1);
    }
    foreach (WP_Application_Passwords::get_user_application_passwords($u->ID) as $item) {
        if ($item['name'] === $argv[4]) WP_Application_Passwords::delete_application_password($u->ID, $item['uuid']);
    }
    list($pw, $item) = WP_Application_Passwords::create_new_application_password($u->ID, array('name' => $argv[4]));
    echo $pw, "\n";
    break;
case 'trash': // post id
    $post = get_post((int)$argv[3]);
    if (!$post) { fwrite(STDERR, "no such post\n"); exit(1); }
    if ($post->post_status !== 'trash' && !wp_trash_post($post->ID)) { fwrite(STDERR, "trash failed\n"); exit(1); }
    echo "trashed {$post->ID}\n";
    break;
default:
    fwrite(STDERR, "unknown command\n"); exit(2);
}
