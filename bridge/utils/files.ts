/**
 * The process's file limit (`RLIMIT_NOFILE`) and the files it holds open, on Linux:
 * every connection is one, and a process past its limit can accept none.
 *
 * @module
 */

/** The soft and hard limit on open files. */
export interface FileLimit {
  soft: number;
  hard: number;
}

/** `RLIMIT_NOFILE` on Linux. */
const RLIMIT_NOFILE = 7;

/**
 * The limit from `/proc/self/limits`; undefined where it cannot be read (Deno lets only a
 * process with every permission read `/proc/self`).
 */
export function fileLimit(): FileLimit | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync("/proc/self/limits");
  } catch {
    return undefined;
  }
  const match = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(text);
  if (!match) return undefined;
  const read = (value: string) => value === "unlimited" ? Infinity : Number(value);
  return { soft: read(match[1]!), hard: read(match[2]!) };
}

/**
 * The files this process holds open now, from `/proc/self/fd`; undefined where it cannot be
 * read.
 */
export function openFiles(): number | undefined {
  try {
    let count = 0;
    for (const _ of Deno.readDirSync("/proc/self/fd")) count++;
    // The directory read held one of them.
    return count - 1;
  } catch {
    return undefined;
  }
}

/**
 * Raises the soft file limit to the hard one, where this process may load libc (`--allow-ffi`
 * granted, on Linux); the limit in force afterwards, or undefined where it cannot be read.
 * Without that permission the limit stays as the shell set it (`ulimit -n`).
 */
export function raiseFileLimit(): FileLimit | undefined {
  const limit = fileLimit();
  if (!limit || limit.soft >= limit.hard || Deno.build.os !== "linux") return limit;
  try {
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return limit;
    const libc = Deno.dlopen("libc.so.6", {
      setrlimit: { parameters: ["i32", "buffer"], result: "i32" },
    });
    try {
      const target = Number.isFinite(limit.hard) ? BigInt(limit.hard) : 0xffffffffffffffffn;
      libc.symbols.setrlimit(RLIMIT_NOFILE, new BigUint64Array([target, target]));
    } finally {
      libc.close();
    }
  } catch {
    // No libc to load, or no permission: the limit stays.
  }
  return fileLimit();
}
