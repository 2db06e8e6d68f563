/**
 * The EMR's medications ([EKA-EMR]: `{name, frequency: {dose: ["1","0","1"], period, period_unit,
 * frequency, custom: "1-0-1"}, instruction}`; dose and duration objects as [EKA-EMR-ADAPTER]
 * medications.js writes them) as MedicationRequests, active orders by the doctor ([EKA-FHIR]
 * Medications). The whole prescription line is always kept as the dosage's text; the structured
 * timing is added only when the EMR states it without contradiction (a "1-0-1" pattern beside
 * "3 times a day" is sent as text only), so no dose is ever sent that the doctor did not say. Pure.
 */
import type { Dosage, MedicationRequest, TimingRepeat } from '@medplum/fhirtypes';

import { asRecord, textOf } from '../values';
import { noteLines, type EmrEntry } from './emrDocument';
import type { EmrContext } from './emrContext';
import { annotations, textConcept } from './resources';
import { codeIn, UNITS_OF_TIME } from './valueSets';

const UCUM = 'http://unitsofmeasure.org';

type UnitOfTime = NonNullable<TimingRepeat['periodUnit']>;
type EventTiming = NonNullable<TimingRepeat['when']>[number];

/** Words for a unit of time → R4's units-of-time code (also UCUM's). */
const TIME_UNITS: Readonly<Record<string, UnitOfTime>> = {
	second: 's',
	seconds: 's',
	sec: 's',
	minute: 'min',
	minutes: 'min',
	hour: 'h',
	hours: 'h',
	hr: 'h',
	hrs: 'h',
	day: 'd',
	days: 'd',
	daily: 'd',
	week: 'wk',
	weeks: 'wk',
	month: 'mo',
	months: 'mo',
	year: 'a',
	years: 'a',
};

function timeUnit(value: unknown): UnitOfTime | undefined {
	const text = textOf(value)?.toLowerCase();
	if (!text) return undefined;
	return TIME_UNITS[text] ?? codeIn(UNITS_OF_TIME, text);
}

/** When to take it, where the words are clear → R4's event-timing codes. */
const WHEN: ReadonlyArray<[RegExp, EventTiming]> = [
	[/\bafter (food|meals?)\b/i, 'PC'],
	[/\bbefore (food|meals?)\b/i, 'AC'],
	[/\bwith (food|meals?)\b/i, 'C'],
	[/\b(at )?bed ?time\b/i, 'HS'],
];

const NUMBER = /^\d+(\.\d+)?$/;

export function medication(entry: EmrEntry, name: string, ctx: EmrContext): MedicationRequest {
	const raw = entry.raw;
	const dose = asRecord(raw.dose);
	const frequency = asRecord(raw.frequency);
	const duration = asRecord(raw.duration);
	const timing = textOf(raw.timing) ?? textOf(asRecord(raw.timing)?.custom);
	const doseText = textOf(dose?.custom) ?? joined(dose?.value, dose?.unit);
	const frequencyText = textOf(frequency?.custom) ?? textOf(raw.frequency);
	const durationText =
		textOf(duration?.custom) ?? joined(duration?.value, duration?.unit) ?? textOf(raw.duration);
	const sig = [doseText, frequencyText, timing, durationText && `for ${durationText}`]
		.filter(Boolean)
		.join(', ');
	const instruction = textOf(raw.instruction) ?? textOf(raw.instructions);

	const dosage: Dosage = {};
	if (sig) dosage.text = sig;
	if (instruction) dosage.patientInstruction = instruction;
	const repeat = { ...frequencyRepeat(name, frequency, ctx), ...durationBounds(duration) };
	const when = timing ? WHEN.find(([pattern]) => pattern.test(timing))?.[1] : undefined;
	if (when) repeat.when = [when];
	if (Object.keys(repeat).length > 0) dosage.timing = { repeat };
	const amount = textOf(dose?.value);
	const doseUnit = textOf(dose?.unit);
	if (amount && NUMBER.test(amount))
		dosage.doseAndRate = [
			{
				doseQuantity: doseUnit
					? { value: Number(amount), unit: doseUnit }
					: { value: Number(amount) },
			},
		];

	const generic = textOf(raw.generic_name);
	return {
		resourceType: 'MedicationRequest',
		status: 'active',
		intent: 'order',
		medicationCodeableConcept: textConcept(name),
		subject: ctx.patient,
		encounter: ctx.encounter,
		authoredOn: ctx.recorded,
		requester: ctx.practitioner,
		dosageInstruction: Object.keys(dosage).length > 0 ? [dosage] : undefined,
		note: annotations([
			generic && generic !== name ? `Generic name: ${generic}` : undefined,
			...noteLines(entry),
		]),
	};
}

function joined(value: unknown, unit: unknown): string | undefined {
	const amount = textOf(value);
	if (!amount) return undefined;
	const word = textOf(unit);
	return word ? `${amount} ${word}` : amount;
}

/** Doses a day in a "1-0-1" pattern (or its list form): how many are not zero. */
function dosesInPattern(frequency: Record<string, unknown> | undefined): number | undefined {
	const list = Array.isArray(frequency?.dose)
		? frequency.dose.map((part) => textOf(part) ?? '')
		: undefined;
	const parts =
		list ??
		(/^\d+(\.\d+)?(-\d+(\.\d+)?){1,4}$/.test(textOf(frequency?.custom) ?? '')
			? String(frequency?.custom).split('-')
			: undefined);
	if (!parts || parts.some((part) => !NUMBER.test(part))) return undefined;
	return parts.filter((part) => Number(part) > 0).length;
}

/** `frequency` times per `period` `period_unit`, when all three are stated and agree with the pattern. */
function frequencyRepeat(
	name: string,
	frequency: Record<string, unknown> | undefined,
	ctx: EmrContext,
): TimingRepeat {
	const times = textOf(frequency?.frequency);
	const period = textOf(frequency?.period);
	const unit = timeUnit(frequency?.period_unit);
	if (
		!times ||
		!/^\d+$/.test(times) ||
		Number(times) < 1 ||
		!period ||
		!NUMBER.test(period) ||
		Number(period) <= 0 ||
		!unit
	)
		return {};
	const pattern = dosesInPattern(frequency);
	if (pattern !== undefined && unit === 'd' && Number(period) === 1 && pattern !== Number(times)) {
		ctx.adjust(
			`medication "${name}": the pattern "${textOf(frequency?.custom) ?? ''}" and "${times} times a day" disagree, so the frequency is sent as text only`,
		);
		return {};
	}
	return { frequency: Number(times), period: Number(period), periodUnit: unit };
}

/** How long to take it: `boundsDuration` in UCUM time units, when the EMR gives a number and a unit. */
function durationBounds(duration: Record<string, unknown> | undefined): TimingRepeat {
	const value = textOf(duration?.value);
	const unit = timeUnit(duration?.unit);
	if (!value || !NUMBER.test(value) || !unit) return {};
	return {
		boundsDuration: {
			value: Number(value),
			unit: textOf(duration?.unit),
			system: UCUM,
			code: unit,
		},
	};
}
