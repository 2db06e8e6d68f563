/**
 * MedLink, the service's entity linking ([EKA-MEDLINK]), as calls through `clinicApiRequest`
 * (`Authorization: Bearer`, as every path outside `/dr`):
 *
 * - `getMedLinkRegistry`: `GET /med-link/registry/`, the ontologies and their versions.
 * - `linkTermsBatch`: `POST /med-link/nel/link/batch`, 1–5 terms of one ontology.
 *
 * Both only look up: linking stores nothing and the docs name no charge per call, so a POST whose
 * answer was lost or refused for now (429, 5xx) is sent again as a read is (`idempotent`).
 */
import { clinicApiRequest, type ClinicApiContext, type ClinicApiResponse } from './request';

export const MEDLINK_REGISTRY_PATH = '/med-link/registry/';
export const MEDLINK_BATCH_PATH = '/med-link/nel/link/batch';

export async function getMedLinkRegistry(
	ctx: ClinicApiContext,
	itemIndex?: number,
): Promise<ClinicApiResponse> {
	return await clinicApiRequest(ctx, {
		method: 'GET',
		path: MEDLINK_REGISTRY_PATH,
		idempotent: true,
		purpose: "MedLink's registry of ontologies",
		itemIndex,
	});
}

export async function linkTermsBatch(
	ctx: ClinicApiContext,
	batch: { ontology: string; version: string; queries: string[] },
	itemIndex?: number,
): Promise<ClinicApiResponse> {
	return await clinicApiRequest(ctx, {
		method: 'POST',
		path: MEDLINK_BATCH_PATH,
		body: { queries: batch.queries, ontology: batch.ontology, version: batch.version, top_k: 3 },
		idempotent: true,
		purpose: 'the MedLink codes of the terms',
		// The terms are clinical text: an error does not repeat them.
		redact: batch.queries,
		itemIndex,
	});
}
