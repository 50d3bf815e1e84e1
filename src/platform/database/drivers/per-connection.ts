/**
 * What a pool wrapper hands out for a connection, made the first time the connection is checked
 * out and handed out again for it every later time.
 *
 * Kysely keeps one connection object of its own per object the pool hands it (a WeakMap). A new
 * wrapper at every checkout cost it a new connection object and a WeakMap entry for every query
 * outside a transaction and every transaction, 5–10 µs of CPU a query with the collector's share
 * (bench/HISTORY.md, "Connections wrapped once"). Whatever a wrapper holds between checkouts must
 * therefore be reset when its connection is released.
 *
 * `make` may refuse a connection by throwing; nothing is kept for it then.
 */
export function perConnection<C extends object, W>(make: (client: C) => W | Promise<W>): (client: C) => W | Promise<W> {
  const kept = new WeakMap<C, W>();
  return (client) => {
    // Handed out at once when known: every query outside a transaction checks a connection out.
    const known = kept.get(client);
    if (known !== undefined) return known;
    return Promise.resolve(make(client)).then((made) => {
      kept.set(client, made);
      return made;
    });
  };
}
