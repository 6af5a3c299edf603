/**
 * `mqlab <lab> <tool>`: run one of a lab's tools against the database. The lab's schema is applied
 * first (idempotent DDL), so a tool works on a fresh database too; the tool returns its lines.
 */
import type { LabMeta, LabTool } from '../../lab/lab.js';
import type { Config } from '../../core/config.js';
import { openDb } from '../../db/client.js';
import { namesFor } from '../../core/names.js';

export async function toolCommand(entry: LabMeta, tool: LabTool, config: Config, options: unknown): Promise<number> {
  const { db } = await openDb(config.pgUrl, 1);
  try {
    const names = namesFor(config);
    const [{ lab }, handler] = await Promise.all([entry.load(), tool.load()]);
    if (lab.schema) await db.unsafe(lab.schema(names));
    const result = await handler({ lab: entry.name, db, names, config, options });
    process.stdout.write(result.lines.map((l) => l + '\n').join(''));
    return result.code;
  } finally {
    await db.end({ timeout: 1 }).catch(() => {});
  }
}
