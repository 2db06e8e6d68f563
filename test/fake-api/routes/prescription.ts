/**
 * Prescriptions ([EKA-DT]) and the store their PDFs live in:
 *
 *   GET /dr/v1/prescription/:prescriptionId   → 200 the prescription at the top level ([EKA-DT]: no `data`
 *       wrapper, no PDF link); 404 {error:{code:"NOT_FOUND", message:"Rx id/Business data missing"}}
 *   GET /prescription-store/:fileName         → 200 application/pdf (the PDF bytes); 404 when unknown
 *
 * The API route takes the token raw in header `auth` ([EKA-DT], as every `/dr` call here); with the public
 * variant a token issued to a client also needs `client-id`, and a `client-id` that does not match
 * the token is refused with either variant. No query, no body.
 *
 * The store stands for `prescription-store-s3.eka.care`, another host: it is strict the other way.
 * A request that carries `auth`, `Authorization`, `client-id` or a cookie is refused with 400 (a
 * credential sent to the store would be a leak), as is any query or a method other than GET.
 *
 * Seeded with one prescription (`SEEDED_PRESCRIPTION_ID`) and its PDF. Control:
 *   in-process  `fakePrescriptions(api).seed({...})` → {prescription_id, prescription_url, pdf_path}
 *   over HTTP   POST /__admin/prescriptions {prescription?: {...}, pdfText?: string, baseUrl?: string}
 *               GET  /__admin/prescriptions → every prescription (with its pdf_path)
 *               POST /__admin/prescriptions/reset → only the seeded one again
 * A seeded prescription gets `prescription_id` (given or `P-DW-FAKE-<n>`) and [EKA-DT]'s other top-level
 * fields filled from the fixtures; the PDF is a small valid PDF whose text is `pdfText` (default:
 * "Prescription <id>"). `prescription_url` is `<baseUrl><pdf_path>` (baseUrl: the fake's own URL
 * in-process; over HTTP the caller gives it, else only `pdf_path` is answered).
 */
import { BUSINESS, CLINICS, DOCTORS } from '../fixtures';
import type {
	AdminDefinition,
	FakeClinicApi,
	FakeClinicState,
	RouteContext,
	RouteDefinition,
} from '../types';

export const PRESCRIPTION_PATH = '/dr/v1/prescription/:prescriptionId';
export const PRESCRIPTION_STORE_PREFIX = '/prescription-store';
export const PRESCRIPTION_PDF_PATH = `${PRESCRIPTION_STORE_PREFIX}/:fileName`;
export const SEEDED_PRESCRIPTION_ID = 'P-DW-1730717340935-0001';

export interface FakePrescription {
	/** [EKA-DT]'s top-level record, as answered. */
	record: Record<string, unknown>;
	/** `/prescription-store/<file>.pdf` */
	pdfPath: string;
	pdf: Buffer;
}

export interface PrescriptionStore {
	prescriptions: Map<string, FakePrescription>;
	/** PDFs by file name. */
	pdfs: Map<string, Buffer>;
	nextId: number;
}

export interface SeedInput {
	prescription?: Record<string, unknown>;
	pdfText?: string;
}

export interface SeededPrescription {
	prescription_id: string;
	pdf_path: string;
	prescription_url?: string;
}

const stores = new WeakMap<FakeClinicState, PrescriptionStore>();

export function prescriptionStoreOf(state: FakeClinicState): PrescriptionStore {
	let store = stores.get(state);
	if (!store) {
		store = { prescriptions: new Map(), pdfs: new Map(), nextId: 1 };
		resetPrescriptionStore(store);
		stores.set(state, store);
	}
	return store;
}

export function resetPrescriptionStore(store: PrescriptionStore): void {
	store.prescriptions.clear();
	store.pdfs.clear();
	store.nextId = 1;
	seedInto(store, { prescription: { prescription_id: SEEDED_PRESCRIPTION_ID } });
}

