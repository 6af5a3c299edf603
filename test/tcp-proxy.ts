/**
 * A TCP proxy between the CLI and a real service. cut() destroys every connection through it and
 * refuses new ones: from the client's side exactly a service that died. restore() listens again
 * on the same port. The shared services themselves are never touched.
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** connections accepted so far */
  accepted(): number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function tcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((client) => {
    accepted += 1;
    const upstream = net.connect(targetPort, targetHost);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const stop = () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  return {
    port,
    accepted: () => accepted,
    async cut() {
      const closed = stop();
      for (const s of sockets) s.resetAndDestroy();
      await closed;
    },
    restore: () => listen(port),
    async close() {
      for (const s of sockets) s.destroy();
      await stop();
    },
  };
}

/** `url` with its port replaced by `port` (the proxy's) */
export function viaPort(url: string, port: number): string {
  const u = new URL(url);
  u.port = String(port);
  return u.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
}
