/**
 * Finding 10 (part): state keys that look like secrets (`pwd`, `passcode`, `pin`, `otp`, `jwt`,
 * `bearer`, `card_number`, `ssn`, `refresh`, `cvv`) are never published, while ordinary keys
 * that contain the same letters (`pinned`, `spinner`, `shipping`, `opinion`) are; and a tab may
 * not register reserved action ids in another case (`LOGIN`) or names of Object.prototype.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { MarkupError } from "../../bridge/markup/action.ts";
import { redactSecrets, SECRET_KEY } from "../../bridge/markup/secrets.ts";
import {
  BUILTIN_ACTION_IDS,
  isActionIdAmong,
  parseActionSpec,
} from "../../bridge/input/action_spec.ts";
import { scanPage } from "../../bridge/site/catalog.ts";
import { startBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";

/** Secret-looking keys, in the spellings pages use. */
const SECRET_KEYS = [
  "cookie",
  "Cookie",
  "sessionCookie",
  "auth_cookie",
  "pwd",
  "user_pwd",
  "dbPwd",
  "DB_PWD",
  "passcode",
  "Passcode",
  "pin",
  "PIN",
  "userPin",
  "user_pin",
  "pinCode",
  "PINCode",
  "pin_code",
  "pincode",
  "card-pin",
  "otp",
  "OTP",
  "otpCode",
  "userOTP",
  "totp",
  "jwt",
  "JWT",
  "idJwt",
  "bearer",
  "Bearer",
  "card_number",
  "cardnumber",
  "card-number",
  "cardNumber",
  "CardNumber",
  "CARD_NUMBER",
  "ssn",
  "SSN",
  "userSSN",
  "cvv",
  "CVV",
  "cvv2",
  "cardCvv",
  "cvc",
  "refresh",
  "Refresh",
  "refresh_token",
];

/** Ordinary keys that share letters with a secret word: published as they are. */
const ORDINARY_KEYS = [
  "pinned",
  "Pinned",
  "isPinned",
  "PINNED",
  "pins",
  "spinner",
  "SPINNER",
  "shipping",
  "opinion",
  "topping",
  "pinyin",
  "Pinterest",
  "pingTime",
  "hotpot",
  "footprint",
  "className",
  "lessons",
  "refreshed_at",
  "last_refresh",
  "auto_refresh",
  "refreshInterval",
  "cards",
  "cardholder",
  "card_count",
  "number",
  "name",
  "title",
  "status",
  "author",
  "description",
];

Deno.test("SECRET_KEY catches secret-looking keys in every usual spelling", () => {
  for (const key of SECRET_KEYS) assert.ok(SECRET_KEY.test(key), key);
});

Deno.test("SECRET_KEY leaves ordinary keys that merely contain the letters of a secret word", () => {
  for (const key of ORDINARY_KEYS) assert.ok(!SECRET_KEY.test(key), key);
});

Deno.test("redactSecrets() drops every secret-looking key at any depth and keeps ordinary ones", () => {
  fc.assert(
    fc.property(
      fc.subarray(SECRET_KEYS, { minLength: 1 }),
      fc.subarray(ORDINARY_KEYS, { minLength: 1 }),
      fc.nat(3),
      (secrets, ordinary, depth) => {
        let value: Record<string, unknown> = Object.fromEntries([
          ...secrets.map((k) => [k, "s3cr3t"]),
          ...ordinary.map((k) => [k, "shown"]),
        ]);
        for (let i = 0; i < depth; i++) value = { level: [value] };
        const out = JSON.stringify(redactSecrets(value));
        assert.ok(!out.includes("s3cr3t"), out);
        for (const key of ordinary) assert.ok(out.includes(JSON.stringify(key)), key);
      },
    ),
  );
});

