// The demo pages' shared script: the signed-in view, the login form, and the page's own API.
import { client } from "/__aim/elements.js";

/**
 * Calls the demo's API (or the bridge) with this tab's session cookie and its tab key, which
 * only the tab holding the session gets; throws the answer's message.
 */
export async function api(path, body) {
  const headers = { "X-Aim-Tab": client.session?.tabKey ?? "" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(json.message ?? `The server answered ${res.status}.`);
  return json;
}

/**
 * Calls `onChange(user)` now and whenever someone signs in or out (user is null then). What it
 * returns (a promise: the page's data loading) is the page's reaction to the change: the agent
 * that signed in or out is answered once it is done, with the state it leaves.
 */
export function onSession(onChange) {
  const apply = (session) => {
    const user = session?.authenticated ? session.user : null;
    document.body.dataset.signedIn = user ? "yes" : "no";
    for (const el of document.querySelectorAll("[data-user-name]")) {
      el.textContent = user ? (user.name ?? user.username) : "";
    }
    return onChange(user);
  };
  document.addEventListener("aim-session", (e) => e.detail.waitUntil(apply(e.detail)));
  // Disconnected, expired or forgotten by a restarted bridge: nobody is signed in here now.
  document.addEventListener("aim-status", (e) => e.detail.status === "ended" && apply(null));
  apply(client.session);
}

/** Wires the login form and the sign-out button to the bridge's login and logout actions. */
export function wireLogin() {
  const form = document.getElementById("login");
  const error = document.getElementById("login-error");
  form?.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const data = new FormData(form);
    try {
      await api("/__aim/invoke", {
        actionId: "login",
        input: { username: String(data.get("username")), password: String(data.get("password")) },
      });
      form.reset();
    } catch (e) {
      error.textContent = e.message;
    }
  });
  document.getElementById("logout")?.addEventListener("click", () => {
    api("/__aim/invoke", { actionId: "logout", input: {} }).catch(() => {});
  });
}
