import assert from "node:assert/strict";
import { HTTPException } from "hono/http-exception";
import { fileURLToPath } from "node:url";
import {
  AimError,
  ERROR_CODES,
  ERROR_STATUS,
  type ErrorCode,
  errorFromBody,
  PRIVATE_HEADERS,
} from "../../bridge/errors/aim_error.ts";
import {
  ACP_CODES,
  ACP_STATUS,
  AcpHttpError,
  type AcpReason,
  fromAimError,
  runError,
} from "../../bridge/acp/errors.ts";
import { RUN_PROBLEM_STATUS, RunProblem, type RunProblemCode } from "../../bridge/runs/run.ts";
import { errorBody } from "../../bridge/a2a/task.ts";

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
    for (const [name, value] of Object.entries(PRIVATE_HEADERS)) {
      assert.equal(res.headers.get(name), value, `${code}: ${name}`);
    }
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

Deno.test("aim's private headers are never cached, vary with the credentials and are not sniffed", () => {
  assert.deepEqual(PRIVATE_HEADERS, {
    "Cache-Control": "private, no-store",
    "Vary": "Cookie, Authorization",
    "X-Content-Type-Options": "nosniff",
  });
  // An error's own header wins over aim's.
  const res = new AimError("not_found", "Gone.", { headers: { "Cache-Control": "no-cache" } })
    .getResponse();
  assert.equal(res.headers.get("Cache-Control"), "no-cache");
});

Deno.test("every ACP reason answers with the status and code of its tables, as an HTTPException", async () => {
  const reasons = Object.keys(ACP_STATUS) as AcpReason[];
  assert.deepEqual(reasons.toSorted(), Object.keys(ACP_CODES).toSorted());
  for (const reason of reasons) {
    const error = new AcpHttpError(reason, "Something to act on.", {
      headers: { "Retry-After": "2" },
    });
    assert.ok(error instanceof HTTPException);
    assert.deepEqual([error.status, error.code, error.reason], [
      ACP_STATUS[reason],
      ACP_CODES[reason],
      reason,
    ]);
    const res = error.getResponse();
    assert.equal(res.status, ACP_STATUS[reason]);
    assert.equal(res.headers.get("Retry-After"), "2");
    for (const [name, value] of Object.entries(PRIVATE_HEADERS)) {
      assert.equal(res.headers.get(name), value, `${reason}: ${name}`);
    }
    assert.deepEqual(await res.json(), {
      code: ACP_CODES[reason],
      message: "Something to act on.",
      data: null,
    });
  }
});

Deno.test("over ACP an AIM code keeps its status, but a body ACP cannot read is 422 as the reference answers", () => {
  for (const code of ERROR_CODES) {
    assert.equal(ACP_STATUS[code], code === "bad_request" ? 422 : ERROR_STATUS[code], code);
  }
  assert.deepEqual([ACP_STATUS.run_refused, ACP_STATUS.run_elsewhere], [403, 503]);
  const acp = fromAimError(
    new AimError("too_many_requests", "Wait.", { headers: { "Retry-After": "5" } }),
  );
  assert.deepEqual([acp.status, acp.code, acp.headers], [429, "server_error", {
    "Retry-After": "5",
  }]);
  assert.deepEqual(acp.data, { error: "too_many_requests", status: 429 });
  assert.equal(fromAimError(new AimError("bad_request", "Unreadable.")).status, 422);
});

Deno.test("a run's own problem takes its status from one table, told by ACP and A2A alike", () => {
  const codes = Object.keys(RUN_PROBLEM_STATUS) as RunProblemCode[];
  assert.deepEqual(codes, ["run_deadline", "output_too_large", "instance_stopped"]);
  assert.deepEqual(Object.values(RUN_PROBLEM_STATUS), [504, 507, 502]);
  for (const code of codes) {
    const problem = new RunProblem(code, "Told.", { limit: 1 });
    assert.equal(problem.status, RUN_PROBLEM_STATUS[code]);
    assert.deepEqual(runError(problem), {
      code: "server_error",
      message: "Told.",
      data: { error: code, status: RUN_PROBLEM_STATUS[code], limit: 1 },
    });
    assert.deepEqual(errorBody(problem), { limit: 1, error: code, message: "Told." });
  }
});
