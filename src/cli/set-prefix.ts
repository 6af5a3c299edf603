/**
 * The variables that name a set of services other than the default one (MQLAB_PORT_OFFSET,
 * MQLAB_HOME), as a shell prefix for the commands mqlab prints: `MQLAB_PORT_OFFSET=1000 mqlab up`
 * then says `MQLAB_PORT_OFFSET=1000 mqlab retry`, which reaches that set whether the variables were
 * exported or typed before the one command (issue 46: every printed command works as printed).
 */
import path from 'node:path';
import { PROJECT_ROOT } from '../core/config.js';
import { portOffset } from '../core/defaults.js';
import { defaultHome } from '../core/home.js';

/** a word the shell keeps as it is, quoted only when it must be */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** '' for the default set, else `MQLAB_PORT_OFFSET=… MQLAB_HOME=… ` (each only when not its default) */
export function setPrefix(env: NodeJS.ProcessEnv = process.env, root = PROJECT_ROOT): string {
  const words: string[] = [];
  const offset = portOffset(env);
  if (offset !== 0) words.push(`MQLAB_PORT_OFFSET=${offset}`);
  if (env.MQLAB_HOME) {
    const home = path.resolve(env.MQLAB_HOME);
    if (home !== defaultHome(root, { ...env, MQLAB_HOME: undefined })) words.push(`MQLAB_HOME=${shellWord(home)}`);
  }
  return words.map((w) => `${w} `).join('');
}
