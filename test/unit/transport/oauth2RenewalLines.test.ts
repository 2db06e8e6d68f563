/**
 * A `/dr` call with the OAuth2 credential whose token expired, through a stand-in of each n8n line's
 * OAuth2 helper for node requests (n8n-core's `requestOAuth2`, read from 1.123.81 and 2.41.1): it
 * signs with the stored token (Bearer, and the extra `auth` header the package asks for) and, on a
 * 401 with status errors on, renews, stores the new token and repeats the call once. n8n 1.x's
 * repeat carries the renewed token as Bearer but leaves the refused one in `auth`; 2.x puts the new
 * one in both. The same in a real n8n of each line: test/e2e/oldest-n8n.e2e.test.ts (1.123, 25
 * Get Services items after expiry) and test/e2e/oauth2.e2e.test.ts (2.41).
 */
import type { IAdditionalCredentialOptions, IHttpRequestOptions } from 'n8n-workflow';

import type { ClinicApiContext } from '../../../nodes/ClinicScribe/transport/apiCall';
import { clinicApiRequest } from '../../../nodes/ClinicScribe/transport/request';

type Line = 'oldest' | 'newest';
const PATH = '/dr/v1/doctor/service/do1001';
const BASE_URL = 'https://api.gateway.test';

interface Sent {
	authorization: string;
	auth: string;
	status: number;
}

/** The API, the stored credential and n8n's helper of one line. */
function standIn(line: Line, apiAccepts: (sent: Omit<Sent, 'status'>) => boolean) {
	const stored = { accessToken: 'at-1', refreshes: 0 };
	const sent: Sent[] = [];
	const api = (options: IHttpRequestOptions) => {
		const headers = options.headers as Record<string, string>;
		const request = { authorization: headers.Authorization, auth: headers.auth };
		// The token the credential holds at first has expired.
		const live = request.auth === stored.accessToken && request.auth !== 'at-1';
		const status = apiAccepts(request) && live ? 200 : 401;
		sent.push({ ...request, status });
		return {
			statusCode: status,
			body: status === 200 ? [] : { error: 'token expired' },
			headers: {},
		};
	};
	const refused = (options: IHttpRequestOptions, answer: { statusCode: number; body: unknown }) =>
		Object.assign(new Error(`Request failed with status code ${answer.statusCode}`), {
			response: {
				status: answer.statusCode,
				data: answer.body,
				headers: {},
				config: { url: options.url },
			},
		});
	async function httpRequestWithAuthentication(
		_type: string,
		options: IHttpRequestOptions,
		extra?: IAdditionalCredentialOptions,
	) {
		const key = extra?.oauth2?.keyToIncludeInAccessTokenHeader;
		// Read from the stored credential for each call; client-oauth2's sign() changes the options.
		const token = stored.accessToken;
		const headers = (options.headers ??= {}) as Record<string, string>;
		headers.Authorization = `Bearer ${token}`;
		if (key) headers[key] = token;
		const answer = api(options);
		if (answer.statusCode !== 401 || options.ignoreHttpStatusErrors) return answer;
		stored.refreshes += 1;
		stored.accessToken = `at-${stored.refreshes + 1}`;
		headers.Authorization = `Bearer ${stored.accessToken}`;
		if (key) headers[key] = line === 'oldest' ? token : stored.accessToken;
		const repeated = api(options);
		if (repeated.statusCode >= 400) throw refused(options, repeated);
		return repeated;
	}
	const ctx = {
		getNode: () => ({
			name: 'Get Services',
			type: 'n8n-nodes-clinic-scribe.clinicScribe',
			typeVersion: 1,
			parameters: { authentication: 'clinicScribeOAuth2Api' },
			credentials: { clinicScribeOAuth2Api: { id: '1', name: 'Clinic Sign-in' } },
		}),
		getCredentials: async () => ({
			clientId: 'EC_1',
			clientSecret: 'client-secret-1',
			environment: 'custom',
			baseUrl: BASE_URL,
			apiVariant: 'document',
			oauthTokenData: { access_token: stored.accessToken, refresh_token: 'rt-1' },
		}),
		helpers: { httpRequestWithAuthentication },
	} as unknown as ClinicApiContext;
	return { ctx, stored, sent };
}

const call = (ctx: ClinicApiContext) =>
	clinicApiRequest(ctx, {
		method: 'GET',
		path: PATH,
		purpose: "the doctor's services",
		idempotent: true,
	});

describe.each<Line>(['oldest', 'newest'])('n8n, the %s supported line', (line) => {
	test('an expired token: one renewal, and the call answered with the renewed token in Bearer and in auth', async () => {
		const { ctx, stored, sent } = standIn(line, () => true);
		const answer = await call(ctx);
		expect(answer.statusCode).toBe(200);
		expect(stored.refreshes).toBe(1);
		const refused = [
			// the call, answered 401; then sent with status errors on, so n8n renews
			{ authorization: 'Bearer at-1', auth: 'at-1', status: 401 },
			{ authorization: 'Bearer at-1', auth: 'at-1', status: 401 },
		];
		expect(sent).toEqual(
			line === 'oldest'
				? [
						...refused,
						// n8n 1.x's repeat: the renewed token as Bearer only, refused; the package's once more
						{ authorization: 'Bearer at-2', auth: 'at-1', status: 401 },
						{ authorization: 'Bearer at-2', auth: 'at-2', status: 200 },
					]
				: [...refused, { authorization: 'Bearer at-2', auth: 'at-2', status: 200 }],
		);
	});

	test('the API refusing the renewed token too: one renewal, the error says so and how to fix it', async () => {
		const { ctx, stored, sent } = standIn(line, () => false);
		await expect(call(ctx)).rejects.toMatchObject({
			message: expect.stringContaining('(HTTP 401'),
			description: expect.stringContaining('even after n8n renewed it'),
		});
		expect(stored.refreshes).toBe(1);
		// Refused after the renewal, the call is sent once more (on either line: the package cannot
		// tell them apart) before the error stands.
		expect(sent.map((r) => r.status)).toEqual([401, 401, 401, 401]);
	});
});
