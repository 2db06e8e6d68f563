/**
 * The slots answer of `GET /dr/v1/doctor/{id}/clinic/{id}/appointment/slot` ([EKA-DT]) as one record
 * per slot. Pure.
 */
import type { IDataObject } from 'n8n-workflow';

import { epochOfAnswer } from './appointmentRecords';
import { dateInZone, isoInZone } from '../timeZones';
import { firstText, isRecord } from '../values';

/** The longest range Get Slots accepts (one request per day). */
export const SLOTS_MAX_DAYS = 14;

interface SlotContext {
	clinicId: string;
	doctorId: string;
	/** The day asked for (YYYY-MM-DD): slots of other days in the answer are left out (the next request has them). */
	date: string;
	timeZone: string;
}

/**
 * `data.schedule[<clinic_id>]` is a list of service blocks with `slots[{s, e, available, conf_id, slots_booked?}]`
 * ([EKA-DT], [EKA-MCP]); [EKA-DT] names a block by `service_type`, [EKA-MCP] by `service_name`: both are read.
 * `services` (keyed by `conf_id`) adds price and currency. Undefined when the body is not that shape.
 */
export function readSlots(body: unknown, context: SlotContext): IDataObject[] | undefined {
	if (!isRecord(body) || !isRecord(body.data)) return undefined;
	const data = body.data;
	const schedule = data.schedule;
	if (schedule === undefined || schedule === null) return [];
	if (!isRecord(schedule)) return undefined;
	const services = isRecord(data.services) ? data.services : {};
	// The answer is keyed by the clinic; a single other key is read too (an answer for one clinic).
	const blocks =
		schedule[context.clinicId] ??
		(Object.keys(schedule).length === 1 ? Object.values(schedule)[0] : undefined);
	if (blocks === undefined || blocks === null) return [];
	const blockList = Array.isArray(blocks)
		? blocks
		: isRecord(blocks)
			? Object.values(blocks).flat()
			: undefined;
	if (!blockList) return undefined;
	const out: IDataObject[] = [];
	for (const block of blockList.filter(isRecord)) {
		const slots = Array.isArray(block.slots) ? block.slots.filter(isRecord) : [];
		for (const slot of slots) {
			const start = epochOfAnswer(slot.s);
			const end = epochOfAnswer(slot.e);
			if (start === null) continue;
			if (dateInZone(start, context.timeZone) !== context.date) continue;
			const confId = firstText(slot.conf_id) ?? null;
			const service =
				confId !== null &&
				Object.prototype.hasOwnProperty.call(services, confId) &&
				isRecord(services[confId])
					? (services[confId] as IDataObject)
					: {};
			out.push({
				doctor_id: context.doctorId,
				clinic_id: context.clinicId,
				date: context.date,
				start: isoInZone(start, context.timeZone),
				end: end === null ? null : isoInZone(end, context.timeZone),
				start_time: start,
				end_time: end,
				available: slot.available === true || slot.available === 'true',
				slots_booked: typeof slot.slots_booked === 'number' ? slot.slots_booked : null,
				conf_id: confId,
				service_name:
					firstText(block.service_name, block.service_type, service.service_name) ?? null,
				price: typeof service.price === 'number' ? service.price : (block.fee ?? null),
				currency: firstText(service.currency) ?? null,
				time_zone: context.timeZone,
			});
		}
	}
	return out.sort((a, b) => (a.start_time as number) - (b.start_time as number));
}
