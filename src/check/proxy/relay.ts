/**
 * A TCP relay on 127.0.0.1 between the consumer mqlab check runs and a real service: every byte is
 * forwarded unchanged, except that each direction of a connection can be held (its bytes kept, in
 * order) and later released or dropped. A dropped connection ends upstream with a FIN after the bytes
 * already forwarded (never a reset, which would discard them), so the service reads everything the
 * consumer sent before the hold and nothing after. Knows no protocol: the AMQP and PostgreSQL proxies
 * look at the bytes through `onClientData` / `onServerData`.
 */
import net from 'node:net';

/** one direction of a connection */
class Pipe {
  private held: Buffer[] | null = null;
  private dropped = false;

  constructor(private readonly to: net.Socket) {}

  write(bytes: Buffer): void {
    if (this.dropped || bytes.length === 0) return;
    if (this.held) this.held.push(bytes);
    else if (!this.to.destroyed) this.to.write(bytes);
  }

  /** keep every later byte until release or drop */
  hold(): void {
    this.held ??= [];
  }

  get holding(): boolean {
    return this.held !== null;
  }

  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const b of held) this.write(b);
  }

  /** discard what is held and everything after */
  drop(): void {
    this.dropped = true;
    this.held = null;
  }
}

export interface RelayConn {
  readonly id: number;
  readonly client: net.Socket;
  readonly upstream: net.Socket;
  /** consumer → service */
  readonly toServer: Pipe;
  /** service → consumer */
  readonly toClient: Pipe;
  closed: boolean;
}

interface RelayHooks {
  /** the consumer's bytes; forward them with conn.toServer.write (default: all of them) */
  onClientData?(conn: RelayConn, chunk: Buffer): void;
  onServerData?(conn: RelayConn, chunk: Buffer): void;
  onOpen?(conn: RelayConn): void;
  onClose?(conn: RelayConn): void;
}

export class Relay {
  private server: net.Server;
  readonly conns = new Set<RelayConn>();
  private next = 1;
  /** every new connection's consumer → service direction starts held (a stalled database) */
  holdNew = false;
  /** called when the consumer sends bytes that are held: it now waits on the stalled service */
  onHeldClientData: (() => void) | null = null;

  private constructor(
    private readonly target: { host: string; port: number },
    private readonly hooks: RelayHooks,
  ) {
    this.server = net.createServer((client) => this.accept(client));
  }

  static async listen(target: { host: string; port: number }, hooks: RelayHooks = {}): Promise<Relay> {
    const relay = new Relay(target, hooks);
    await new Promise<void>((resolve, reject) => {
      relay.server.once('error', reject);
      relay.server.listen(0, '127.0.0.1', () => resolve());
    });
    return relay;
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  private accept(client: net.Socket): void {
    client.setNoDelay(true);
    const upstream = net.connect({ host: this.target.host, port: this.target.port });
    upstream.setNoDelay(true);
    const conn: RelayConn = {
      id: this.next++,
      client,
      upstream,
      toServer: new Pipe(upstream),
      toClient: new Pipe(client),
      closed: false,
    };
    if (this.holdNew) conn.toServer.hold();
    this.conns.add(conn);
    this.hooks.onOpen?.(conn);
    client.on('data', (chunk: Buffer) => {
      if (this.hooks.onClientData) this.hooks.onClientData(conn, chunk);
      else conn.toServer.write(chunk);
      if (conn.toServer.holding) this.onHeldClientData?.();
    });
    upstream.on('data', (chunk: Buffer) =>
      this.hooks.onServerData ? this.hooks.onServerData(conn, chunk) : conn.toClient.write(chunk),
    );
    // the consumer's side went: what it left held is dropped, the service reads the rest and a FIN;
    // the service's side went: the consumer reads what the service sent last (a connection.close)
    const close = (from: 'client' | 'upstream') => () => {
      if (conn.closed) return;
      conn.closed = true;
      this.conns.delete(conn);
      conn.toServer.drop();
      if (from === 'client') {
        client.destroy();
        endThenDestroy(upstream);
      } else {
        endThenDestroy(client);
        upstream.destroy();
      }
      this.hooks.onClose?.(conn);
    };
    for (const [s, from] of [
      [client, 'client'],
      [upstream, 'upstream'],
    ] as const) {
      s.on('error', close(from));
      s.on('close', close(from));
      s.on('end', close(from));
    }
  }

  /** hold the consumer → service direction of every connection, and of every new one */
  stall(): void {
    this.holdNew = true;
    for (const c of this.conns) c.toServer.hold();
  }

  unstall(): void {
    this.holdNew = false;
    for (const c of this.conns) c.toServer.release();
  }

  /** end every connection, dropping what is held (the consumer was killed) */
  dropAll(): void {
    this.holdNew = false;
    for (const c of [...this.conns]) {
      c.toServer.drop();
      c.client.destroy();
    }
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** a FIN after what was written (the service reads it all), then the socket goes after a bound */
function endThenDestroy(s: net.Socket): void {
  if (s.destroyed) return;
  s.end();
  setTimeout(() => s.destroy(), 2000).unref();
}
