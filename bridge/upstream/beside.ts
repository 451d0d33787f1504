/**
 * aim beside the site's web server (docs/upstream.md, "Production: aim beside your web server"):
 * the web server sends aim the requests that may be aim's with `X-Aim-Beside: 1`, asking aim to
 * answer those that are not its own with 421 `misdirected` rather than forward them: the web
 * server then sends them to the app itself, so that aim carries none of the app's traffic. A
 * request that carries a credential aim may have issued comes without it, and aim forwards it,
 * its credentials removed, as in front of the app.
 *
 * @module
 */
import { AimError } from "../errors/aim_error.ts";

/** The request header by which the web server in front asks aim to hand back what is not aim's. */
export const BESIDE_HEADER = "X-Aim-Beside";

/** The status of aim's answer to a request it hands back: 421 Misdirected Request. */
export const MISDIRECTED_STATUS = 421;

/** Whether the web server in front sends `request` to the app itself when aim does not claim it. */
export function handsBack(request: Request): boolean {
  return request.headers.has(BESIDE_HEADER);
}

/** aim's answer to a request it would forward to the app, when the web server asked for it. */
export function misdirected(): AimError {
  return new AimError(
    "misdirected",
    `This request names none of aim's routes: the web server in front of aim (${BESIDE_HEADER}) ` +
      "sends it to the app.",
  );
}
