/**
 * `{ ...base, ...more }` for objects made on every request: a new object with `base`'s own
 * enumerable members, then `more`'s, in that order (a member of both keeps `base`'s place and takes
 * `more`'s value), as a spread makes it.
 *
 * Why not the spread itself: on Node 20 (V8 11.3), an object copied by a spread that then gets a
 * member of its own — `{ ...base, id }`, or `{ ...base }` followed by an assignment — outlives the
 * next two scavenges though nothing refers to it, so it and everything it refers to (a request's
 * whole document) is moved into the old generation as garbage, there to wait for a full collection.
 * A copy built member by member is not (bench/HISTORY.md, "Garbage promoted by three patterns").
 *
 * Members are defined, not assigned, as a spread defines them: a member named `__proto__` in a
 * client's document stays a member and never becomes the copy's prototype. Symbol-keyed members,
 * which no document has, are not copied.
 */
export function withMembers<A extends object, B extends object>(base: A, more: B): Omit<A, keyof B> & B {
  return Object.fromEntries([...Object.entries(base), ...Object.entries(more)]) as Omit<A, keyof B> & B;
}
