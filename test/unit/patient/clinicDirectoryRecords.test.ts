import {
	checkTenDigitMobile,
	readBusinessEntities,
	readDoctorServices,
	readBusinessPatientProfiles,
	simplifyPatient,
} from '../../../nodes/ClinicScribe/shared/answers/clinicDirectoryRecords';

describe('readDoctorServices', () => {
	it('keeps the declared array and turns the sample single object into a list', () => {
		expect(
			readDoctorServices({ data: { services: [{ service_name: 'A' }, { service_name: 'B' }] } }),
		).toHaveLength(2);
		expect(readDoctorServices({ data: { services: { service_name: 'A' } } })).toEqual([
			{ service_name: 'A' },
		]);
	});
	it('gives an empty list when there are no services, undefined when the body is not the documented JSON', () => {
		expect(readDoctorServices({ data: {} })).toEqual([]);
		expect(readDoctorServices('<html>')).toBeUndefined();
		expect(readDoctorServices({ data: { services: 'x' } })).toBeUndefined();
	});
});

describe('readBusinessPatientProfiles', () => {
	const profilesForm = {
		data: {
			profiles: [
				{
					name: 'Ravi Kumar',
					patient_id: 'p1',
					patient_profile: {
						patient_id: 'p1',
						first_name: 'Ravi',
						middle_name: '',
						last_name: 'Kumar',
						dob: '1990-01-02',
						gender: 'M',
						mobile: '+919876543210',
						created_at: '2024-01-01T00:00:00.000Z',
					},
				},
			],
		},
	};
	const patientsForm = {
		data: {
			patients: [
				{
					name: 'Ravi Kumar',
					patient_id: 'p1',
					clinic_id: 'c1',
					is_recent: true,
					patient_profile: {
						patient_id: 'p1',
						first_name: 'Ravi',
						middle_name: '',
						last_name: 'Kumar',
						dob: '1990-01-02',
						gen: 'M',
						mobile: '+919876543210',
						email: 'r@example.com',
						created_at: '2024-01-01T00:00:00.000Z',
					},
				},
			],
		},
	};

	it('gives both documented forms the same keys, with gen read as gender', () => {
		const [a] = readBusinessPatientProfiles(profilesForm)!;
		const [b] = readBusinessPatientProfiles(patientsForm)!;
		expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
		expect(Object.keys(a.patient_profile as object).sort()).toEqual(
			Object.keys(b.patient_profile as object).sort(),
		);
		expect((b.patient_profile as { gender: string }).gender).toBe('M');
		expect(a.clinic_id).toBeNull();
		expect(b.clinic_id).toBe('c1');
	});

	it('falls back to the profile for a missing top-level id and builds a name', () => {
		const [entry] = readBusinessPatientProfiles({
			data: {
				profiles: [
					{
						patient_id: null,
						patient_profile: { patient_id: 'p9', first_name: 'A', last_name: 'B' },
					},
				],
			},
		})!;
		expect(entry.patient_id).toBe('p9');
		expect(entry.name).toBe('A B');
	});

	it('simplifies to a flat record', () => {
		const [entry] = readBusinessPatientProfiles(patientsForm)!;
		expect(simplifyPatient(entry)).toEqual({
			patient_id: 'p1',
			name: 'Ravi Kumar',
			first_name: 'Ravi',
			middle_name: '',
			last_name: 'Kumar',
			dob: '1990-01-02',
			gender: 'M',
			mobile: '+919876543210',
			email: 'r@example.com',
		});
	});
});

describe('readBusinessEntities', () => {
	it('returns clinics, doctors and business, and empty parts when missing', () => {
		expect(
			readBusinessEntities({
				data: {
					clinics: [{ clinic_id: 'c' }],
					doctors: [{ doctor_id: 'd' }],
					business: { business_id: 'b' },
				},
			}),
		).toEqual({
			clinics: [{ clinic_id: 'c' }],
			doctors: [{ doctor_id: 'd' }],
			business: { business_id: 'b' },
		});
		expect(readBusinessEntities({ data: {} })).toEqual({ clinics: [], doctors: [], business: {} });
		expect(readBusinessEntities(null)).toBeUndefined();
	});
});

describe('checkTenDigitMobile', () => {
	it.each(['9876543210', '98765 43210', '98765-43210', '(987) 654-3210', ' 987.654.3210 '])(
		'accepts %p',
		(value) => {
			expect(checkTenDigitMobile(value)).toEqual({ ok: true, digits: '9876543210' });
		},
	);
	it('accepts a number value', () => {
		expect(checkTenDigitMobile(9876543210)).toEqual({ ok: true, digits: '9876543210' });
	});
	it.each([
		['', 'is empty'],
		['987654321', 'has 9 digits'],
		['98765432101', 'has 11 digits'],
		['+919876543210', 'country code'],
		['98765x3210', 'characters other than digits'],
	])('refuses %p', (value, problem) => {
		const result = checkTenDigitMobile(value);
		expect(result.ok).toBe(false);
		expect(result.ok === false && result.problem).toContain(problem);
	});
});
