/**
 * AuditLog: every invocation recorded in SQLite (`node:sqlite`), kept across restarts
 * when on disk, and read back per session only. Refused calls are written one by one up to a
 * rate per session and per client address; past it they are counted, and one entry says how
 * many were left out.
 *
 * @module
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import type { InvocationRecord } from "../core/bridge.ts";
import { BoundedMap } from "../utils/bounded_map.ts";

/** One entry as a session reads it back. */
export interface AuditEntry {
  /** When it was answered (ISO 8601). */
  at: string;
  /** The session's public id (never its token). */
  session: string;
  /** Who was signed in on the session, or null. */
  username: string | null;
  /** The page the session was on. */
  page: string;
  /** The action invoked. */
  actionId: string;
  /** The input, with keys that look like secrets removed. */
  input: unknown;
  /** The HTTP status the invocation was answered with. */
  status: number;
  /** `ok`, or the error code it was answered with. */
  outcome: string;
  /** How long it took, in milliseconds. */
  durationMs: number;
  /**
   * Who ran it: `"bridge"` for an agent's invocation through the bridge (HTTP, MCP, ACP),
   * `"webmcp"` for an agent in the browser, through the page's WebMCP tools.
   */
  via: "bridge" | "webmcp";
  /**
   * `"site_owner"` when a page's tool ran without asking the person on the site owner's word
   * alone (`<aim-tool read-only>`, the tool itself saying no `readOnlyHint`); absent otherwise.
   */
  read_only_by?: "site_owner";
}

/** An input as the log keeps it: its JSON, unless too long to keep. */
function keptInput(input: unknown): string {
  const text = JSON.stringify(input ?? null);
  return text.length > MAX_INPUT_CHARS ? JSON.stringify("[input too long to keep]") : text;
}

