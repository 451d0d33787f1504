/**
 * Resolving URL paths to files inside the site root, and page paths to pages:
 * `..`, encoded dots, dotfiles and symlinks out of the root are refused.
 *
 * @module
 */
import { BoundedMap } from "../utils/bounded_map.ts";
import { join, sep as SEPARATOR } from "node:path";

const pages = new BoundedMap<string, string | null>(1024);

/** A page path: `/`, `/control-panel`, `/docs/intro`; null when `path` cannot be one. */
export function normalizePage(path: string): string | null {
  // Pure and on every manifest request: remembered for the paths seen most.
  let page = pages.get(path);
  if (page !== undefined) return page;
  page = computePage(path);
  pages.set(path, page);
  return page;
}

function computePage(path: string): string | null {
  if (!path.startsWith("/") || path.length > 2048) return null;
  let page = path.replace(/\/index(\.html?)?$/, "/").replace(/\.html?$/, "");
  if (page.length > 1) page = page.replace(/\/+$/, "");
  if (page === "") page = "/";
  return segments(page) ? page : null;
}

export { manifestPath } from "../wire/names.ts";

/**
 * The path a page works at: a folder's page (`docs/index.html`, the page `/docs`) at `/docs/`,
 * with the slash its relative URLs need (the bridge redirects `/docs` there).
 */
export function pageLocation(page: string, file: string): string {
  return page !== "/" && /[\\/]index\.html?$/.test(file) ? `${page}/` : page;
}

/** The safe segments of a decoded path, or null when a segment is not allowed. */
export function segments(path: string): string[] | null {
  if (path.includes("\0") || path.includes("\\")) return null;
  const parts = path.split("/").filter((s) => s !== "");
  for (const part of parts) {
    // `.` and `..`, and dotfiles such as `.git` or `.env`, are never served.
    if (part.startsWith(".")) return null;
  }
  return parts;
}

/** Decodes a URL path; null when the encoding is invalid. */
export function decodePath(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** The site root and the files in it. */
export class SiteRoot {
  readonly path: string;
  #real: string;

  constructor(path: string) {
    this.#real = Deno.realPathSync(path);
    this.path = this.#real;
  }

  /**
   * The real path of an existing regular file at decoded `urlPath` inside the root, trying
   * `urlPath`, then `urlPath.html`, then `urlPath/index.html`; null otherwise.
   */
  async file(urlPath: string, options: { cleanUrls?: boolean } = {}): Promise<string | null> {
    const parts = segments(urlPath);
    if (!parts) return null;
    const base = join(this.#real, ...parts);
    const candidates = [base];
    if (options.cleanUrls !== false) {
      const last = parts.at(-1);
      if (last !== undefined && !/\.[A-Za-z0-9]+$/.test(last)) {
        candidates.push(`${base}.html`);
      }
      candidates.push(join(base, "index.html"));
    }
    for (const candidate of candidates) {
      const real = await this.#confined(candidate);
      if (real) return real;
    }
    return null;
  }

  /** The HTML file of a page path, or null. */
  async pageFile(page: string): Promise<string | null> {
    if (page === "/") return await this.file("/index.html", { cleanUrls: false });
    return await this.file(`${page}.html`, { cleanUrls: false }) ??
      await this.file(`${page}/index.html`, { cleanUrls: false });
  }

  async #confined(candidate: string): Promise<string | null> {
    try {
      const real = await Deno.realPath(candidate);
      if (real !== this.#real && !real.startsWith(this.#real + SEPARATOR)) return null;
      const info = await Deno.stat(real);
      return info.isFile ? real : null;
    } catch {
      return null;
    }
  }

  /** Every HTML file under the root (symlinks out of the root left out), as page paths. */
  async pages(): Promise<string[]> {
    const out: string[] = [];
    const walk = async (dir: string, prefix: string, depth: number) => {
      if (depth > 16) return;
      for await (const entry of Deno.readDir(dir)) {
        if (entry.name.startsWith(".")) continue;
        const full = join(dir, entry.name);
        const real = await this.#confinedAny(full);
        if (!real) continue;
        const info = await Deno.stat(real);
        if (info.isDirectory) await walk(full, `${prefix}/${entry.name}`, depth + 1);
        else if (info.isFile && /\.html$/.test(entry.name)) {
          const page = normalizePage(`${prefix}/${entry.name}`);
          if (page && !out.includes(page)) out.push(page);
        }
      }
    };
    await walk(this.#real, "", 0);
    return out.sort();
  }

  async #confinedAny(path: string): Promise<string | null> {
    try {
      const real = await Deno.realPath(path);
      return real === this.#real || real.startsWith(this.#real + SEPARATOR) ? real : null;
    } catch {
      return null;
    }
  }
}
