/**
 * Where the tab keeps its session (token and credential) across reloads: this tab's
 * `sessionStorage`, of this origin only.
 *
 * @module
 */

/**
 * Where the tab keeps its session across reloads and navigations: this tab's own storage, of
 * this origin only. Cookies would not do: another port or a sibling subdomain can plant them.
 */
const STORE_KEY = "aim.session";

interface StoredSession {
  token: string;
  credential: string;
}

export function stored(): StoredSession | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(STORE_KEY) ?? "null");
    return value?.token && value?.credential ? value : null;
  } catch {
    return null;
  }
}

export function store(value: StoredSession | null): void {
  try {
    if (value) sessionStorage.setItem(STORE_KEY, JSON.stringify(value));
    else sessionStorage.removeItem(STORE_KEY);
  } catch {
    // Storage refused (private mode): the session then lasts as long as the page.
  }
}
