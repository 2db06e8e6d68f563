/**
 * Sample data of the fake clinic API. Tests rely on these values: change them only together with the
 * tests. Everything here is plain data (deep-frozen); the route modules build response forms from it.
 */

/** Credentials the fake accepts unless `startFakeClinicApi({ credentials })` overrides them. */
export interface ValidCredentials {
	clientId: string;
	clientSecret: string;
	/** Workspace key: header X-API-KEY (document flow) or body api_key / sharing_key (public flow). */
	apiKey: string;
	/** Long-lived "developer console" access token: always valid, never expires, cannot be refreshed. */
	staticToken: string;
}

export type ApiVariant = 'document' | 'public';

/**
 * The one table of differences between [IFD] and the public service (docs/api-sources.md, "The API
 * variant"). Later route modules (upload, results) read their values here.
 */
export const API_VARIANTS = deepFreeze({
	document: {
		tokenPath: '/api/v1/auth/token',
		uploadAction: 'scribe-v2',
		emrTemplateId: 'svc_emr_template',
		defaultAccessTokenLifetimeSeconds: 3600, // [IFD §5]: "typically 1 hour"
	},
	public: {
		tokenPath: '/connect-auth/v1/account/login',
		uploadAction: 'ekascribe-v2',
		emrTemplateId: 'eka_emr_template',
		defaultAccessTokenLifetimeSeconds: 1800, // [EKA-AUTH] authenticate-and-try.mdx: "expires_in": 1800
	},
} as const);

export const REFRESH_PATH = '/connect-auth/v1/account/refresh-token';
export const DEFAULT_REFRESH_TOKEN_LIFETIME_SECONDS = 30 * 24 * 3600;

/** JWT-shaped, fixed, so a standalone fake and a test in another process agree on it. */
const STATIC_TOKEN =
	'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.' +
	Buffer.from(
		JSON.stringify({
			iss: 'fake-clinic-api',
			sub: 'console',
			b_id: 'b-71523946',
			iat: 1704067200,
			exp: 4102444800,
		}),
	).toString('base64url') +
	'.c3RhdGljLWNvbnNvbGUtdG9rZW4tc2lnbmF0dXJl';

export const DEFAULT_CREDENTIALS: Readonly<ValidCredentials> = deepFreeze({
	clientId: 'cs-test-client-7f3a',
	clientSecret: 'cs-test-secret-2b9c41d8e6',
	apiKey: 'cs-test-api-key-5e1d0a',
	staticToken: STATIC_TOKEN,
});

/**
 * The fake sign-in (OIDC) provider (routes/signIn.ts): its one registered client (ids shaped like
 * the service's `EC_…`), the one scope it grants ([EKA-OIDC]) and the one clinic
 * account its login page accepts.
 */
export const SIGN_IN = deepFreeze({
	clientId: 'EC_7734921056',
	clientSecret: 'cs-sign-in-secret-4f81c2e9a7',
	scope: 'openid profile email offline_access',
	/** The service's example answers expires_in 3600. */
	accessTokenLifetimeSeconds: 3600,
	user: {
		username: 'asha.rao@sunrise-clinics.example',
		password: 'Sunrise-Sign-In-1',
		sub: 'u-asha-rao',
		name: 'Dr. Asha Rao',
		email: 'asha.rao@sunrise-clinics.example',
	},
});

export const BUSINESS = deepFreeze({ business_id: 'b-71523946', name: 'Sunrise Family Clinics' });

export const CLINICS = deepFreeze([
	{ clinic_id: 'c-1001', name: 'Sunrise Clinic Indiranagar', doctors: ['do1001', 'do1002'] },
	{
		clinic_id: 'c-1002',
		name: 'Sunrise Clinic Koramangala',
		doctors: ['do1002', 'do1003', 'do1004'],
	},
]);

