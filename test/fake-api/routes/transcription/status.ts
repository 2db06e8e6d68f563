/** `GET /voice/api/v3/status/:txn`: processing (held like the real long poll), then the scripted results. */
import type { FakeClinicState, RouteContext } from '../../types';
import { base64Of, FHIR_BUNDLE, templateDocument, type RequestedTemplate } from './documents';
import {
	bearerBusiness,
	CLINICAL_NOTES_ID,
	holdUnlessClientLeaves,
	storeOf,
	TRANSCRIPT_ID,
	variantOf,
	voiceError,
	type Outcome,
	type Transaction,
	type TransactionScript,
	type TranscriptionOptions,
} from './store';

export async function sessionStatus(ctx: RouteContext): Promise<void> {
	const businessId = bearerBusiness(ctx);
	if (!businessId) return;
	const store = storeOf(ctx.state);
	const txn = store.transactions.get(ctx.params.txnId);
	if (!txn || txn.businessId !== businessId || !txn.initBody)
		return voiceError(ctx, 404, 'txn_not_found', 'no such transaction');
	txn.statusCalls++;
	const script = { ...pickScript(store.options), ...txn.script };
	const readyAt = (txn.initAt ?? 0) + (script.processingMs ?? 0);
	const stillPolling = txn.statusCalls <= (script.processingPolls ?? 0);
	if (stillPolling || Date.now() < readyAt) {
		// The real service holds the call (long poll) before it says "still processing".
		const hold = stillPolling
			? store.options.holdMs
			: Math.min(store.options.holdMs, readyAt - Date.now());
		if (hold > 0 && (await holdUnlessClientLeaves(ctx, hold)) === 'client-left') {
			// The client closed the connection during the hold (Stop, its own timeout): nothing to answer.
			txn.statusCallsAbandoned++;
			return;
		}
		if (stillPolling || Date.now() < readyAt) return ctx.sendJson(202, processingBody(ctx, txn));
	}
	const [status, body] = resultsBody(ctx, txn, script.outcome ?? 'success', script.emrPrescription);
	ctx.sendJson(status, body);
}

function pickScript(options: TranscriptionOptions): TransactionScript {
	return {
		outcome: options.outcome,
		processingPolls: options.processingPolls,
		processingMs: options.processingMs,
	};
}

function requestedTemplates(txn: Transaction): RequestedTemplate[] {
	return (txn.initBody?.output_format_template as RequestedTemplate[] | undefined) ?? [];
}

function templateName(ctx: { state: FakeClinicState }, templateId: string): string {
	if (templateId === CLINICAL_NOTES_ID) return 'Clinical Notes';
	if (templateId === TRANSCRIPT_ID) return 'Transcript';
	if (templateId === variantOf(ctx).emrTemplateId) return 'EMR Format';
	return `Custom: ${templateId}`;
}

function processingBody(ctx: RouteContext, txn: Transaction) {
	return {
		data: {
			output: requestedTemplates(txn).map((template) => ({
				template_id: template.template_id,
				name: templateName(ctx, template.template_id),
				value: '',
				status: 'in-progress',
				errors: [],
				warnings: [],
			})),
		},
	};
}

function resultsBody(
	ctx: RouteContext,
	txn: Transaction,
	outcome: Outcome,
	emrPrescription: Record<string, unknown> | undefined,
): [number, unknown] {
	const emrId = variantOf(ctx).emrTemplateId;
	const extra = {
		additional_data: txn.initBody?.additional_data ?? {},
		created_at: new Date(txn.initAt ?? Date.now()).toISOString(),
	};
	if (outcome === 'fhir')
		return [200, { data: { output: { fhir: base64Of(FHIR_BUNDLE) }, ...extra } }];
	const templates = requestedTemplates(txn);
	const success = (template: RequestedTemplate) => {
		const document =
			emrPrescription && template.template_id === emrId
				? { value: { prescription: emrPrescription }, type: 'json' }
				: templateDocument(emrId, template);
		return {
			template_id: template.template_id,
			name: templateName(ctx, template.template_id),
			value: base64Of(document.value),
			type: document.type,
			status: 'success',
			errors: [],
			warnings: [],
		};
	};
	const failure = (template: RequestedTemplate) => ({
		template_id: template.template_id,
		name: templateName(ctx, template.template_id),
		value: '',
		status: 'failure',
		errors: [
			{
				code: 'template_generation_failed',
				message: 'Could not generate this template from the audio',
			},
		],
		warnings: [],
	});
	if (outcome === 'success') return [200, { data: { output: templates.map(success), ...extra } }];
	if (outcome === 'failure') {
		return [
			500,
			{
				data: { output: templates.map(failure), ...extra },
				error: { code: 'transcription_failed', message: 'All templates failed' },
			},
		];
	}
	// partial: the first template made it; with one template, it made it only in part.
	if (templates.length === 1) {
		return [
			206,
			{
				data: {
					output: [
						{
							...success(templates[0]),
							status: 'partial_success',
							warnings: ['Some sections could not be generated: audio unclear'],
						},
					],
					...extra,
				},
			},
		];
	}
	return [
		206,
		{
			data: {
				output: templates.map((template, index) =>
					index === 0 ? success(template) : failure(template),
				),
				...extra,
			},
		},
	];
}
