import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MysqlConnections } from "../../src/connectors/mysql/connections.js";
import { MYSQL_SOCKET, mysqlTestConfig } from "./support.js";

/**
 * The MariaDB connector keeps one connection per server between pieces of work (docs/consumers.md,
 * "Connections"), opens a new one when the server ended it, and ends it on close.
 */
describe("MariaDB connector connections", () => {
  let admin: mysql.Connection;
  let connections: MysqlConnections;
  const signal = new AbortController().signal;
  const id = (run: (sql: string) => Promise<Array<Record<string, unknown>>>) => run("SELECT CONNECTION_ID() AS id").then((rows) => Number(rows[0]!.id));
  const alive = async (connectionId: number) => {
    const [rows] = await admin.query("SELECT 1 FROM information_schema.PROCESSLIST WHERE ID = ?", [connectionId]);
    return (rows as unknown[]).length > 0;
  };

  beforeAll(async () => {
    admin = await mysql.createConnection({ socketPath: MYSQL_SOCKET, user: "root" });
    connections = new MysqlConnections(mysqlTestConfig("unused_db", "owner", "unused_masks", "unused_ledger"));
  });

  afterAll(async () => {
    await connections?.close();
    await admin?.end();
  });

  it("does one piece of work after another on the same connection", async () => {
    const first = await connections.with("mariadb", signal, id);
    expect(await connections.with("mariadb", signal, id)).toBe(first);
  });

  it("gives a connection up after a failed statement", async () => {
    const before = await connections.with("mariadb", signal, id);
    await expect(connections.with("mariadb", signal, (run) => run("SELECT * FROM no_such_database.no_such_table"))).rejects.toThrow();
    expect(await connections.with("mariadb", signal, id)).not.toBe(before);
  });

  it("does the work on a new connection when the server ended the one it kept", async () => {
    const before = await connections.with("mariadb", signal, id);
    await admin.query(`KILL CONNECTION ${before}`);
    const after = await connections.with("mariadb", signal, id);
    expect(after).not.toBe(before);
  });

  it("ends what it keeps on close", async () => {
    const kept = await connections.with("mariadb", signal, id);
    expect(await alive(kept)).toBe(true);
    await connections.close();
    let left = true;
    for (let i = 0; i < 200 && left; i++) {
      left = await alive(kept);
      if (left) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(left).toBe(false);
  });
});
