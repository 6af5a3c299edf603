/**
 * `mqlab ctl …` and `mqlab psql …` (src/services/service-tools.ts): the tool runs in this terminal
 * (its input, output and exit code are the command's); Ctrl-C is the tool's (psql cancels a query),
 * not mqlab's.
 */
import { execa } from 'execa';
import type { Config } from '../../core/config.js';
import { EnvError } from '../../core/errors.js';
import { ctlCommand, psqlCommand } from '../../services/service-tools.js';

export async function serviceToolCommand(tool: 'ctl' | 'psql', config: Config, args: string[]): Promise<number> {
  const c = (tool === 'ctl' ? ctlCommand : psqlCommand)(config, args);
  // the terminal's Ctrl-C reaches the tool (same process group): mqlab waits for it to end
  process.removeAllListeners('SIGINT');
  process.on('SIGINT', () => {});
  const env = { ...c.options.env, TERM: process.env.TERM ?? 'dumb' };
  const r = await execa(c.file, c.args, { ...c.options, env, extendEnv: false, stdio: 'inherit', reject: false });
  if (r.failed && r.exitCode === undefined && !r.signal)
    throw new EnvError(
      `mqlab ${tool}: could not start ${c.file}: ${r.shortMessage}`,
      tool === 'psql' ? 'install the PostgreSQL client (psql)' : 'run `mqlab up`',
    );
  return r.exitCode ?? 128 + (r.signal === 'SIGINT' ? 2 : 15);
}
