import type {
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { readBusinessEntities } from '../shared/answers/clinicDirectoryRecords';
import { readTemplateList } from '../shared/answers/templateRecords';
import { getBusinessEntities } from '../transport/businessApi';
import { listTemplates } from '../transport/templateApi';

/** The business's doctors ([IFD §4.3]), for the Doctor pickers. */
export async function searchDoctors(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const response = await getBusinessEntities(this);
	const doctors = readBusinessEntities(response.body)?.doctors ?? [];
	return matchingEntries(
		doctors.map((doctor) => ({
			name: String(doctor.name ?? doctor.doctor_id ?? ''),
			value: String(doctor.doctor_id ?? ''),
		})),
		filter,
	);
}

/** The business's clinics ([IFD §4.3]), for the Clinic pickers (appointments). */
export async function searchClinics(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const response = await getBusinessEntities(this);
	const clinics = readBusinessEntities(response.body)?.clinics ?? [];
	return matchingEntries(
		clinics.map((clinic) => ({
			name: String(clinic.name ?? clinic.clinic_id ?? ''),
			value: String(clinic.clinic_id ?? ''),
		})),
		filter,
	);
}

/** The workspace's templates ([EKA-OAS]), for the Template pickers. */
export async function searchTemplates(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const response = await listTemplates(this);
	const templates = readTemplateList(response.body) ?? [];
	return matchingEntries(
		templates.map((template) => ({
			name: `${template.title ?? template.id}${template.default === true ? ' (default)' : ''}`,
			value: template.id,
		})),
		filter,
	);
}

/**
 * The entries with an ID whose name or ID holds the search text, ignoring case on both sides (IDs
 * such as "DR-Asha-01" are found by "dr-asha"), sorted by name.
 */
function matchingEntries(
	entries: Array<{ name: string; value: string }>,
	filter: string | undefined,
): INodeListSearchResult {
	const needle = (filter ?? '').trim().toLowerCase();
	const results: INodeListSearchItems[] = entries
		.filter((entry) => entry.value !== '')
		.filter(
			(entry) =>
				needle === '' ||
				entry.name.toLowerCase().includes(needle) ||
				entry.value.toLowerCase().includes(needle),
		)
		.sort((a, b) => a.name.localeCompare(b.name));
	return { results };
}
