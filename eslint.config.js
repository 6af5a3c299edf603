// npm run lint: typescript-eslint's type-checked rules over the whole project, tests included
// (tsconfig.test.json). Formatting is Prettier's business (npm run format), not the linter's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.mqlab*/**', 'bin/**', 'eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    rules: {
      // a closure made before the value exists reads it later (runner.ts: the database loss probe)
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  // one door: a lab's code reaches the engine through the kit (src/kit/) alone, and the engine never
  // imports a lab; labs/cli.ts, the composition root, joins the engine's main to the labs' catalogue.
  // A lab's tests may reach further in (they observe the engine), the lab itself may not.
  {
    files: ['labs/**/*.ts'],
    ignores: ['labs/cli.ts', '**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)src/(?!kit/)',
              message:
                'a lab imports the engine only through the kit: src/kit/index.js (or src/kit/cluster, src/kit/child)',
            },
            {
              // the broken variants load only when MQLAB_FAULT asks (src/engine/variants.ts, rt.steps)
              regex: '(^|/)variants\\.js$',
              message:
                "a lab's code never imports its variants.ts: ask ctx.steps(correct) (a child process: rt.steps(correct, () => import('./variants.js')…))",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '(^|/)labs/', message: 'the engine knows no lab: only labs/cli.ts joins them' }] },
      ],
    },
  },
  { files: ['**/*.mjs'], ...tseslint.configs.disableTypeChecked },
);