export const DOCTORS = deepFreeze([
	{ name: 'Dr. Asha Rao', doctor_id: 'do1001', pic: 'https://cdn.example.com/doctors/do1001.jpg' },
	{
		name: 'Dr. Vikram Mehta',
		doctor_id: 'do1002',
		pic: 'https://cdn.example.com/doctors/do1002.jpg',
	},
	{ name: 'Dr. Neha Iyer', doctor_id: 'do1003', pic: 'https://cdn.example.com/doctors/do1003.jpg' },
	{
		name: 'Dr. Arjun Shah',
		doctor_id: 'do1004',
		pic: 'https://cdn.example.com/doctors/do1004.jpg',
	},
]);

/** [IFD §2.1]. */
export interface DoctorService {
	appointment_type: 'REGULAR' | 'FOLLOW_UP';
	archive: boolean;
	book_ahead_days: number;
	created_at: number;
	currency: string;
	duration: number;
	mode: Array<'tele' | 'in-clinic'>;
	pre_pay: boolean;
	price: number;
	service_name: string;
	conf_id: string;
}

/**
 * Services per doctor id. `a b/c` is not in the entities listing: it exists so tests can prove a
 * doctor id with a space and a slash travels percent-encoded as one path segment and still answers 200.
 */
export const SERVICES_BY_DOCTOR: Readonly<Record<string, readonly DoctorService[]>> = deepFreeze({
	do1001: [
		{
			appointment_type: 'REGULAR',
			archive: false,
			book_ahead_days: 30,
			created_at: 1704067200,
			currency: 'INR',
			duration: 15,
			mode: ['in-clinic', 'tele'],
			pre_pay: true,
			price: 500,
			service_name: 'General Consultation',
			conf_id: 'conf-1001-01',
		},
		{
			appointment_type: 'FOLLOW_UP',
			archive: false,
			book_ahead_days: 14,
			created_at: 1704153600,
			currency: 'INR',
			duration: 10,
			mode: ['in-clinic'],
			pre_pay: false,
			price: 250.5,
			service_name: 'Follow-up Visit',
			conf_id: 'conf-1001-02',
		},
		{
			appointment_type: 'REGULAR',
			archive: false,
			book_ahead_days: 7,
			created_at: 1706745600,
			currency: 'INR',
			duration: 20,
			mode: ['tele'],
			pre_pay: true,
			price: 400,
			service_name: 'Video Consultation',
			conf_id: 'conf-1001-03',
		},
		{
			appointment_type: 'REGULAR',
			archive: true,
			book_ahead_days: 0,
			created_at: 1672531200,
			currency: 'INR',
			duration: 45,
			mode: ['in-clinic'],
			pre_pay: false,
			price: 1200,
			service_name: 'Home Visit (discontinued)',
			conf_id: 'conf-1001-04',
		},
	],
	do1002: [
		{
			appointment_type: 'REGULAR',
			archive: false,
			book_ahead_days: 21,
			created_at: 1709251200,
			currency: 'INR',
			duration: 30,
			mode: ['in-clinic'],
			pre_pay: true,
			price: 900,
			service_name: 'Cardiology Consultation',
			conf_id: 'conf-1002-01',
		},
		{
			appointment_type: 'FOLLOW_UP',
			archive: true,
			book_ahead_days: 10,
			created_at: 1709337600,
			currency: 'INR',
			duration: 15,
			mode: ['tele'],
			pre_pay: false,
			price: 300,
			service_name: 'Tele Follow-up',
			conf_id: 'conf-1002-02',
		},
	],
	do1003: [
		{
			appointment_type: 'REGULAR',
			archive: false,
			book_ahead_days: 60,
			created_at: 1711929600,
			currency: 'USD',
			duration: 25,
			mode: ['tele', 'in-clinic'],
			pre_pay: true,
			price: 19.99,
			service_name: 'Paediatric Consultation',
			conf_id: 'conf-1003-01',
		},
	],
	do1004: [],
	'a b/c': [
		{
			appointment_type: 'REGULAR',
			archive: false,
			book_ahead_days: 1,
			created_at: 1714521600,
			currency: 'INR',
			duration: 5,
			mode: ['tele'],
			pre_pay: false,
			price: 1,
			service_name: 'Encoding Check',
			conf_id: 'conf-encoding-01',
		},
	],
});

