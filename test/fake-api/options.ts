/** Runtime options: their start values and the checks every change (code or admin JSON) passes. */
import { DEFAULT_REFRESH_TOKEN_LIFETIME_SECONDS } from './fixtures';
import type { RuntimeOptions } from './types';

/** The options a server starts with, unless its FakeClinicApiOptions say otherwise. */
export const DEFAULT_RUNTIME_OPTIONS: Readonly<RuntimeOptions> = Object.freeze({
	variant: 'document',
	patientsForm: 'profiles',
	servicesForm: 'array',
	accessTokenLifetimeSeconds: null,
	refreshTokenLifetimeSeconds: DEFAULT_REFRESH_TOKEN_LIFETIME_SECONDS,
	rejectOtherTokenFlow: false,
	rotateRefreshTokens: false,
});

const RUNTIME_OPTION_CHECKS: { [K in keyof RuntimeOptions]: (v: unknown) => boolean } = {
	variant: (v) => v === 'document' || v === 'public',
	patientsForm: (v) => v === 'profiles' || v === 'patients',
	servicesForm: (v) => v === 'array' || v === 'object',
	accessTokenLifetimeSeconds: (v) => v === null || (Number.isInteger(v) && (v as number) >= 1),
	refreshTokenLifetimeSeconds: (v) => Number.isInteger(v) && (v as number) >= 1,
	rejectOtherTokenFlow: (v) => typeof v === 'boolean',
	rotateRefreshTokens: (v) => typeof v === 'boolean',
};

/** Validates a partial RuntimeOptions (from code or admin JSON); throws naming the bad field. */
export function validateOptionsPatch(patch: unknown): Partial<RuntimeOptions> {
	if (!isPlainObject(patch)) throw new Error('options must be an object');
	const out: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(patch)) {
		if (value === undefined) continue;
		const check = RUNTIME_OPTION_CHECKS[key as keyof RuntimeOptions];
		if (!check) throw new Error(`unknown option ${key}`);
		if (!check(value)) throw new Error(`invalid value for option ${key}: ${JSON.stringify(value)}`);
		out[key] = value;
	}
	return out as Partial<RuntimeOptions>;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}
