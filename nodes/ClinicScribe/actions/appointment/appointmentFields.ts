/**
 * Parameters shared by the Appointment operations, and their readers. Every reader refuses bad
 * input before any request, naming the item, the field, the problem and the fix.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IDisplayOptions,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';

export type Show = NonNullable<IDisplayOptions['show']>;

import { DEFAULT_CLINIC_TIME_ZONE } from '../../shared/answers/appointmentRecords';
import { readDateInput, readTimeInput } from '../../shared/timeInput';
import { isKnownTimeZone } from '../../shared/timeZones';
import { isRecord, readJsonObjectParameter, trimmedString } from '../../shared/values';

export const RESOURCE = 'appointment';

export function showFor(...operations: string[]): { resource: string[]; operation: string[] } {
	return { resource: [RESOURCE], operation: operations };
}

export const TIME_DESCRIPTION =
	"A date-time from the picker or an expression, an ISO 8601 text (without an offset it is read in the clinic's time zone) or epoch seconds";

export function inputError(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	problem: string,
	fix: string,
): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `${field} of item ${itemIndex} ${problem}`, {
		description: `${fix} Nothing was sent.`,
		itemIndex,
	});
}

// ---------------------------------------------------------------------------------------------
// Pickers

function locator(
	displayName: string,
	name: string,
	method: string,
	placeholder: string,
	description: string,
	show: Show,
	required: boolean,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required,
		description,
		displayOptions: { show },
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: method, searchable: true },
			},
			{ displayName: 'By ID', name: 'id', type: 'string', placeholder },
		],
	};
}

export function doctorLocator(show: Show, required = true, name = 'doctorId'): INodeProperties {
	return locator(
		'Doctor',
		name,
		'searchDoctors',
		'e.g. 174157340097045',
		'The doctor (from the business listing)',
		show,
		required,
	);
}

export function clinicLocator(show: Show, required = true, name = 'clinicId'): INodeProperties {
	return locator(
		'Clinic',
		name,
		'searchClinics',
		'e.g. 60532c7dcb46901ba3a3e462',
		'The clinic (from the business listing)',
		show,
		required,
	);
}

/** The value of a resource locator or plain parameter, trimmed ('' when not given). */
export function readLocator(ctx: IExecuteFunctions, name: string, itemIndex: number): string {
	const value = ctx.getNodeParameter(name, itemIndex, '', { extractValue: true });
	return typeof value === 'number' ? String(value) : trimmedString(value);
}

export function readRequiredLocator(
	ctx: IExecuteFunctions,
	name: string,
	field: string,
	itemIndex: number,
	fix: string,
): string {
	const value = readLocator(ctx, name, itemIndex);
	if (value === '') throw inputError(ctx, itemIndex, `The ${field}`, 'is empty', fix);
	return value;
}

// ---------------------------------------------------------------------------------------------
// The appointment an operation acts on

export function appointmentIdFields(operations: string[], allowPartner = true): INodeProperties[] {
	const show = showFor(...operations);
	const fields: INodeProperties[] = [
		{
			displayName: 'Appointment ID',
			name: 'appointmentId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. api-abb67007-1e53-4f0f-b428-a4bc025468a4',
			description: allowPartner
				? "The appointment: Eka's appointment ID, or your partner appointment ID (see ID Type)"
				: "Eka's appointment ID",
			displayOptions: { show },
		},
	];
	if (allowPartner) {
		fields.push({
			displayName: 'ID Type',
			name: 'appointmentIdType',
			type: 'options',
			default: 'eka',
			options: [
				{
					name: 'Eka Appointment ID',
					value: 'eka',
					description: 'The appointment_id the service gave at booking',
				},
				{
					name: 'Partner Appointment ID',
					value: 'partner',
					description: 'Your own partner_appointment_id given at booking',
				},
			],
			displayOptions: { show },
		});
	}
	return fields;
}

export function readAppointmentRef(
	ctx: IExecuteFunctions,
	itemIndex: number,
): { appointmentId: string; partnerId: boolean } {
	const appointmentId = trimmedString(ctx.getNodeParameter('appointmentId', itemIndex, ''));
	if (appointmentId === '') {
		throw inputError(
			ctx,
			itemIndex,
			'The Appointment ID',
			'is empty',
			'Enter the appointment ID (Appointment → Get Many lists them, and Book returns it).',
		);
	}
	const type = ctx.getNodeParameter('appointmentIdType', itemIndex, 'eka') as string;
	return { appointmentId, partnerId: type === 'partner' };
}

// ---------------------------------------------------------------------------------------------
// The id set (Book, Update)

export function idSetFields(operations: string[]): INodeProperties[] {
	const show = showFor(...operations);
	const eka = { ...show, idSet: ['eka'] };
	const partner = { ...show, idSet: ['partner'] };
	return [
		{
			displayName: 'IDs',
			name: 'idSet',
			type: 'options',
			default: 'eka',
			options: [
				{
					name: 'Eka IDs',
					value: 'eka',
					description: "The clinic's, doctor's and patient's IDs in the service",
				},
				{
					name: 'Partner IDs',
					value: 'partner',
					description: 'Your own IDs; the clinic and doctor must be registered on the hub',
				},
			],
			description:
				'Which set of IDs names the clinic, the doctor and the patient (the service takes exactly one complete set)',
			displayOptions: { show },
		},
		clinicLocator(eka),
		doctorLocator(eka),
		{
			displayName: 'Patient ID',
			name: 'patientId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. 174678912588458',
			description: "The patient's ID in the directory (oid)",
			displayOptions: { show: eka },
		},
		{
			displayName: 'Partner Clinic ID',
			name: 'partnerClinicId',
			type: 'string',
			default: '',
			required: true,
			displayOptions: { show: partner },
		},
		{
			displayName: 'Partner Doctor ID',
			name: 'partnerDoctorId',
			type: 'string',
			default: '',
			required: true,
			displayOptions: { show: partner },
		},
		{
			displayName: 'Partner Patient ID',
			name: 'partnerPatientId',
			type: 'string',
			default: '',
			required: true,
			displayOptions: { show: partner },
		},
	];
}

