import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { readBusinessEntities } from '../shared/directoryRecords';
import { getBusinessEntities } from '../transport/directoryApi';

/** The business's doctors (document 4.3), for the Doctor pickers. */
export async function searchDoctors(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const response = await getBusinessEntities(this);
	const doctors = readBusinessEntities(response.body)?.doctors ?? [];
	const needle = (filter ?? '').trim().toLowerCase();
	const results = doctors
		.map((doctor) => ({ name: String(doctor.name ?? doctor.doctor_id ?? ''), value: String(doctor.doctor_id ?? '') }))
		.filter((entry) => entry.value !== '')
		.filter((entry) => needle === '' || entry.name.toLowerCase().includes(needle) || entry.value.includes(needle))
		.sort((a, b) => a.name.localeCompare(b.name));
	return { results };
}
