// Both n8n lint plugins, as n8n's verification scanner runs them on the published package.
import tsParser from '@typescript-eslint/parser';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';

const shipped = ['credentials/**/*.ts', 'nodes/**/*.ts'];
const typescript = { parser: tsParser, parserOptions: { sourceType: 'module' } };

export default [
	{ ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.n8n-local/**', 'test/**', 'scripts/**', 'bench/**', '*.js', '*.mjs'] },
	{
		files: ['package.json'],
		languageOptions: { parser: tsParser, parserOptions: { extraFileExtensions: ['.json'] } },
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: n8nNodesBase.configs.community.rules,
	},
	{
		files: ['credentials/**/*.ts'],
		languageOptions: typescript,
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			// Main-repository rule (its own docs say so): it wants a docs.n8n.io slug, while the
			// community plugin rightly requires a full URL for a community package.
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		languageOptions: typescript,
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			// These two want the string 'main'; the newer community plugin's node-connection-type-literal
			// rule requires NodeConnectionTypes.Main instead. The newer rule wins.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
		},
	},
	{
		...n8nCommunityNodesPlugin.configs.recommended,
		files: [...shipped, 'package.json'],
		languageOptions: { parser: tsParser, parserOptions: { sourceType: 'module', extraFileExtensions: ['.json'] } },
	},
];
