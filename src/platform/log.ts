import pino from "pino";

/**
 * Where the JSON log goes: standard output (or `fd`), each line written before the call that
 * logged it returns, as Node's own console writes to a pipe.
 *
 * pino's default hands lines to libuv's thread pool instead. Each hand-over wakes a pool thread
 * and, when the write is done, the event loop: on two cores that cost every request 5–20 µs of the
 * server's CPU, more than writing the line in place (bench/HISTORY.md, "Log lines written in
 * place"). A line handed over and not yet written is also lost when the process is killed; written
 * in place, it is with the reader before the next request is served.
 *
 * The price: a reader that stops reading (a full pipe) holds the server up until it reads again,
 * where the thread pool would have kept the lines in memory without a bound. Point standard output
 * at something that keeps reading: a terminal, a file, journald, a container's log driver.
 */
export function logDestination(fd = 1) {
  return pino.destination({ dest: fd, sync: true });
}
