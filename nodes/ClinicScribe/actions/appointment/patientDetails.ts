/**
 * Patient details sent with a booking (notes §1.2): passing them adds the patient to the clinic's
 * directory (APPT-GS). Patient data: no value of these fields ever appears in an error.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { trimmedString } from '../../shared/values';
import { inputError, type Show } from './appointmentFields';

export const DESIGNATIONS = ['Mr.', 'Ms.', 'Mrs.', 'Miss.', 'Kumar.', 'Shri.', 'Smt.', 'Dr.', 'Master.', 'Baby.', 'Mohd.', 'B/O'];

export function patientDetailsField(show: Show): INodeProperties {
	return {
		displayName: 'Patient Details',
		name: 'patientDetails',
		type: 'collection',
		placeholder: 'Add Patient Detail',
		default: {},
		description: "The patient's details. Giving them adds the patient to the clinic's patient directory.",
		displayOptions: { show },
		options: [
			{ displayName: 'Age', name: 'age', type: 'number', default: 0, description: 'Age in years (give this or Date of Birth, not both)' },
			{ displayName: 'City', name: 'city', type: 'string', default: '' },
			{ displayName: 'Date of Birth', name: 'dob', type: 'string', default: '', placeholder: 'YYYY-MM-DD' },
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
			{ displayName: 'Pincode', name: 'pincode', type: 'string', default: '', placeholder: 'e.g. 560038' },
		],
	};
}

/** The mobile with its country code (`+<cc><number>`), as the service wants it; undefined when not a number. */
export function mobileWithCountryCode(value: string): string | undefined {
	const compact = value.replace(/[\s().-]/g, '');
	if (/^[6-9]\d{9}$/.test(compact)) return `+91${compact}`;
	if (/^0[6-9]\d{9}$/.test(compact)) return `+91${compact.slice(1)}`;
	if (/^\+\d{8,15}$/.test(compact)) return compact;
	if (/^00\d{8,15}$/.test(compact)) return `+${compact.slice(2)}`;
	return undefined;
}

/** The body's `patient_details` and the values to redact from errors; undefined when none was given. */
export function readPatientDetails(ctx: IExecuteFunctions, itemIndex: number): { details: IDataObject; redact: string[] } | undefined {
	const raw = ctx.getNodeParameter('patientDetails', itemIndex, {}) as IDataObject;
	const details: IDataObject = {};
	const redact: string[] = [];
	const text = (key: string) => trimmedString(raw[key]);
	for (const [parameter, field] of [['firstName', 'first_name'], ['middleName', 'middle_name'], ['lastName', 'last_name'], ['partnerPatientId', 'partner_patient_id']] as const) {
		const value = text(parameter);
		if (value !== '') {
			details[field] = value;
			redact.push(value);
		}
	}
	if (raw.designation !== undefined) {
		if (!DESIGNATIONS.includes(text('designation'))) {
			throw inputError(ctx, itemIndex, 'The patient Designation', 'is not one the service knows', `Use one of ${DESIGNATIONS.join(' ')}.`);
		}
		details.designation = text('designation');
	}
	if (raw.gender !== undefined) {
		const gender = text('gender').toUpperCase().slice(0, 1);
		if (!['M', 'F', 'O'].includes(gender)) throw inputError(ctx, itemIndex, 'The patient Gender', 'is not M, F or O', 'Pick Female, Male or Other.');
		details.gender = gender;
	}
	const mobileText = text('mobile');
	if (mobileText !== '') {
		const mobile = mobileWithCountryCode(mobileText);
		if (!mobile) {
			throw inputError(ctx, itemIndex, 'The patient Mobile', 'is not a mobile number', 'Give it with the country code (+919999999999) or as a 10-digit Indian number.');
		}
		details.mobile = mobile;
		redact.push(mobileText, mobile, mobile.replace(/^\+91/, ''));
	}
	const dob = text('dob');
	const age = raw.age;
	const hasAge = typeof age === 'number' && age > 0;
	if (dob !== '' && hasAge) throw inputError(ctx, itemIndex, 'The patient details', 'have both Date of Birth and Age', 'Give one of them (the service takes either).');
	if (dob !== '') {
		if (!/^\d{4}-\d{2}-\d{2}$/.test(dob) || Number.isNaN(Date.parse(`${dob}T00:00:00Z`))) {
			throw inputError(ctx, itemIndex, 'The patient Date of Birth', 'is not a date as YYYY-MM-DD', 'Give it as YYYY-MM-DD, for example 1987-01-06.');
		}
		details.dob = dob;
		redact.push(dob);
	}
	if (hasAge) details.age = Math.floor(age);
	const city = text('city');
	const pincode = text('pincode');
	if (city !== '' || pincode !== '') {
		const address: IDataObject = {};
		if (city !== '') address.city = city;
		if (pincode !== '') {
			if (!/^\d{4,10}$/.test(pincode)) throw inputError(ctx, itemIndex, 'The patient Pincode', 'is not a number', 'Give the postal code as digits.');
			address.pincode = Number(pincode);
		}
		details.address = address;
	}
	if (Object.keys(details).length === 0) return undefined;
	return { details, redact };
}
