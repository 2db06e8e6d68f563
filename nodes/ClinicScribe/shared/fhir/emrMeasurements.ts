/**
 * Measurements: the EMR's vitals (`medicalHistory.vitals`: `{name, dis_name, value: {qt, unit},
 * date}`) and lab results (`labVitals`: `{name, value, unit: {name}, date, interpretation}`,
 * [EKA-EMR-ADAPTER] vitals.js, labVitals.js) as Observations. A vital sign whose name is clear gets
 * the LOINC code of R4's vital-signs profile ([FHIR-R4] observation-vitalsigns.html); a number gets
 * a Quantity (with its UCUM code when the unit is a known one), "120/80" blood pressure its two
 * components; anything else stays as the text it was. Pure.
 */
import type { CodeableConcept, Observation, Quantity } from '@medplum/fhirtypes';

import { asRecord, textOf } from '../values';
import { observationCategory, visitObservation, type EmrContext } from './emrContext';
import type { EmrEntry } from './emrDocument';
import { annotations, fhirDateTime, textConcept } from './resources';

const LOINC = 'http://loinc.org';
const UCUM = 'http://unitsofmeasure.org';

/** Vital signs by name, the most specific first ([FHIR-R4] observation-vitalsigns.html). */
const VITAL_SIGNS: ReadonlyArray<{ pattern: RegExp; code: string; display: string }> = [
	{ pattern: /\bsystolic\b/i, code: '8480-6', display: 'Systolic blood pressure' },
	{ pattern: /\bdiastolic\b/i, code: '8462-4', display: 'Diastolic blood pressure' },
	{
		pattern: /\bblood pressure\b|^bp$/i,
		code: '85354-9',
		display: 'Blood pressure panel with all children optional',
	},
	{ pattern: /\b(pulse|heart rate)\b/i, code: '8867-4', display: 'Heart rate' },
	{
		pattern: /\b(respiratory rate|respiration rate)\b|^rr$/i,
		code: '9279-1',
		display: 'Respiratory rate',
	},
	{ pattern: /\btemperature\b|^temp$/i, code: '8310-5', display: 'Body temperature' },
	{
		pattern: /\b(spo2|oxygen saturation)\b/i,
		code: '59408-5',
		display: 'Oxygen saturation in Arterial blood by Pulse oximetry',
	},
	{
		pattern: /\bbmi\b|\bbody mass index\b/i,
		code: '39156-5',
		display: 'Body mass index (BMI) [Ratio]',
	},
	{ pattern: /\bweight\b/i, code: '29463-7', display: 'Body weight' },
	{ pattern: /\bheight\b/i, code: '8302-2', display: 'Body height' },
];

/** Units as the EMR writes them → UCUM codes ([FHIR-R4] observation-vitalsigns.html units). */
const UCUM_CODES: Readonly<Record<string, string>> = {
	mmhg: 'mm[Hg]',
	'mm hg': 'mm[Hg]',
	bpm: '/min',
	'/min': '/min',
	'beats/min': '/min',
	'breaths/min': '/min',
	'°f': '[degF]',
	f: '[degF]',
	degf: '[degF]',
	'°c': 'Cel',
	c: 'Cel',
	degc: 'Cel',
	'%': '%',
	kg: 'kg',
	g: 'g',
	cm: 'cm',
	m: 'm',
	'kg/m2': 'kg/m2',
	'kg/m²': 'kg/m2',
	'mg/dl': 'mg/dL',
	'g/dl': 'g/dL',
	'mmol/l': 'mmol/L',
};

const NUMBER = /^[-+]?\d+(\.\d+)?$/;

/** A Quantity of `qt` in `unit`, or undefined when `qt` is not a number. */
export function quantity(qt: string | undefined, unit: string | undefined): Quantity | undefined {
	if (!qt || !NUMBER.test(qt)) return undefined;
	const result: Quantity = { value: Number(qt) };
	if (unit) {
		result.unit = unit;
		const code = UCUM_CODES[unit.toLowerCase()];
		if (code) Object.assign(result, { system: UCUM, code });
	}
	return result;
}

function vitalCode(name: string): CodeableConcept {
	const known = VITAL_SIGNS.find((sign) => sign.pattern.test(name));
	return known
		? { coding: [{ system: LOINC, code: known.code, display: known.display }], text: name }
		: textConcept(name);
}

export function vital(entry: EmrEntry, name: string, ctx: EmrContext): Observation {
	const measured = asRecord(entry.raw.value);
	const qt = textOf(measured?.qt) ?? textOf(entry.raw.value);
	const unit = textOf(measured?.unit) ?? textOf(entry.raw.unit);
	const code = vitalCode(name);
	const observation: Observation = {
		...visitObservation(ctx, observationCategory('vital-signs', 'Vital Signs'), code),
		effectiveDateTime: fhirDateTime(entry.raw.date),
		note: annotations(entry.notes ? [entry.notes] : []),
	};
	const pressure = qt ? /^(\d{2,3})\s*\/\s*(\d{2,3})$/.exec(qt) : null;
	if (pressure && code.coding?.[0]?.code === '85354-9') {
		observation.component = [
			{
				code: { coding: [{ system: LOINC, code: '8480-6', display: 'Systolic blood pressure' }] },
				valueQuantity: quantity(pressure[1], unit),
			},
			{
				code: { coding: [{ system: LOINC, code: '8462-4', display: 'Diastolic blood pressure' }] },
				valueQuantity: quantity(pressure[2], unit),
			},
		];
		return observation;
	}
	const amount = quantity(qt, unit);
	if (amount) observation.valueQuantity = amount;
	else if (qt) observation.valueString = unit ? `${qt} ${unit}` : qt;
	return observation;
}

export function labResult(entry: EmrEntry, name: string, ctx: EmrContext): Observation {
	const qt = textOf(entry.raw.value);
	const unit = textOf(asRecord(entry.raw.unit)?.name) ?? textOf(entry.raw.unit);
	const interpretation =
		textOf(asRecord(entry.raw.interpretation)?.value) ?? textOf(entry.raw.interpretation);
	const amount = quantity(qt, unit);
	return {
		...visitObservation(ctx, observationCategory('laboratory', 'Laboratory'), textConcept(name)),
		effectiveDateTime: fhirDateTime(entry.raw.date),
		valueQuantity: amount,
		valueString: amount || !qt ? undefined : unit ? `${qt} ${unit}` : qt,
		interpretation: interpretation ? [textConcept(interpretation)] : undefined,
		note: annotations(entry.notes ? [entry.notes] : []),
	};
}
