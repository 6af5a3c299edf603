/**
 * Where the local backend keeps its services' data when MQLAB_HOME does not say:
 * a git clone of mqlab keeps it in the clone (.mqlab/); an installed package (npm exec, npx,
 * a global install) uses the per-user state folder, $XDG_STATE_HOME/mqlab or ~/.local/state/mqlab
 * — never the package folder, which for npx is npm's cache.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface HomeFacts {
  /** the package root (holds package.json, compose.yaml) */
  root: string;
  /** the root is a git clone (or worktree) of mqlab */
  isClone: boolean;
  env: NodeJS.ProcessEnv;
  userHome: string;
}

export function chooseHome({ root, isClone, env, userHome }: HomeFacts): string {
  if (env.MQLAB_HOME) return path.resolve(env.MQLAB_HOME);
  if (isClone) return path.join(root, '.mqlab');
  // the XDG spec: a relative XDG_STATE_HOME is invalid and is ignored
  const state =
    env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME)
      ? env.XDG_STATE_HOME
      : path.join(userHome, '.local', 'state');
  return path.join(state, 'mqlab');
}

/** a clone has .git (a directory, or a file in a worktree); an installed package never ships one */
export const isGitClone = (root: string) => fs.existsSync(path.join(root, '.git'));

export function defaultHome(root: string, env: NodeJS.ProcessEnv = process.env): string {
  return chooseHome({ root, isClone: isGitClone(root), env, userHome: env.HOME || os.homedir() });
}
