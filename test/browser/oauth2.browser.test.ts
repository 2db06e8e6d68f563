/**
 * Sign in with the clinic account, in a real browser: headless Chromium against the n8n that
 * `npm start` starts, with the fake API's sign-in provider (test/fake-api/routes/signIn.ts).
 *
 * Opens the OAuth2 credential npm start imports, clicks "Connect my account", fills the provider's
 * login form in the popup n8n opens, and sees n8n mark the credential connected; then runs a
 * workflow of Upload Audio (waiting for the transcription) and Business → Get Many Entities with
 * that credential, and checks what the fake API received. Screenshots of each step go to
 * .test-results/browser/ (oauth2-*.png).
 *
 * Needs /usr/bin/chromium, like the editor test (test/browser/editor.browser.test.ts); without it
 * the test is skipped with the reason, unless CLINIC_SCRIBE_REQUIRE_BROWSER=1.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { chromium, type BrowserContext, type Page } from 'playwright-core';

import { CHROMIUM, CHROMIUM_FLAGS, describeWithChromium } from '../support/chromium';
import { SIGN_IN } from '../fake-api/fixtures';
import { decodeJwtPayload } from '../fake-api/tokens';
import type { RecordedRequest } from '../fake-api/types';
import { LOCAL_SIGN_IN_CREDENTIAL } from '../../scripts/localExamples';
import { REPO_ROOT } from '../support/n8n/install';
import { ACTION_NODE_TYPE, newId, type WorkflowJson } from '../support/n8n/workflows';
import { SIGN_IN_CREDENTIAL_TYPE } from '../support/signInCredential';
import { NpmStart } from './npmStart';

jest.setTimeout(600_000);

const SCREENSHOTS = join(REPO_ROOT, '.test-results', 'browser');
const OWNER = { email: 'owner@clinic-scribe.local', password: 'ClinicScribe-Local-1' };

const describeBrowser = describeWithChromium('oauth2.browser.test.ts');

let npmStart: NpmStart;
let context: BrowserContext;
let page: Page;

describeBrowser(
	'sign in with the clinic account in a real browser (npm start + headless Chromium)',
	() => {
		beforeAll(async () => {
			mkdirSync(SCREENSHOTS, { recursive: true });
			for (const file of readdirSync(SCREENSHOTS))
				if (file.startsWith('oauth2-')) rmSync(join(SCREENSHOTS, file));
			npmStart = await NpmStart.start();
			context = await chromium.launchPersistentContext(npmStart.browserProfile, {
				executablePath: CHROMIUM,
				headless: true,
				args: CHROMIUM_FLAGS,
				viewport: { width: 1440, height: 900 },
			});
			page = context.pages()[0] ?? (await context.newPage());
		});

		afterAll(async () => {
			await context?.close();
			await npmStart?.stop();
		});

		it("npm start offers the OAuth2 credential and prints the fake provider's user name and password", async () => {
			expect(npmStart.printed).toContain(LOCAL_SIGN_IN_CREDENTIAL.name);
			expect(npmStart.printed).toContain(
				`User name ${SIGN_IN.user.username}   Password ${SIGN_IN.user.password}`,
			);
			expect(npmStart.printed).toContain(`${npmStart.baseUrl}/rest/oauth2-credential/callback`);

			await page.goto(`${npmStart.baseUrl}/signin`);
			await page.fill('input[name=emailOrLdapLoginId]', OWNER.email);
			await page.fill('input[name=password]', OWNER.password);
			await page.click('button:has-text("Sign in")');
			await page.waitForURL((url) => !url.pathname.includes('signin'));
		});

		it('"Connect my account": the provider\'s login page opens in a popup, the sign-in there connects the credential', async () => {
			await page.goto(`${npmStart.baseUrl}/home/credentials/${LOCAL_SIGN_IN_CREDENTIAL.id}`);
			const dialog = page.locator('[data-test-id="credential-edit-dialog"]');
			await dialog.waitFor();
			// n8n 2.41 puts the button in its "Connect your account" banner (its label: Connect).
			const notConnected = dialog.locator('[data-test-id="oauth-not-connected-banner"]');
			const connect = notConnected.getByRole('button', { name: 'Connect' });
			await connect.waitFor();
			// n8n shows its redirect URL to register, and our help says how.
			const text = await dialog.innerText();
			expect(text).toContain('OAuth Redirect URL');
			expect(text).toContain(`${npmStart.baseUrl}/rest/oauth2-credential/callback`);
			expect(text).toContain('must match exactly');
			await shot('oauth2-01-connect-dialog');

			const popupOpened = page.waitForEvent('popup');
			await connect.click();
			const popup = await popupOpened;
			await popup.waitForURL((url) => url.pathname === '/oauth2/login');
			await popup.locator('#username').waitFor();
			await popup.screenshot({ path: join(SCREENSHOTS, 'oauth2-02-provider-login.png') });
			await popup.fill('#username', SIGN_IN.user.username);
			await popup.fill('#password', SIGN_IN.user.password);
			const closed = popup.waitForEvent('close');
			await popup.click('button[type=submit]');
			// n8n's callback page tells the editor and closes the window.
			await closed;

			await dialog.locator('[data-test-id="oauth-connect-success-banner"]').waitFor();
			expect(
				await dialog.locator('[data-test-id="oauth-connect-success-banner"]').innerText(),
			).toMatch(/connected/i);
			await shot('oauth2-03-connected');

			const signIn = await fakeAdmin<{
				counters: { loginsAccepted: number; codeGrants: number };
				refusals: unknown[];
			}>('/__admin/sign-in');
			expect(signIn.counters).toMatchObject({ loginsAccepted: 1, codeGrants: 1 });
			expect(signIn.refusals).toEqual([]);
			const [exchange] = await fakeAdmin<RecordedRequest[]>('/__admin/requests?path=/oauth2/token');
			expect(exchange.body).toMatchObject({
				grant_type: 'authorization_code',
				client_id: SIGN_IN.clientId,
				code_verifier: expect.any(String),
			});
			expect(exchange.headers.authorization).toBeUndefined();
			await page.keyboard.press('Escape');
			await dialog.waitFor({ state: 'hidden' });
		});

		it("a workflow with the connected credential: Upload Audio (waits for the transcription) and Business → Get Many Entities run green; the fake API got the account's token", async () => {
			const since = (await fakeAdmin<RecordedRequest[]>('/__admin/requests')).at(-1)?.id ?? 0;
			const workflow = signedInWorkflow(
				join(npmStart.userFolder, 'files', 'recordings', 'consultation.wav'),
			);
			await restPost('/rest/workflows', workflow);
			await page.goto(`${npmStart.baseUrl}/workflow/${workflow.id}`);
			await page.locator('[data-test-id="canvas-node"]').first().waitFor();
			await page.click('[data-test-id="execute-workflow-button"]');
			for (const node of workflow.nodes) {
				await page
					.locator(
						`[data-test-id="canvas-node"][data-node-name="${node.name}"] [data-test-id="canvas-node-status-success"]`,
					)
					.waitFor({ timeout: 120_000 });
			}
			await page.getByText('Workflow executed successfully').waitFor();
			await shot('oauth2-04-workflow-run');

			const received = await fakeAdmin<RecordedRequest[]>(`/__admin/requests?since=${since}`);
			const entities = received.filter((r) => r.pathname === '/dr/v1/business/entities');
			const presigns = received.filter((r) => r.pathname === '/v1/file-upload');
			const inits = received.filter((r) =>
				r.pathname.startsWith('/voice/api/v2/transaction/init/'),
			);
			expect([entities.length, presigns.length, inits.length]).toEqual([1, 1, 1]);
			const token = String(entities[0].headers.authorization).replace(/^Bearer /, '');
			// Issued by the sign-in provider to its client (the API credential's tokens name another client).
			expect(decodeJwtPayload(token).sub).toBe(SIGN_IN.clientId);
			expect(entities[0].headers.auth).toBe(token);
			for (const request of [...presigns, ...inits])
				expect(request.headers.authorization).toBe(`Bearer ${token}`);
			const storage = received.filter((r) => r.pathname.startsWith('/storage/'));
			expect(storage.map((r) => [r.status, r.headers.authorization, r.headers.auth])).toEqual([
				[204, undefined, undefined],
			]);
		});
	},
);

// ---------------------------------------------------------------------------------------------

async function shot(name: string): Promise<void> {
	await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

async function fakeAdmin<T>(path: string): Promise<T> {
	const response = await fetch(`${npmStart.fakeApiUrl}${path}`);
	if (!response.ok) throw new Error(`fake API ${path}: ${response.status}`);
	return (await response.json()) as T;
}

/** A REST call as the logged-in editor makes it (with its browser-id header). */
async function restPost(path: string, body: unknown): Promise<void> {
	const status = await page.evaluate(
		async ({ url, json }) => {
			const response = await fetch(url, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'browser-id': localStorage.getItem('n8n-browserId') ?? '',
				},
				body: json,
			});
			return response.status;
		},
		{ url: path, json: JSON.stringify(body) },
	);
	if (status !== 200) throw new Error(`POST ${path} answered ${status}`);
}

