// A TCP proxy on 127.0.0.1 in front of a real server (PostgreSQL, Redis), so a test can take the server
// away from svc as a restart or a network fault would: every open connection is cut and new ones are
// refused, then it comes back on the same port. Other suites using the real server are not disturbed.
import { createServer, connect, type Server, type Socket } from 'node:net';

export class TcpProxy {
  readonly port: number;
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<Socket>();
  #server: Server;

  private constructor(server: Server, port: number, target: { host: string; port: number }) {
    this.#server = server;
    this.port = port;
    this.#target = target;
  }

  static async start(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
    const target = { host: targetHost, port: targetPort };
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => proxy!.pipe(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('proxy has no port');
    proxy = new TcpProxy(server, address.port, target);
    return proxy;
  }

  /** `url` with its host and port replaced by the proxy's. */
  through(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  pipe(client: Socket): void {
    const upstream = connect(this.#target.port, this.#target.host);
    this.#sockets.add(client);
    this.#sockets.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream).pipe(client);
  }

  /** The server goes away: open connections are reset and new ones refused. */
  async cut(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const socket of this.#sockets) socket.resetAndDestroy();
    this.#sockets.clear();
    await closed;
  }

  /** The server is back, on the same port. */
  async restore(): Promise<void> {
    const server = createServer((client) => this.pipe(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.#server = server;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
