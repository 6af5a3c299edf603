#!/usr/bin/env node
// labs/cli.ts (the engine's main with the labs' catalogue), bundled by `npm run build` (scripts/bundle.ts)
import '../dist/cli/mqlab.js';
