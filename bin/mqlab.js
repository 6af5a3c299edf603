#!/usr/bin/env node
// labs/cli.ts (the engine's main with the labs' catalogue), bundled by `npm run build` (scripts/bundle.ts);
// CommonJS, like the bundle (bin/package.json): no ES module loader is started for it
require('../dist/cli/mqlab.js');
