import { sql } from "kysely";
import type { PostgresPool, PostgresPoolClient } from "kysely";
import pg from "pg";
import { perConnection } from "./per-connection.js";

const MARK = "/* write later */";

/**
 * Ends a write whose result nobody reads (`.modifyEnd(WRITE_LATER)`): inside a transaction on
 * PostgreSQL it is sent with the connection's next statement instead of on its own
 * (`withWriteBehind`). Elsewhere, and on SQLite, it is an ordinary statement.
 */
export const WRITE_LATER = sql.raw(MARK);

/** A text that opens a transaction, one that ends it, and one that undoes writes (`rollback [to savepoint …]`). */
const OPENS = /^\s*begin\b/i;
const ENDS = /\b(commit|rollback)\s*$/i;
const ROLLS_BACK = /^\s*rollback\b/i;

/** What a write kept for later answers its caller: no rows, no count (nobody reads them). */
const NOTHING_YET = { command: null, rowCount: null, rows: [] };

type Primitive = string | number | bigint | boolean | null | undefined;

function isPrimitive(value: unknown): value is Primitive {
  if (value === null || value === undefined || typeof value === "bigint" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  // A NUL cannot be in a text of the simple protocol (it ends the string); as a parameter,
  // PostgreSQL refuses it with its own error.
  return typeof value === "string" && !value.includes("\0");
}

/**
 * Most characters of values a statement may have to be written with literals. `pg.escapeLiteral`
 * takes about 5 ns a character (16 KiB: 75 µs, about what the round trip it saves costs) and more
 * on long texts (a 2.5 MB document: 130 ms, all of it on the event loop); a bigger statement, a
 * big document's write say, is sent as it is, with parameters.
 */
const MAX_LITERAL_CHARS = 16 * 1024;

/** Quoted identifiers, parameters, and what could hide a parameter's place: a literal, a comment, a dollar quote, an escape. */
const TOKENS = /("(?:[^"]|"")*")|\$(\d+)|('|"|--|\/\*|\$\$|\\)/g;

/**
 * The statement with its parameters written in as literals, as PostgreSQL would have taken them:
 * `pg` sends a string, number or boolean parameter as its text, untyped, and an untyped literal is
 * typed the same way. Literals are escaped by `pg` itself. Undefined, and the statement is sent as
 * it is, when a value is of a kind `pg` converts in ways of its own (dates, buffers, arrays,
 * objects), when the values are long (`MAX_LITERAL_CHARS`), or when the text has anything but
 * quoted identifiers besides its parameters that a `$n` could stand in (literals, comments, dollar
 * quotes): Kysely writes every value as a parameter, so Steward's statements have none of these,
 * and a text that did is not rewritten.
 */
export function withLiterals(text: string, parameters: ReadonlyArray<unknown>): string | undefined {
  if (!parameters.every(isPrimitive)) return undefined;
  if (parameters.reduce<number>((sum, p) => sum + (typeof p === "string" ? p.length : 0), 0) > MAX_LITERAL_CHARS) return undefined;
  let plain = true;
  const written = text.replace(TOKENS, (whole, identifier: string | undefined, n: string | undefined) => {
    if (identifier !== undefined) return whole;
    if (n === undefined || Number(n) < 1 || Number(n) > parameters.length) {
      plain = false;
      return whole;
    }
    const value = parameters[Number(n) - 1] as Primitive;
    return value === null || value === undefined ? "null" : pg.escapeLiteral(String(value));
  });
  return plain ? written : undefined;
}

/** Statements as one text PostgreSQL runs one after another; each ends in `;`, so none is prepared (pg-statements.ts). */
const asOneText = (statements: string[]) => statements.map((s) => `${s};`).join("\n");

/**
 * Write-behind for PostgreSQL transactions. Every statement is a round trip, which on a small
 * machine costs both processes CPU as well as time: a catalog change was five of them (`begin`
 * with the append lock, read, write, append its events, `commit` with the notifications) where a
 * PUT that changes nothing is three. Inside a transaction a write marked `WRITE_LATER` is kept and
 * sent in front of the connection's next statement, in one text: a read then goes with the write
 * before it, and the last writes with the events' append, the notifications and the commit. A
 * change costs the round trips of a PUT that changes nothing.
 *
 * Order is kept: every statement is sent after every write before it, in the same text. What
 * changes is when a write's error is heard: with the statement it went with. A failed write aborts
 * the transaction, so the later statement fails too, and the transaction's owner must take that as
 * the failure of all its work so far (group commit does: it runs each change again, alone). A
 * rollback drops the writes not yet sent, which it would undo anyway; `savepoint` sends them first,
 * so those a `rollback to savepoint` drops were all made after it.
 *
 * The statement that carries the writes is written with literals (`withLiterals`), so it is not
 * prepared: PostgreSQL parses it each time, which costs it less than the round trip it saves. A
 * statement that cannot be so written sends the writes ahead on their own.
 */
export function withWriteBehind(pool: PostgresPool): PostgresPool {
  // One wrapper per connection (per-connection.ts); what it holds is reset whenever it is released.
  const wrapperOf = perConnection(writingBehind);
  return {
    connect: async () => wrapperOf(await pool.connect()),
    end: () => pool.end(),
  };
}

/** `client` with its marked writes kept until its next statement (`withWriteBehind`). */
function writingBehind(client: PostgresPoolClient): PostgresPoolClient {
  let pending: string[] = [];
  let inTransaction = false;
  const take = () => {
    const writes = pending;
    pending = [];
    return writes;
  };
  const query = async (text: unknown, parameters?: ReadonlyArray<unknown>): Promise<unknown> => {
    if (typeof text !== "string") {
      if (pending.length > 0) await client.query(asOneText(take()), []);
      return client.query(text as never);
    }
    const values = parameters ?? [];
    if (inTransaction && text.endsWith(MARK)) {
      const write = withLiterals(text.slice(0, -MARK.length).trimEnd(), values);
      if (write !== undefined) {
        pending.push(write);
        return NOTHING_YET;
      }
    }
    if (OPENS.test(text)) inTransaction = true;
    else if (ENDS.test(text)) inTransaction = false;
    if (ROLLS_BACK.test(text)) pending = [];
    if (pending.length === 0) return client.query(text, values as unknown[]);
    const statement = values.length === 0 ? text : withLiterals(text, values);
    if (statement === undefined) {
      await client.query(asOneText(take()), []);
      return client.query(text, values as unknown[]);
    }
    const results = (await client.query(asOneText([...take(), statement]), [])) as unknown as pg.QueryResult[];
    // One result per statement; the caller's is the last.
    return results[results.length - 1];
  };
  return {
    query: query as unknown as PostgresPoolClient["query"],
    release: () => {
      // A transaction left without commit or rollback keeps nothing it did not send.
      pending = [];
      inTransaction = false;
      client.release();
    },
  };
}

/**
 * Whether PostgreSQL itself refused a statement (an error it answered), as opposed to the
 * connection failing: a refused commit committed nothing, wherever in its text the error arose.
 */
export function refusedByPostgres(error: unknown): boolean {
  return error instanceof pg.DatabaseError;
}
