/**
 * The Python reference consumers of `mqlab check` (examples/consumers/python/) run on Debian's Python
 * with its python3-pika and python3-psycopg2. `npm test` installs them when they are missing, as it
 * installs chromium (test/chromium.ts): as root with apt-get; where it cannot it says so in one line,
 * and the tests that run those consumers fail with that line.
 */
import { execa } from 'execa';
import { withProgress } from '../src/services/progress.js';
import { PYTHON } from '../examples/consumers/catalogue.js';

export const PYTHON_PACKAGES = ['python3-pika', 'python3-psycopg2'];

/** null when Debian's Python imports pika and psycopg2 */
export async function pythonMissing(): Promise<string | null> {
  const r = await execa(PYTHON, ['-c', 'import pika, psycopg2'], { reject: false }).catch(() => null);
  if (r?.exitCode === 0) return null;
  return `${PYTHON} cannot import pika and psycopg2: run \`apt-get install -y ${PYTHON_PACKAGES.join(' ')}\` as root`;
}

/** install the packages when missing (root, apt-get); null when present afterwards, else the one line why not */
export async function ensurePythonPika(log: (line: string) => void): Promise<string | null> {
  const missing = await pythonMissing();
  if (!missing || process.getuid?.() !== 0) return missing;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    withProgress(`installing Debian's ${PYTHON_PACKAGES.join(' ')} with apt-get (once per machine)`, log, () =>
      execa('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '-q', ...PYTHON_PACKAGES], {
        all: true,
        env,
      }),
    );
  try {
    await install().catch(async () => {
      await withProgress('apt-get update (the package lists)', log, () =>
        execa('apt-get', ['-q', 'update'], { all: true, env }),
      );
      await install();
    });
  } catch (err) {
    return `installing ${PYTHON_PACKAGES.join(' ')} failed: ${(err as Error).message.split('\n')[0]}`;
  }
  return pythonMissing();
}