/** Manual trigger → the sample recording → Upload Audio and wait → Business → Get Many Entities, all with the OAuth2 credential. */
function signedInWorkflow(recordingPath: string): WorkflowJson & { id: string } {
	const credentials = { [SIGN_IN_CREDENTIAL_TYPE]: LOCAL_SIGN_IN_CREDENTIAL };
	const names = [
		'When clicking ‘Execute workflow’',
		'Read Recording',
		'Transcribe',
		'Get Entities',
	];
	return {
		id: newId(),
		name: 'Signed in with the clinic account (browser test)',
		nodes: [
			{
				id: randomUUID(),
				name: names[0],
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: randomUUID(),
				name: names[1],
				type: 'n8n-nodes-base.readWriteFile',
				typeVersion: 1.1,
				position: [220, 0],
				parameters: { operation: 'read', fileSelector: recordingPath, options: {} },
			},
			{
				id: randomUUID(),
				name: names[2],
				type: ACTION_NODE_TYPE,
				typeVersion: 1,
				position: [440, 0],
				parameters: {
					authentication: SIGN_IN_CREDENTIAL_TYPE,
					resource: 'transcription',
					operation: 'uploadAudio',
					binaryPropertyName: 'data',
					transactionId: "={{ 'signed-in-' + $execution.id }}",
					inputLanguages: ['en-IN'],
					outputTemplates: {
						templates: [{ template: 'clinical_notes_template', codificationNeeded: false }],
					},
					waitForCompletion: true,
					timeoutMinutes: 2,
					pollIntervalSeconds: 1,
					resultsOutput: 'session',
					options: {},
				},
				credentials,
			},
			{
				id: randomUUID(),
				name: names[3],
				type: ACTION_NODE_TYPE,
				typeVersion: 1,
				position: [660, 0],
				parameters: {
					authentication: SIGN_IN_CREDENTIAL_TYPE,
					resource: 'business',
					operation: 'getEntities',
				},
				credentials,
			},
		],
		connections: Object.fromEntries(
			names
				.slice(0, -1)
				.map((name, index) => [
					name,
					{ main: [[{ node: names[index + 1], type: 'main', index: 0 }]] },
				]),
		),
		settings: { executionOrder: 'v1' },
	};
}
