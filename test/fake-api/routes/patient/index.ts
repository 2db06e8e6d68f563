/**
 * The patients of the fake clinic API: the patient directory ([EKA-PD], profiles.ts: create, search,
 * by mobile, list, get, update, archive under /profiles/v1/patient) and the deprecated search by
 * mobile ([IFD §4.2], mobileSearch.ts: /dr/v1/business/patients/search).
 *
 * Control in-process through `fakePatientDirectory(api)`.
 */
import type { RouteDefinition } from '../../types';
import { patientSearchRoutes } from './mobileSearch';
import { patientDirectoryRoutes } from './profiles';

export {
	fakePatientDirectory,
	patientDirectoryOf,
	resetPatientDirectory,
	SEEDED_PROFILES,
	WORKSPACE_ID,
	type FakeProfile,
	type PatientDirectoryStore,
} from './profiles';

export const patientRoutes: readonly RouteDefinition[] = [
	...patientSearchRoutes,
	...patientDirectoryRoutes,
];