Deno.test("a tab's state never publishes pin, otp, card_number, ssn, cvv, jwt or refresh", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "search", handler: () => "done" }]);
  tab.stateAfter = () => ({
    pin: "1234",
    otp: "000111",
    card_number: "4111111111111111",
    ssn: "078-05-1120",
    cvv: "123",
    jwt: "eyJhbGciOi",
    refresh: "r-token",
    pwd: "hunter2",
    bearer: "abc",
    pinned: ["req-1"],
    shipping: "express",
  });
  const res = await bridge.invoke(token, "search", "x");
  assert.equal(res.status, 200);
  const { state } = await res.json();
  assert.deepEqual(
    Object.keys(state).filter((k) => k !== "authenticated").sort(),
    ["pinned", "shipping"],
  );
  const manifest = await (await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  })).json();
  const text = JSON.stringify(manifest.state);
  for (const secret of ["1234", "000111", "4111", "078-05", "eyJ", "r-token", "hunter2"]) {
    assert.ok(!text.includes(secret), secret);
  }
});

/** Ids no page or tab action may take: reserved names in another case, prototype names. */
const RESERVED_IDS = [
  "LOGIN",
  "Login",
  "LogOut",
  "LOGOUT",
  "Disconnect",
  "DISCONNECT",
  "constructor",
  "Constructor",
  "prototype",
  "hasOwnProperty",
  "toString",
  "valueOf",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
];

function declaration(id: string) {
  return {
    id,
    description: "An action",
    input_schema: { type: "string" },
    input_example: "x",
    consequential: false,
    protected: false,
  };
}

Deno.test("parseActionSpec() refuses reserved ids in any case and names of Object.prototype", () => {
  for (const id of RESERVED_IDS) {
    assert.throws(
      () => parseActionSpec(declaration(id)),
      (e) => e instanceof MarkupError && e.message.startsWith(`action "${id}" is not valid`),
      id,
    );
  }
  // The bridge's own server actions keep their exact ids.
  for (const id of BUILTIN_ACTION_IDS) assert.equal(parseActionSpec(declaration(id)).id, id);
  for (const id of ["login_help", "logs", "constructive", "approve_request"]) {
    assert.equal(parseActionSpec(declaration(id)).id, id);
  }
});

Deno.test("isActionIdAmong() compares action ids regardless of case", () => {
  assert.ok(isActionIdAmong("APPROVE", ["approve", "reject"]));
  assert.ok(isActionIdAmong("login", BUILTIN_ACTION_IDS));
  assert.ok(!isActionIdAmong("approve_all", ["approve"]));
});

Deno.test("a tab may not register LOGIN, Logout, Disconnect, constructor or toString", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  const registered = await tab.register([
    ...RESERVED_IDS.map((id) => ({ id, handler: () => "hijacked" })),
    { id: "login" },
    { id: "search", handler: () => "fine" },
  ]);
  assert.deepEqual(registered.accepted, ["search"]);
  assert.deepEqual(
    registered.rejected.map((r) => r.id).sort(),
    [...RESERVED_IDS, "login"].sort(),
  );
  const manifest = await (await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  })).json();
  const ids: string[] = manifest.actions.map((a: { id: string }) => a.id);
  for (const id of RESERVED_IDS) assert.ok(!ids.includes(id), id);
  const res = await bridge.invoke(token, "LOGIN", "x");
  assert.equal(res.status, 404);
});

Deno.test("a page may not declare Login or constructor in markup", () => {
  const html = ["Login", "LOGOUT", "Disconnect", "constructor", "toString", "ok"]
    .map((id) => `<aim-action name="${id}" description="Do ${id}"></aim-action>`).join("");
  const info = scanPage(html, "/", "index.html");
  assert.deepEqual(info.actions.map((a) => a.id), ["ok"]);
  assert.equal(info.problems.length, 5);
  assert.match(
    info.problems[0]?.message ?? "",
    /compared regardless of case.*"login" is a server action/,
  );
  assert.match(info.problems[3]?.message ?? "", /"constructor" is a reserved name/);
});
