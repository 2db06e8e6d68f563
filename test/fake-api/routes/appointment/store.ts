/** The fake appointments' state: the store per fake API, seeding with defaults, the registered partner ids, IST dates. */
import type { FakeClinicState } from '../../types';

export const PARTNER_CLINICS: Readonly<Record<string, string>> = Object.freeze({
	CL04: 'c-1001',
	CL05: 'c-1002',
});
export const PARTNER_DOCTORS: Readonly<Record<string, string>> = Object.freeze({
	'test-doc-123': 'do1001',
	'test-doc-456': 'do1003',
});

/** Page size per filter set ([EKA-DT]). */
export const PAGE_SIZES = Object.freeze({ patient: 20, doctorOrClinic: 50, datesOnly: 30 });
export const LIST_MAX_SPAN_DAYS = 7;

/** Slots each day, IST wall clock (hour, minute), 15 minutes long. */
export const SLOT_TIMES: ReadonlyArray<readonly [number, number]> = Object.freeze([
	[9, 30],
	[9, 45],
	[10, 0],
	[10, 15],
]);
export const SLOT_CONF_ID = 'conf-1001-01';
export const IST_OFFSET_SECONDS = 19800;

export interface FakeAppointment {
	appointment_id: string;
	partner_appointment_id?: string;
	clinic_id: string;
	doctor_id: string;
	patient_id: string;
	partner_clinic_id?: string;
	partner_doctor_id?: string;
	partner_patient_id?: string;
	status: string;
	mode: string;
	start_time: number;
	end_time: number;
	created_at: number;
	custom_attributes: Record<string, unknown>;
	partner_meta: Record<string, unknown>;
	display_meta?: Record<string, unknown>;
	notes?: string;
	token?: number;
	prescription_id?: string | null;
	prev_aids?: string[];
	next_aid?: string;
	[extra: string]: unknown;
}

export interface AppointmentStore {
	appointments: Map<string, FakeAppointment>;
	/** Patients added to the directory by bookings with patient_details, in order. */
	directoryAdds: Array<Record<string, unknown>>;
	/** Accepted write bodies, in order. */
	accepted: Array<{ method: string; path: string; appointmentId?: string; body: unknown }>;
	nextId: number;
	seed(appointment: Partial<FakeAppointment> & { appointment_id?: string }): FakeAppointment;
}

const stores = new WeakMap<FakeClinicState, AppointmentStore>();

export function appointmentStoreOf(state: FakeClinicState): AppointmentStore {
	let store = stores.get(state);
	if (!store) {
		const created: AppointmentStore = {
			appointments: new Map(),
			directoryAdds: [],
			accepted: [],
			nextId: 1,
			seed: (appointment) => seedAppointment(created, appointment),
		};
		store = created;
		stores.set(state, store);
	}
	return store;
}

export function resetAppointmentStore(store: AppointmentStore): void {
	store.appointments.clear();
	store.directoryAdds.length = 0;
	store.accepted.length = 0;
	store.nextId = 1;
}

/** In-process control for tests: the store of this fake API. */
export function fakeAppointments(api: { state: FakeClinicState }): AppointmentStore {
	return appointmentStoreOf(api.state);
}

export function seedAppointment(
	store: AppointmentStore,
	input: Partial<FakeAppointment>,
): FakeAppointment {
	const id =
		typeof input.appointment_id === 'string' && input.appointment_id !== ''
			? input.appointment_id
			: newId(store);
	const start = typeof input.start_time === 'number' ? input.start_time : 1795500000;
	const appointment: FakeAppointment = {
		clinic_id: 'c-1001',
		doctor_id: 'do1001',
		patient_id: 'pt-0001',
		status: 'BK',
		mode: 'INCLINIC',
		end_time: start + 900,
		created_at: start - 86400,
		custom_attributes: { label: [], tags: [] },
		partner_meta: {},
		prescription_id: null,
		...input,
		start_time: start,
		appointment_id: id,
	};
	store.appointments.set(id, appointment);
	return appointment;
}

function newId(store: AppointmentStore): string {
	return `api-fake-${String(store.nextId++).padStart(4, '0')}`;
}

/** Statuses an appointment can still be changed in. */
export const ACTIVE = new Set(['BK', 'CK', 'RV', 'IN', 'PA', 'OG']);

export function daysBetween(from: string, to: string): number {
	return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

export function addDays(date: string, days: number): string {
	return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function istIso(epoch: number): string {
	return `${new Date((epoch + IST_OFFSET_SECONDS) * 1000).toISOString().slice(0, 19)}+05:30`;
}

export function istDate(epoch: number): string {
	return new Date((epoch + IST_OFFSET_SECONDS) * 1000).toISOString().slice(0, 10);
}
