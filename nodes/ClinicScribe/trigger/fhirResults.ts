/**
 * Include Results with Output "FHIR Transaction Bundle for the EHR": the session's results and the
 * patient directory profile the session names, fetched within the one budget the service waits for
 * (boundedFetch.ts), then the visit's bundle. Anything that keeps the bundle from being made (a wrong
 * choice, a session with no notes, a fetch that failed) starts the workflow with the event and an
 * `error` instead of `bundle`, as a failed fetch of the results does, so the event is never lost
 * and no empty bundle goes on to the EHR.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { readFhirSettings } from '../shared/fhir/fields';
import { codingFailureMessage, termsToCode } from '../shared/fhir/codes';
import {
	bundleEntries,
	buildFhirOutput,
	planFhirOutput,
	type FhirFetched,
	type FhirProblem,
} from '../shared/fhir/fhirOutput';
import type { ResultsSource } from '../shared/fields/resultsOutput.description';
import { fetchPatientProfile } from '../transport/patientApi';
import { lookUpTermCodes } from '../transport/medLinkApi';
import { fetchResults } from '../transport/transcription/transaction';
import { fetchWithinBudget, type IncludedFetch } from './boundedFetch';

const INCLUDED_FOR_FHIR: IncludedFetch = {
	what: 'the results of the session and its patient',
	later:
		'Transcription → Get Results with Output "FHIR Transaction Bundle for the EHR" (the session ID is in sessionId)',
};

/** The item's fields: the bundle and its summary, or `error` (with `session_id` and, when known, `status`). */
export async function fhirRecordOfSession(
	ctx: IWebhookFunctions,
	sessionId: string,
	source: ResultsSource,
): Promise<IDataObject> {
	const settings = readFhirSettings(
		(name, fallback) => ctx.getNodeParameter(name, fallback),
		'trigger',
	);
	if (!settings.ok) {
		return problemRecord(sessionId, undefined, {
			message: `${settings.problem} (Output "FHIR Transaction Bundle for the EHR")`,
			description:
				'Correct the field in the trigger. The workflow started with the event alone; nothing was fetched.',
			notReady: false,
		});
	}
	const chosen = { ...settings.value, timeZone: ctx.getTimezone() };
	const fetched = await fetchWithinBudget(ctx, INCLUDED_FOR_FHIR, async (bounds) => {
		const results = await fetchResults(ctx, source, sessionId, undefined, bounds);
		const plan = planFhirOutput(results, settings.value);
		const extra: FhirFetched = {};
		if (plan.ok && plan.directoryPatientId)
			extra.directoryProfile = await fetchPatientProfile(
				ctx,
				plan.directoryPatientId,
				undefined,
				bounds,
			);
		const coding = settings.value.coding;
		if (plan.ok && coding) {
			// The codes of the bundle's terms, within the same budget (a failure never throws here).
			const draft = buildFhirOutput(results, chosen, extra);
			if (draft.ok)
				extra.codes = await lookUpTermCodes(ctx, termsToCode(bundleEntries(draft.record)), {
					bounds,
				});
		}
		return { results, plan, extra };
	});
	if ('error' in fetched) return { session_id: sessionId, error: fetched.error };
	const { results, plan, extra } = fetched.value;
	if (!plan.ok) return problemRecord(sessionId, results.status, plan.problem);
	const failure =
		settings.value.coding?.onFailure === 'fail' && extra.codes && codingFailureMessage(extra.codes);
	if (failure) return problemRecord(sessionId, results.status, { ...failure, notReady: false });
	const built = buildFhirOutput(results, chosen, extra);
	return built.ok ? built.record : problemRecord(sessionId, results.status, built.problem);
}

function problemRecord(
	sessionId: string,
	status: string | undefined,
	problem: FhirProblem,
): IDataObject {
	const record: IDataObject = { session_id: sessionId };
	if (status) record.status = status;
	record.error = {
		message: problem.message,
		description: `The workflow started with the event and no bundle. ${problem.description}`,
		httpCode: null,
	};
	return record;
}
