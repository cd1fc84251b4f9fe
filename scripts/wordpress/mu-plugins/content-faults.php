<?php
/* factline content fault injector: what a reader of a post's page gets differs from what was posted.
 * If $WP_BASE/content-fault exists (WP_CONTENT_DIR's parent; scripts/wordpress/wp-ctl.sh content-fault),
 * it holds one word, and every post's content on a page (never in the REST API, never for the PHP CLI) is:
 *   truncate   cut to its first 40% (a filter that shortens content, as excerpt or paywall plugins do)
 *   replace    another article altogether (a post overwritten by another one)
 *   strip-pre  without its <pre> blocks (a theme or sanitiser that drops preformatted text)
 * Delete the file to return to normal (wp-ctl.sh content-fault-clear; WordPress.restore in testkit). */
if (PHP_SAPI === 'cli') return;
$factline_content_fault_file = dirname(WP_CONTENT_DIR) . '/content-fault';
if (!is_readable($factline_content_fault_file)) return;
$is_rest = strpos($_SERVER['REQUEST_URI'] ?? '', '/wp-json/') === 0 || isset($_GET['rest_route']);
if ($is_rest) return;
$factline_content_fault = trim((string)file_get_contents($factline_content_fault_file));
add_filter('the_content', function ($content) use ($factline_content_fault) {
    switch ($factline_content_fault) {
    case 'truncate':
        $text = wp_strip_all_tags($content);
        return '<p>' . esc_html(mb_substr($text, 0, (int)(mb_strlen($text) * 0.4))) . '</p>';
    case 'replace':
        return '<h2>Parking rules change in March</h2><p>From the first of March the council charges for parking '
             . 'on every street of the old town between eight in the morning and six in the evening. Residents '
             . 'can apply for a permit online; visitors pay at the machines or by phone.</p>';
    case 'strip-pre':
        return preg_replace('#<pre\b[^>]*>.*?</pre>#is', '', $content);
    default:
        return $content;   // an unknown word: do nothing rather than guess
    }
}, 999);
