/**
 * aim beside the web server (bridge/upstream/beside.ts): a request carrying `X-Aim-Beside`, in any
 * case, asks aim to hand back what is not its own; aim answers those 421 `misdirected`.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  BESIDE_HEADER,
  handsBack,
  misdirected,
  MISDIRECTED_STATUS,
} from "../../bridge/upstream/beside.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";

Deno.test("the web server asks with X-Aim-Beside, aim hands back with 421", () => {
  assert.equal(BESIDE_HEADER, "X-Aim-Beside");
  assert.equal(MISDIRECTED_STATUS, 421);
});

Deno.test("handsBack() is true when the header is there, in any case and with any value", () => {
  for (const name of ["X-Aim-Beside", "x-aim-beside", "X-AIM-BESIDE"]) {
    for (const value of ["1", "0", ""]) {
      const request = new Request("http://app/", { headers: { [name]: value } });
      assert.equal(handsBack(request), true, `${name}: ${value}`);
    }
  }
  assert.equal(handsBack(new Request("http://app/")), false);
  assert.equal(handsBack(new Request("http://app/", { headers: { "X-Aim": "1" } })), false);
});

Deno.test("misdirected() answers 421 misdirected, naming the header, with the private headers", async () => {
  const error = misdirected();
  assert.ok(error instanceof AimError);
  assert.equal(error.status, MISDIRECTED_STATUS);
  const res = error.getResponse();
  assert.equal(res.status, 421);
  assert.equal(res.headers.get("cache-control"), "private, no-store");
  const body = await res.json();
  assert.equal(body.error, "misdirected");
  assert.match(body.message, /X-Aim-Beside/);
});
