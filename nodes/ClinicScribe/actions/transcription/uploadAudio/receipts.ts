/**
 * What Upload Audio's output items say of an upload, whichever flow sent it: the ID under the name
 * Get Results and the trigger know it by, the file, the paired items, and the error items of
 * Continue On Fail. Each flow adds what its own requests answered (transactionFlow, sessionFlow).
 */
import type { IDataObject, INodeExecutionData, IPairedItemData } from 'n8n-workflow';

import { errorRecord } from '../../errorItems';
import type { PlannedFile } from './files';
import type { UploadPlan } from './plan';

/** Output items with the first input item each belongs to: the output follows the input's order. */
export type OrderedOutput = Array<{ order: number; data: INodeExecutionData }>;

/** The id under the name Get Results and the trigger know it by, and which flow it belongs to. */
export function idFields(plan: UploadPlan): IDataObject {
	return plan.settings.uploadMethod === 'session'
		? { session_id: plan.id, upload_method: 'session' }
		: { transaction_id: plan.id, upload_method: 'transaction' };
}

/** What every receipt says of its file and upload. */
export function fileFields(plan: UploadPlan, file: PlannedFile): IDataObject {
	return {
		...idFields(plan),
		file_name: file.fileName,
		original_file_name: file.originalFileName ?? null,
		binary_property: file.binaryProperty,
		file_size: file.size,
		content_type: file.contentType,
	};
}

/** One output item per file receipt, paired to the item the file came from. */
export function receiptItems(plan: UploadPlan, receipts: IDataObject[]): OrderedOutput {
	return receipts.map((json, index) => {
		const item = plan.files[index].itemIndex;
		return { order: item, data: { json, pairedItem: { item } } };
	});
}

export function pairedItems(plan: UploadPlan): IPairedItemData[] {
	return plan.itemIndexes.map((item) => ({ item }));
}

/** Under Continue On Fail: one error item per input item of the failed upload. */
export function errorItems(plan: UploadPlan, error: unknown): OrderedOutput {
	return plan.itemIndexes.map((item) => ({
		order: item,
		data: { json: { ...errorRecord(error), ...idFields(plan) }, pairedItem: { item } },
	}));
}