/** A prescription as [EKA-DT]'s example shows one (values from the fake's fixtures). */
export function samplePrescription(prescriptionId: string): Record<string, unknown> {
	return {
		prescription_id: prescriptionId,
		doctor_id: DOCTORS[0].doctor_id,
		partner_doctor_id: 'test-doc-123',
		doctor_name: DOCTORS[0].name,
		patient_name: 'Ravi Kumar',
		patient_id: '175074536120088',
		partner_patient_id: 'UHID-0042',
		appointment_id: 'V-DW-1730717340935-171266028552522-8JR9',
		partner_appointment_id: 'appt-42',
		clinic_id: CLINICS[0].clinic_id,
		partner_clinic_id: 'CL04',
		business_id: BUSINESS.business_id,
		prescription_details: [
			{ resource_type: 'appointment', follow_up: '2024-11-10T18:30:00+00:00', note: [] },
			{
				resource_type: 'medicationrequest',
				med_name: 'Paracetamol 500 mg Tablet',
				partner_drug_id: 'drug-500',
				drug_status: 'active',
				dose: { id: 'd1', value: '1', unit: 'tablet', custom: '' },
				duration: {
					unit: 'day',
					value: 3,
					custom: '',
					period: 1,
					period_unit: 'day',
					frequency: 2,
				},
				dosage_instruction: { custom: '1-0-1', when: ['MORN', 'NIGHT'] },
				additional_instructions: [{ type: 'timing', custom: 'After Meal' }],
				note: '',
			},
			{
				resource_type: 'advices',
				advices: 'Drink plenty of water',
				status: 'active',
				intent: 'plan',
			},
		],
	};
}

