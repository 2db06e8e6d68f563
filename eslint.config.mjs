import { config } from '@n8n/node-cli/eslint';

// n8n's own configuration (the n8n-node template's `config`, Cloud rules included) for everything
// that ships. test/, bench/ and scripts/ never ship and run in Node, not in n8n (they use process,
// timers, fs): they are linted by `npm run lint:tests` (eslint.tests.config.mjs). docs/verification.md
// says why this is the one change to the template, and why n8n.strict is false for it.
export default [{ ignores: ['test/**', 'bench/**', 'scripts/**'] }, ...config];
