/**
 * One --live run: the server, the feed that fills it, and what the run asks of them — the first
 * page before the labs start, a page's Continue at a paused checkpoint, and closing with the run.
 */
import { integer } from '../core/options.js';
import { UsageError } from '../core/errors.js';
import { page, labHeader } from './html.js';
import type { LabReport } from '../report/lab-report.js';
import { benchHtml } from './page.js';
import { LiveFeed } from './feed.js';
import { startLiveServer, type LiveServer } from './server.js';

/** --live without --port (documented in the README); --port 0 lets the OS choose */
export const DEFAULT_LIVE_PORT = 8420;

export function livePort(flags: { live?: boolean; port?: string; liveViewers?: boolean }): number | null {
  if (!flags.live) {
    if (flags.port !== undefined)
      throw new UsageError('--port is the port of the --live page', 'add --live, or leave out --port');
    if (flags.liveViewers)
      throw new UsageError(
        '--live-viewers opens the --live page to viewers',
        'add --live, or leave out --live-viewers',
      );
    return null;
  }
  return flags.port === undefined ? DEFAULT_LIVE_PORT : integer(0, 65535)(flags.port, '--port');
}

export interface LiveSession {
  /** the address with the run's token: printed in the terminal, opened by the presenter */
  url: string;
  /** the address without it: a view-only page, with --live-viewers */
  viewUrl: string;
  viewers: boolean;
  feed: LiveFeed;
  /** resolves once a page is connected (or `otherwise` resolves first: Enter in the terminal) */
  firstPage(otherwise: () => Promise<void>): Promise<void>;
  /** --step: the page's Continue or `enter`, whichever comes first */
  pause(enter: () => Promise<void>): Promise<void>;
  labEnded(report: LabReport): void;
  close(): Promise<void>;
}

const shell = () =>
  page(
    'mqlab live',
    `${labHeader('mqlab', 'waiting for the run…', 'RUNNING', 'live from this machine’s mqlab run (127.0.0.1 only)', [], true)}
${benchHtml([], true)}
<div id="tail"></div>`,
  );

export interface LiveStart {
  port: number;
  /** --live-viewers: a view-only page without the token */
  viewers?: boolean | undefined;
  /** the server's own trouble (stderr): the run goes on */
  onTrouble?: ((line: string) => void) | undefined;
}

export async function startLive({ port, viewers = false, onTrouble }: LiveStart): Promise<LiveSession> {
  let server: LiveServer | null = null;
  const feed = new LiveFeed((lab, tail) => server?.send('lab', { lab, tail }));
  let connected = false;
  let onPage = () => {};
  const pageSeen = new Promise<void>((r) => (onPage = r));
  const html = shell();
  server = await startLiveServer(
    { port, viewers, ...(onTrouble ? { onTrouble } : {}) },
    {
      page: () => html,
      snapshot: () => feed.snapshot().map((x) => ['lab', x]),
      release: (token) => feed.release(token),
      onConnect: () => {
        connected = true;
        onPage();
      },
    },
  );
  const live = server;
  return {
    url: live.url,
    viewUrl: live.viewUrl,
    viewers,
    feed,
    async firstPage(otherwise) {
      if (!connected) await Promise.race([pageSeen, otherwise()]);
    },
    async pause(enter) {
      const { released, cancel } = feed.waitForRelease();
      try {
        await Promise.race([released, enter()]);
      } finally {
        cancel();
      }
    },
    labEnded: (report) => feed.labEnded(report),
    async close() {
      feed.flush();
      await live.close();
    },
  };
}
