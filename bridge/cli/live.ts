/**
 * Reading a live app's pages for `aim check URL` and `aim manifest URL`: one bounded GET per
 * page, with only the headers the user gives (a cookie for pages behind a login).
 * @module
 */
import { sitemapPaths } from "../upstream/sitemap.ts";
import { CliError, Exit } from "./common.ts";

/** The largest page read, bytes. */
export const MAX_LIVE_BYTES = 4 << 20;
/** How long one read may take, ms. */
export const LIVE_TIMEOUT_MS = 15_000;
/** Pages of a sitemap.xml checked at most. */
export const MAX_LIVE_PAGES = 200;

/** Whether a command-line target is a URL rather than a file. */
export function isUrl(target: string): boolean {
  return /^https?:\/\//i.test(target);
}

/** `Name: value` options as headers. */
export function headersOf(options: string[] | undefined): Headers {
  const headers = new Headers();
  for (const option of options ?? []) {
    const colon = option.indexOf(":");
    if (colon < 1) {
      throw new CliError(`--header must be "Name: value", got "${option}"`, Exit.Usage);
    }
    try {
      headers.append(option.slice(0, colon).trim(), option.slice(colon + 1).trim());
    } catch {
      throw new CliError(`--header "${option}" is not a valid header`, Exit.Usage);
    }
  }
  return headers;
}

/** The text of a URL: 200 only, at most {@linkcode MAX_LIVE_BYTES}, redirects not followed. */
export async function fetchText(url: string, headers: Headers): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, {
      headers,
      redirect: "manual",
      signal: AbortSignal.timeout(LIVE_TIMEOUT_MS),
    });
  } catch (error) {
    throw new CliError(`cannot read ${url}: ${error instanceof Error ? error.message : error}`);
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    const where = res.headers.get("location");
    throw new CliError(
      `${url} answered ${res.status}${
        where ? ` (to ${where}; a page behind a login needs --header "Cookie: …")` : ""
      }`,
    );
  }
  const body = new Uint8Array(await res.arrayBuffer());
  if (body.length > MAX_LIVE_BYTES) throw new CliError(`${url} is over ${MAX_LIVE_BYTES} bytes`);
  return new TextDecoder().decode(body);
}

/** The page URLs of a target: itself, or the pages a `sitemap.xml` lists on its origin. */
export async function pageUrls(url: string, headers: Headers): Promise<string[]> {
  const parsed = new URL(url);
  if (!parsed.pathname.endsWith("/sitemap.xml")) return [parsed.href];
  const xml = await fetchText(url, headers);
  return sitemapPaths(xml, { origins: [parsed.origin], max: MAX_LIVE_PAGES })
    .map((path) => parsed.origin + path);
}
