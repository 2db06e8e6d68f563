// The npm scripts write each layer's results here (read by .ci/run for its summary line).
require('node:fs').mkdirSync(`${__dirname}/.test-results`, { recursive: true });

/** Four projects so `npm test` can run them in order and a developer can run one alone. */
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.test.json' }];

/** @type {import('jest').Config} */
module.exports = {
	projects: [
		{
			displayName: 'unit',
			testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
			transform: { '^.+\\.ts$': tsJest },
			setupFiles: ['<rootDir>/test/support/jestSetup.ts'],
			testEnvironment: 'node',
		},
		{
			displayName: 'integration',
			testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
			transform: { '^.+\\.ts$': tsJest },
			setupFiles: ['<rootDir>/test/support/jestSetup.ts'],
			testEnvironment: 'node',
		},
		{
			displayName: 'e2e',
			testMatch: ['<rootDir>/test/e2e/**/*.e2e.test.ts'],
			transform: { '^.+\\.ts$': tsJest },
			testEnvironment: 'node',
			globalSetup: '<rootDir>/test/e2e/global-setup.ts',
		},
		{
			// The editor in headless Chromium against `npm start` (which builds and packs by itself).
			displayName: 'browser',
			testMatch: ['<rootDir>/test/browser/**/*.browser.test.ts'],
			transform: { '^.+\\.ts$': tsJest },
			testEnvironment: 'node',
		},
	],
};