/**
 * Patients per 10-digit mobile. Each entry holds the fields of both documented forms ([IFD §2.2] and
 * its alternative); the deprecated search (routes/patient/mobileSearch.ts) picks the form the options
 * ask for.
 */
export interface PatientFixture {
	name: string;
	patient_id: string | null;
	clinic_id: string | null;
	is_recent: boolean;
	profile: {
		patient_id: string | null;
		first_name: string;
		middle_name: string;
		last_name: string;
		dob: string;
		gender: 'M' | 'F' | 'O';
		mobile: string;
		created_at: string;
		email: string;
	};
}

export const PATIENTS_BY_MOBILE: Readonly<Record<string, readonly PatientFixture[]>> = deepFreeze({
	'9876543210': [
		{
			name: 'Ravi Kumar',
			patient_id: 'p-2001',
			clinic_id: 'c-1001',
			is_recent: true,
			profile: {
				patient_id: 'p-2001',
				first_name: 'Ravi',
				middle_name: '',
				last_name: 'Kumar',
				dob: '1985-04-12',
				gender: 'M',
				mobile: '+919876543210',
				created_at: '2023-06-01T10:15:30.123Z',
				email: 'ravi.kumar@example.com',
			},
		},
		{
			name: 'Priya Lakshmi Kumar',
			patient_id: 'p-2002',
			clinic_id: null,
			is_recent: false,
			profile: {
				patient_id: 'p-2002',
				first_name: 'Priya',
				middle_name: 'Lakshmi',
				last_name: 'Kumar',
				dob: '1988-11-30',
				gender: 'F',
				mobile: '+919876543210',
				created_at: '2023-06-01T10:20:00.000Z',
				email: 'priya.kumar@example.com',
			},
		},
	],
	'9123456780': [
		{
			name: 'Anita Desai',
			patient_id: null,
			clinic_id: 'c-1002',
			is_recent: false,
			profile: {
				patient_id: null,
				first_name: 'Anita',
				middle_name: '',
				last_name: 'Desai',
				dob: '1990-01-05',
				gender: 'F',
				mobile: '+919123456780',
				created_at: '2024-02-10T08:00:00.500Z',
				email: 'anita.desai@example.com',
			},
		},
	],
	'9000000001': [
		{
			name: 'Sam Fernandes',
			patient_id: 'p-2004',
			clinic_id: 'c-1002',
			is_recent: true,
			profile: {
				patient_id: 'p-2004',
				first_name: 'Sam',
				middle_name: '',
				last_name: 'Fernandes',
				dob: '2001-02-28',
				gender: 'O',
				mobile: '+919000000001',
				created_at: '2024-05-20T17:45:12.999Z',
				email: 'sam.f@example.com',
			},
		},
	],
});

/** Named values for tests, so they do not repeat literals. */
export const FIXTURE_IDS = deepFreeze({
	businessId: BUSINESS.business_id,
	/** 4 services: 3 active (REGULAR and FOLLOW_UP, tele and in-clinic), 1 archived. */
	doctorWithServices: 'do1001',
	/** 2 services, one archived. */
	doctorWithTwoServices: 'do1002',
	/** 1 service. */
	doctorWithOneService: 'do1003',
	/** Listed in entities; 0 services. */
	doctorWithoutServices: 'do1004',
	/** Not in entities; 1 service; must arrive as the single segment `a%20b%2Fc`. */
	doctorIdNeedingEncoding: 'a b/c',
	unknownDoctor: 'do9999',
	mobileWithTwoProfiles: '9876543210',
	mobileWithNullPatientId: '9123456780',
	mobileWithGenderO: '9000000001',
	unknownMobile: '9999999999',
});

function deepFreeze<T>(value: T): T {
	if (value && typeof value === 'object' && !Object.isFrozen(value)) {
		Object.freeze(value);
		for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
	}
	return value;
}
