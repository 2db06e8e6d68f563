/**
 * Patient details sent with a booking ([EKA-DT] `patient_details`): passing them adds the patient
 * to the clinic's directory ([EKA-APPT-GS]). Patient data: no value of these fields ever appears in an error.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	checkCalendarDate,
	checkDirectoryMobile,
	checkGender,
} from '../../shared/answers/patientDirectoryRecords';
import { trimmedString } from '../../shared/values';
import { inputError, type Show } from './appointmentFields';

export const DESIGNATIONS = [
	'Mr.',
	'Ms.',
	'Mrs.',
	'Miss.',
	'Kumar.',
	'Shri.',
	'Smt.',
	'Dr.',
	'Master.',
	'Baby.',
	'Mohd.',
	'B/O',
];

export function patientDetailsField(show: Show): INodeProperties {
	return {
		displayName: 'Patient Details',
		name: 'patientDetails',
		type: 'collection',
		placeholder: 'Add Patient Detail',
		default: {},
		description:
			"The patient's details. Giving them adds the patient to the clinic's patient directory.",
		displayOptions: { show },
		options: [
			{
				displayName: 'Age',
				name: 'age',
				type: 'number',
				default: 0,
				description: 'Age in years (give this or Date of Birth, not both)',
			},
			{ displayName: 'City', name: 'city', type: 'string', default: '' },
			{
				displayName: 'Date of Birth',
				name: 'dob',
				type: 'string',
				default: '',
				placeholder: 'YYYY-MM-DD',
			},
			{
				displayName: 'Designation',
				name: 'designation',
				type: 'options',
				default: 'Mr.',
				options: DESIGNATIONS.map((value) => ({ name: value, value })),
			},
			{ displayName: 'First Name', name: 'firstName', type: 'string', default: '' },
			{
				displayName: 'Gender',
				name: 'gender',
				type: 'options',
				default: 'M',
				options: [
					{ name: 'Female', value: 'F' },
					{ name: 'Male', value: 'M' },
					{ name: 'Other', value: 'O' },
				],
			},
			{ displayName: 'Last Name', name: 'lastName', type: 'string', default: '' },
			{ displayName: 'Middle Name', name: 'middleName', type: 'string', default: '' },
			{
				displayName: 'Mobile',
				name: 'mobile',
				type: 'string',
				default: '',
				placeholder: 'e.g. +919999999999',
				description: 'With the country code; a 10-digit Indian number gets +91',
			},
			{ displayName: 'Partner Patient ID', name: 'partnerPatientId', type: 'string', default: '' },
			{
				displayName: 'Pincode',
				name: 'pincode',
				type: 'string',
				default: '',
				placeholder: 'e.g. 560038',
			},
		],
	};
}

/** The body's `patient_details` and the values to redact from errors; undefined when none was given. */
export function readPatientDetails(
	ctx: IExecuteFunctions,
	itemIndex: number,
): { details: IDataObject; redact: string[] } | undefined {
	const raw = ctx.getNodeParameter('patientDetails', itemIndex, {}) as IDataObject;
	const details: IDataObject = {};
	const redact: string[] = [];
	const text = (key: string) => trimmedString(raw[key]);
	for (const [parameter, field] of [
		['firstName', 'first_name'],
		['middleName', 'middle_name'],
		['lastName', 'last_name'],
		['partnerPatientId', 'partner_patient_id'],
	] as const) {
		const value = text(parameter);
		if (value !== '') {
			details[field] = value;
			redact.push(value);
		}
	}
	if (raw.designation !== undefined) {
		if (!DESIGNATIONS.includes(text('designation'))) {
			throw inputError(
				ctx,
				itemIndex,
				'The patient Designation',
				'is not one the service knows',
				`Use one of ${DESIGNATIONS.join(' ')}.`,
			);
		}
		details.designation = text('designation');
	}
	if (raw.gender !== undefined) {
		const gender = checkGender(raw.gender);
		if (!gender.ok)
			throw inputError(
				ctx,
				itemIndex,
				'The patient Gender',
				gender.problem,
				'Pick Female, Male or Other.',
			);
		details.gender = gender.value;
	}
	// The directory's own reading of a mobile (shared with Patient → Search by Mobile): +<cc><number>.
	if (given(raw.mobile)) {
		const mobile = checkDirectoryMobile(raw.mobile);
		if (!mobile.ok) {
			throw inputError(
				ctx,
				itemIndex,
				'The patient Mobile',
				mobile.problem,
				'Give it with the country code (+919999999999) or as a 10-digit Indian number.',
			);
		}
		details.mobile = mobile.value.withCountryCode;
		redact.push(String(raw.mobile).trim(), mobile.value.withCountryCode, mobile.value.national);
	}
	const age = raw.age;
	const hasAge = typeof age === 'number' && age > 0;
	if (given(raw.dob) && hasAge)
		throw inputError(
			ctx,
			itemIndex,
			'The patient details',
			'have both Date of Birth and Age',
			'Give one of them (the service takes either).',
		);
	if (given(raw.dob)) {
		const date = checkCalendarDate(raw.dob);
		if (!date.ok)
			throw inputError(
				ctx,
				itemIndex,
				'The patient Date of Birth',
				date.problem,
				'Give it as YYYY-MM-DD, for example 1987-01-06.',
			);
		details.dob = date.value;
		redact.push(date.value);
	}
	if (hasAge) details.age = Math.floor(age);
	const city = text('city');
	const pincode = text('pincode');
	if (city !== '' || pincode !== '') {
		const address: IDataObject = {};
		if (city !== '') address.city = city;
		if (pincode !== '') {
			if (!/^\d{4,10}$/.test(pincode))
				throw inputError(
					ctx,
					itemIndex,
					'The patient Pincode',
					'is not a number',
					'Give the postal code as digits.',
				);
			address.pincode = Number(pincode);
		}
		details.address = address;
	}
	if (Object.keys(details).length === 0) return undefined;
	return { details, redact };
}

function given(value: unknown): boolean {
	return (
		value !== undefined && value !== null && !(typeof value === 'string' && value.trim() === '')
	);
}
