/**
 * Attack: the API answers a redirect to another host (301, 302, 307, 308) on each call family. n8n
 * would follow it and re-send Authorization (and keep auth, client-id, X-API-KEY, and for 307/308 the
 * JSON body with the client secret). The node must refuse, name the target host, and the foreign
 * host must receive nothing. Real HTTP; test/support/nodeContext.ts reproduces n8n's redirect
 * handling, and test/e2e/attack-redirects.e2e.test.ts proves it in the real n8n.
 */
import { startFakeClinicApi, type FakeClinicApi } from '../../fake-api/server';
import { recordAttack } from '../../support/attackLedger';
import { startForeignHost, type ForeignHost } from '../../support/foreignHost';
import { CALL_FAMILIES, caught, contextFor, credentialFor, secretsOf } from './helpers';
import { useTestTransportPolicy } from '../../support/transportPolicy';

let api: FakeClinicApi;
let foreign: ForeignHost;

beforeAll(async () => {
	api = await startFakeClinicApi();
	foreign = await startForeignHost();
	useTestTransportPolicy({ retry: { baseDelayMs: 10, maxDelayMs: 50 } });
});
afterAll(async () => {
	await api.close();
	await foreign.close();
});
beforeEach(() => {
	api.reset();
	foreign.requests.length = 0;
});

describe.each([301, 302, 307, 308])('a %i redirect to another host', (status) => {
	it.each(CALL_FAMILIES.map((family) => [family.name, family] as const))(
		'on the %s call is refused and the foreign host gets nothing',
		async (name, family) => {
			const store = await credentialFor(api, family.needsToken);
			const secrets = [...secretsOf(store), api.validCredentials.clientId];
			api.requests.length = 0;
			api.injectFault({
				path: family.path,
				times: Infinity,
				fault: { kind: 'redirect', status, location: `${foreign.url}/collect${family.path}` },
			});

			const error = await caught(family.call(contextFor(store)));

			expect(error.message).toContain(`redirect (HTTP ${status}) to ${foreign.host}`);
			expect(foreign.requests).toEqual([]);
			const seen = foreign.secretsSeen([...secretsOf(store), ...secrets]);
			// Refused at once: a redirect is not retried.
			expect(api.requests.map((r) => r.fault)).toEqual(['redirect']);
			expect(seen).toEqual([]);
			recordAttack(
				`redirect-${status}-${name}`,
				`refused, names ${foreign.host}; foreign host got 0 requests`,
				{ secretsSeen: seen.length },
			);
		},
	);
});

it('the token refresh is not followed either: the exchange that follows it is, if it redirects too, refused', async () => {
	const store = await credentialFor(api, true);
	api.expireAccessTokens();
	api.injectFault({
		path: '/connect-auth/v1/account/refresh-token',
		fault: { kind: 'redirect', status: 307, location: `${foreign.url}/refresh` },
	});
	api.injectFault({
		path: CALL_FAMILIES[0].path,
		fault: { kind: 'redirect', status: 308, location: `${foreign.url}/token` },
	});

	const error = await caught(CALL_FAMILIES[1].call(contextFor(store)));

	expect(error.message).toContain(`redirect (HTTP 308) to ${foreign.host}`);
	expect(foreign.requests).toEqual([]);
	recordAttack(
		'redirect-307-refresh',
		`refused, names ${foreign.host}; foreign host got 0 requests`,
		{ secretsSeen: 0 },
	);
});
