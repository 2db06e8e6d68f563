/**
 * Prescription → Get (with the PDF as a binary field), over real HTTP against the project's fake
 * clinic API (test/fake-api/routes/prescription.ts): the API route wants the raw `auth` token, the
 * PDF store refuses any credential, so a passing download proves none was sent to it.
 */
import { fakePrescriptions, SEEDED_PRESCRIPTION_ID } from '../../fake-api/routes/prescription';
import { createExecuteContext } from '../../support/nodeContext';
import { useNodeRuns } from '../../support/nodeRuns';

const t = useNodeRuns({ reset: (api) => fakePrescriptions(api).reset() });
const { credentials, run, failure } = t;
const RX_PATH = `/dr/v1/prescription/${SEEDED_PRESCRIPTION_ID}`;

const get = (extra: Record<string, unknown> = {}) => ({
	resource: 'prescription',
	operation: 'get',
	prescriptionId: SEEDED_PRESCRIPTION_ID,
	...extra,
});

describe('Prescription → Get', () => {
	it('returns the prescription as the API answers it, with the raw auth token', async () => {
		const output = await run(get());
		expect(output).toHaveLength(1);
		expect(output[0].pairedItem).toEqual({ item: 0 });
		expect(output[0].binary).toBeUndefined();
		const json = output[0].json;
		expect(json.prescription_id).toBe(SEEDED_PRESCRIPTION_ID);
		expect(json.doctor_id).toBe('do1001');
		expect(json.appointment_id).toBe('V-DW-1730717340935-171266028552522-8JR9');
		expect(
			(json.prescription_details as Array<{ resource_type: string }>).map((d) => d.resource_type),
		).toEqual(['appointment', 'medicationrequest', 'advices']);
		const calls = t.api.requestsTo(RX_PATH, 'GET');
		expect(calls).toHaveLength(1);
		expect(calls[0].url).toBe(RX_PATH);
		expect(calls[0].headers.auth).toMatch(/^eyJ/);
		expect(calls[0].headers.authorization).toBeUndefined();
	});

	it('sends the client id with the public API variant', async () => {
		t.api.setOptions({ variant: 'public' });
		const output = await run(get(), { store: credentials({ apiVariant: 'public' }) });
		expect(output[0].json.prescription_id).toBe(SEEDED_PRESCRIPTION_ID);
		expect(t.api.requestsTo(RX_PATH, 'GET')[0].headers['client-id']).toBe(
			t.api.validCredentials.clientId,
		);
	});

	it('downloads the PDF from the link given, with no credential, into the chosen binary field', async () => {
		const seeded = fakePrescriptions(t.api).seed({
			prescription: { prescription_id: 'P-DW-77' },
			pdfText: 'Paracetamol 500',
		});
		const output = await run(
			get({
				prescriptionId: 'P-DW-77',
				downloadPdf: true,
				pdfUrl: seeded.prescription_url,
				binaryPropertyName: 'rx',
			}),
		);
		expect(output).toHaveLength(1);
		expect(output[0].json.prescription_id).toBe('P-DW-77');
		const file = output[0].binary?.rx;
		expect(file).toBeDefined();
		expect(file?.mimeType).toBe('application/pdf');
		expect(file?.fileName).toBe('P-DW-77.pdf');
		const bytes = Buffer.from(file?.data ?? '', 'base64');
		expect(bytes.equals(fakePrescriptions(t.api).store.pdfs.get('P-DW-77.pdf') as Buffer)).toBe(
			true,
		);
		expect(bytes.toString('latin1')).toContain('(Paracetamol 500)');
		const [download] = t.api.requestsTo('/prescription-store/P-DW-77.pdf', 'GET');
		expect(download.status).toBe(200);
		expect(download.headers.auth).toBeUndefined();
		expect(download.headers.authorization).toBeUndefined();
		expect(download.headers['client-id']).toBeUndefined();
	});

	it('sends no client id to the PDF link with the public variant either', async () => {
		t.api.setOptions({ variant: 'public' });
		const { prescription_url } = fakePrescriptions(t.api).seed({
			prescription: { prescription_id: 'P-DW-78' },
		});
		const output = await run(
			get({
				prescriptionId: 'P-DW-78',
				downloadPdf: true,
				pdfUrl: prescription_url,
				binaryPropertyName: 'data',
			}),
			{
				store: credentials({ apiVariant: 'public' }),
			},
		);
		expect(output[0].binary?.data.fileName).toBe('P-DW-78.pdf');
		const [download] = t.api.requestsTo('/prescription-store/P-DW-78.pdf', 'GET');
		expect(
			Object.keys(download.headers).filter((h) =>
				['auth', 'authorization', 'client-id'].includes(h),
			),
		).toEqual([]);
	});

	it('uses a PDF link the prescription answer carries when PDF URL is empty (prescription_url or the older rx_url)', async () => {
		const seeded = fakePrescriptions(t.api).seed({ prescription: { prescription_id: 'P-DW-79' } });
		fakePrescriptions(t.api).store.prescriptions.get('P-DW-79')!.record.rx_url =
			seeded.prescription_url;
		const output = await run(
			get({ prescriptionId: 'P-DW-79', downloadPdf: true, pdfUrl: '', binaryPropertyName: 'data' }),
		);
		expect(output[0].binary?.data.fileName).toBe('P-DW-79.pdf');
	});

	it('fails the item when there is no PDF link anywhere, saying where to find one', async () => {
		const { message, description } = await failure(
			get({ downloadPdf: true, pdfUrl: '', binaryPropertyName: 'data' }),
		);
		expect(message).toBe(
			'The prescription of item 0 came without a PDF link, and PDF URL is empty',
		);
		expect(description).toContain('prescription_url');
		expect(t.api.requestsTo(/^\/prescription-store\//)).toHaveLength(0);
	});

	it('retries a 503 of the PDF store, then stores the file', async () => {
		const { prescription_url } = fakePrescriptions(t.api).seed({
			prescription: { prescription_id: 'P-DW-80' },
		});
		t.api.injectFault({
			method: 'GET',
			path: '/prescription-store/',
			fault: { kind: 'status', status: 503 },
		});
		const output = await run(
			get({
				prescriptionId: 'P-DW-80',
				downloadPdf: true,
				pdfUrl: prescription_url,
				binaryPropertyName: 'data',
			}),
		);
		expect(output[0].binary?.data.mimeType).toBe('application/pdf');
		expect(t.api.requestsTo('/prescription-store/P-DW-80.pdf', 'GET').map((r) => r.status)).toEqual(
			[503, 200],
		);
	});

	it('reports a link the store does not know with its host only, not the link', async () => {
		const link = `${t.api.url}/prescription-store/P-DW-gone.pdf?X-Amz-Signature=secret-signature`;
		// The fake refuses any query; a 404 for an unknown file without one.
		const { message, description } = await failure(
			get({ downloadPdf: true, pdfUrl: link.replace(/\?.*$/, ''), binaryPropertyName: 'data' }),
		);
		expect(message).toBe(`${new URL(t.api.url).host} refused the prescription PDF (HTTP 404)`);
		expect(description).toContain('expired');
		expect(message).not.toContain('P-DW-gone');
	});

	it('refuses an answer that is not a PDF', async () => {
		const { prescription_url } = fakePrescriptions(t.api).seed({
			prescription: { prescription_id: 'P-DW-81' },
		});
		fakePrescriptions(t.api).store.pdfs.set('P-DW-81.pdf', Buffer.from('<html>login</html>'));
		const { message } = await failure(
			get({
				prescriptionId: 'P-DW-81',
				downloadPdf: true,
				pdfUrl: prescription_url,
				binaryPropertyName: 'data',
			}),
		);
		expect(message).toBe(
			`${new URL(t.api.url).host} answered the prescription PDF with something that is not a PDF (HTTP 200)`,
		);
	});

	it('names the API refusal of an unknown prescription', async () => {
		const { message } = await failure(get({ prescriptionId: 'P-DW-unknown' }));
		expect(message).toBe(
			'The clinic API refused the prescription (HTTP 404 NOT_FOUND): Rx id/Business data missing',
		);
		expect(t.api.requestsTo('/dr/v1/prescription/P-DW-unknown')).toHaveLength(1);
	});

	it.each([
		['an empty ID', { prescriptionId: '  ' }, 'The Prescription ID of item 0 is empty'],
		['a dots-only ID', { prescriptionId: '..' }, 'The Prescription ID of item 0 is ".."'],
		[
			'a PDF URL that is not a URL',
			{ downloadPdf: true, pdfUrl: 'not a link', binaryPropertyName: 'data' },
			'The PDF URL of item 0 is not a URL',
		],
		[
			'a PDF URL that is not http(s)',
			{ downloadPdf: true, pdfUrl: 'file:///etc/passwd', binaryPropertyName: 'data' },
			'The PDF URL of item 0 is not an http(s) address',
		],
		[
			'an empty binary field name',
			{ downloadPdf: true, pdfUrl: '', binaryPropertyName: ' ' },
			'The Put Output File in Field of item 0 is empty',
		],
	])('fails the item with nothing sent for %s', async (_label, extra, expected) => {
		const { message } = await failure(get(extra));
		expect(message.startsWith(expected)).toBe(true);
		expect(t.api.requests).toHaveLength(0);
	});

	it('under Continue On Fail keeps going and pairs each item', async () => {
		const items = [
			{ json: { id: SEEDED_PRESCRIPTION_ID } },
			{ json: { id: '' } },
			{ json: { id: SEEDED_PRESCRIPTION_ID } },
		];
		const output = await run(
			{
				resource: 'prescription',
				operation: 'get',
				prescriptionId: (i: number) => items[i].json.id,
				downloadPdf: false,
			},
			{ items, continueOnFail: true },
		);
		expect(output.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output[0].json.prescription_id).toBe(SEEDED_PRESCRIPTION_ID);
		expect(output[1].json.error).toBe('The Prescription ID of item 1 is empty');
		expect(t.api.requestsTo(RX_PATH, 'GET')).toHaveLength(2);
	});

	it('as an AI agent tool with patient data sharing off, refuses with nothing sent', async () => {
		const { message } = await failure(get({ shareWithAiAgent: false }), { asTool: true });
		expect(message).toBe('Prescription Get is not shared with AI agents in this node');
		expect(t.api.requests).toHaveLength(0);
	});
});

describe('downloadPrescriptionPdf (for the trigger and examples)', () => {
	it('takes a prescription_url as it comes and returns the bytes', async () => {
		const { downloadPrescriptionPdf } = await import(
			'../../../nodes/ClinicScribe/transport/prescriptionApi'
		);
		const { prescription_url } = fakePrescriptions(t.api).seed({
			prescription: { prescription_id: 'P-DW-90' },
		});
		const { context } = createExecuteContext({ credentials: credentials(), parameters: {} });
		const pdf = await downloadPrescriptionPdf(context, prescription_url);
		expect(pdf.fileName).toBe('P-DW-90.pdf');
		expect(pdf.mimeType).toBe('application/pdf');
		expect(pdf.data.equals(fakePrescriptions(t.api).store.pdfs.get('P-DW-90.pdf') as Buffer)).toBe(
			true,
		);
	});

	it('refuses a link that is not http(s) with nothing sent', async () => {
		const { downloadPrescriptionPdf } = await import(
			'../../../nodes/ClinicScribe/transport/prescriptionApi'
		);
		const { context } = createExecuteContext({ credentials: credentials(), parameters: {} });
		await expect(downloadPrescriptionPdf(context, 'javascript:alert(1)', 3)).rejects.toThrow(
			'The prescription PDF link of item 3 is not an http(s) address',
		);
		expect(t.api.requests).toHaveLength(0);
	});
});
