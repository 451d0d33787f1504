/**
 * The index of a store's sessions (bridge/core/session_index.ts): a session is found by the hash
 * of each of its three secrets, and only while it holds that secret; a token remembered for a
 * session is forgotten once the session left the index.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Session } from "../../bridge/core/session.ts";
import { newSecrets, SessionIndex } from "../../bridge/core/session_index.ts";
import { hashToken, newToken } from "../../bridge/core/tokens.ts";

/** A session with a token and fresh secrets, and the token; its channel is never opened. */
function session(): { session: Session; token: string; credential: string } {
  const token = newToken();
  const made = new Session({
    tokenHash: hashToken(token),
    page: "/",
    now: 0,
    expiresAt: 1,
    channel: {},
    client: "test",
  });
  return { session: made, token, credential: newSecrets(made) };
}

/** Each secret's name, and how the index finds a session by its hash. */
const SECRETS: [string, (index: SessionIndex, s: Session) => Session | undefined][] = [
  ["token", (index, s) => index.get(s.tokenHash)],
  ["tab credential", (index, s) => index.byCredential(s.credentialHash)],
  ["tab key", (index, s) => index.byTabKey(s.tabKeyHash)],
];

Deno.test("newSecrets() gives a session a new tab credential and tab key, keeping their hashes", () => {
  const { session: s, credential } = session();
  assert.equal(s.credentialHash, hashToken(credential));
  assert.equal(s.tabKeyHash, hashToken(s.tabKey));
  const before = { credentialHash: s.credentialHash, tabKey: s.tabKey };
  const next = newSecrets(s);
  assert.notEqual(next, credential);
  assert.notEqual(s.credentialHash, before.credentialHash);
  assert.notEqual(s.tabKey, before.tabKey);
});

Deno.test("SessionIndex finds a session by the hash of each of its secrets, until dropped", () => {
  const index = new SessionIndex();
  const { session: s } = session();
  index.add(s);
  assert.equal(index.size, 1);
  assert.deepEqual([...index.sessions()], [s]);
  for (const [name, find] of SECRETS) assert.equal(find(index, s), s, name);
  for (const hash of [s.tokenHash, s.credentialHash, s.tabKeyHash]) assert.ok(index.holds(hash));
  assert.equal(index.holds(hashToken(newToken())), false);
  index.drop(s);
  assert.equal(index.size, 0);
  for (const [name, find] of SECRETS) assert.equal(find(index, s), undefined, name);
  for (const hash of [s.tokenHash, s.credentialHash, s.tabKeyHash]) {
    assert.equal(index.holds(hash), false);
  }
});

Deno.test("SessionIndex.drop() leaves each hash that now names another session", () => {
  const index = new SessionIndex();
  const { session: first } = session();
  const { session: second } = session();
  // The second session took over each of the first's hashes (a resumed session, say).
  second.credentialHash = first.credentialHash;
  second.tabKeyHash = first.tabKeyHash;
  Object.defineProperty(second, "tokenHash", { value: first.tokenHash });
  index.add(first);
  index.add(second);
  index.drop(first);
  for (const [name, find] of SECRETS) assert.equal(find(index, first), second, name);
});

Deno.test("SessionIndex moves a session to its new tab credential and tab key hashes", () => {
  const index = new SessionIndex();
  const { session: s } = session();
  index.add(s);
  const old = { credentialHash: s.credentialHash, tabKeyHash: s.tabKeyHash };
  index.forgetCredential(s);
  index.forgetTabKey(s);
  newSecrets(s);
  index.indexCredential(s);
  index.indexTabKey(s);
  assert.equal(index.byCredential(old.credentialHash), undefined);
  assert.equal(index.byTabKey(old.tabKeyHash), undefined);
  assert.equal(index.byCredential(s.credentialHash), s);
  assert.equal(index.byTabKey(s.tabKeyHash), s);
  assert.equal(index.get(s.tokenHash), s);
});

Deno.test("SessionIndex.knownToken() answers a remembered token only while its session is held", () => {
  const index = new SessionIndex();
  const { session: s, token } = session();
  assert.equal(index.knownToken(token), undefined);
  index.add(s);
  index.rememberToken(token, s);
  assert.equal(index.knownToken(token), s);
  // Ended: the session left the index, and the token is forgotten with it.
  index.drop(s);
  assert.equal(index.knownToken(token), undefined);
  index.add(s);
  assert.equal(index.knownToken(token), undefined, "a forgotten token stays forgotten");
  // Replaced: another session now holds the token's hash (a resume), not the one remembered.
  const { session: other } = session();
  Object.defineProperty(other, "tokenHash", { value: s.tokenHash });
  index.rememberToken(token, s);
  index.add(other);
  assert.equal(index.knownToken(token), undefined);
});