/** A small, valid one-page PDF showing `text`. */
export function minimalPdf(text: string): Buffer {
	const safe = text.replace(/[()\\]/g, ' ').slice(0, 200);
	const stream = `BT /F1 12 Tf 72 720 Td (${safe}) Tj ET`;
	const objects = [
		'<< /Type /Catalog /Pages 2 0 R >>',
		'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
		'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
		`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
		'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
	];
	let body = '%PDF-1.4\n';
	const offsets: number[] = [];
	objects.forEach((object, index) => {
		offsets.push(Buffer.byteLength(body, 'latin1'));
		body += `${index + 1} 0 obj\n${object}\nendobj\n`;
	});
	const xref = Buffer.byteLength(body, 'latin1');
	body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
	for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
	body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
	return Buffer.from(body, 'latin1');
}

function seedInto(store: PrescriptionStore, input: SeedInput): SeededPrescription {
	const given = input.prescription ?? {};
	const id =
		typeof given.prescription_id === 'string' && given.prescription_id.trim() !== ''
			? given.prescription_id
			: `P-DW-FAKE-${String(store.nextId++).padStart(4, '0')}`;
	const record = { ...samplePrescription(id), ...given, prescription_id: id };
	const fileName = `${id.replace(/[^\w.-]/g, '_')}.pdf`;
	const pdfPath = `${PRESCRIPTION_STORE_PREFIX}/${fileName}`;
	const pdf = minimalPdf(input.pdfText ?? `Prescription ${id}`);
	store.prescriptions.set(id, { record, pdfPath, pdf });
	store.pdfs.set(fileName, pdf);
	return { prescription_id: id, pdf_path: pdfPath };
}

export interface FakePrescriptions {
	readonly store: PrescriptionStore;
	/** Adds (or replaces) a prescription and its PDF; the URL is on this fake's own address. */
	seed(input?: SeedInput): SeededPrescription & { prescription_url: string };
	reset(): void;
}

/** In-process control for tests. */
export function fakePrescriptions(api: FakeClinicApi): FakePrescriptions {
	const store = prescriptionStoreOf(api.state);
	return {
		store,
		seed: (input = {}) => {
			const seeded = seedInto(store, input);
			return { ...seeded, prescription_url: `${api.url}${seeded.pdf_path}` };
		},
		reset: () => resetPrescriptionStore(store),
	};
}

export const prescriptionRoutes: readonly RouteDefinition[] = [
	{
		method: 'GET',
		pattern: PRESCRIPTION_PATH,
		body: 'none',
		errorStyle: 'envelope',
		faultErrorCodes: { 404: 'NOT_FOUND', 403: 'FORBIDDEN' },
		handler: getPrescription,
	},
	{
		method: 'GET',
		pattern: PRESCRIPTION_PDF_PATH,
		body: 'none',
		errorStyle: 'envelope',
		handler: getPdf,
	},
];

function getPrescription(ctx: RouteContext): void {
	if (!authorised(ctx)) return;
	if ([...ctx.query.keys()].length > 0)
		return ctx.sendEnvelopeError(400, 'INVALID_REQUEST', 'unexpected query parameter(s)');
	if (ctx.record.bodyLength > 0)
		return ctx.sendEnvelopeError(400, 'INVALID_REQUEST', 'GET takes no body');
	const found = prescriptionStoreOf(ctx.state).prescriptions.get(ctx.params.prescriptionId);
	if (!found)
		return ctx.sendJson(404, {
			error: { code: 'NOT_FOUND', message: 'Rx id/Business data missing' },
		});
	ctx.sendJson(200, found.record);
}

function getPdf(ctx: RouteContext): void {
	const headers = ctx.req.headers;
	const carried = ['auth', 'authorization', 'client-id', 'cookie', 'x-api-key'].filter(
		(name) => headers[name] !== undefined,
	);
	if (carried.length > 0)
		return ctx.sendJson(400, {
			error: {
				code: 'CREDENTIAL_SENT',
				message: `the store takes no credentials; got header(s): ${carried.join(', ')}`,
			},
		});
	if ([...ctx.query.keys()].length > 0)
		return ctx.sendJson(400, { error: { code: 'INVALID_REQUEST', message: 'unexpected query' } });
	const pdf = prescriptionStoreOf(ctx.state).pdfs.get(ctx.params.fileName);
	if (!pdf)
		return ctx.sendJson(404, {
			error: { code: 'NoSuchKey', message: 'The specified key does not exist.' },
		});
	ctx.res.writeHead(200, {
		'content-type': 'application/pdf',
		'content-length': String(pdf.length),
	});
	ctx.res.end(pdf);
}

/** The raw token in `auth`, and the client id where the public SDKs send it ([EKA-MCP]); false after answering 401. */
function authorised(ctx: RouteContext): boolean {
	const header = ctx.req.headers.auth;
	const check = ctx.state.tokens.checkAccess(typeof header === 'string' ? header : undefined);
	if (!check.valid) {
		ctx.sendEnvelopeError(401, 'UNAUTHORIZED', 'token expired or invalid');
		return false;
	}
	const expectedClient =
		check.subject === 'static' ? ctx.state.credentials.clientId : check.subject.clientId;
	const sent = ctx.req.headers['client-id'];
	if (sent === undefined && ctx.state.options.variant === 'public' && check.subject !== 'static') {
		ctx.sendEnvelopeError(401, 'UNAUTHORIZED', 'client-id header is required');
		return false;
	}
	if (sent !== undefined && sent !== expectedClient) {
		ctx.sendEnvelopeError(401, 'UNAUTHORIZED', 'client-id does not match the token');
		return false;
	}
	return true;
}

export const prescriptionAdmin: readonly AdminDefinition[] = [
	{
		method: 'POST',
		action: '/prescriptions',
		handler: ({ state, input }) => {
			const value = (
				typeof input === 'object' && input !== null && !Array.isArray(input) ? input : {}
			) as Record<string, unknown>;
			const prescription = value.prescription;
			if (
				prescription !== undefined &&
				(typeof prescription !== 'object' || prescription === null || Array.isArray(prescription))
			)
				throw new Error('prescription must be an object');
			if (value.pdfText !== undefined && typeof value.pdfText !== 'string')
				throw new Error('pdfText must be a string');
			if (value.baseUrl !== undefined && typeof value.baseUrl !== 'string')
				throw new Error('baseUrl must be a string');
			const seeded: SeededPrescription = seedInto(prescriptionStoreOf(state), {
				prescription: prescription as Record<string, unknown> | undefined,
				pdfText: value.pdfText as string | undefined,
			});
			if (typeof value.baseUrl === 'string')
				seeded.prescription_url = `${value.baseUrl.replace(/\/+$/, '')}${seeded.pdf_path}`;
			return seeded;
		},
	},
	{
		method: 'GET',
		action: '/prescriptions',
		handler: ({ state }) =>
			[...prescriptionStoreOf(state).prescriptions.values()].map((p) => ({
				...p.record,
				pdf_path: p.pdfPath,
			})),
	},
	{
		method: 'POST',
		action: '/prescriptions/reset',
		handler: ({ state }) => {
			resetPrescriptionStore(prescriptionStoreOf(state));
			return { ok: true };
		},
	},
];
