/**
 * The one way mqlab opens an AMQP connection and its confirm channel (Broker.connect and connectAny):
 * the URL's parts handed to amqplib as an object — its own URL parser decodes a percent-encoded
 * password with the legacy unescape(), which is not UTF-8, so a correct password holding `ü`
 * (`%C3%BC`) was refused — and a refusal turned into one line the user can act on (connectError).
 */
import amqp, { type ChannelModel, type ConfirmChannel, type Options } from 'amqplib';
import net from 'node:net';
import { connectError, silentPort } from './errors.js';

interface OpenLink {
  connection: ChannelModel;
  channel: ConfirmChannel;
}

/** connect to `url` and open a confirm channel; errors of either are swallowed there and surface in the failing call */
export async function openLink(url: string, timeoutMs: number): Promise<OpenLink> {
  let connection: ChannelModel;
  const target = amqpTarget(url);
  try {
    connection = await amqp.connect(target, { timeout: timeoutMs, noDelay: true });
  } catch (err) {
    // a timeout: nothing answered, or something took the connection and said nothing an AMQP server says
    // (amqplib 2.3.1 rejects with a bare Error('connect ETIMEDOUT'), no code)
    const msg = String((err as Error)?.message);
    if (/ETIMEDOUT/.test(msg) && (await accepts(target.hostname, target.port))) throw silentPort(url, { timeoutMs });
    // the same server may close first: RabbitMQ's management listener (cowboy) ends a connection that
    // sent no request after 5 s, the moment amqplib's own timer fires; which comes first is a race
    if (/Socket closed abruptly during opening handshake/.test(msg)) throw silentPort(url, { closed: true });
    throw connectError(err, url);
  }
  connection.on('error', () => {}); // surfaced through the failing operation instead
  const channel = await connection.createConfirmChannel();
  channel.on('error', () => {});
  return { connection, channel };
}

/** amqplib's object form of an amqp:// or amqps:// URL: user and password decoded as UTF-8 */
export function amqpTarget(url: string): Options.Connect {
  const u = new URL(url);
  const number = (key: string) => (u.searchParams.has(key) ? Number(u.searchParams.get(key)) : undefined);
  const frameMax = number('frameMax');
  const heartbeat = number('heartbeat');
  const port = u.port ? Number(u.port) : undefined;
  return {
    protocol: u.protocol.replace(/:$/, ''),
    hostname: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    username: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    // still escaped: amqplib unescapes the vhost itself (querystring, UTF-8); '' is the default vhost /
    vhost: u.pathname.slice(1),
    ...(port === undefined ? {} : { port }),
    ...(frameMax === undefined ? {} : { frameMax }),
    ...(heartbeat === undefined ? {} : { heartbeat }),
  };
}

/** does a plain TCP connect to host:port succeed within a second? */
function accepts(host: string | undefined, port: number | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: host ?? 'localhost', port: port ?? 5672, timeout: 1000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}
