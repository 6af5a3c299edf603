/**
 * V8's code cache for the bundled program (dist/cli, scripts/bundle.ts): a file compiled once is
 * not compiled again on the next start. Node 20 keeps no such cache itself (module.enableCompileCache
 * came in 22.1), and compiling the bundle's modules was the larger part of every process's start
 * (`npm run bench`: the overhead column). The first line of each entry of the bundle calls
 * useCompileCache before the entry requires anything, so every chunk it loads is served from the
 * cache, and each chunk compiled without one is written at exit, with the functions the run compiled
 * on the way (createCachedData after the run, not at load).
 *
 * The cache lives beside the code in dist/cli/.v8-cache (each build removes it with dist/cli), one
 * file per chunk, size and modification time: V8 checks a cache against the source's length only, so
 * a file edited in place must not find its old cache. Where that folder cannot be written (a package installed by
 * another user), nothing is cached and nothing else changes. A cache V8 refuses (another Node, other
 * flags) is compiled as usual and written again.
 */
import fs from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

interface CjsModule {
  exports: unknown;
  require(id: string): unknown;
}
type Compile = (this: CjsModule, content: string, filename: string, format?: string) => unknown;
interface ModuleStatics {
  prototype: { _compile: Compile };
  wrap(script: string): string;
  _resolveFilename(request: string, parent: CjsModule, isMain: boolean, options?: unknown): string;
  _cache: unknown;
}

/** what the cache did in this process: files compiled from it, compiled without one (written at exit) */
interface CacheUse {
  served: number;
  compiled: number;
  /** write the caches of the files compiled without one (at exit; a test calls it itself) */
  save(): void;
}

let installed: CacheUse | null = null;

/** serve the CommonJS files under `dir` from V8's code cache in `dir`/.v8-cache, and fill it at exit */
export function useCompileCache(dir: string): CacheUse {
  if (installed) return installed;
  const root = path.resolve(dir) + path.sep;
  const cacheDir = path.join(root, '.v8-cache');
  const M = Module as unknown as ModuleStatics;
  const original = M.prototype._compile;
  const unsaved: { script: vm.Script; file: string }[] = [];
  const use: CacheUse = {
    served: 0,
    compiled: 0,
    save() {
      const todo = unsaved.splice(0);
      if (!todo.length) return;
      try {
        fs.mkdirSync(cacheDir, { recursive: true });
        for (const { script, file } of todo) {
          // whole files only: another process may read this cache at the same moment
          const tmp = `${file}.${process.pid}.tmp`;
          fs.writeFileSync(tmp, script.createCachedData());
          fs.renameSync(tmp, file);
        }
      } catch {
        // not writable here: the next start compiles as this one did
      }
    },
  };
  M.prototype._compile = function (content, filename, format) {
    if (!filename.startsWith(root) || format === 'module') return original.call(this, content, filename, format);
    // the file's size and modification time (ns): an edited file finds no cache (not a content hash:
    // node:crypto alone took 6 ms of a start that needs it nowhere else, such as --help)
    const { size, mtimeNs } = fs.statSync(filename, { bigint: true });
    const file = path.join(
      cacheDir,
      `${path.basename(filename, '.js')}.${size.toString(36)}-${mtimeNs.toString(36)}.bin`,
    );
    const cachedData = readOrNull(file);
    const script = new vm.Script(M.wrap(content), {
      filename,
      // an import() left in the code (a module outside the bundle) resolves as in any CommonJS file
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
      ...(cachedData ? { cachedData } : {}),
    });
    if (cachedData && !script.cachedDataRejected) use.served++;
    else {
      use.compiled++;
      unsaved.push({ script, file });
    }
    const wrapper = script.runInThisContext() as (...args: unknown[]) => unknown;
    const require = Object.assign((id: string) => this.require(id), {
      resolve: (request: string, options?: unknown) => M._resolveFilename(request, this, false, options),
      cache: M._cache,
    });
    return wrapper.call(this.exports, this.exports, require, this, filename, path.dirname(filename));
  };
  process.once('exit', () => use.save());
  installed = use;
  return use;
}

function readOrNull(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch {
    return null;
  }
}
