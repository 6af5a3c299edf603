import { EnvError, LabError, UP_HINT } from '../core/errors.js';
import { maskText, maskUrl } from '../core/urls.js';

/** Turn whatever the AMQP client threw while connecting into one line the user can act on. */
export function connectError(err: unknown, url: string): EnvError {
  const e = err as { code?: string; message?: string };
  const where = `RabbitMQ at ${maskUrl(url)}`;
  const msg = maskText(String(e?.message ?? err));
  const vhost = /vhost '?([^' ]+)'? not found/i.exec(msg);
  if (vhost)
    return new EnvError(
      `${where}: vhost '${vhost[1]}' does not exist`,
      UP_HINT + ', or fix the vhost in MQLAB_AMQP_URL',
    );
  if (/ACCESS.REFUSED|403/.test(msg))
    return new EnvError(
      `${where}: credentials refused`,
      'check the user and password in MQLAB_AMQP_URL, or ' + UP_HINT,
    );
  if (/Expected ConnectionOpenOk; got <ConnectionClose/.test(msg)) {
    // the broker closes the connection at connection.open: the vhost is missing or not permitted
    const v = vhostName(url);
    return new EnvError(
      `${where}: vhost '${v}' does not exist or the user may not use it`,
      UP_HINT + ', or fix the vhost in MQLAB_AMQP_URL',
    );
  }
  if (/NOT.ALLOWED|530/.test(msg))
    return new EnvError(`${where}: access to the vhost refused (${msg})`, 'check the vhost permissions of the user');
  // amqps:// to a plain port: OpenSSL reads the server's first bytes as a TLS record
  if (/SSL routines|wrong version number|ERR_SSL|EPROTO/i.test(msg + (e?.code ?? '')))
    return new EnvError(
      `${where}: the server does not speak TLS on this port`,
      'use amqp:// for a plain port (mqlab up listens without TLS), or the TLS port with amqps://',
    );
  // an HTTP server (or anything but AMQP) answered: its first bytes read as a frame ("HTTP/1." → a huge size)
  if (/Frame size \d+ exceeds maxFrameSize|Unexpected frame|Invalid frame|Expected ConnectionStart/i.test(msg))
    return new EnvError(`${where}: no AMQP handshake (not an AMQP server); is this the right port?`, UP_HINT);
  return new EnvError(`${where}: ${networkCause(e, msg)}`, UP_HINT);
}

/** a port that accepted the connection and never answered as an AMQP server (an HTTP server waits for a request) */
export function silentPort(url: string, how: { timeoutMs: number } | { closed: true }): EnvError {
  const what =
    'closed' in how
      ? 'closed the connection without an AMQP answer'
      : `nothing answered as AMQP within ${Math.round(how.timeoutMs / 1000)} s`;
  return new EnvError(
    `RabbitMQ at ${maskUrl(url)}: no AMQP handshake (the port accepts connections, but ${what}); is this the right port?`,
    UP_HINT,
  );
}

export function networkCause(e: { code?: string; cause?: unknown }, msg: string): string {
  const code = e?.code ?? (e?.cause as { code?: string } | undefined)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'unreachable (connection refused)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'unreachable (host name not found)';
    case 'ETIMEDOUT':
    case 'ETIMEOUT':
      return 'unreachable (connection timed out)';
    case 'ECONNRESET':
      return 'connection reset during the handshake (is this the right port?)';
  }
  if (/socket closed|handshake/i.test(msg)) return `no AMQP handshake (${msg}); is this the right port?`;
  return msg;
}

function vhostName(url: string): string {
  try {
    const p = new URL(url).pathname;
    return p.length > 1 ? decodeURIComponent(p.slice(1)) : '/';
  } catch {
    return '?';
  }
}

/**
 * amqplib answers a publish's confirm callback with Error('message nacked') for a basic.nack, and
 * with Error('channel closed') for one still unconfirmed when its channel closes (amqplib 2.3.1,
 * lib/channel.js): told apart here, in one place, by that text
 */
export const isNackError = (err: unknown): boolean => err instanceof Error && err.message === 'message nacked';

/** the broker refused a publish with basic.nack (a full queue with reject-publish, a node without a leader …) */
export class Nacked extends LabError {
  constructor(
    readonly messageId: string,
    where?: string,
  ) {
    super(`the broker nacked message ${messageId || '(no id)'}${where ? ` to ${where}` : ''}`);
  }
}
