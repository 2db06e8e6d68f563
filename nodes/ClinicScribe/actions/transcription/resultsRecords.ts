/**
 * A session's results as output items in the form the Output field chooses, for Get Results, Upload
 * Audio and Convert Transcript. The FHIR bundle's choices are read and checked with the Output before
 * anything is sent (resultsSettings.ts); building it may read the patient directory profile or the clinic's doctors
 * first. A visit with no notes yet fails the item (never an empty bundle): Continue On Fail gives
 * the error item.
 */
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { codingFailureMessage, termsToCode } from '../../shared/fhir/codes';
import {
	bundleEntries,
	buildFhirOutput,
	planFhirOutput,
	type FhirFetched,
	type FhirOutputSettings,
	type FhirProblem,
} from '../../shared/fhir/fhirOutput';
import { sessionResultsToRecords } from '../../shared/answers/resultsOutput';
import type { SessionResults } from '../../shared/answers/sessionResults';
import { fetchClinicDoctors } from '../../transport/businessApi';
import { fetchPatientProfile } from '../../transport/patientApi';
import { lookUpTermCodes } from '../../transport/medLinkApi';
import type { ChosenOutput } from './resultsSettings';

export async function resultsToRecords(
	ctx: IExecuteFunctions,
	results: SessionResults,
	output: ChosenOutput,
	itemIndex: number,
): Promise<IDataObject[]> {
	if (output.form !== 'fhirBundle') return sessionResultsToRecords(results, output.form);
	if (!output.fhir) throw new Error('resultsToRecords: the FHIR choices were not read');
	return [await fhirBundleRecord(ctx, results, output.fhir, itemIndex)];
}

async function fhirBundleRecord(
	ctx: IExecuteFunctions,
	results: SessionResults,
	settings: FhirOutputSettings,
	itemIndex: number,
): Promise<IDataObject> {
	const plan = planFhirOutput(results, settings);
	if (!plan.ok) throw problemError(ctx, plan.problem, itemIndex);
	const fetched: FhirFetched = {};
	if (plan.directoryPatientId)
		fetched.directoryProfile = await fetchPatientProfile(ctx, plan.directoryPatientId, itemIndex);
	if (plan.clinicDoctorId) fetched.clinicDoctors = await fetchClinicDoctors(ctx, itemIndex);
	const chosen = { ...settings, timeZone: ctx.getTimezone() };
	let built = buildFhirOutput(results, chosen, fetched);
	if (built.ok && settings.coding) {
		// The terms are those of the bundle just made; coded, it is made again with the answers.
		const codes = await lookUpTermCodes(ctx, termsToCode(bundleEntries(built.record)), {
			itemIndex,
		});
		const failure = settings.coding.onFailure === 'fail' && codingFailureMessage(codes);
		if (failure) throw problemError(ctx, { ...failure, notReady: false }, itemIndex);
		built = buildFhirOutput(results, chosen, { ...fetched, codes });
	}
	if (!built.ok) throw problemError(ctx, built.problem, itemIndex);
	return built.record;
}

function problemError(
	ctx: IExecuteFunctions,
	problem: FhirProblem,
	itemIndex: number,
): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), problem.message, {
		description: problem.description,
		itemIndex,
	});
}
