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
  { files: ['**/*.mjs'], ...tseslint.configs.disableTypeChecked },
);
