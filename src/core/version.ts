/** mqlab's own version, from the package.json next to this code (never the enclosing project's). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** the nearest package.json named "mqlab" above `dir` (src/ in a clone, dist/src/ or the bundle in dist/cli/) */
function ownPackageJson(dir: string): { name: string; version: string } | null {
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
    const file = path.join(d, 'package.json');
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: unknown; version: string };
    if (pkg.name === 'mqlab') return { name: 'mqlab', version: pkg.version };
  }
  return null;
}

export const VERSION: string = ownPackageJson(path.dirname(fileURLToPath(import.meta.url)))?.version ?? 'unknown';
