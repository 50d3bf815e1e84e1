import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/**
 * A TCP server on loopback that poses as PostgreSQL for the hostile-host cases. `capture` asks
 * every client for its password in clear text (what a hostile host named by a document would
 * do) and keeps what arrives; `hang` accepts connections and never answers.
 */
export class FakePostgres {
  connections = 0;
  readonly received: Buffer[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(mode: "capture" | "hang"): Promise<FakePostgres> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const fake = new FakePostgres(server, (server.address() as AddressInfo).port);
    server.on("connection", (socket) => {
      fake.connections++;
      fake.sockets.add(socket);
      socket.on("close", () => fake.sockets.delete(socket));
      socket.on("error", () => {});
      let asked = false;
      socket.on("data", (chunk) => {
        fake.received.push(chunk);
        if (mode === "capture" && !asked) {
          asked = true;
          // AuthenticationCleartextPassword: 'R', length 8, code 3.
          socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]));
        }
      });
    });
    return fake;
  }

  /** Everything clients sent, as text. */
  text(): string {
    return Buffer.concat(this.received).toString("latin1");
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
