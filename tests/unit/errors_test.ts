import assert from "node:assert/strict";
import { HTTPException } from "hono/http-exception";
import { fileURLToPath } from "node:url";
import {
  AimError,
  ERROR_CODES,
  ERROR_STATUS,
  type ErrorCode,
  errorFromBody,
} from "../../bridge/wire/errors.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("every error code answers with the status of the one table, as a hono HTTPException", async () => {
  assert.deepEqual(ERROR_CODES, Object.keys(ERROR_STATUS));
  for (const code of ERROR_CODES) {
    const error = new AimError(code, "Something to act on.", { headers: { "Retry-After": "1" } });
    assert.ok(error instanceof HTTPException);
    assert.equal(error.status, ERROR_STATUS[code]);
    const res = error.getResponse();
    assert.equal(res.status, ERROR_STATUS[code]);
    assert.equal(res.headers.get("Retry-After"), "1");
    assert.equal(res.headers.get("Content-Type"), "application/json; charset=utf-8");
    assert.deepEqual(await res.json(), { error: code, message: "Something to act on." });
  }
});

Deno.test("an AimError keeps its cause, and has none when given none", () => {
  const cause = new Error("socket closed");
  const error = new AimError("store_unavailable", "Retry.", { cause });
  assert.equal(error.cause, cause);
  assert.equal(error.name, "AimError");
  assert.equal(Object.hasOwn(new AimError("not_found", "Nothing."), "cause"), false);
});

Deno.test("an error another instance answered is rebuilt with its code's status, unknown codes as server_error", () => {
  const known = errorFromBody({ error: "tab_timeout", message: "Late.", limit: 3 }, { A: "b" });
  assert.deepEqual([known.status, known.code, known.details, known.headers], [
    504,
    "tab_timeout",
    { limit: 3 },
    { A: "b" },
  ]);
  for (const error of ["made_up", "toString", "__proto__", 7]) {
    const rebuilt = errorFromBody({ error, message: "?" }, {});
    assert.deepEqual([rebuilt.status, rebuilt.code], [500, "server_error"], String(error));
  }
});

Deno.test("the docs give every error code the status of the table", () => {
  const docs = ["README.md", ...[...Deno.readDirSync(`${ROOT}/docs`)].map((e) => `docs/${e.name}`)]
    // ACP maps the codes onto its own statuses (docs/acp.md).
    .filter((path) => path.endsWith(".md") && path !== "docs/acp.md");
  const wrong: string[] = [];
  for (const path of docs) {
    const text = Deno.readTextFileSync(`${ROOT}/${path}`);
    for (const match of text.matchAll(/\b([1-5]\d\d) `([a-z_]+)`(?! over ACP)/g)) {
      const code = match[2] as ErrorCode;
      if (!Object.hasOwn(ERROR_STATUS, code)) continue;
      if (ERROR_STATUS[code] !== Number(match[1])) wrong.push(`${path}: ${match[0]}`);
    }
  }
  assert.deepEqual(wrong, []);
});