/** The entry the log shows for a record (what a shared store keeps of it, too). */
export function auditEntry(record: InvocationRecord): AuditEntry {
  return {
    at: record.at.toISOString(),
    session: record.sessionId.slice(0, 8),
    username: record.username,
    page: record.page,
    actionId: record.actionId,
    input: JSON.parse(keptInput(record.input)),
    status: record.status,
    outcome: record.outcome,
    durationMs: record.durationMs,
    via: record.via ?? "bridge",
    ...(record.readOnlyBy ? { read_only_by: record.readOnlyBy } : {}),
  };
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  session_id TEXT NOT NULL,
  username TEXT,
  page TEXT NOT NULL,
  action_id TEXT NOT NULL,
  input TEXT NOT NULL,
  status INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  duration_ms REAL NOT NULL,
  via TEXT NOT NULL DEFAULT 'bridge',
  read_only_by TEXT
);
CREATE INDEX IF NOT EXISTS audit_session ON audit (session_id, id);
`;

/** Largest input kept per entry, as JSON text. */
const MAX_INPUT_CHARS = 4096;

/** The action id of an entry that counts refused calls left out. */
export const REFUSALS_ACTION_ID = "(refused calls)";

/** The window over which refused calls are counted, ms. */
const REFUSAL_WINDOW_MS = 60_000;

/** Sessions and client addresses whose refusals are counted at once, at most. */
const REFUSAL_KEYS = 10_000;

/** Refused calls of one key (session or client address) in the current window. */
interface RefusalCount {
  start: number;
  written: number;
}

/** Refused calls of a session left out, since when. */
interface LeftOut {
  count: number;
  since: number;
}

/** Options of {@linkcode AuditLog}. */
export interface AuditLogOptions {
  /**
   * Days an entry is kept; older ones are deleted when the log opens and every hour after.
   * `Infinity` keeps everything.
   *
   * @default {90}
   */
  retentionDays?: number | undefined;
  /**
   * Refused calls (status 400 and above) written one by one per minute: per session, and per
   * client address whatever the session. Past either, a refused call is only counted, and the
   * session's next entry written (or the log closing) is preceded by one entry, action
   * `"(refused calls)"`, outcome `not_recorded`, whose input is `{"count", "since"}`.
   *
   * @default {{ perSession: 20, perClient: 100 }}
   */
  maxRefusals?: { perSession: number; perClient: number } | undefined;
  /** The clock; without it, `Date.now`. */
  now?: () => number;
  /**
   * Called when entries could not be written (a full disk): they are kept, up to
   * {@linkcode MAX_UNWRITTEN}, and written with the next ones.
   */
  onError?: ((error: unknown) => void) | undefined;
}

/** Entries kept while the log cannot be written; past this many, the oldest go. */
export const MAX_UNWRITTEN = 1000;

/** The default of {@linkcode AuditLogOptions.retentionDays}. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 90;

/** The defaults of {@linkcode AuditLogOptions}, as its `@default` tags say. */
export const AUDIT_DEFAULTS: {
  readonly retentionDays: number;
  readonly maxRefusals: { readonly perSession: number; readonly perClient: number };
} = {
  retentionDays: DEFAULT_AUDIT_RETENTION_DAYS,
  maxRefusals: { perSession: 20, perClient: 100 },
};

const DAY_MS = 24 * 60 * 60 * 1000;

/** The audit trail of a bridge. */
export class AuditLog implements Disposable {
  readonly #db: DatabaseSync;
  readonly #insert: StatementSync;
  readonly #bySession: StatementSync;
  readonly #prune: StatementSync;
  readonly #retentionMs: number;
  readonly #now: () => number;
  readonly #maxRefusals: { perSession: number; perClient: number };
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #refusals = new BoundedMap<string, RefusalCount>(REFUSAL_KEYS);
  readonly #leftOut = new BoundedMap<string, LeftOut & { last: InvocationRecord }>(REFUSAL_KEYS);
  #pruner: ReturnType<typeof setInterval> | undefined;
  /** Rows recorded but not yet written, and the timer that writes them. */
  #pending: SQLInputValue[][] = [];
  #flusher: ReturnType<typeof setTimeout> | undefined;

  /** Opens (and creates) the log at `path`; `:memory:` keeps it in memory. */
  constructor(path = ":memory:", options: AuditLogOptions = {}) {
    const days = options.retentionDays ?? AUDIT_DEFAULTS.retentionDays;
    if (!(days > 0)) throw new RangeError("The audit retention must be a positive number of days");
    this.#retentionMs = days * DAY_MS;
    this.#now = options.now ?? Date.now;
    this.#maxRefusals = options.maxRefusals ?? AUDIT_DEFAULTS.maxRefusals;
    this.#onError = options.onError;
    this.#db = new DatabaseSync(path);
    // WAL with `synchronous = NORMAL`: a commit is not flushed to disk (that was 1.2–1.6 ms of
    // every invocation, bench/invoke_bench.ts); only an OS crash or power loss may lose the last
    // entries, and a crash of the bridge those of its last turn (see #write).
    this.#db.exec(
      "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;",
    );
    this.#db.exec(SCHEMA);
    // A log written before runs in the browser were recorded gains the column they need.
    const columns = this.#db.prepare("PRAGMA table_info(audit)").all().map((c) => c.name);
    if (!columns.includes("via")) {
      this.#db.exec("ALTER TABLE audit ADD COLUMN via TEXT NOT NULL DEFAULT 'bridge'");
    }
    if (!columns.includes("read_only_by")) {
      this.#db.exec("ALTER TABLE audit ADD COLUMN read_only_by TEXT");
    }
    this.#insert = this.#db.prepare(
      `INSERT INTO audit (at, session_id, username, page, action_id, input, status, outcome, duration_ms, via, read_only_by)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#bySession = this.#db.prepare(
      `SELECT at, session_id, username, page, action_id, input, status, outcome, duration_ms, via, read_only_by
       FROM audit WHERE session_id = ? ORDER BY id DESC LIMIT ?`,
    );
    // ISO 8601 times in UTC sort as text.
    this.#prune = this.#db.prepare("DELETE FROM audit WHERE at < ?");
    if (Number.isFinite(this.#retentionMs)) {
      this.prune();
      this.#pruner = setInterval(() => this.prune(), 60 * 60 * 1000);
      Deno.unrefTimer(this.#pruner as unknown as number);
    }
  }

  /** Deletes the entries older than the retention; returns how many went. */
  prune(): number {
    if (!Number.isFinite(this.#retentionMs) || !this.#db.isOpen) return 0;
    this.flush();
    const cutoff = new Date(this.#now() - this.#retentionMs).toISOString();
    return Number(this.#prune.run(cutoff).changes);
  }

  /**
   * Records one invocation; its input must already be redacted. A refused one past the rate of
   * its session or client is only counted (see {@linkcode AuditLogOptions.maxRefusals}).
   */
  record(entry: InvocationRecord): void {
    if (entry.status >= 400 && !this.#admitRefusal(entry)) {
      const left = this.#leftOut.get(entry.sessionId);
      if (left) {
        left.count++;
        left.last = entry;
      } else {
        this.#leftOut.set(entry.sessionId, { count: 1, since: this.#now(), last: entry });
      }
      return;
    }
    this.#writeLeftOut(entry.sessionId);
    this.#write(entry);
  }

  /** Whether a refused call may be written, counting it against its session and client. */
  #admitRefusal(entry: InvocationRecord): boolean {
    const now = this.#now();
    const keys: [string, number][] = [[`s:${entry.sessionId}`, this.#maxRefusals.perSession]];
    if (entry.client !== undefined) keys.push([`c:${entry.client}`, this.#maxRefusals.perClient]);
    const counts = keys.map(([key, max]) => {
      let count = this.#refusals.get(key);
      if (!count || now - count.start >= REFUSAL_WINDOW_MS) {
        count = { start: now, written: 0 };
        this.#refusals.delete(key);
        this.#refusals.set(key, count);
      }
      return { count, max };
    });
    if (counts.some(({ count, max }) => count.written >= max)) return false;
    for (const { count } of counts) count.written++;
    return true;
  }

  /** Writes the entry that counts the session's refused calls left out, if any. */
  #writeLeftOut(sessionId: string): void {
    const left = this.#leftOut.get(sessionId);
    if (!left) return;
    this.#leftOut.delete(sessionId);
    this.#write({
      at: new Date(this.#now()),
      sessionId,
      username: left.last.username,
      page: left.last.page,
      actionId: REFUSALS_ACTION_ID,
      input: { count: left.count, since: new Date(left.since).toISOString() },
      status: 429,
      outcome: "not_recorded",
      durationMs: 0,
    });
  }

  /**
   * Queues the entry's row, written with the others of the same turn in one transaction once
   * the event loop turns: after the agent's answer is on its way, not before it (a file write
   * is 0.1 ms of every invocation). Reads, pruning and closing write the queue first.
   */
  #write(entry: InvocationRecord): void {
    const input = keptInput(entry.input);
    this.#flusher ??= setTimeout(() => {
      try {
        this.flush();
      } catch (error) {
        this.#onError?.(error);
      }
    }, 0);
    this.#pending.push([
      entry.at.toISOString(),
      entry.sessionId,
      entry.username,
      entry.page,
      entry.actionId,
      input,
      entry.status,
      entry.outcome,
      entry.durationMs,
      entry.via ?? "bridge",
      entry.readOnlyBy ?? null,
    ]);
  }

  /**
   * Writes the entries recorded so far (they are written on the next turn anyway).
   *
   * @throws the database's error when they could not be written; they are kept for the next try.
   */
  flush(): void {
    clearTimeout(this.#flusher);
    this.#flusher = undefined;
    if (!this.#pending.length || !this.#db.isOpen) return;
    const rows = this.#pending;
    this.#pending = [];
    try {
      this.#db.exec("BEGIN");
      for (const row of rows) this.#insert.run(...row);
      this.#db.exec("COMMIT");
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      this.#pending = [...rows, ...this.#pending].slice(-MAX_UNWRITTEN);
      throw error;
    }
  }

  /** The newest entries of one session, newest first. */
  forSession(sessionId: string, limit = 100): AuditEntry[] {
    this.flush();
    return this.#bySession.all(sessionId, limit).map((row) => ({
      at: String(row.at),
      session: String(row.session_id).slice(0, 8),
      username: row.username === null ? null : String(row.username),
      page: String(row.page),
      actionId: String(row.action_id),
      input: JSON.parse(String(row.input)),
      status: Number(row.status),
      outcome: String(row.outcome),
      durationMs: Number(row.duration_ms),
      via: row.via === "webmcp" ? "webmcp" : "bridge",
      ...(row.read_only_by === "site_owner" ? { read_only_by: "site_owner" as const } : {}),
    }));
  }

  /** Closes the database, after writing how many refused calls were left out. */
  close(): void {
    clearInterval(this.#pruner);
    if (!this.#db.isOpen) return;
    for (const sessionId of [...this.#leftOut.keys()]) this.#writeLeftOut(sessionId);
    this.flush();
    this.#db.close();
  }

  /** Closes the log (`using`). */
  [Symbol.dispose](): void {
    this.close();
  }
}
