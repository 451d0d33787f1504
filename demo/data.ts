/**
 * The demo's data in SQLite (`node:sqlite`): expense requests, their comments and the
 * demo users, created and seeded on first run.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import {
  hashPassword,
  type Identity,
  rejectUnknownUser,
  type UserStore,
  verifyPassword,
} from "../bridge/mod.ts";

/** The status of an expense request. */
export type RequestStatus = "pending" | "approved" | "rejected";

/** One comment on a request. */
export interface RequestComment {
  author: string;
  text: string;
  at: string;
}

/** One expense request. */
export interface ExpenseRequest {
  id: string;
  amount: number;
  currency: string;
  requester: string;
  purpose: string;
  status: RequestStatus;
  decided_by: string | null;
  comments: RequestComment[];
}

/** A failure the demo API answers with its status and code. */
export class DemoError extends Error {
  readonly status: 404 | 409;
  readonly code: "not_found" | "conflict";
  constructor(status: 404 | 409, code: "not_found" | "conflict", message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The demo users; their passwords are printed in README.md and on the index page. */
export const DEMO_USERS = [
  { username: "alice", password: "wonderland", name: "Alice Martin" },
  { username: "bob", password: "builder", name: "Bob Stone" },
] as const;

const SEED: Omit<ExpenseRequest, "comments" | "decided_by">[] = [
  {
    id: "req-1",
    amount: 120,
    currency: "EUR",
    requester: "Dana Reyes",
    purpose: "Train to Lyon",
    status: "approved",
  },
  {
    id: "req-2",
    amount: 89.5,
    currency: "EUR",
    requester: "Evan Ito",
    purpose: "Books",
    status: "rejected",
  },
  {
    id: "req-3",
    amount: 4200,
    currency: "EUR",
    requester: "Farah Haddad",
    purpose: "Conference and hotel",
    status: "pending",
  },
  {
    id: "req-4",
    amount: 310,
    currency: "USD",
    requester: "Gus Moreau",
    purpose: "Monitor",
    status: "pending",
  },
  {
    id: "req-5",
    amount: 1575,
    currency: "EUR",
    requester: "Hana Kowalski",
    purpose: "Team offsite catering",
    status: "pending",
  },
];

/** Currencies a new request may use. */
export const CURRENCIES = ["EUR", "USD", "GBP"] as const;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS requests (
  id TEXT PRIMARY KEY,
  amount REAL NOT NULL,
  currency TEXT NOT NULL,
  requester TEXT NOT NULL,
  purpose TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
  decided_by TEXT
);
CREATE TABLE IF NOT EXISTS comments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  request_id TEXT NOT NULL REFERENCES requests (id),
  author TEXT NOT NULL,
  text TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS users (
  username TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  password_hash TEXT NOT NULL
);
`;

/** The demo's database. */
export class DemoStore implements Disposable {
  readonly #db: DatabaseSync;

  private constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Opens the database at `path` (`:memory:` for tests), creating and seeding it. */
  static async open(path: string): Promise<DemoStore> {
    const db = new DatabaseSync(path);
    db.exec("PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;");
    db.exec(SCHEMA);
    // Data folders made before requests had a purpose get the column.
    const columns = db.prepare("PRAGMA table_info(requests)").all().map((c) => String(c.name));
    if (!columns.includes("purpose")) {
      db.exec("ALTER TABLE requests ADD COLUMN purpose TEXT NOT NULL DEFAULT ''");
    }
    const store = new DemoStore(db);
    await store.#seed();
    return store;
  }

  async #seed(): Promise<void> {
    const count = Number(this.#db.prepare("SELECT count(*) AS n FROM requests").get()?.n ?? 0);
    if (count === 0) {
      const insert = this.#db.prepare(
        "INSERT INTO requests (id, amount, currency, requester, purpose, status) VALUES (?, ?, ?, ?, ?, ?)",
      );
      for (const r of SEED) {
        insert.run(r.id, r.amount, r.currency, r.requester, r.purpose, r.status);
      }
    }
    const users = Number(this.#db.prepare("SELECT count(*) AS n FROM users").get()?.n ?? 0);
    if (users === 0) {
      const insert = this.#db.prepare(
        "INSERT INTO users (username, name, password_hash) VALUES (?, ?, ?)",
      );
      for (const u of DEMO_USERS) insert.run(u.username, u.name, await hashPassword(u.password));
    }
  }

  /** Verifies logins against the users table. */
  get users(): UserStore {
    const find = this.#db.prepare("SELECT name, password_hash FROM users WHERE username = ?");
    return {
      verify: async (username: string, password: string): Promise<Identity | null> => {
        const row = find.get(username.toLowerCase());
        if (!row) return await rejectUnknownUser(password);
        const ok = await verifyPassword(password, String(row.password_hash));
        return ok ? { username: username.toLowerCase(), name: String(row.name) } : null;
      },
    };
  }

  #comments(id: string): RequestComment[] {
    return this.#db.prepare(
      "SELECT author, text, at FROM comments WHERE request_id = ? ORDER BY id",
    ).all(id).map((c) => ({ author: String(c.author), text: String(c.text), at: String(c.at) }));
  }

  #row(row: Record<string, unknown>): ExpenseRequest {
    const id = String(row.id);
    return {
      id,
      amount: Number(row.amount),
      currency: String(row.currency),
      requester: String(row.requester),
      purpose: String(row.purpose),
      status: String(row.status) as RequestStatus,
      decided_by: row.decided_by === null ? null : String(row.decided_by),
      comments: this.#comments(id),
    };
  }

  /** Every request, or those of one status. */
  list(status?: RequestStatus): ExpenseRequest[] {
    const rows = status
      ? this.#db.prepare("SELECT * FROM requests WHERE status = ? ORDER BY id").all(status)
      : this.#db.prepare("SELECT * FROM requests ORDER BY id").all();
    return rows.map((row) => this.#row(row));
  }

  /** One request, or a 404 `DemoError`. */
  get(id: string): ExpenseRequest {
    const row = this.#db.prepare("SELECT * FROM requests WHERE id = ?").get(id);
    if (!row) throw new DemoError(404, "not_found", `There is no request "${id}".`);
    return this.#row(row);
  }

  /**
   * Approves or rejects a pending request. The check and the change are one UPDATE, so two
   * decisions at once cannot both win.
   */
  decide(id: string, status: "approved" | "rejected", by: string): ExpenseRequest {
    const changed = this.#db.prepare(
      "UPDATE requests SET status = ?, decided_by = ? WHERE id = ? AND status = 'pending'",
    ).run(status, by, id);
    if (Number(changed.changes) === 1) return this.get(id);
    const current = this.get(id);
    throw new DemoError(
      409,
      "conflict",
      `Request "${id}" is already ${current.status}; only pending requests can be approved or rejected.`,
    );
  }

  /** Files a new pending request; its id is the next `req-N`. */
  create(amount: number, currency: string, purpose: string, requester: string): ExpenseRequest {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const last = this.#db.prepare(
        "SELECT max(CAST(substr(id, 5) AS INTEGER)) AS n FROM requests",
      ).get();
      const id = `req-${Number(last?.n ?? 0) + 1}`;
      this.#db.prepare(
        "INSERT INTO requests (id, amount, currency, requester, purpose, status) VALUES (?, ?, ?, ?, ?, 'pending')",
      ).run(id, amount, currency, requester, purpose);
      this.#db.exec("COMMIT");
      return this.get(id);
    } catch (error) {
      this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  /** Adds a comment to a request. */
  comment(id: string, text: string, author: string): RequestComment {
    this.get(id);
    const at = new Date().toISOString();
    this.#db.prepare("INSERT INTO comments (request_id, author, text, at) VALUES (?, ?, ?, ?)")
      .run(id, author, text, at);
    return { author, text, at };
  }

  /** Closes the database. */
  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
