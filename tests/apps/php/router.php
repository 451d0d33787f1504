<?php
// A small server-rendered notes app, written without aim in mind, then annotated with aim's
// elements in its templates: its own login (PHP sessions), CSRF tokens on every form, and a
// form with two submit buttons. Run: php -S 127.0.0.1:8080 router.php
// The single-page app under /spa/ is one HTML file; its routes exist only in the browser.
declare(strict_types=1);

$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
if ($path === '/spa' || str_starts_with($path, '/spa/')) {
    header('Content-Type: text/html; charset=utf-8');
    readfile(__DIR__ . '/spa.html');
    return true;
}

session_save_path(getenv('NOTES_SESSIONS') ?: sys_get_temp_dir());
session_start();

$store = getenv('NOTES_DATA') ?: (sys_get_temp_dir() . '/notes.json');
function notes(string $store): array {
    return is_file($store) ? json_decode(file_get_contents($store), true) : [
        '1' => ['title' => 'Groceries', 'body' => 'Milk, bread'],
        '2' => ['title' => 'Ideas', 'body' => 'A reverse proxy'],
    ];
}
function h(string $s): string { return htmlspecialchars($s, ENT_QUOTES); }
function csrf(): string {
    if (empty($_SESSION['csrf'])) $_SESSION['csrf'] = bin2hex(random_bytes(16));
    return $_SESSION['csrf'];
}
function checkCsrf(): void {
    if (!hash_equals($_SESSION['csrf'] ?? 'x', $_POST['csrf'] ?? '')) {
        http_response_code(403);
        echo 'Bad CSRF token';
        exit;
    }
}
function page(string $title, string $body): void {
    header('Content-Type: text/html; charset=utf-8');
    echo "<!doctype html><html><head><title>" . h($title) . "</title>" .
        '<script type="module" src="/__aim/elements.js"></script></head><body>' .
        $body . '<aim-panel></aim-panel></body></html>';
}
function back(string $to): void {
    header('Location: ' . $to, true, 303);
}
$user = $_SESSION['user'] ?? null;

if ($path === '/' || $path === '/index.php') {
    back($user ? '/notes.php' : '/login.php');
} elseif ($path === '/login.php') {
    if ($_SERVER['REQUEST_METHOD'] === 'POST') {
        checkCsrf();
        if (($_POST['username'] ?? '') === 'ada' && ($_POST['password'] ?? '') === 'lovelace-1843') {
            session_regenerate_id(true);
            $_SESSION['user'] = 'ada';
            back('/notes.php');
        } else {
            http_response_code(401);
            page('Sign in', '<p id="error">Wrong username or password</p>');
        }
        return true;
    }
    page('Sign in', '<h1>Sign in</h1><form id="login" method="post" action="/login.php">' .
        '<input type="hidden" name="csrf" value="' . h(csrf()) . '">' .
        '<label>Username <input name="username"></label>' .
        '<label>Password <input name="password" type="password"></label>' .
        '<button>Sign in</button></form>');
} elseif (!$user) {
    back('/login.php');
} elseif ($path === '/notes.php') {
    $list = notes($store);
    $rows = '';
    foreach ($list as $id => $note) {
        $rows .= '<li><a href="/edit.php?id=' . h((string)$id) . '">' . h($note['title']) . '</a></li>';
    }
    page('Notes', '<h1>Notes of ' . h($user) . '</h1><ul id="notes">' . $rows . '</ul>' .
        '<aim-state name="notes"><script type="application/json">' .
        json_encode(array_map(fn($id, $n) => ['id' => (string)$id, 'title' => $n['title']],
            array_keys($list), $list)) . '</script></aim-state>' .
        '<form id="open" action="/edit.php"><label>Note id <input name="id" required></label></form>' .
        '<aim-action name="open_note" description="Open a note in the editor" form="#open"' .
        ' input-example=\'{"id":"1"}\'></aim-action>');
} elseif ($path === '/edit.php') {
    $list = notes($store);
    $id = (string)($_GET['id'] ?? '');
    if (!isset($list[$id])) { http_response_code(404); page('No note', '<p>No such note</p>'); return true; }
    if ($_SERVER['REQUEST_METHOD'] === 'POST') {
        checkCsrf();
        $do = $_POST['do'] ?? '';
        if ($do === 'save') {
            $list[$id] = ['title' => $_POST['title'] ?? '', 'body' => $_POST['body'] ?? ''];
            file_put_contents($store, json_encode($list));
            back('/notes.php?saved=' . rawurlencode($id));
        } elseif ($do === 'preview') {
            page('Preview', '<h1>Preview: ' . h($_POST['title'] ?? '') . '</h1>');
        } else {
            http_response_code(400);
            page('Which button?', '<p>Press Save or Preview</p>');
        }
        return true;
    }
    $note = $list[$id];
    page('Edit ' . $note['title'], '<h1>Edit</h1>' .
        '<form id="edit" method="post" action="/edit.php?id=' . h($id) . '">' .
        '<input type="hidden" name="csrf" value="' . h(csrf()) . '">' .
        '<label>Title <input name="title" value="' . h($note['title']) . '" required></label>' .
        '<label>Body <textarea name="body">' . h($note['body']) . '</textarea></label>' .
        '<button id="preview" name="do" value="preview">Preview</button>' .
        '<button id="save" name="do" value="save">Save</button></form>' .
        '<aim-state name="note"><script type="application/json">' .
        json_encode(['id' => $id, 'title' => $note['title']]) . '</script></aim-state>' .
        '<aim-action name="save_note" description="Save the note" form="#edit" submitter="#save"' .
        ' consequential input-example=\'{"title":"Groceries","body":"Milk"}\'></aim-action>' .
        '<aim-action name="preview_note" description="Preview the note" form="#edit"' .
        ' submitter="#preview" input-example=\'{"title":"Groceries","body":"Milk"}\'></aim-action>' .
        // As a wiki guards an edit: typing marks it unsaved; Save's own click listener clears it.
        '<script>let unsaved = false;' .
        'document.getElementById("edit").addEventListener("input", () => { unsaved = true; });' .
        'document.getElementById("save").addEventListener("click", () => { unsaved = false; });' .
        'window.onbeforeunload = () => unsaved ? "Changes you made may not be saved." : undefined;' .
        '</script>');
} else {
    http_response_code(404);
    page('Not found', '<p>Not found</p>');
}
return true;
