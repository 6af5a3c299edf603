/**
 * `mqlab class board`: the teacher's board served on 127.0.0.1 with the same guard as `--live`
 * (src/page/loopback.ts: a token printed in the terminal, required by every request; `--viewers` for a
 * view-only page to project), live: the runs' rows are read every second and every page is sent the
 * board when it changed. It runs until Ctrl-C.
 */
import type { Config } from '../core/config.js';
import { startLoopbackServer, refuse, type LoopbackServer } from '../page/loopback.js';
import { EventStreams, STREAM_LIMITS } from '../page/event-streams.js';
import { postgresAdmin } from '../services/admin.js';
import { readBoard, type Board } from './board-data.js';
import { boardHtml } from './board-page.js';

export const DEFAULT_BOARD_PORT = 8430;
const EVERY_MS = 1000;

export interface BoardOptions {
  port: number;
  viewers: boolean;
  students: readonly string[];
  /** the server's own trouble and the database's, one line each */
  onTrouble: (line: string) => void;
}

export interface BoardServer extends Pick<LoopbackServer, 'url' | 'viewUrl' | 'port'> {
  close(): Promise<void>;
}

export async function serveBoard(config: Pick<Config, 'home' | 'ports'>, o: BoardOptions): Promise<BoardServer> {
  const sql = postgresAdmin(config, 'lab');
  const streams = new EventStreams(STREAM_LIMITS, o.onTrouble);
  const html = boardHtml(`mqlab class board · port ${config.ports.amqp}`);
  let board: Board | null = null;
  let sent = '';
  let said = '';
  const read = async () => {
    try {
      const next = await readBoard(sql, o.students);
      board = next;
      const text = JSON.stringify(next.students);
      if (text !== sent) streams.broadcast('board', next);
      sent = text;
      said = '';
    } catch (err) {
      const line = `the board cannot read the runs: ${(err as Error).message}`;
      if (line !== said) o.onTrouble(line);
      said = line;
    }
  };
  await read();
  const server = await startLoopbackServer(
    { port: o.port, what: 'class board', viewers: o.viewers, onTrouble: o.onTrouble },
    (r) => {
      if (r.method === 'GET' && r.path === '/') {
        r.res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        return void r.res.end(html);
      }
      if (r.method === 'GET' && r.path === '/events') {
        const stream = streams.open(r);
        if (stream && board) stream.send('board', board);
        return;
      }
      if (r.path === '/favicon.ico') return void r.res.writeHead(204).end();
      refuse(r.res, 404, 'not found');
    },
  );
  let reading = Promise.resolve();
  const timer = setInterval(() => {
    reading = reading.then(read);
  }, EVERY_MS);
  return {
    url: server.url,
    viewUrl: server.viewUrl,
    port: server.port,
    async close() {
      clearInterval(timer);
      await reading;
      streams.endAll('gone', 'the board was closed in the terminal (mqlab class board starts it again)');
      await server.close();
      await sql.end({ timeout: 1 });
    },
  };
}