/** The item's id set as body fields; refused when any of the three is empty. */
export function readIdSet(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const kind = ctx.getNodeParameter('idSet', itemIndex, 'eka') as string;
	const names =
		kind === 'partner'
			? ([
					['partnerClinicId', 'partner_clinic_id', 'Partner Clinic ID'],
					['partnerDoctorId', 'partner_doctor_id', 'Partner Doctor ID'],
					['partnerPatientId', 'partner_patient_id', 'Partner Patient ID'],
				] as const)
			: ([
					['clinicId', 'clinic_id', 'Clinic'],
					['doctorId', 'doctor_id', 'Doctor'],
					['patientId', 'patient_id', 'Patient ID'],
				] as const);
	const body: IDataObject = {};
	const missing: string[] = [];
	for (const [parameter, field, label] of names) {
		const value = readLocator(ctx, parameter, itemIndex);
		if (value === '') missing.push(label);
		else body[field] = value;
	}
	if (missing.length > 0) {
		throw inputError(
			ctx,
			itemIndex,
			'The ID set',
			`is incomplete: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} empty`,
			kind === 'partner'
				? 'Give all three partner IDs (clinic, doctor, patient), or switch IDs to Eka IDs.'
				: 'Give the clinic, the doctor and the patient ID (the service takes exactly one complete set), or switch IDs to Partner IDs.',
		);
	}
	return body;
}

// ---------------------------------------------------------------------------------------------
// Times

export function timeZoneOption(): INodeProperties {
	return {
		displayName: 'Clinic Time Zone',
		name: 'timeZone',
		type: 'string',
		default: DEFAULT_CLINIC_TIME_ZONE,
		placeholder: 'e.g. Asia/Kolkata',
		description:
			'IANA time zone of the clinic: times without an offset are read in it, and times come out in ISO with its offset. The service shows Indian time (+05:30).',
	};
}

export function readTimeZone(
	ctx: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
): string {
	const zone = trimmedString(options.timeZone) || DEFAULT_CLINIC_TIME_ZONE;
	if (!isKnownTimeZone(zone)) {
		throw inputError(
			ctx,
			itemIndex,
			'The Clinic Time Zone',
			`"${zone}" is not a time zone`,
			'Give an IANA name such as Asia/Kolkata or Europe/London.',
		);
	}
	return zone;
}

export function readOptions(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const options = ctx.getNodeParameter('options', itemIndex, {});
	return isRecord(options) ? options : {};
}

export function readTime(
	ctx: IExecuteFunctions,
	itemIndex: number,
	value: unknown,
	field: string,
	timeZone: string,
): number {
	const reading = readTimeInput(value, timeZone);
	if (!reading.ok) {
		throw inputError(
			ctx,
			itemIndex,
			`The ${field}`,
			reading.problem,
			'Pick a date-time, or give ISO 8601 (2026-11-24T10:30:00+05:30) or epoch seconds.',
		);
	}
	return reading.epoch;
}

export function readDate(
	ctx: IExecuteFunctions,
	itemIndex: number,
	value: unknown,
	field: string,
	timeZone: string,
): string {
	const reading = readDateInput(value, timeZone);
	if (!reading.ok)
		throw inputError(
			ctx,
			itemIndex,
			`The ${field}`,
			reading.problem,
			'Pick a date, or give YYYY-MM-DD, an ISO 8601 date-time or epoch seconds.',
		);
	return reading.date;
}

/** A JSON object parameter (given as JSON text or an object from an expression); undefined when empty. */
export function readJsonObject(
	ctx: IExecuteFunctions,
	itemIndex: number,
	value: unknown,
	field: string,
): IDataObject | undefined {
	const reading = readJsonObjectParameter(value);
	if (reading.problem)
		throw inputError(
			ctx,
			itemIndex,
			`The ${field}`,
			reading.problem,
			'Give a JSON object, for example {"encounter_id": "123"}.',
		);
	return reading.object;
}

/**
 * The booking mode as the service's enum. [EKA-DT]'s enum (`INCLINIC` | `PHONE` | `VIDEO`) is
 * written; [EKA-MCP]'s spellings (`in_clinic`, `AUDIO`) and the appointment object's (`in-clinic`)
 * are read too. `tele` is refused: it could mean phone or video.
 */
export function bookingModeOf(value: unknown): string | undefined {
	const text = trimmedString(value)
		.toLowerCase()
		.replace(/[-_\s]/g, '');
	if (text === 'inclinic') return 'INCLINIC';
	if (text === 'phone' || text === 'audio') return 'PHONE';
	if (text === 'video') return 'VIDEO';
	return undefined;
}

export const MODE_OPTIONS = [
	{ name: 'In Clinic', value: 'INCLINIC' },
	{ name: 'Phone', value: 'PHONE' },
	{ name: 'Video', value: 'VIDEO' },
];

export function readMode(ctx: IExecuteFunctions, itemIndex: number, value: unknown): string {
	const mode = bookingModeOf(value);
	if (!mode)
		throw inputError(
			ctx,
			itemIndex,
			'The Mode',
			`"${String(value)}" is not a mode`,
			'Use In Clinic (INCLINIC), Phone (PHONE) or Video (VIDEO).',
		);
	return mode;
}
