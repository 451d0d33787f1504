/**
 * Test helper: one HTTP/1.1 request written byte for byte on a TCP socket, so that a request
 * target reaches the server as spelled (`fetch` resolves `..`, `%2e` and `\` before sending).
 * @module
 */

/** One request, written as given. */
export interface RawRequest {
  method?: string | undefined;
  /** The request target, as sent: `/x/..;/__aim/tab`. */
  target: string;
  /** Header lines, in order; repeated names are sent repeated. `Host` is added when missing. */
  headers?: [string, string][] | undefined;
  body?: string | undefined;
}

/** What came back. */
export interface RawAnswer {
  status: number;
  /** The status line and headers, as received. */
  head: string;
  body: string;
  /** The first value of a response header, case-insensitive; null when missing. */
  header(name: string): string | null;
}

/** The most of an answer read. */
const LIMIT = 1024 * 1024;

/** Sends `request` to 127.0.0.1:`port` with `Connection: close` and reads the answer to its end. */
export async function rawRequest(port: number, request: RawRequest): Promise<RawAnswer> {
  const headers = request.headers ?? [];
  const has = (name: string) => headers.some(([key]) => key.toLowerCase() === name);
  const lines = [
    `${request.method ?? "GET"} ${request.target} HTTP/1.1`,
    ...(has("host") ? [] : [`Host: 127.0.0.1:${port}`]),
    ...headers.map(([key, value]) => `${key}: ${value}`),
    ...(request.body === undefined
      ? []
      : [`Content-Length: ${new TextEncoder().encode(request.body).length}`]),
    "Connection: close",
    "",
    request.body ?? "",
  ];
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    await conn.write(new TextEncoder().encode(lines.join("\r\n")));
    const buffer = new Uint8Array(64 * 1024);
    while (size < LIMIT) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      chunks.push(buffer.slice(0, n));
      size += n;
    }
  } finally {
    conn.close();
  }
  const text = new TextDecoder().decode(
    chunks.reduce((all, chunk) => {
      const joined = new Uint8Array(all.length + chunk.length);
      joined.set(all);
      joined.set(chunk, all.length);
      return joined;
    }, new Uint8Array()),
  );
  const split = text.indexOf("\r\n\r\n");
  const head = split < 0 ? text : text.slice(0, split);
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
  return {
    status,
    head,
    body: split < 0 ? "" : text.slice(split + 4),
    header(name) {
      const match = new RegExp(`^${name}:[ \\t]*(.*)$`, "im").exec(head);
      return match ? match[1]!.trim() : null;
    },
  };
}
