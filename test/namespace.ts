/**
 * The namespace of an integration test file, derived from its file name: every *.int.test.ts runs
 * its labs in a namespace of its own, so what one file leaves behind (a queue, a row, a policy)
 * never decides another file's verdict — also when files run at the same time.
 *
 * `labs/retry-dlq/replay-gate.int.test.ts` → `replaygate`: the name without `.int.test.ts`, only its
 * letters and digits. No `_` or `.`: a namespace is then never `<another>_…`, so a test that looks up
 * `<ns>_*` tables or `<ns>.*` queues never sees another file's. Valid as --namespace (1-24
 * characters, a letter first); test/int-namespaces.test.ts checks that no two files get the same one.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const INT_TEST = '.int.test.ts';

/** the namespace of the test file at `file` (a path or an import.meta.url) */
export function namespaceOfFile(file: string): string {
  const base = path.basename(file.startsWith('file:') ? fileURLToPath(file) : file);
  if (!base.endsWith(INT_TEST)) throw new Error(`${file}: a file namespace is for *${INT_TEST} files`);
  const slug = base
    .slice(0, -INT_TEST.length)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
  if (!/^[a-z]/.test(slug)) throw new Error(`${file}: its name must start with a letter to name a namespace`);
  return slug.slice(0, 24);
}
