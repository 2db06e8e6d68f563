/** What the user should do next, for each failure the API is known to give. */
const ADVICE_BY_CODE: Record<string, string> = {
	UNAUTHORIZED_ACCESS:
		"The token's user or business lacks permission for this call. Ask your workspace admin to grant it, or use a credential of the business that owns the data.",
	PATIENTS_NOT_FOUND:
		'No patient with this mobile number is registered with the business. Only a full 10-digit number that is already registered can be found.',
	BUSINESS_NOT_FOUND:
		'No business matches the token. Check that the credential belongs to the right business and environment (production or sandbox).',
	SERVER_ERROR: 'The clinic API had an unexpected server error. Try again later; if it persists, contact the API provider.',
	// The fake API's code for a template the workspace does not have; the real service's is undocumented.
	invalid_template_id:
		'An output template is not one the workspace has (deleted, or a typo). Pick it from the Custom Template ID list, or see the IDs with Template → Get Many.',
	txn_limit_exceeded:
		"The workspace has used its daily transcription quota. Wait until tomorrow, or ask the API provider to raise the workspace's limit.",
};

const ADVICE_BY_STATUS: Record<number, string> = {
	400: 'The API rejected the request as invalid. Check the node parameters.',
	401: 'The API rejected the access token even after renewing it. Check the Clinic Scribe API credential (run its test), and that it belongs to this environment.',
	403: 'The credential is not allowed to do this. Check its permissions with your workspace admin.',
	404: 'The API found nothing at this address. Check the ids you passed and the credential environment.',
	408: 'The API timed out. Try again later.',
	409: 'The API reports a conflict with the current state.',
	422: 'The API says a required field is missing or invalid. Check the node parameters.',
	429: 'The API is rate limiting this workspace. Wait a while, or send fewer items at once.',
};

/** Codes come from the API: only own entries count ("constructor" is no advice). */
export function adviceFor(statusCode: number, code: string | undefined): string {
	if (code && Object.prototype.hasOwnProperty.call(ADVICE_BY_CODE, code)) return ADVICE_BY_CODE[code];
	if (Object.prototype.hasOwnProperty.call(ADVICE_BY_STATUS, statusCode)) return ADVICE_BY_STATUS[statusCode];
	if (statusCode >= 500) return ADVICE_BY_CODE.SERVER_ERROR;
	return 'Check the node parameters and the credential, then run again.';
}
