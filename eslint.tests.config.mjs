import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The tests, benches and scripts (`npm run lint:tests`): the TypeScript rule sets of n8n's template
// config (@eslint/js and typescript-eslint recommended), without its rules for n8n node code, which
// eslint.config.mjs applies to what ships. They run in Node: they load n8n from its install folder
// at run time (require) and read loosely typed JSON answers (any).
export default tseslint.config({
	files: ['**/*.ts'],
	extends: [js.configs.recommended, tseslint.configs.recommended],
	rules: {
		'prefer-spread': 'off',
		'@typescript-eslint/no-unused-vars': [
			'error',
			{ argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
		],
		'@typescript-eslint/no-explicit-any': 'off',
		'@typescript-eslint/no-require-imports': 'off',
	},
});
