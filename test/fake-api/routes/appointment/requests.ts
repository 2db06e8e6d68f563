/** What every appointment route does with a request: the token, the JSON body, and the error forms it answers with. */
import type { RouteContext } from '../../types';
import { isPlainObject } from '../transcription/store';

/** The `/dr` routes' error style and fault codes. */
export const DR = {
	errorStyle: 'envelope' as const,
	faultErrorCodes: { 400: 'INVALID_REQUEST_PARAMETERS', 404: 'NOT_FOUND', 500: 'SERVER_ERROR' },
};

/** The actions take no body ([EKA-DT]); none, or [EKA-MCP]'s empty object, is accepted. */
export function emptyBody(ctx: RouteContext): boolean {
	if (ctx.record.bodyLength === 0) return true;
	if (
		ctx.body?.isJsonMediaType &&
		isPlainObject(ctx.body.value) &&
		Object.keys(ctx.body.value).length === 0
	)
		return true;
	invalid(ctx, 'this action takes no body');
	return false;
}

export function jsonObject(ctx: RouteContext): Record<string, unknown> | undefined {
	const body = ctx.body;
	if (!body || !body.isJsonMediaType || !isPlainObject(body.value)) {
		invalid(ctx, 'body must be a JSON object sent as application/json');
		return undefined;
	}
	return body.value;
}

export function invalid(ctx: RouteContext, message: string): void {
	ctx.sendJson(400, { error: { code: 'INVALID_REQUEST_PARAMETERS', message }, data: {} });
}

export function flat(ctx: RouteContext, status: number, message: string): void {
	ctx.sendJson(status, { message });
}

/** `auth: <token>` or `Authorization: Bearer <token>`, and a matching client-id if sent; false after answering 401. */
export function authorised(ctx: RouteContext): boolean {
	const raw = ctx.req.headers.auth;
	const header = ctx.req.headers.authorization;
	const bearerToken = typeof header === 'string' ? /^Bearer (.+)$/.exec(header)?.[1] : undefined;
	return checkToken(ctx, typeof raw === 'string' ? raw : bearerToken);
}

export function bearer(ctx: RouteContext): boolean {
	const header = ctx.req.headers.authorization;
	const token = typeof header === 'string' ? /^Bearer (.+)$/.exec(header)?.[1] : undefined;
	if (!token) {
		ctx.sendJson(401, { message: 'Authorization: Bearer is required' });
		return false;
	}
	return checkToken(ctx, token);
}

function checkToken(ctx: RouteContext, token: string | undefined): boolean {
	const check = ctx.state.tokens.checkAccess(token);
	if (!check.valid) {
		ctx.sendJson(401, { error: { code: 'UNAUTHORIZED', message: 'token expired or invalid' } });
		return false;
	}
	const expectedClient =
		check.subject === 'static' ? ctx.state.credentials.clientId : check.subject.clientId;
	const sent = ctx.req.headers['client-id'];
	if (sent !== undefined && sent !== expectedClient) {
		ctx.sendJson(401, {
			error: { code: 'UNAUTHORIZED', message: 'client-id does not match the token' },
		});
		return false;
	}
	return true;
}
