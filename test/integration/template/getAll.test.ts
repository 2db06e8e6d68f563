/**
 * Template → Get Many over real HTTP against the project's fake clinic API
 * (test/fake-api/routes/template.ts).
 */
import { getMany, SOAP_NOTE, TEMPLATES, useTemplateCalls } from '../../support/templateCalls';

const t = useTemplateCalls();
const { credentials, run } = t;

describe('Template → Get Many', () => {
	it("returns the workspace's templates, one item each, with the Bearer token", async () => {
		const output = await run(getMany());
		expect(output.map((item) => item.json)).toEqual([
			{
				id: 'clinical_notes_template',
				title: 'Clinical Notes',
				description: 'Standard clinical note',
				sections: [],
				default: true,
				is_favorite: false,
			},
			{
				id: 'transcript_template',
				title: 'Transcript',
				description: 'The conversation as text',
				sections: [],
				default: true,
				is_favorite: false,
			},
			SOAP_NOTE,
		]);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }, { item: 0 }]);
		const [call] = t.api.requestsTo(TEMPLATES, 'GET');
		expect(call.headers.authorization).toMatch(/^Bearer eyJ/);
		expect(call.headers.auth).toBeUndefined();
		expect(call.url).toBe(TEMPLATES);
	});

	it('honours the limit', async () => {
		const output = await run(getMany({ returnAll: false, limit: 2 }));
		expect(output.map((item) => item.json.id)).toEqual([
			'clinical_notes_template',
			'transcript_template',
		]);
	});

	it('sends the client id with the public API variant (the fake refuses a token without it)', async () => {
		t.api.setOptions({ variant: 'public' });
		const output = await run(getMany(), { store: credentials({ apiVariant: 'public' }) });
		expect(output).toHaveLength(3);
		expect(t.api.requestsTo(TEMPLATES, 'GET')[0].headers['client-id']).toBe(
			t.api.validCredentials.clientId,
		);
	});

	it('retries a 503 and then answers', async () => {
		t.api.injectFault({ method: 'GET', path: TEMPLATES, fault: { kind: 'status', status: 503 } });
		const output = await run(getMany());
		expect(output).toHaveLength(3);
		expect(t.api.requestsTo(TEMPLATES, 'GET').map((call) => call.status)).toEqual([503, 200]);
	});
});
